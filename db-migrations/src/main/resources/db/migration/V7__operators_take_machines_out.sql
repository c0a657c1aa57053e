-- Operators take machines out of placement and put them back (drain, cordon, uncordon). What an operator
-- decided outlives the agent: a join puts a machine back READY only where the platform took it out.
-- auto_drained_at bounds the platform's own drains: at most a share of a region's machines per hour.
alter table machines drop constraint machines_status_check;
alter table machines add constraint machines_status_check
    check (status in ('READY', 'SUSPECT', 'LOST', 'DRAINING', 'CORDONED'));
alter table machines add column status_source text not null default 'platform'
    check (status_source in ('platform', 'operator'));
alter table machines add column auto_drained_at timestamptz;
