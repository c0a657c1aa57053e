-- A real fencing token: every lease (each placement of a job makes a new attempt, leased once) takes its epoch
-- from one sequence, so no two leases share one and a later lease of a job always has a larger epoch than an
-- earlier one. A report is applied only with the epoch of the attempt it names (ReportFence), so a report
-- composed from what jobs.events shows (job id, attempt number) does not name a lease. No cache: values are
-- handed out in order across sessions, as a fencing token must be.
create sequence lease_epochs as bigint start with 1000 no cycle;
alter table attempts alter column lease_epoch drop default;
