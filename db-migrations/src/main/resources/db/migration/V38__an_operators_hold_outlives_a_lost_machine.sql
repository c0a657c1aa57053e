-- What an operator set on a machine (CORDONED or DRAINING, and why) until they uncordon it, apart from its status: the
-- reconciler declares a silent machine LOST over any status, and the status alone could not tell what it came back to.
-- A cordoned machine that restarted (silent past the lost TTL) came back READY and took work again.
alter table machines
    add column operator_status text check (operator_status in ('CORDONED', 'DRAINING')),
    add column operator_reason text;

update machines set operator_status = status, operator_reason = status_reason
where status_source = 'operator' and status in ('CORDONED', 'DRAINING');
