-- The scheduler's claim reads QUEUED jobs in priority order and keeps those due (not_before <= now). A job that can
-- never fit is deferred (not_before 30 s ahead), and with not_before only in the table each claim fetched every
-- deferred job's row to drop it: a backlog of 20,000 such jobs (say, jobs asking for a GPU model the fleet does not
-- have, or any job while no machine is registered) cost PostgreSQL 47 ms per claim, and the scheduler claims at every
-- wake-up (docs/benchmarks.md, submit). With not_before in the index, a deferred job is passed over on its index
-- entry, and the order the claim reads in is unchanged. The price: a deferral (once per 30 s per never-fitting job)
-- is no longer a HOT update.
drop index jobs_claim;
create index jobs_claim on jobs (priority desc, id, not_before) where state = 'QUEUED';
