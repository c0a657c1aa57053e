-- Live logs of every replica of a gang (issue 20): a gang's replicas are attempt rows of one attempt number, one per
-- machine, and their streams were keyed by (job, attempt, stream) alone: following a gang's logs read two attempt rows
-- where one was expected (a 500), and two replicas' bytes would have shared one offset space. The replica joins the
-- key; 0 for a job of one replica, as before. Both tables are UNLOGGED copies in flight: altering them is cheap.
alter table log_follows add column replica integer not null default 0;
drop index log_follows_by_stream;
create index log_follows_by_stream on log_follows (job_id, attempt, replica, stream);

alter table log_chunks add column replica integer not null default 0;
alter table log_chunks drop constraint log_chunks_pkey;
alter table log_chunks add primary key (job_id, attempt, replica, stream, start_offset);
