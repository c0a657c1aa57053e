-- The Postgres limit for a job queue, 100 jobs per statement: insert 100 queued jobs, claim the
-- oldest 100 with SKIP LOCKED and mark them running, then complete 100 running ones. One
-- transaction of this script moves 100 jobs through their whole life.
begin;
insert into bench_jobs (state, payload) select 'QUEUED', '{"cpu": 1}' from generate_series(1, 100);
with c as (select id from bench_jobs where state = 'QUEUED' order by id limit 100 for update skip locked)
update bench_jobs j set state = 'RUNNING' from c where j.id = c.id;
with c as (select id from bench_jobs where state = 'RUNNING' order by id limit 100 for update skip locked)
update bench_jobs j set state = 'DONE' from c where j.id = c.id;
commit;
