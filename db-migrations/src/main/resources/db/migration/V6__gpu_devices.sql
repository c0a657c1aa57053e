-- GPUs as devices, not only a count. A machine lists the devices it offers (index, uuid, model, memory), and
-- each device is held by at most one live attempt: the primary key refuses a device held twice, as the
-- machines' check constraints refuse over-commit. A hold lives while its attempt holds its allocation and is
-- deleted in the statement group that releases it; the attempt keeps the indices it held, for the API.
alter table machines add column gpu_devices jsonb not null default '[]';
alter table attempts add column gpu_indices integer[];

create table gpu_holds (
    machine_id text    not null references machines (id),
    gpu_index  integer not null check (gpu_index >= 0),
    job_id     uuid    not null,
    attempt    integer not null,
    primary key (machine_id, gpu_index),
    foreign key (job_id, attempt) references attempts (job_id, attempt)
);
create index gpu_holds_by_attempt on gpu_holds (job_id, attempt);
