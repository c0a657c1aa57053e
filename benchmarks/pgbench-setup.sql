create table if not exists bench_jobs (id bigserial primary key, state text not null, payload jsonb not null);
create index if not exists bench_jobs_queued on bench_jobs (id) where state = 'QUEUED';
create index if not exists bench_jobs_running on bench_jobs (id) where state = 'RUNNING';
