-- The one schema of the platform. Postgres is the source of truth: every fact that matters for
-- correctness lives here and is guarded here (constraints), not only in code.

-- Tenants and their credentials ------------------------------------------------------------------
create table tenants (
    id              uuid primary key,
    name            text not null unique,
    weight          integer not null default 1 check (weight between 1 and 1000),
    quota_cpu_millis bigint check (quota_cpu_millis >= 0),
    quota_memory_mb bigint check (quota_memory_mb >= 0),
    quota_gpu_count integer check (quota_gpu_count >= 0),
    created_at      timestamptz not null
);

create table api_keys (
    id          uuid primary key,
    tenant_id   uuid not null references tenants (id),
    key_hash    bytea not null unique,          -- sha-256 of the key; the key itself is never stored
    role        text not null check (role in ('ADMIN', 'USER')),
    created_at  timestamptz not null,
    revoked_at  timestamptz
);

-- Jobs ---------------------------------------------------------------------------------------------
-- The spec is kept whole as jsonb; what placement and listing filter on is also a column.
create table jobs (
    id               uuid primary key,          -- UUIDv7: ordered by creation
    tenant_id        uuid not null references tenants (id),
    name             text not null,
    queue            text not null,
    priority         integer not null check (priority between 0 and 1000),
    spec             jsonb not null,
    state            text not null check (state in
                         ('SUBMITTED', 'QUEUED', 'SCHEDULED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED')),
    state_reason     text,
    version          bigint not null check (version >= 1),
    attempt          integer not null default 0,  -- number of the latest attempt, 0 before the first
    user_failures    integer not null default 0,  -- attempts spent by the user's failures
    infra_failures   integer not null default 0,  -- attempts spent by the platform's failures
    machine_id       text,
    exit_code        integer,
    failure_reason   text,
    cancel_requested boolean not null default false,
    not_before       timestamptz not null,        -- retry backoff and re-evaluation of unplaceable jobs
    cpu_millis       bigint not null check (cpu_millis > 0),
    memory_mb        bigint not null check (memory_mb > 0),
    gpu_count        integer not null check (gpu_count >= 0),
    gpu_type         text,
    region           text,
    idempotency_key  text check (length(idempotency_key) <= 128),
    request_hash     bytea,
    created_at       timestamptz not null,
    updated_at       timestamptz not null,
    finished_at      timestamptz
);
-- Idempotent submission: one job per tenant and key (jobs without a key cost this index nothing).
create unique index jobs_idempotency on jobs (tenant_id, idempotency_key) where idempotency_key is not null;
-- The claim query: queued jobs whose time has come, by priority then age.
create index jobs_claim on jobs (priority desc, id) where state = 'QUEUED';
-- Listing by tenant, newest first, with and without a state filter (keyset on id).
create index jobs_by_tenant on jobs (tenant_id, id desc);
create index jobs_by_tenant_state on jobs (tenant_id, state, id desc);
-- Sweeps: stuck SUBMITTED, jobs on machines.
create index jobs_live on jobs (state, updated_at) where state in ('SUBMITTED', 'SCHEDULED', 'RUNNING');

-- Every committed state change of a job, versions without gaps.
create table job_history (
    job_id     uuid not null references jobs (id),
    version    bigint not null,
    from_state text,
    to_state   text not null,
    reason     text,
    at         timestamptz not null,
    primary key (job_id, version)
);

-- Machines -----------------------------------------------------------------------------------------
-- Allocated never exceeds capacity in any dimension: the database refuses it, whatever the code does.
create table machines (
    id                   text primary key,
    region               text not null,
    labels               jsonb not null default '{}',
    gpu_type             text,
    cpu_millis           bigint not null check (cpu_millis >= 0),
    memory_mb            bigint not null check (memory_mb >= 0),
    gpu_count            integer not null check (gpu_count >= 0),
    alloc_cpu_millis     bigint not null default 0,
    alloc_memory_mb      bigint not null default 0,
    alloc_gpu_count      integer not null default 0,
    status               text not null check (status in ('READY', 'SUSPECT', 'LOST', 'DRAINING')),
    status_reason        text,
    incarnation          bigint not null default 0,
    credential_hash      bytea,
    last_heartbeat_at    timestamptz,
    joined_at            timestamptz not null,
    capacity_version     bigint not null default 0,  -- bumped whenever free capacity or the set changes
    constraint machine_cpu_fits check (alloc_cpu_millis between 0 and cpu_millis),
    constraint machine_memory_fits check (alloc_memory_mb between 0 and memory_mb),
    constraint machine_gpu_fits check (alloc_gpu_count between 0 and gpu_count)
);
create index machines_by_region on machines (region, status);
create unique index machines_by_credential on machines (credential_hash);

-- Attempts: one row per try of a job on a machine. At most one live attempt per job, enforced.
-- An attempt is also its allocation: what it holds on its machine (cpu_millis, memory_mb,
-- gpu_count) until released_at. The machine's alloc_* counters are the sum over its held attempts.
create table attempts (
    job_id           uuid not null references jobs (id),
    attempt          integer not null check (attempt >= 1),
    machine_id       text not null references machines (id),
    state            text not null check (state in ('SCHEDULED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED')),
    lease_epoch      bigint not null default 1,
    lease_expires_at timestamptz,
    scheduled_at     timestamptz not null,
    started_at       timestamptz,
    finished_at      timestamptz,
    exit_code        integer,
    failure_reason   text,
    log_tail_stdout  text,
    log_tail_stderr  text,
    cpu_millis       bigint not null check (cpu_millis > 0),
    memory_mb        bigint not null check (memory_mb > 0),
    gpu_count        integer not null check (gpu_count >= 0),
    released_at      timestamptz,
    primary key (job_id, attempt),
    check (released_at is null or state not in ('SCHEDULED', 'RUNNING'))
);
create unique index attempts_one_live_per_job on attempts (job_id) where state in ('SCHEDULED', 'RUNNING');
create index attempts_held_by_machine on attempts (machine_id) where released_at is null;

-- Events -------------------------------------------------------------------------------------------
-- The transactional outbox. Rows of one job are published in id order; a relay owns a shard
-- (hash of the key) at a time, so that two relays never reorder one job's events.
create table outbox (
    id           bigserial primary key,
    event_id     uuid not null,                -- time-ordered and random: unique by construction
    topic        text not null,
    key          text not null,
    shard        integer not null,
    payload      text not null,                -- the event's JSON, as published
    created_at   timestamptz not null,
    published_at timestamptz
);
create index outbox_unpublished on outbox (shard, id) where published_at is null;

-- The inbox: what each consumer has applied, written in the same transaction as the effect.
create table processed_events (
    consumer     text not null,
    event_id     uuid not null,
    processed_at timestamptz not null,
    primary key (consumer, event_id)
);
