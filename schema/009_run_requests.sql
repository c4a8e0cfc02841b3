-- iotape store, schema version 9: runs.requests, the number of the run's
-- rows in requests, written when the run is finished by the writer that
-- stored them all (NULL for a run stored before, or whose requests came in
-- more than one transaction): `iotape runs` lists it rather than counting a
-- run's rows each time (10,000 runs of 1,000 requests: ten million index
-- entries). A column added: a client of schema 8 goes on using the store
-- (min_client stays 8) and leaves it NULL.

ALTER TABLE runs ADD COLUMN requests bigint;
