-- The highest priority a tenant's jobs may ask for (null: any, 0-1000). Priority orders the claim before fair share
-- and decides preemption, so an operator keeps tenants from outranking each other by setting it.
alter table tenants add column quota_max_priority integer check (quota_max_priority between 0 and 1000);
