-- Live logs (docs/architecture.md, "Live logs"). Both tables are UNLOGGED: what they hold is a copy, in flight, of
-- output an agent keeps on its disk; a crash of PostgreSQL empties them, followers reconnect and agents ship again.
-- Neither references another table, so that neither a job's retention nor a machine's removal waits on them; the
-- periodic cleanup removes what no one follows any more.

-- Who follows which stream of which attempt: a reader's row, renewed while its stream is open, gone at expires_at.
-- The scheduler tells an agent, in its heartbeat's answer, the streams of its attempts followed now.
create unlogged table log_follows (
    follower_id   uuid primary key,
    job_id        uuid not null,
    attempt       integer not null,
    stream        text not null check (stream in ('stdout', 'stderr')),
    machine_id    text not null,
    from_offset   bigint not null,
    registered_at timestamptz not null,
    expires_at    timestamptz not null
);
create index log_follows_by_machine on log_follows (machine_id, expires_at);
create index log_follows_by_stream on log_follows (job_id, attempt, stream);

-- Bytes of a followed stream as the agent pushed them, keyed by their offset in the stream (a push sent twice is
-- stored once), at most LogLimits.STORED_PER_STREAM per stream; eof marks the chunk that ends the stream.
create unlogged table log_chunks (
    job_id       uuid not null,
    attempt      integer not null,
    stream       text not null,
    start_offset bigint not null,
    data         bytea not null,
    eof          boolean not null,
    stored_at    timestamptz not null,
    primary key (job_id, attempt, stream, start_offset)
);
create index log_chunks_by_age on log_chunks (stored_at);
