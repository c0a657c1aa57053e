-- Webhooks: a tenant's URLs told of its jobs' changes. The events come from Kafka (jobs.events) into
-- webhook_deliveries, one row per webhook and event (the key dedupes a redelivered event), which the
-- dispatcher sends, retries with backoff, and deletes once answered 2xx or given up: the table holds only
-- what waits. What a person needs to see of a webhook's health stays on its row (last status, error, times).
alter table tenants add column allow_private_webhooks boolean not null default false;

create table webhooks (
    id                uuid primary key,
    tenant_id         uuid not null references tenants (id),
    url               text not null,
    events            text not null check (events in ('terminal', 'all')),
    secret            text not null,           -- the HMAC key: kept in clear, as signing needs it
    created_at        timestamptz not null,
    last_status       integer,                 -- HTTP status of the last try; 0: no answer; null: none yet
    last_error        text,
    last_attempt_at   timestamptz,
    last_delivered_at timestamptz,
    given_up          bigint not null default 0 -- deliveries dropped after their last retry
);
create index webhooks_by_tenant on webhooks (tenant_id);

create table webhook_deliveries (
    webhook_id uuid not null references webhooks (id) on delete cascade,
    event_id   uuid not null,
    payload    text not null,
    tries      integer not null default 0,
    next_at    timestamptz not null,
    created_at timestamptz not null,
    primary key (webhook_id, event_id)
);
create index webhook_deliveries_due on webhook_deliveries (next_at);
