-- Fewer writes per job change. First: the rows a placement writes (attempts, history) no longer
-- check their foreign keys.
--
-- A foreign-key check takes a FOR KEY SHARE lock on the referenced row for every inserted row: on
-- the job (already locked FOR UPDATE by the same transaction) and on the machine (locked by every
-- scheduler worker placing there at once, so the lock becomes a multixact). Measured on 1,000,000
-- queued jobs (docs/benchmarks.md): the attempts insert took 32 ms per 1,000 with the checks and 14
-- without, the history insert 17 and 8, and the WAL per placement fell by a quarter.
--
-- What the checks guarded holds by construction: attempts and history rows are written only in the
-- transaction that holds the referenced job locked (the attempts from the rows the same transaction
-- just updated, on a machine it locked to check the room), and no job or machine row is ever
-- deleted. Tests check for orphans after concurrent placement (MultiReplicaSchedulingTest, ChaosTest).
-- The invariants that need the database (one live attempt per job, machines never over-committed,
-- history without gaps) keep their unique indexes and check constraints.
alter table attempts drop constraint attempts_job_id_fkey;
alter table attempts drop constraint attempts_machine_id_fkey;
alter table job_history drop constraint job_history_job_id_fkey;

-- Listing a tenant's jobs without a state filter merges one range scan of jobs_by_tenant_state per
-- state (JobStore.list), so the second listing index, written again at every change of every job
-- (a state change is never a HOT update), goes.
drop index jobs_by_tenant;
