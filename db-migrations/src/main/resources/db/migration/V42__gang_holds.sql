-- The room a due gang holds without fitting whole (issue 20, docs/architecture.md "Starvation, both ways"): a replica's
-- amounts on each machine its plan found, until held_until. Every scheduler replica reads the rows with its machines
-- and counts the room as taken for jobs other than the gang, so that the batches other replicas claim (the jobs after
-- the gang's) do not take the machines it is collecting. A plan of the gang writes its rows again (or removes them,
-- placed or no longer holding); rows lapse by themselves. UNLOGGED: a hold is a few seconds' intent, never the truth.
create unlogged table gang_holds (
    job_id      uuid not null,
    machine_id  text not null,
    cpu_millis  bigint not null,
    memory_mb   bigint not null,
    gpu_count   integer not null,
    held_until  timestamptz not null,
    primary key (job_id, machine_id)
);
