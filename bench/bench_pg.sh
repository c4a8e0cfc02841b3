# bench/bench_pg.sh: the PostgreSQL store against SQLite, on a private server
# (tests/lib.sh pg_start; fsync off, as a scratch server): `import` of the bench
# trace into each, `push` of the SQLite run (rows per second: events + requests +
# every other row copied), `report` from each, and `fleet` over 1,000 runs: from
# their summaries (run_summary, what fleet reads) against the exact p99 scanned
# from their requests in the server (the query fleet ran before schema 7), with
# the summaries' back-fill timed apart. Run by bench/bench.sh after it
# cached the trace; alone: BENCH_DIR=... IOTAPE=... bash bench/bench_pg.sh.
# Skipped (one line) without the server binaries.

. "$(dirname "$0")/../tests/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench}
TRACE=$BENCH_DIR/trace.bin
REPS=${BENCH_REPS:-3}

if ! [ -x "$PG_BIN/initdb" ]; then
	echo "postgresql: skipped (no server binaries in $PG_BIN; make deps)"
	exit 0
fi
[ -s "$TRACE" ] || { echo "bench_pg: no $TRACE (run make bench)" >&2; exit 1; }
# a query over every run's partitions locks each (and its key) until it ends:
# 1000 runs need more than the default lock table (README, "fleet")
PG_OPTS="-c max_locks_per_transaction=256" pg_start ||
	{ echo "bench_pg: cannot start PostgreSQL" >&2; exit 1; }
DB=$TEST_TMP/pg.db

# wall CMD...: the wall time of CMD in seconds (its output dropped)
wall() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" > /dev/null 2> "$TEST_TMP/err" || { cat "$TEST_TMP/err" >&2; return 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
# med V...: the median
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

isq=() ipg=() push=() rsq=() rpg=()
for ((i = 0; i < REPS; i++)); do
	rm -f "$DB"
	[ $i = 0 ] || "$IOTAPE" rm --db "$PG_URL" --force '*' > /dev/null || exit 1
	isq+=("$(wall "$IOTAPE" import --quiet --db "$DB" --run b "$TRACE")") || exit 1
	ipg+=("$(wall "$IOTAPE" import --quiet --db "$PG_URL" --run b "$TRACE")") || exit 1
	push+=("$(wall "$IOTAPE" push --db "$DB" --to "$PG_URL" b)") || exit 1
