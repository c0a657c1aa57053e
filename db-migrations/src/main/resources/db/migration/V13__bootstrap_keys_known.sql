-- The key made from JOBS_BOOTSTRAP_ADMIN_TOKEN is known as such, so that a service started with another value
-- (or job-service without one) revokes the keys the variable made before: an operator who changes or removes
-- the variable has no old admin key left working. Keys installed before this migration are not known as
-- bootstrap keys; revoke them by id if the variable was ever changed.
alter table api_keys add column bootstrap boolean not null default false;
