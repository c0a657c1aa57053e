-- Room on each page for the new versions of its rows. A job's row is updated three times or more
-- on its way (SCHEDULED, RUNNING, a terminal state) and an attempt's twice. An update that finds
-- room on the row's own page logs only the bytes that changed (PostgreSQL's prefix and suffix
-- compression of the new version), while one that must move to another page logs the whole row,
-- spec and all. Pages filled to the brim by inserts make nearly every update a move: measured on W1
-- (docs/benchmarks.md), the updates of jobs logged about 510 bytes each.
--
-- Applies to pages written from now on; existing rows keep their pages until they are updated.
alter table jobs set (fillfactor = 70);
alter table attempts set (fillfactor = 80);
