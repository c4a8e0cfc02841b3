-- iotape store on PostgreSQL, schema version 5: as schema/005_metrics.sql,
-- the workload's own numbers per run (fio's JSON results, dd's last line,
-- --metric regexes, `iotape metric`); a command's real/user/sys seconds stay
-- in commands and are read back as metrics of source 'time'.

CREATE TABLE metrics (
	run    bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	name   text COLLATE "C" NOT NULL,
	value  double precision NOT NULL,
	unit   text,
	source text NOT NULL
	       CHECK (source IN ('time', 'fio', 'dd', 'regex', 'manual')),
	PRIMARY KEY (run, name)
);
