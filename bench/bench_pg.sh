# bench/bench_pg.sh: the PostgreSQL store against SQLite and against psql, on a
# private server (tests/lib.sh pg_start; fsync off, as a scratch server), each
# figure beside its peer measured in the same run:
#  - push of the bench trace's run (rows per second: events + requests), as the
#    store's owner (binary COPY into the tables) and as a writer role (binary
#    COPY into its session's load tables, then iotape_land()), against
#    `psql \copy ... (FORMAT binary)` of the same rows into the same keyed
#    tables (the rows of the run dumped by COPY TO first);
#  - import into each store; report, dump and compare of the run from each
#    (wall time, and iotape's own CPU time: the rest of the wall time is the
#    server's), and beside them the server alone: the rows report and dump
#    read, COPY'd by the server to /dev/null in the same binary format (no
#    client: the least a PostgreSQL read of them can take);
#  - runs and fleet over 1,000 and over 10,000 runs of 1,000 requests each
#    (made in SQL, with their summaries), against the exact p99 scanned from
#    their requests in the server (what fleet did before schema 7).
# Appends issue 16's rows (push against psql; report, dump and compare against
# SQLite) to $BENCH_ROWS when set. Run by bench/bench.sh after it cached the
# trace; alone:
#   BENCH_DIR=... IOTAPE=... bash bench/bench_pg.sh
# (BENCH_TRACE=FILE: another trace; BENCH_PG_RUNS="1000 10000": the fleet
# sizes, "" for none). Skipped (one line) without the server binaries.

. "$(dirname "$0")/../tests/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench}
TRACE=${BENCH_TRACE:-$BENCH_DIR/trace.bin}
REPS=${BENCH_REPS:-3}
SIZES=${BENCH_PG_RUNS-1000 10000}

if ! [ -x "$PG_BIN/initdb" ]; then
	echo "postgresql: skipped (no server binaries in $PG_BIN; make deps)"
	exit 0
fi
[ -s "$TRACE" ] || { echo "bench_pg: no $TRACE (run make bench)" >&2; exit 1; }
pg_start || { echo "bench_pg: cannot start PostgreSQL" >&2; exit 1; }
DB=$TEST_TMP/pg.db
host=$(hostname)
W="postgresql:///iotape?host=$PG_DIR&user=writer"

# wall CMD...: the wall time of CMD in seconds (its output dropped)
wall() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" > /dev/null 2> "$TEST_TMP/err" || { cat "$TEST_TMP/err" >&2; return 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
# cpu NAME CMD...: CMD run (its output dropped); its wall time in seconds
# appended to $TEST_TMP/NAME.w, its CPU time (user + system) to
# $TEST_TMP/NAME.cpu
cpu() {
	local name=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$TEST_TMP/t" "$@" > /dev/null 2> "$TEST_TMP/err" ||
		{ cat "$TEST_TMP/err" >&2; return 1; }
	awk '{ printf "%.3f\n", $2 + $3 >> "'"$TEST_TMP/$name.cpu"'"
		printf "%.3f\n", $1 >> "'"$TEST_TMP/$name.w"'" }' "$TEST_TMP/t"
}
# med V...: the median
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# medf NAME: the median of $TEST_TMP/NAME.cpu
medf() { med $(cat "$TEST_TMP/$1.cpu"); }

"$IOTAPE" fleet --migrate --db "$PG_URL" > /dev/null || exit 1
pg_psql "CREATE ROLE iotape_writer NOLOGIN; CREATE ROLE iotape_reader NOLOGIN;
	CREATE ROLE writer LOGIN IN ROLE iotape_writer;
	INSERT INTO iotape_machines VALUES ('writer', '$host'); SELECT iotape_grant()" > /dev/null || exit 1

isq=() ipg=() push=() wpush=() copy=()
rm -f "$DB"
"$IOTAPE" import --quiet --db "$DB" --run b "$TRACE" || exit 1
"$IOTAPE" push --db "$DB" --to "$PG_URL" b > /dev/null || exit 1
rid=$(pg_psql "SELECT id FROM runs WHERE name = '$host:b'")
rows=$(pg_psql "SELECT (SELECT count(*) FROM events WHERE run = $rid) + (SELECT count(*) FROM requests WHERE run = $rid)")
# the peer: the same rows, dumped in COPY's binary format, loaded by psql \copy
pg_psql "COPY (SELECT * FROM events WHERE run = $rid) TO '$PG_DIR/ev.copy' (FORMAT binary);
	COPY (SELECT * FROM requests WHERE run = $rid) TO '$PG_DIR/rq.copy' (FORMAT binary)" > /dev/null || exit 1
