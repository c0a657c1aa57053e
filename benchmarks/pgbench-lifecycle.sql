-- The Postgres limit for a job queue, one job per transaction: insert a queued job, claim the
-- oldest queued one with SKIP LOCKED and mark it running, then complete the job just claimed.
-- One transaction of this script moves one job through its whole life (compare
-- pgbench-lifecycle-batched.sql, 100 jobs per statement). Tables: pgbench-setup.sql.
begin;
insert into bench_jobs (state, payload) values ('QUEUED', '{"cpu": 1}');
with c as (select id from bench_jobs where state = 'QUEUED' order by id limit 1 for update skip locked)
update bench_jobs j set state = 'RUNNING' from c where j.id = c.id returning j.id as claimed \gset
update bench_jobs set state = 'DONE' where id = :claimed;
commit;
