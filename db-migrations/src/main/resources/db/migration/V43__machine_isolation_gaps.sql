-- What a sandboxing machine's agent said at join that its sandbox does not hold there (its probe at start found the
-- step refused, or nftables missing): 'cgroups', 'read-only-machine', 'own-user-namespace', 'own-session-keyring',
-- 'egress'. Null from agents that do not say; empty when it holds everything. Read by the machines API alone, never
-- by the scheduler's snapshots.
alter table machines add column isolation_gaps text[];
