-- gpu_holds without foreign keys, as attempts and job_history since V2: a foreign-key check takes FOR KEY SHARE
-- on the referenced machine row for every hold inserted, and both scheduler workers lock the same machine rows
-- in their commits, so the row lock became a multixact and the commits waited on each other (W3 in
-- docs/benchmarks.md). A hold is written only by the transaction that inserts its attempt, under the machine's
-- row lock, and deleted where the attempt's allocation is released; the tests look for orphans.
alter table gpu_holds drop constraint gpu_holds_machine_id_fkey;
alter table gpu_holds drop constraint gpu_holds_job_id_attempt_fkey;
