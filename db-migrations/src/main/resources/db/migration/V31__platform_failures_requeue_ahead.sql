-- A job whose attempt the platform lost (its machine died, its agent restarted, it was preempted) goes back to the
-- queue ahead of the jobs of its priority that the platform did not fail, as an operator expects of work taken
-- away: the claim's order was priority, then submission, so in a full fleet such a job waited behind every job
-- submitted before it (77 s behind 382 queued jobs in the long chaos run of 948f756). A user's retry keeps its place
-- by submission. The claim reads in the index's order: priority, then requeued_ahead, then id.
alter table jobs add column requeued_ahead boolean not null default false;
drop index jobs_claim;
create index jobs_claim on jobs (priority desc, requeued_ahead desc, id, not_before) where state = 'QUEUED';
