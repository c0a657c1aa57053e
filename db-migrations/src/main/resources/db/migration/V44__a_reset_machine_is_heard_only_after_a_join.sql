-- When an operator reset the machine (POST /api/v1/machines/{id}/reset: its credential forgotten, its incarnation
-- bumped): until an agent joins for it afresh, which clears this, no heartbeat is recorded for it. A scheduler
-- replica may still know the old credential from memory for one more heartbeat, and a stolen one may go on being
-- sent: neither may make the machine look alive, and so READY again, with no agent that can take its work.
alter table machines add column reset_at timestamptz;