psql_copy() {
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -U postgres -d iotape \
		-c "BEGIN" -c "\\copy events FROM '$PG_DIR/ev.copy' (FORMAT binary)" \
		-c "\\copy requests FROM '$PG_DIR/rq.copy' (FORMAT binary)" -c "COMMIT"
}
for ((i = 0; i < REPS; i++)); do
	"$IOTAPE" rm --db "$PG_URL" --force '*' > /dev/null || exit 1
	pg_psql "INSERT INTO runs (id, name, kind, created_ns) OVERRIDING SYSTEM VALUE
		VALUES ($rid, 'peer', 'import', (extract(epoch FROM now()) * 1e9)::bigint)" > /dev/null
	copy+=("$(wall psql_copy)") || exit 1
	"$IOTAPE" rm --db "$PG_URL" --force '*' > /dev/null || exit 1
	push+=("$(wall "$IOTAPE" push --db "$DB" --to "$PG_URL" b)") || exit 1
	wpush+=("$(wall "$IOTAPE" push --db "$DB" --to "$W" --replace b)") || exit 1
done
for ((i = 0; i < REPS; i++)); do
	rm -f "$TEST_TMP/i.db"
	isq+=("$(wall "$IOTAPE" import --quiet --db "$TEST_TMP/i.db" --run i "$TRACE")") || exit 1
	"$IOTAPE" rm --db "$PG_URL" --force i > /dev/null 2>&1
	ipg+=("$(wall "$IOTAPE" import --quiet --again --db "$PG_URL" --run i "$TRACE")") || exit 1
done
# the server alone: the rows report reads (analyze/rundata.c RD_COLS, by id)
# and the rows dump reads, COPY'd to /dev/null by the server in binary
rq_cols="id, dev, sector, bytes, cats, pid, q_ns, g_ns, m_ns, i_ns, d_ns, c_ns, d_sector,
	d_bytes, merged_into, d_head, seek_sectors, split_from, split"
ev_cols="time_ns, sequence, sector, bytes, action, pid, dev, cpu, error, pdu"
# (in the key's order by an index scan, as iotape's streams read them: with
# the run's id a constant, the planner would rather sort a whole scan, spilling)
srv_rq() { pg_psql "SET enable_sort = off; COPY (SELECT $rq_cols FROM requests WHERE run = $rid ORDER BY id) TO '/dev/null' (FORMAT binary)"; }
srv_ev() { pg_psql "SET enable_sort = off; COPY (SELECT $ev_cols FROM events WHERE run = $rid ORDER BY id) TO '/dev/null' (FORMAT binary)"; }
rid=$(pg_psql "SELECT id FROM runs WHERE name = '$host:b'")   # pushed again above
# the reads meet the tables as autovacuum leaves them, not holding the rows of
# the pushes and imports deleted above (three times the live rows, dead: report
# took 1.3 s where it takes 0.9); analyzed, so the planner knows b is all its
# partition, where it would scan and sort rather than read the key's index
pg_psql "VACUUM ANALYZE" > /dev/null || exit 1
# reads P: report, dump and compare from SQLite and from the server, each
# REPS times, interleaved; as cpu() into $TEST_TMP/P-NAME.w and .cpu (NAME:
# rsq rpg dsq dpg csq cpg; srq and sev, the server alone: wall time only)
reads() {
	local p=$1 i
	for ((i = 0; i < REPS; i++)); do
		cpu "$p-rsq" "$IOTAPE" report --db "$DB" b || return 1
		cpu "$p-rpg" "$IOTAPE" report --db "$PG_URL" "$host:b" || return 1
		wall srv_rq >> "$TEST_TMP/$p-srq.w" || return 1
		cpu "$p-dsq" "$IOTAPE" dump --db "$DB" b || return 1
		cpu "$p-dpg" "$IOTAPE" dump --db "$PG_URL" "$host:b" || return 1
		wall srv_ev >> "$TEST_TMP/$p-sev.w" || return 1
		cpu "$p-csq" "$IOTAPE" compare --db "$DB" b b || return 1
		cpu "$p-cpg" "$IOTAPE" compare --db "$PG_URL" "$host:b" "$host:b" || return 1
	done
}
# medw NAME: the median of $TEST_TMP/NAME.w
medw() { med $(cat "$TEST_TMP/$1.w"); }
# readvars P: awk -v options of pass P's medians (rsq, rpg, ..., rpgc, ...)
readvars() {
	local n
	for n in rsq rpg srq dsq dpg sev csq cpg; do echo "-v $n=$(medw "$1-$n")"; done
	for n in rsq rpg dsq dpg csq cpg; do echo "-v ${n}c=$(medf "$1-$n")"; done
}
# Pass 1 on the server's own shared memory (4 KiB pages). Each connection is
# a new backend process, and a new process faults in, page by page, every
# shared buffer it reads (a report's two backends: the run's 72 MB of heap and
# 15 MB of index; 24 k minor faults measured): the first COPY of a backend
# took 0.25-0.33 s where the same COPY again on it took 0.085 s.
reads 4k || exit 1
# Pass 2 with huge pages (PostgreSQL's huge_pages, as its manual's "Linux Huge
# Pages" sets up a production server: pages reserved with vm.nr_hugepages, put
# back at exit), when the kernel gives them
huge=
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	nhp=$(pg_psql "SHOW shared_memory_size_in_huge_pages")
	hp0=$(cat /proc/sys/vm/nr_hugepages)
	at_exit "echo $hp0 > /proc/sys/vm/nr_hugepages"
	echo $((hp0 + nhp + 8)) > /proc/sys/vm/nr_hugepages 2> /dev/null
	if [ "$(cat /proc/sys/vm/nr_hugepages)" -ge $((hp0 + nhp)) ] &&
		pg_restart "-c huge_pages=on"; then
		# (the shared buffers the restart emptied filled again first)
		srv_rq > /dev/null && srv_ev > /dev/null && reads huge && huge=1
		pg_restart "" || exit 1
	fi
