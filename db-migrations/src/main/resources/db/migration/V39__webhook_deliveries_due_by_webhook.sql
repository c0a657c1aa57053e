-- The dispatcher claims a few due deliveries of each webhook in turn (one slow receiver holds only its own), so it
-- looks for a webhook's due deliveries, oldest first.
create index webhook_deliveries_due_by_webhook on webhook_deliveries (webhook_id, next_at);
drop index webhook_deliveries_due;
