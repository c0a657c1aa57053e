-- A job's history row is now also its event: the relay publishes job_history in position order from a cursor
-- (event_relay), instead of a second row per change in outbox that it then deleted. Each change wrote its facts
-- twice (the history row, and the event's JSON with the same facts in outbox), and each event cost an insert, a
-- delete and a vacuum besides.
--
-- event_id, event_type and event_data are what the event has beyond the history row (its tenant is the job's).
-- Rows written before this migration have no event_id: they were published through outbox, and the relay skips them.
alter table job_history add column event_id uuid, add column event_type text, add column event_data text;

-- Where the relay is: every event at a position up to here has been published (or was never one). One row; a relay
-- holds it locked for the transaction of a batch, which is what keeps two relays from publishing side by side.
create table event_relay (
    id       integer primary key check (id = 1),
    position bigint not null
);

-- Events still waiting in outbox move onto their history rows, and the cursor starts before the first of them;
-- rows between that were published already are skipped by having no event_id.
update job_history h
set event_id = cast(o.payload::json ->> 'eventId' as uuid),
    event_type = o.payload::json ->> 'type',
    event_data = nullif(nullif(o.payload::json ->> 'data', '{}'), 'null')
from outbox o
where o.topic = 'jobs.events'
  and h.job_id = cast(o.payload::json ->> 'jobId' as uuid)
  and h.version = cast(o.payload::json ->> 'jobVersion' as bigint);

insert into event_relay (id, position)
select 1, coalesce((select min(position) - 1 from job_history where event_id is not null),
                   (select max(position) from job_history), 0);

delete from outbox o
using job_history h
where h.event_id = cast(o.payload::json ->> 'eventId' as uuid)
  and h.job_id = cast(o.payload::json ->> 'jobId' as uuid);

-- outbox stays for a rolling upgrade: replicas of the version before write their events there until they are
-- replaced, and the relay drains what they left. A later migration drops it.
comment on table outbox is 'written only by versions before V33; the relay drains what they left';

-- The relay's rule needs positions handed out in time order: a position below one it has seen committed belongs to
-- a transaction that had started writing before that commit. A cached sequence would hand each session a block.
alter sequence job_history_position_seq cache 1;
