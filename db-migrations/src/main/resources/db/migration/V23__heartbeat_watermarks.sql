-- How far each scheduler replica's heartbeat writer has written what it heard: every heartbeat it received before
-- heard_until is in machines.last_heartbeat_at. The reconciler judges silence as of the slowest live replica's
-- watermark, not as of now, so that a control plane too busy to write what it heard never makes a healthy fleet
-- look silent (the evidence would be its own lag, not the machines').
create table heartbeat_watermarks (
    replica     text primary key,
    heard_until timestamptz not null,
    written_at  timestamptz not null
);
