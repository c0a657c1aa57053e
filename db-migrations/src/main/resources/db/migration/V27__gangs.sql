-- Gangs (issue 20): a job of N replicas is placed whole or not at all. Each replica is an attempt row of its own,
-- under the job's one attempt number: the key becomes (job, attempt, replica), and the one-live-attempt guard
-- becomes one live attempt per (job, replica). A job of one replica is replica 0 of a world of 1, as before.
alter table jobs add column replicas integer not null default 1 check (replicas between 1 and 64);
alter table jobs add column gang_scope text;

alter table attempts add column replica integer not null default 0 check (replica >= 0);
alter table attempts add column world_size integer not null default 1 check (world_size >= 1 and replica < world_size);
-- host:port of every replica, by rank, comma-separated: what the agent shows the process as FLEETJOBS_PEERS
alter table attempts add column peers text;
-- set on the live replicas of a gang one of whose replicas failed: the agent is told to kill them, and they end
-- FAILED with GANG_MEMBER_FAILED (the job is retried, or fails, as a whole once every replica has ended)
alter table attempts add column gang_failed boolean not null default false;
alter table attempts drop constraint attempts_pkey;
alter table attempts add primary key (job_id, attempt, replica);
drop index attempts_one_live_per_job;
create unique index attempts_one_live_per_replica on attempts (job_id, replica) where state in ('SCHEDULED', 'RUNNING');
-- one replica per machine: the replicas of a gang listen on one port, and an agent knows an attempt by (job, attempt)
create unique index attempts_one_replica_per_machine on attempts (job_id, attempt, machine_id);

-- where the machine's jobs can be reached by their peers (a host name or address the agent reports at join)
alter table machines add column address text;