fi
[ -n "$huge" ] || echo "(huge pages: the kernel did not give $((nhp + 0)) of 2 MiB, or not root: pass 2 left out)"
nrq=$(pg_psql "SELECT count(*) FROM requests WHERE run = $rid")
nev=$(pg_psql "SELECT count(*) FROM events WHERE run = $rid")
load=$(cut -d' ' -f1-3 /proc/loadavg)
# the pass the summary row quotes: huge pages when there
main=4k
[ -n "$huge" ] && main=huge
awk -v events="$(sed -n 's/^events=//p' "$BENCH_DIR/trace.meta" 2> /dev/null)" -v rows="$rows" \
	-v reps="$REPS" -v pgv="$("$PG_BIN/postgres" -V)" -v loadavg="$load" \
	-v cp="$(med "${copy[@]}")" -v ps="$(med "${push[@]}")" -v wp="$(med "${wpush[@]}")" \
	-v isq="$(med "${isq[@]}")" -v ipg="$(med "${ipg[@]}")" \
	-v nrq="$nrq" -v nev="$nev" -v ncpu="$(nproc)" '
BEGIN {
	printf "\nPostgreSQL store (%s, private server, fsync off), median of %d runs, load %s:\n",
		pgv, reps, loadavg
	printf "%-46s %8s %12s\n", "task", "wall s", "rows/s"
	printf "%-46s %8.2f %12.0f\n", "psql \\copy (format binary), the same rows", cp, rows / cp
	printf "%-46s %8.2f %12.0f  %.2fx psql (rate %.2f)\n", "iotape push, as the owner", ps, rows / ps, ps / cp, cp / ps
	printf "%-46s %8.2f %12.0f  %.2fx psql (rate %.2f)\n", "iotape push --replace, as a writer role", wp, rows / wp, wp / cp, cp / wp
	printf "%-46s %8.2f\n", "iotape import into SQLite", isq
	printf "%-46s %8.2f  %.2fx SQLite\n", "iotape import into PostgreSQL", ipg, ipg / isq
	printf "push: %d rows (events + requests); read: %d requests (19 columns), %d events (10)\n",
		rows, nrq, nev
}'
# pass P TITLE: the table of pass P's reads
pass() {
	awk $(readvars "$1") -v title="$2" -v ncpu="$(nproc)" '
BEGIN {
	printf "%-46s %8s %18s %8s\n", title, "SQLite s", "PostgreSQL s", "ratio"
	printf "%-46s %8.2f %9.2f (%.2f)   %6.2fx\n", "report", rsq, rpg, rpgc, rpg / rsq
	printf "%-46s %8.2f %9.2f (%.2f)   %6.2fx\n", "dump", dsq, dpg, dpgc, dpg / dsq
	printf "%-46s %8.2f %9.2f (%.2f)   %6.2fx\n", "compare (the run with itself)", csq, cpg, cpgc, cpg / csq
	printf "%-46s %8s %9.2f          %6.2fx\n", "server alone: report'"'"'s requests COPY'"'"'d to /dev/null", "", srq, srq / rsq
	printf "%-46s %8s %9.2f          %6.2fx\n", "server alone: dump'"'"'s events COPY'"'"'d to /dev/null", "", sev, sev / dsq
	printf "(iotape cpu s in brackets; SQLite: report %.2f, dump %.2f, compare %.2f)\n", rsqc, dsqc, csqc
	# the server and iotape share the CPUs: their work summed over them is
	# the least a read can take here (compare reads the run twice)
	printf "floor on %d CPUs, (server alone + iotape cpu) / CPUs: report %.2f s (%.2fx SQLite), compare %.2f s (%.2fx)\n",
		ncpu, (srq + rpgc) / ncpu, (srq + rpgc) / ncpu / rsq,
		(2 * srq + cpgc) / ncpu, (2 * srq + cpgc) / ncpu / csq
}'
}
pass 4k "reads, the server's shared memory in 4 KiB pages"
[ -n "$huge" ] && pass huge "reads, the server with huge pages (2 MiB)"
if [ -n "${BENCH_ROWS:-}" ]; then
	awk -v OFS='\t' $(readvars $main) -v rows="$rows" -v cp="$(med "${copy[@]}")" \
		-v ps="$(med "${push[@]}")" -v wp="$(med "${wpush[@]}")" -v ncpu="$(nproc)" \
		-v pages="$([ $main = huge ] && echo "huge pages" || echo "4 KiB pages")" \
		-v rpg4="$(medw 4k-rpg)" -v rsq4="$(medw 4k-rsq)" \
		-v cpg4="$(medw 4k-cpg)" -v csq4="$(medw 4k-csq)" '
	BEGIN {
		print sprintf("PG push %.1fM rows", rows / 1e6),
			sprintf("psql \\copy binary %.2f s, %.0fk rows/s", cp, rows / cp / 1e3),
			sprintf("owner %.2f s; writer %.2f s", ps, wp),
			sprintf("rate %.2fx / %.2fx psql", cp / ps, cp / wp), ">= 0.9x psql"
		print "PG report / dump (" pages ")", sprintf("SQLite %.2f / %.2f s", rsq, dsq),
			sprintf("%.2f / %.2f s (server alone %.2f / %.2f)", rpg, dpg, srq, sev),
			sprintf("%.2fx / %.2fx SQLite (4 KiB pages: report %.2fx); floor on %d CPUs %.2fx",
				rpg / rsq, dpg / dsq, rpg4 / rsq4, ncpu, (srq + rpgc) / ncpu / rsq), "<= 2x SQLite"
		print "PG compare (" pages ")", sprintf("SQLite %.2f s", csq), sprintf("%.2f s", cpg),
			sprintf("%.2fx SQLite (4 KiB pages: %.2fx); floor on %d CPUs %.2fx", cpg / csq, cpg4 / csq4,
				ncpu, (2 * srq + cpgc) / ncpu / csq), "<= 2x SQLite"
	}' >> "$BENCH_ROWS"
