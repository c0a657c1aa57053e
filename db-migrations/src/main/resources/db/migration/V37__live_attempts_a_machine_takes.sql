-- The most attempts a machine runs at once, however little each asks for (its agent's word at its join, or the
-- scheduler's default), and how many it runs now, counted like its allocated resources: placement takes one, an
-- ended attempt gives it back, the reconciler's repair recounts.
alter table machines
    add column max_live_attempts integer not null default 256 check (max_live_attempts >= 1),
    add column live_attempts integer not null default 0 check (live_attempts >= 0);

update machines m set live_attempts = h.n
from (select machine_id, count(*) as n from attempts where released_at is null group by machine_id) h
where h.machine_id = m.id;
