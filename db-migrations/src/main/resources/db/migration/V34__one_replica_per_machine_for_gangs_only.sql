-- One replica of a gang per machine (V27) needs an index over gangs' attempts only: an attempt of a job of one replica
-- (world_size 1, so replica 0) is unique by its key (job_id, attempt, replica) already. Each attempt's insert, and each
-- of its updates that is not HOT (every state change), wrote an entry into it: two of a W1 job's eighteen index
-- entries (docs/benchmarks.md, W1 "Session 24").
drop index attempts_one_replica_per_machine;
create unique index attempts_one_replica_per_machine on attempts (job_id, attempt, machine_id) where world_size > 1;
