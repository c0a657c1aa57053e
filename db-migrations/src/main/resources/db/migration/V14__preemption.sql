-- Preemption: the job a live attempt is ended for, set once by the scheduler that decided it (Preemptions, in
-- the engine). The agent is told to kill the attempt ("preempted"), or, not started yet, it is settled; it ends
-- FAILED with failure_reason PREEMPTED, retried on the platform's budget. Null for every other attempt.
alter table attempts add column preempted_by uuid;
-- the scheduler asks, per waiting preemptor, whether its victims are still ending
create index attempts_preempted_by on attempts (preempted_by) where preempted_by is not null and released_at is null;
