-- Why a queued job was left unplaced, as the scheduler's type says it (Unplaced.Kind), beside the
-- sentence in state_reason: readers that act on the kind (waking the jobs a fleet change may place)
-- read this column instead of matching the sentence. Null when the job was not deferred, and cleared
-- by every state change, as its reason is rewritten.
alter table jobs add column unplaced_kind text
    check (unplaced_kind in ('DOES_NOT_FIT_NOW', 'CAN_NEVER_FIT', 'OVER_QUOTA'));

-- Jobs waiting out a "fits nowhere" backoff now, which were recognised by their reason until this
-- version; only those have a backoff without a retry (a one-time reading of the sentence).
update jobs set unplaced_kind = 'CAN_NEVER_FIT'
where state = 'QUEUED' and not_before > now()
  and (state_reason like '0 of %' or state_reason = 'no machines are registered');
