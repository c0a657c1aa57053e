-- The activity of the last hour (GET /api/v1/activity) reads job_history by time. Rows arrive in time order, so a
-- BRIN index (a few pages, next to free to keep up on the hot path) finds the last hour's without a scan.
create index job_history_at on job_history using brin (at);