done
rows=$(pg_psql "SELECT (SELECT count(*) FROM events e JOIN runs r ON r.id = e.run WHERE r.name LIKE '%:b')
	+ (SELECT count(*) FROM requests q JOIN runs r ON r.id = q.run WHERE r.name LIKE '%:b')")
for ((i = 0; i < REPS; i++)); do
	rsq+=("$(wall "$IOTAPE" report --db "$DB" b)") || exit 1
	rpg+=("$(wall "$IOTAPE" report --db "$PG_URL" b)") || exit 1
done
# fleet over 1000 runs of 1000 requests each (made in SQL: 1 M requests). From
# schema 6 on each run's partitions are made with it (iotape_run_tables and
# iotape_run_attach), 100 runs a transaction (each table holds a lock until the
# commit: max_locks_per_transaction); the first command that opens the store
# then gives them their summaries, as it does a store's runs from before schema
# 7 (the same code that summarises a run landing)
pg_psql "INSERT INTO runs (name, kind, created_ns, host)
	SELECT 'f' || g, 'import', (extract(epoch FROM now()) * 1e9)::bigint, 'h' || (g % 50)
	FROM generate_series(1, 1000) g" > /dev/null || exit 1
for ((k = 0; k < 1000; k += 100)); do
	pg_psql "DO \$\$ BEGIN IF to_regproc('iotape_run_tables') IS NOT NULL THEN
		PERFORM iotape_run_tables(id), iotape_run_attach(id) FROM runs
		WHERE name ~ '^f[0-9]+\$' AND substr(name, 2)::int BETWEEN $k + 1 AND $k + 100;
		END IF; END \$\$" > /dev/null || exit 1
done
pg_psql "INSERT INTO requests (run, id, dev, sector, bytes, rwbs, cats, pid, q_ns, d_ns, c_ns, d_head, d_bytes)
	SELECT r.id, k, 7340032, k * 8, 4096, CASE WHEN k % 3 = 0 THEN 'W' ELSE 'R' END, 0, 1,
		k * 100000, k * 100000 + 1000, k * 100000 + 1000 + (hashint8(r.id * 1000 + k) & 65535) * 100,
		1, 4096
	FROM runs r, generate_series(1, 1000) k WHERE r.name LIKE 'f%'" > /dev/null || exit 1
pg_psql "ANALYZE" > /dev/null || exit 1
bf=$(wall "$IOTAPE" runs --db "$PG_URL") || exit 1
[ "$(pg_psql "SELECT count(DISTINCT run) FROM run_summary")" -ge 1000 ] ||
	{ echo "bench_pg: the 1000 runs got no summaries" >&2; exit 1; }
# the exact p99 over the runs' requests, as fleet computed it before schema 7
scan="SELECT r.id, r.name, r.host, r.kernel, r.created_ns, count(*),
	percentile_disc(0.99) WITHIN GROUP (ORDER BY q.c_ns - q.q_ns) / 1e3::float8 AS v
	FROM runs r JOIN requests q ON q.run = r.id
	WHERE r.created_ns >= (extract(epoch FROM now() - interval '7 days') * 1e9)::bigint
	AND strpos(q.rwbs, 'R') > 0 AND q.bytes > 0 AND q.q_ns IS NOT NULL AND q.c_ns IS NOT NULL
	GROUP BY r.id ORDER BY v DESC, r.id LIMIT 20"
fl=() fs=()
for ((i = 0; i < REPS; i++)); do
	fs+=("$(wall pg_psql "$scan")") || exit 1
	fl+=("$(wall "$IOTAPE" fleet --db "$PG_URL" --worst read_q2c_p99 --since 7d)") || exit 1
done
awk -v events="$(sed -n 's/^events=//p' "$BENCH_DIR/trace.meta")" -v rows="$rows" \
	-v reps="$REPS" -v pgv="$("$PG_BIN/postgres" -V)" \
	-v isq="$(med "${isq[@]}")" -v ipg="$(med "${ipg[@]}")" -v ps="$(med "${push[@]}")" \
	-v rsq="$(med "${rsq[@]}")" -v rpg="$(med "${rpg[@]}")" -v fl="$(med "${fl[@]}")" \
	-v fs="$(med "${fs[@]}")" -v bf="$bf" '
BEGIN {
	printf "\nPostgreSQL store (%s, private server, fsync off), median of %d runs:\n", pgv, reps
	printf "%-40s %8s %12s\n", "task", "wall s", "rows/s"
	printf "%-40s %8.2f %12.0f\n", "iotape import into SQLite", isq, events / isq
	printf "%-40s %8.2f %12.0f\n", "iotape import into PostgreSQL", ipg, events / ipg
	printf "%-40s %8.2f %12.0f\n", "iotape push (SQLite to PostgreSQL)", ps, rows / ps
	printf "%-40s %8.2f\n", "iotape report from SQLite", rsq
	printf "%-40s %8.2f\n", "iotape report from PostgreSQL", rpg
	printf "%-40s %8.2f\n", "fleet: exact p99 over 1 M requests", fs
	printf "%-40s %8.2f\n", "summaries of 1000 runs (once, back-fill)", bf
	printf "%-40s %8.2f\n", "iotape fleet, 1000 runs, from summaries", fl
	printf "import PostgreSQL vs SQLite: %.2fx the time; report: %.2fx; push: %d rows (events + requests)\n",
		ipg / isq, rpg / rsq, rows
	printf "fleet from summaries: %.3f s against %.3f s scanning the requests (%.1fx faster)\n",
		fl, fs, fs / fl
}'
