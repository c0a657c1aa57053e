-- A quota on a tenant's live jobs (every state but SUCCEEDED, FAILED, CANCELED): null is unlimited. A submit over it
-- is refused (429) and writes nothing; it is counted under the tenant row's lock (JobSubmissions), so concurrent
-- submits of one tenant cannot pass it together.
alter table tenants add column quota_max_live_jobs integer check (quota_max_live_jobs >= 0);

-- Retention: finished jobs older than the retention are deleted in batches by the reconciler (RetentionStore),
-- oldest first, with their attempts, history and GPU holds; processed events past it go too. The deletes find
-- their rows by these indexes instead of scanning the tables. (Built in the migration's transaction: on a large
-- jobs table, create them concurrently by hand before upgrading; "if not exists" then skips them here.)
create index if not exists jobs_finished on jobs (finished_at) where state in ('SUCCEEDED', 'FAILED', 'CANCELED');
create index if not exists processed_events_by_age on processed_events (processed_at);
