-- When each API key was last used, as the gateway saw it: written in batches, at most about once a minute per key
-- (KeyUse in api-gateway), so it is late by up to that much and costs the request path nothing.
alter table api_keys add column last_used_at timestamptz;
