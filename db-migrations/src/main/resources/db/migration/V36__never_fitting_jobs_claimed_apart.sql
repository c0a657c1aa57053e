-- Jobs waiting out a "fits nowhere" backoff (unplaced_kind CAN_NEVER_FIT: asking for a GPU model the fleet lacks,
-- larger than every machine or than their tenant's whole quota, or any job while no machine is registered) leave
-- the claim's index: the claim read jobs_claim in priority order and passed over each deferred entry on the index
-- (V29), so every claim walked the whole backlog of such jobs (581 index pages a claim, 5.9 ms of PostgreSQL, at the
-- end of a 2-minute submit run with no machine). They are claimed apart, by when their backoff ends, from an index
-- of their own; a job's deferral writes an entry in one of the two indexes as it did in the one.
drop index jobs_claim;
create index jobs_claim on jobs (priority desc, requeued_ahead desc, id, not_before)
    where state = 'QUEUED' and unplaced_kind is distinct from 'CAN_NEVER_FIT';
-- By when the backoff ends, then in the claim's order: a machine joining wakes every such job at one instant.
create index jobs_never_fit_due on jobs (not_before, priority desc, requeued_ahead desc, id)
    where state = 'QUEUED' and unplaced_kind = 'CAN_NEVER_FIT';
