-- How a machine's agent holds its attempts apart, as it said at join: 'sandbox' (own uid, pid, mount and IPC
-- namespaces, a cgroup each) or 'none'; null for agents that did not say. Jobs may require a sandbox
-- (placement.requireIsolation).
alter table machines add column isolation text check (isolation in ('sandbox', 'none'));
