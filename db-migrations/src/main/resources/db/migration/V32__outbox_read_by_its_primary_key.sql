-- The relay now reads the oldest rows of every shard it holds in one statement (OutboxRelay: one transaction and one
-- commit a batch, where it had one a shard), in id order: PostgreSQL answers it by walking the primary key from the
-- oldest row and stops at the batch. Since V3 published_at is null in every row, so outbox_unpublished (shard, id)
-- holds every row the primary key holds; the read no longer needs it, and each event writes one index entry fewer.
drop index outbox_unpublished;
