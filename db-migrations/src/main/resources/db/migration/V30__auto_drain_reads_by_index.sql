-- The reconciler's auto-drain reads, at each sweep, the READY machines that ended an attempt with a platform failure
-- lately, then each such machine's last ended attempts. Neither had an index: the first walked every attempt, the
-- second every attempt of the machine (97 ms and 47 ms a call in a W1 profile at 50,000 jobs, growing with the table
-- until retention deletes it; docs/benchmarks.md). The first index holds platform failures only (few); the second
-- an entry per ended attempt, in the order the read wants them.
create index attempts_platform_failures on attempts (finished_at)
    where failure_reason in ('START_FAILED', 'MACHINE_LOST', 'LEASE_EXPIRED');
create index attempts_ended_by_machine on attempts (machine_id, finished_at desc nulls last)
    where state not in ('SCHEDULED', 'RUNNING');