fi

# ---- many runs: runs and fleet at each size (runs of 1,000 requests, made in SQL
# with a summary and their requests' count each, as a landing run gets; this
# month's partition)
[ -n "$SIZES" ] || exit 0
"$IOTAPE" rm --db "$PG_URL" --force '*' > /dev/null || exit 1
made=0
printf "\n%-8s %10s %10s %12s %14s\n" "runs" "runs s" "fleet s" "exact p99 s" "runs SQLite s"
for n in $SIZES; do
	pg_psql "SELECT iotape_partition(iotape_day((extract(epoch FROM now()) * 1e9)::bigint));
	INSERT INTO runs (name, kind, created_ns, host, requests)
		SELECT 'f' || g, 'import', (extract(epoch FROM now()) * 1e9)::bigint, 'h' || (g % 50), 1000
		FROM generate_series($made + 1, $n) g;
	INSERT INTO requests (run, id, dev, sector, bytes, rwbs, cats, pid, q_ns, d_ns, c_ns, d_head, d_bytes, day)
		SELECT r.id, k, 7340032, k * 8, 4096, CASE WHEN k % 3 = 0 THEN 'W' ELSE 'R' END, 0, 1,
			k * 100000, k * 100000 + 1000, k * 100000 + 1000 + (hashint8(r.id * 1000 + k) & 65535) * 100,
			1, 4096, iotape_day(r.created_ns)
		FROM runs r, generate_series(1, 1000) k
		WHERE r.name ~ '^f[0-9]+\$' AND substr(r.name, 2)::int > $made;
	INSERT INTO run_summary (run, dir, span_ns, requests, bytes, q2c_n, q2c_mean_ns, q2c_p50_ns,
		q2c_p99_ns, q2c_max_ns, d2c_n, d2c_mean_ns, d2c_p50_ns, d2c_p99_ns, d2c_max_ns)
		SELECT q.run, CASE WHEN q.rwbs = 'W' THEN 'write' ELSE 'read' END, 100000000000, count(*),
			sum(q.bytes), count(*), avg(q.c_ns - q.q_ns),
			percentile_disc(0.5) WITHIN GROUP (ORDER BY q.c_ns - q.q_ns),
			percentile_disc(0.99) WITHIN GROUP (ORDER BY q.c_ns - q.q_ns), max(q.c_ns - q.q_ns),
			count(*), avg(q.c_ns - q.d_ns), percentile_disc(0.5) WITHIN GROUP (ORDER BY q.c_ns - q.d_ns),
			percentile_disc(0.99) WITHIN GROUP (ORDER BY q.c_ns - q.d_ns), max(q.c_ns - q.d_ns)
		FROM requests q JOIN runs r ON r.id = q.run
		WHERE r.name ~ '^f[0-9]+\$' AND substr(r.name, 2)::int > $made
		GROUP BY q.run, q.rwbs = 'W';
	ANALYZE" > /dev/null || exit 1
	made=$n
	# the same runs, requests and summaries in an SQLite file
	rm -f "$TEST_TMP/f.db"
	pg_psql "COPY (SELECT id, name, kind, created_ns, host, requests FROM runs WHERE name ~ '^f[0-9]+\$') TO '$PG_DIR/runs.csv' (FORMAT csv);
		COPY (SELECT run, run * 1000 + id, dev, sector, bytes, rwbs, cats, pid, q_ns, d_ns, c_ns, d_head, d_bytes FROM requests
			WHERE run IN (SELECT id FROM runs WHERE name ~ '^f[0-9]+\$')) TO '$PG_DIR/rq.csv' (FORMAT csv);
		COPY (SELECT * FROM run_summary) TO '$PG_DIR/sum.csv' (FORMAT csv)" > /dev/null
	"$IOTAPE" import --quiet --db "$TEST_TMP/f.db" --run x "$FIXTURES/robust/nested.bin" > /dev/null &&
	"$IOTAPE" rm --db "$TEST_TMP/f.db" x > /dev/null
	sqlite3 "$TEST_TMP/f.db" "CREATE TEMP TABLE r (id, name, kind, created_ns, host, requests);
		CREATE TEMP TABLE q (run, id, dev, sector, bytes, rwbs, cats, pid, q_ns, d_ns, c_ns, d_head, d_bytes);
		CREATE TEMP TABLE s (run, dir, span_ns, requests, bytes, q2c_n, q2c_mean_ns, q2c_p50_ns,
			q2c_p99_ns, q2c_max_ns, d2c_n, d2c_mean_ns, d2c_p50_ns, d2c_p99_ns, d2c_max_ns)" \
		".mode csv" ".import $PG_DIR/runs.csv r" ".import $PG_DIR/rq.csv q" ".import $PG_DIR/sum.csv s" \
		"INSERT INTO runs (id, name, kind, created_ns, host, requests) SELECT * FROM r;
		 INSERT INTO requests (run, id, dev, sector, bytes, rwbs, cats, pid, q_ns, d_ns, c_ns, d_head, d_bytes)
			SELECT * FROM q;
		 INSERT INTO run_summary SELECT * FROM s" || exit 1
	scan="SELECT r.id, r.name, count(*), percentile_disc(0.99) WITHIN GROUP (ORDER BY q.c_ns - q.q_ns)
		AS v FROM runs r JOIN requests q ON q.run = r.id WHERE strpos(q.rwbs, 'R') > 0
		GROUP BY r.id ORDER BY v DESC, r.id LIMIT 20"
	rl=() fl=() fs=() rs=()
	for ((i = 0; i < REPS; i++)); do
		rl+=("$(wall "$IOTAPE" runs --db "$PG_URL")") || exit 1
		fl+=("$(wall "$IOTAPE" fleet --db "$PG_URL" --worst read_q2c_p99)") || exit 1
		fs+=("$(wall pg_psql "$scan")") || exit 1
		rs+=("$(wall "$IOTAPE" runs --db "$TEST_TMP/f.db")") || exit 1
	done
	printf "%-8s %10.2f %10.2f %12.2f %14.2f\n" "$n" "$(med "${rl[@]}")" "$(med "${fl[@]}")" \
		"$(med "${fs[@]}")" "$(med "${rs[@]}")"
done
