-- The outbox relay now deletes the rows Kafka has acknowledged, in the transaction that read them,
-- instead of setting published_at (OutboxRelay). A mark wrote a new version of the row, payload and
-- all, and a new primary-key entry, and the table grew without end; measured on W1
-- (docs/benchmarks.md), the outbox was a third of the WAL a job writes. The lasting record of a job's
-- changes is job_history.
--
-- published_at stays, null in every row from now on, so that the partial index outbox_unpublished
-- and the queries on it keep their meaning across a rolling upgrade. Rows marked by earlier versions go.
delete from outbox where published_at is not null;
comment on column outbox.published_at is 'always null since V3: a published row is deleted';
