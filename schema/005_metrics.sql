-- iotape store, schema version 5: the workload's own numbers per run (issue
-- 15 item 11): what the workload said about itself (fio's JSON results,
-- dd's final line, a --metric regex over its output) or what a user set by
-- hand (`iotape metric RUN NAME=VALUE`), so runs can be tabled by the
-- workload's own throughput or time. A command's real/user/sys seconds stay
-- in commands; the store reads them back as metrics of source 'time'
-- (store_metrics_get()), and a row here of the same name wins.
--   name    as the source names it: fio's (read_iops, read_bw_bytes,
--           read_clat_ns_p99), dd's (dd_bytes, dd_s, dd_bytes_per_s), the
--           --metric NAME; "cmdN_" before it for command N of several
--   value   the number, in unit
--   unit    "bytes", "s", "ns", "bytes/s", "IO/s", or as the user gave it;
--           NULL: a plain number
--   source  where it came from

CREATE TABLE metrics (
	run    bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	name   text{postgresql: COLLATE "C"} NOT NULL,
	value  double precision NOT NULL,
	unit   text,
	source text NOT NULL
	       CHECK (source IN ('time', 'fio', 'dd', 'regex', 'manual')),
	PRIMARY KEY (run, name)
);
