-- The heartbeat cadence the control plane gives agents, set for the fleet's size (HeartbeatCadence): one row,
-- written by the scheduler's replicas when the fleet's size moves the cadence, read by every replica before it
-- answers agents and by the reconciler, which judges silence against the longest lease any agent may still hold:
-- the previous one, until every lease it granted has ended (changed_at + previous_lease_ttl_ms + the time a replica
-- may still hand out the old value).
create table heartbeat_cadence (
    id                    integer primary key check (id = 1),
    interval_ms           bigint not null check (interval_ms > 0),
    lease_ttl_ms          bigint not null check (lease_ttl_ms > interval_ms),
    previous_lease_ttl_ms bigint not null,
    changed_at            timestamptz not null
);
