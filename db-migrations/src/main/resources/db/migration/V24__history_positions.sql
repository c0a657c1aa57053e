-- Every job_history row gets a position: one sequence for all jobs, so that a live event stream has one cursor
-- (the SSE event id, Last-Event-ID) for a job or a whole tenant. A job's rows are written under its row lock, one
-- change after another, so their positions rise as their versions do. A position is taken at insert and becomes
-- visible at commit: two transactions may commit out of order, which the event feed allows for (EventCursor).
create sequence job_history_position_seq;

alter table job_history add column position bigint;

-- the rows already there, in the order they were written
with ordered as (
    select job_id, version, row_number() over (order by at, job_id, version) as n from job_history
)
update job_history h set position = o.n from ordered o where h.job_id = o.job_id and h.version = o.version;

select setval('job_history_position_seq', coalesce((select max(position) from job_history), 0) + 1, false);

alter table job_history alter column position set default nextval('job_history_position_seq');
alter table job_history alter column position set not null;
alter sequence job_history_position_seq owned by job_history.position;

create unique index job_history_by_position on job_history (position);
