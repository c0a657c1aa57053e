-- A job's tenant is not checked by a foreign key. The check took FOR KEY SHARE on the tenant's row at every submit,
-- and a tenant's concurrent submits all lock the same row: the lock became a multixact, created again for every
-- submit that joined it, with its WAL and a write of the tenant's page (the foreign keys of attempts and history went
-- for the same reason in V2). What it guarded holds by construction: a job is inserted only with the tenant of a
-- caller the gateway authenticated (an identity it signed, naming a tenant it read), and no tenant row is ever
-- deleted.
alter table jobs drop constraint jobs_tenant_id_fkey;
