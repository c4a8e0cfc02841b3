# t_pg_store.sh: the PostgreSQL store (issue 18) on a private server this test
# starts (initdb and pg_ctl as nobody, a Unix socket in a temporary folder, removed
# at exit): the same traces imported into SQLite and into PostgreSQL give the same
# bytes from every reading command; push and pull keep a run whole (and refuse a
# name taken unless --replace); names full of quotes, semicolons and backslashes go
# through as values; eight pushes at once all land; a push killed with SIGKILL in
# the middle of its COPY leaves nothing, and a reader meanwhile does not see the
# run; no table is made per run (schema 8: a month's partitions, rows deleted with
# their run); the roles of the README, granted by the owner's `fleet --migrate`: a
# writer imports, pushes and deletes its own runs through the load tables, a reader
# only reads; a version 5 store is refused until `fleet --migrate` brings it to 8,
# then reads the same. Skipped without the server binaries (make deps installs
# them).
. "$(dirname "$0")/../lib.sh"

need_iotape "PostgreSQL store"
need_pg "PostgreSQL store"
command -v python3 > /dev/null || { skip "PostgreSQL store" "no python3"; exit 0; }
pg_start || { not_ok "start a private PostgreSQL server"; tap_finish; }
ok "started a private PostgreSQL server"
t=$TEST_TMP db=$t/t.db F=$FIXTURES/loop-fio-small.bin V=$FIXTURES/vmstat/plain-1-3.log
URL=$PG_URL
cd "$t" || exit 1

# ---- the same inputs into both stores
for d in "$db" "$URL"; do
	"$IOTAPE" import --quiet --db "$d" --run lf "$F" &&
	"$IOTAPE" import --quiet --db "$d" --run lf --interval 1 "$V" &&
	"$IOTAPE" import --quiet --db "$d" --run v8 "$FIXTURES/variants/loop-fio-small.v8be.bin" &&
	"$IOTAPE" import --quiet --db "$d" --run vm "$FIXTURES/vmstat/timestamped-1-3.log" ||
		{ not_ok "import into $d"; tap_finish; }
done
ok "imported a trace with a vmstat log, a v8 big-endian trace and a vmstat log into both"

# same LABEL ARGS...: iotape ARGS... --db SQLite and --db PostgreSQL give the same
# stdout, stderr and exit status (stdout through $FILTER when set)
same() {
	local label=$1 ra rb; shift
	"$IOTAPE" "$@" --db "$db" > a.out 2> a.err; ra=$?
	"$IOTAPE" "$@" --db "$URL" > b.out 2> b.err; rb=$?
	if [ -n "${FILTER:-}" ]; then
		$FILTER < a.out > a.f && mv a.f a.out
		$FILTER < b.out > b.f && mv b.f b.out
	fi
	if [ "$ra" = "$rb" ] && cmp -s a.out b.out && cmp -s a.err b.err; then
		ok "$label: the same bytes from both stores ($(wc -c < a.out) bytes, exit $ra)"
	else
		not_ok "$label: outputs differ" "exit $ra and $rb" \
			"$(diff a.out b.out | head -n 6 | cut -c1-160)" \
			"$(diff a.err b.err | head -n 4 | cut -c1-160)"
	fi
}
# the last line of runs names the database and its size
FILTER="sed \$d" same "runs" runs
same "dump" dump lf
same "dump (v8, big-endian)" dump v8
same "report" report lf
same "report --json" report --json lf
same "report --json (v8)" report --json v8
same "compare --json" compare --json lf v8
same "compare" compare lf v8
same "vmstat" vmstat lf
same "vmstat of a log-only run" vmstat vm
same "export csv" export --format csv lf
same "export blktrace" export --format blktrace lf
mkdir -p a b
(cd a && "$IOTAPE" plot --db "$db" -o p --format txt lf v8 > out 2>&1 &&
	"$IOTAPE" mail --db "$db" -o m lf v8 > mout 2>&1)
(cd b && "$IOTAPE" plot --db "$URL" -o p --format txt lf v8 > out 2>&1 &&
	"$IOTAPE" mail --db "$URL" -o m lf v8 > mout 2>&1)
# mail names when each run was made: the imports into each store differ there
if diff -r -I ' UTC; from' a b > plot.diff && [ -n "$(ls a/p)" ] && [ -n "$(ls a/m)" ]; then
	ok "plot --format txt and mail: the same files ($(ls a/p a/m | wc -l) files)"
else
	not_ok "plot and mail: outputs differ" "$(head -n 6 plot.diff)"
fi

# ---- a replay on a modelled disk (simulated time) into each store, then pushed
for d in "$db" "$URL"; do
	"$IOTAPE" replay --db "$d" lf --target model:deskstar-7k500 --run rp --quiet \
		> /dev/null 2> replay.err || not_ok "replay into $d" "$(cat replay.err)"
done
same "report of a replay" report --json rp
same "compare a run and its replay" compare --json lf rp
"$IOTAPE" push --db "$db" --to "$URL" lf rp > push.out 2> push.err
if grep -q "^pushed 'rp' as '.*:rp': .* 426 requests" push.out &&
   [ "$(pg_psql "SELECT count(*) FROM replays x JOIN runs r ON r.id = x.run WHERE r.name LIKE '%:rp'")" = 426 ] &&
   [ "$(pg_psql "SELECT p.name FROM runs r JOIN runs p ON p.id = r.parent WHERE r.name LIKE '%:rp'")" = "$(hostname):lf" ]; then
	ok "push keeps a replay's replayed I/Os and its parent"
else
	not_ok "push of a replay" "$(cat push.out push.err)"
fi

# ---- values, not SQL: a name full of quotes, semicolons and backslashes
evil="q'x\"; DROP TABLE runs; --\\\\'"
"$IOTAPE" import --quiet --again --db "$db" --run "$evil" "$F" ||
	{ not_ok "import a run named $evil"; tap_finish; }
host=$(hostname)
if "$IOTAPE" push --db "$db" --to "$URL" "$evil" > push.out 2> push.err &&
   [ "$(pg_psql "SELECT name FROM runs WHERE name LIKE '%:q''x%'")" = "$host:$evil" ] &&
   [ "$(pg_psql "SELECT count(*) FROM runs")" -gt 3 ]; then
	ok "push of a run named $evil: stored under that name, the runs table intact"
else
	not_ok "push of a run named $evil" "$(cat push.err)"
fi
"$IOTAPE" dump --db "$db" "$evil" > a.out
"$IOTAPE" dump --db "$URL" "$host:$evil" > b.out
if cmp -s a.out b.out && [ -s a.out ]; then ok "dump of the pushed run: the same bytes"
else not_ok "dump of the pushed run differs" "$(diff a.out b.out | head -n 4)"; fi

# ---- text that is not UTF-8 (a file named in Latin-1): the server's UTF8
# refused the whole push; its bytes go as U+FFFD, the run's name as '_'
lat1="$t/caf$(printf '\351')-l1.bin"
cp "$F" "$lat1"
"$IOTAPE" import --quiet --again --db "$db" "$lat1" ||
	{ not_ok "import a file named in Latin-1"; tap_finish; }
if "$IOTAPE" push --db "$db" --to "$URL" "caf_-l1" > push.out 2> push.err &&
   [ "$(pg_psql "SELECT source LIKE '%caf' || U&'\\FFFD' || '-l1.bin' FROM runs WHERE name = '$host:caf_-l1'")" = t ]; then
	ok "push of a run whose file was named in Latin-1: its path stored with U+FFFD"
else
	not_ok "push of a run whose file was named in Latin-1" "$(cat push.err)"
fi

# ---- a name taken: refused, then replaced
"$IOTAPE" push --db "$db" --to "$URL" "$evil" > /dev/null 2> push.err; rc=$?
if [ $rc != 0 ] && grep -q "is there already (--replace" push.err; then
	ok "pushing a run that is there is refused: $(cat push.err)"
else
	not_ok "pushing a run that is there again: exit $rc" "$(cat push.err)"
fi
check "push --replace replaces it" "$IOTAPE" push --db "$db" --to "$URL" --replace "$evil"
check_eq "one run of that name after --replace" 1 \
	"$(pg_psql "SELECT count(*) FROM runs WHERE name LIKE '%:q''x%'")"

# ---- pull it back into a new local store: the same bytes again
if "$IOTAPE" pull --db "$t/u.db" --from "$URL" "$host:$evil" > pull.out 2> pull.err &&
   "$IOTAPE" report --json --db "$t/u.db" "$host:$evil" > c.out &&
   "$IOTAPE" report --json --db "$URL" "$host:$evil" > b.out && cmp -s b.out c.out; then
	ok "pull: the run back in SQLite gives the same report --json"
else
	not_ok "pull" "$(cat pull.err)" "$(diff b.out c.out | head -n 3 | cut -c1-160)"
fi
"$IOTAPE" pull --db "$t/u.db" --from "$URL" "$host:lf" "$host:rp" > /dev/null 2>&1
"$IOTAPE" mail --db "$db" -o ma lf rp > /dev/null 2>&1
"$IOTAPE" mail --db "$t/u.db" -o mb "$host:lf" "$host:rp" > /dev/null 2>&1
# (the pulled runs name their host: push keeps it, this machine's)
grep -o "[0-9-]* [0-9:]* UTC; from" ma/*.full.txt > ma.txt
grep -o "[0-9-]* [0-9:]* UTC; from" mb/*.full.txt > mb.txt
if [ -s mb.txt ] && cmp -s ma.txt mb.txt; then
	ok "push and pull keep when runs were made (mail's lines saying so the same)"
else
	not_ok "push and pull keep when the run was made" "$(diff ma.txt mb.txt | head -n 4)"
fi

# ---- workload metrics (schema 5): set in PostgreSQL, pushed, pulled
check "metric sets a value in PostgreSQL" "$IOTAPE" metric --db "$URL" "$host:lf" tps=41.2 'bw=700 MB/s'
"$IOTAPE" metric --db "$db" lf tps=41.2 'bw=700 MB/s' > /dev/null
"$IOTAPE" metric --db "$URL" "$host:lf" > ma.txt 2>&1
"$IOTAPE" metric --db "$db" lf > mb.txt 2>&1
if grep -q "^tps" ma.txt && cmp -s ma.txt mb.txt; then
	ok "metric lists the same in both stores"
else
	not_ok "metric lists the same in both stores" "$(diff ma.txt mb.txt | head -n 4)"
fi
"$IOTAPE" pull --db "$t/m.db" --from "$URL" "$host:lf" > /dev/null 2> pull.err
"$IOTAPE" metric --db "$t/m.db" "$host:lf" > mc.txt 2>&1
if cmp -s ma.txt mc.txt; then ok "pull keeps the run's metrics"
else not_ok "pull keeps the run's metrics" "$(cat pull.err; diff ma.txt mc.txt | head -n 4)"; fi
check_eq "PostgreSQL's schema version is SQLite's" \
	"$(sqlite3 "$db" "PRAGMA user_version")" "$(pg_psql "SELECT max(version) FROM iotape_schema")"

# ---- eight pushes at once, each its own run: all land, whole
relations() { pg_psql "SELECT count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace"; }
nrel=$(relations)
for i in 1 2 3 4 5 6 7 8; do
	"$IOTAPE" import --quiet --again --db "$db" --run "p$i" "$F" || not_ok "import p$i"
done
pids=()
for i in 1 2 3 4 5 6 7 8; do
	"$IOTAPE" push --db "$db" --to "$URL" "p$i" > "push$i.out" 2> "push$i.err" &
	pids+=($!)
done
fails=0
for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
check_eq "eight pushes at once: none failed" 0 "$fails"
check_eq "eight pushes at once: eight runs of 3570 events and 733 requests each" \
	"8 28560 5864" \
	"$(pg_psql "SELECT count(*), sum((SELECT count(*) FROM events e WHERE e.run = r.id)),
		sum((SELECT count(*) FROM requests q WHERE q.run = r.id))
		FROM runs r WHERE name ~ ':p[1-8]$'" | tr '\t' ' ')"
"$IOTAPE" report --json --db "$db" p1 | sed 's/"run":"p1"/"run":"X"/' > a.out
"$IOTAPE" report --json --db "$URL" "$host:p8" | sed "s/\"run\":\"$host:p8\"/\"run\":\"X\"/" > b.out
if cmp -s a.out b.out; then ok "a run pushed alongside seven others reports as in SQLite"
else not_ok "a run pushed alongside others reports differently"; fi

# ---- a push killed in its COPY leaves nothing; a reader never sees half of it
# big.bin: 150000 reads queued, dispatched and completed (blktrace v7 records,
# little-endian; struct blk_io_trace, include/uapi/linux/blktrace_api.h)
python3 - "$t/big.bin" <<'EOF'
import struct, sys
Q, D, C = 1, 7, 8
READ, QUEUE, ISSUE, COMPLETE = 1 << 0, 1 << 4, 1 << 6, 1 << 7
cat = {Q: READ | QUEUE, D: READ | ISSUE, C: READ | COMPLETE}
dev = 7 << 20
with open(sys.argv[1], 'wb') as f:
    seq = 0
    for i in range(150000):
        t = i * 10000
        for act, dt in ((Q, 0), (D, 1000), (C, 5000)):
            seq += 1
            f.write(struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t + dt,
                                (i * 8) % 10000000, 4096, act | cat[act] << 16,
                                100 + i % 4, dev, 0, 0, 0))
EOF
"$IOTAPE" import --quiet --db "$db" --run big "$t/big.bin" || { not_ok "import big.bin"; tap_finish; }
"$IOTAPE" push --db "$db" --to "$URL" big > /dev/null 2> kill.err &
pp=$!
seen=0 whole=ok
for i in $(seq 400); do
	if [ "$(pg_psql "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY events%'")" -gt 0 ]; then
		seen=1
		"$IOTAPE" runs --db "$URL" | grep -q ':big ' && whole="the run was listed during its push"
		sleep 0.2
		break
	fi
	sleep 0.02
done
kill -KILL $pp 2>/dev/null
wait $pp 2>/dev/null
if [ $seen = 0 ]; then
	skip "a push killed in its COPY" "the push ended before its COPY was seen"
else
	check_eq "a reader during the push does not see the run" ok "$whole"
	# the server notices the dead client and rolls its transaction back
	for i in $(seq 100); do
		[ "$(pg_psql "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY events%'")" = 0 ] && break
		sleep 0.1
	done
	check_eq "a push killed with SIGKILL in its COPY leaves no run and no rows" "0 0 0" \
		"$(pg_psql "SELECT (SELECT count(*) FROM runs WHERE name LIKE '%:big'),
			(SELECT count(*) FROM events WHERE run NOT IN (SELECT id FROM runs)),
			(SELECT count(*) FROM requests WHERE run NOT IN (SELECT id FROM runs))" | tr '\t' ' ')"
fi
t0=$(date +%s.%N)
if "$IOTAPE" push --db "$db" --to "$URL" big > push.out 2> push.err; then
	diag "$(cat push.out) (machine shared with other tests)"
	check_eq "the push after the kill lands whole: 450000 events" 450000 \
		"$(pg_psql "SELECT count(*) FROM events e JOIN runs r ON r.id = e.run WHERE r.name LIKE '%:big'")"
else
	not_ok "push big after the kill" "$(cat push.err)"
fi

# ---- the store's own manners
# (a wrong password, where the server asks for one: t_pg_conninfo.sh)
"$IOTAPE" runs --db "postgresql:///nosuchdb?host=$PG_DIR&user=postgres&password=s3cr3t" > /dev/null 2> pw.err
if [ -s pw.err ] && ! grep -q "s3cr3t" pw.err; then
	ok "a password in the URL is not echoed: $(cat pw.err)"
else
	not_ok "a password in the URL" "$(cat pw.err)"
fi
# no table per run (schema 8): as many relations after eight runs as before them;
# the rows are in their month's partitions of the four bulk tables
check_eq "eight runs pushed: no table, index or TOAST table made for them" "$nrel" "$(relations)"
month=$(date -u +%Y_%m)
check_eq "this month's rows are in this month's partition of each bulk table" \
	"events_$month replays_$month requests_$month samples_$month" \
	"$(pg_psql "SELECT string_agg(DISTINCT tableoid::regclass::text, ' ') FROM (SELECT tableoid FROM
		events UNION ALL SELECT tableoid FROM requests UNION ALL SELECT tableoid FROM samples
		UNION ALL SELECT tableoid FROM replays) x")"
"$IOTAPE" rm --db "$URL" --force "$host:p*" > /dev/null 2> rm.err
check_eq "rm of pushed runs leaves no rows behind" "0 0 0" \
	"$(pg_psql "SELECT (SELECT count(*) FROM runs WHERE name ~ ':p[1-8]$'),
		(SELECT count(*) FROM events WHERE run NOT IN (SELECT id FROM runs)),
		(SELECT count(*) FROM samples WHERE run NOT IN (SELECT id FROM runs))" | tr '\t' ' ')"

# ---- fleet: runs ranked in the server from their summaries, compare's figures
"$IOTAPE" fleet --db "$URL" --worst read_q2c_p99 --since 7d --limit 100 > fleet.out 2> fleet.err
want=$("$IOTAPE" compare --json --db "$URL" lf v8 |
	jq -r '.runs[0].figures | .read_q2c_p99_us // (.read_q2c_p99_ms * 1000)' | xargs printf '%.1f')
got=$(awk '$2 == "lf" { print $NF }' fleet.out)
# a run name wider than its column has a line of its own (rank and name), its
# figures on the next: the figures are the lines that end in a number
figs() { awk 'NR > 1 && $NF ~ /^[0-9.]+$/ { print $NF }' fleet.out; }
if [ -n "$got" ] && [ "$got" = "$want" ] &&
   [ "$(figs | sort -gr)" = "$(figs)" ] && [ "$(figs | wc -l)" -ge 5 ]; then
	ok "fleet --worst read_q2c_p99: $(figs | wc -l) runs worst first; lf's $got us as compare's $want"
else
	not_ok "fleet --worst read_q2c_p99" "lf: $got, compare: $want" "$(head -n 4 fleet.out) $(cat fleet.err)"
fi
"$IOTAPE" fleet --db "$URL" --worst read_q2c_p99 --since 1s > fleet.out 2> fleet.err
check_eq "fleet --since 1s: no run made in the last second, only the header" 1 "$(wc -l < fleet.out)"
check "fleet on SQLite ranks from its summaries too" "$IOTAPE" fleet --db "$db"

# ---- the roles of the README's "fleet" section, granted by the owner's --migrate:
# a writer (a login role for a machine) imports, pushes and deletes its own runs, a
# reader only reads (t_pg_fleet.sh tries a writer's attacks on other machines' runs)
pg_psql "$(sed -n '/^-- iotape roles: begin/,/^-- iotape roles: end/p' "$REPO_ROOT/README.md")
	CREATE ROLE alice LOGIN IN ROLE iotape_writer; CREATE ROLE bob LOGIN IN ROLE iotape_reader;
	INSERT INTO iotape_machines VALUES ('alice', '$host')" > roles.out 2>&1 ||
	not_ok "the README's roles" "$(cat roles.out)"
check "the owner grants the roles (fleet --migrate)" "$IOTAPE" fleet --migrate --db "$URL"
W="postgresql:///iotape?host=$PG_DIR&user=alice" R="postgresql:///iotape?host=$PG_DIR&user=bob"
check "the writer role imports" "$IOTAPE" import --quiet --again --db "$W" --run by-alice "$F"
check "the writer role pushes (its machine's runs, named $host:...)" \
	"$IOTAPE" push --db "$db" --to "$W" p3
check "the reader role reads" "$IOTAPE" report --json --db "$R" by-alice
check "the reader role lists" "$IOTAPE" runs --db "$R"
check_eq "the writer's runs are its machine's" "$host $host" \
	"$(pg_psql "SELECT string_agg(host, ' ' ORDER BY id) FROM runs WHERE name IN ('by-alice', '$host:p3')")"
"$IOTAPE" report --json --db "$db" p3 | sed 's/"run":"p3"/"run":"X"/' > a.out
"$IOTAPE" report --json --db "$R" "$host:p3" | sed "s/\"run\":\"$host:p3\"/\"run\":\"X\"/" > b.out
if cmp -s a.out b.out; then ok "the writer's run, landed through its load tables, reports as in SQLite"
else not_ok "the writer's pushed run reports differently" "$(diff a.out b.out | head -n 4)"; fi
# its rows went in through iotape_land(): no INSERT on the bulk tables or partitions
check_eq "the writer may not insert into a bulk table or a partition" "f f f f" \
	"$(pg_psql "SELECT has_table_privilege('alice', 'events', 'INSERT'), has_table_privilege('alice',
		'requests_$month', 'INSERT'), has_table_privilege('bob', 'samples', 'INSERT'),
		has_table_privilege('alice', 'iotape_schema', 'INSERT')" | tr '\t' ' ')"
"$IOTAPE" import --quiet --again --db "$R" --run by-bob "$F" > /dev/null 2> bob.err; rc=$?
if [ $rc != 0 ] && grep -q "permission denied" bob.err &&
   [ "$(pg_psql "SELECT count(*) FROM runs WHERE name = 'by-bob'")" = 0 ]; then
	ok "the reader role may not import: $(cat bob.err)"
else
	not_ok "the reader role imported" "exit $rc: $(cat bob.err)"
fi
"$IOTAPE" rm --db "$W" lf > /dev/null 2> alice.err; rc=$?
if [ $rc != 0 ] && grep -q "may not" alice.err &&
   [ "$(pg_psql "SELECT count(*) FROM runs WHERE name = 'lf'")" = 1 ]; then
	ok "the writer role may not delete another's run: $(cat alice.err)"
else
	not_ok "the writer role deleted another's run" "exit $rc: $(cat alice.err)"
fi
check "the writer role deletes its own run" "$IOTAPE" rm --db "$W" by-alice
check_eq "... with its rows" "0 0" \
	"$(pg_psql "SELECT (SELECT count(*) FROM runs WHERE name = 'by-alice'),
		(SELECT count(*) FROM events WHERE run NOT IN (SELECT id FROM runs))" | tr '\t' ' ')"

# ---- a version 5 store (schema/001-005 in PostgreSQL's dialect as psql runs them,
# run lf's rows copied in): refused until the owner's fleet --migrate, which moves
# its rows into the month's partitions; then it reads the same
pg_psql "CREATE DATABASE v5" > /dev/null
V5="postgresql:///v5?host=$PG_DIR&user=postgres"
v5() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PG_DIR" -U postgres -d v5 "$@"; }
lid=$(pg_psql "SELECT id FROM runs WHERE name = 'lf'")
mig=ok
for f in "$REPO_ROOT"/schema/00[1-5]_*.sql; do
	sh "$REPO_ROOT/schema/embed.sh" -s -d postgresql "$f" | v5 > /dev/null 2> v5.err ||
		mig="$f: $(cat v5.err)"
done
v5 -c "UPDATE iotape_schema SET version = 5" > /dev/null || mig="version"
for tb in runs settings devices processes commands run_stats metrics events requests samples replays; do
	col=run; [ $tb = runs ] && col=id
	# the columns the version 5 store has (not schema 8's day nor 9's requests)
	cols=$(v5 -c "SELECT string_agg(attname, ', ' ORDER BY attnum) FROM pg_attribute
		WHERE attrelid = '$tb'::regclass AND attnum > 0 AND NOT attisdropped")
	"$PG_BIN/psql" -X -q -h "$PG_DIR" -U postgres -d iotape \
		-c "COPY (SELECT $cols FROM $tb WHERE $col = $lid) TO STDOUT" |
		v5 -c "COPY $tb ($cols) FROM STDIN" > /dev/null 2> v5.err || mig="$tb: $(cat v5.err)"
done
v5 -c "SELECT setval(pg_get_serial_sequence('runs', 'id'), max(id)) FROM runs" > /dev/null
check_eq "a version 5 store made from schema/001-005 with run lf's rows" ok "$mig"
"$IOTAPE" runs --db "$V5" > /dev/null 2> v5.err
if grep -q "database schema version 5 is older than this iotape's.*fleet --migrate" v5.err; then
	ok "a version 5 store is not migrated by a reader: $(cat v5.err)"
else
	not_ok "a version 5 store opened by runs" "$(cat v5.err)"
fi
"$IOTAPE" fleet --migrate --db "$V5" > v5.out 2> v5.err
latest=$(ls "$REPO_ROOT"/schema/[0-9]*.sql | sed -n '$s|.*/0*\([0-9]*\)_.*|\1|p')
check_eq "fleet --migrate brings the version 5 store to $latest, lf's rows in its month's partitions" \
	"$latest $(pg_psql "SELECT (SELECT count(*) FROM events WHERE run = $lid) || ' ' ||
		(SELECT count(*) FROM requests WHERE run = $lid) || ' ' ||
		(SELECT count(*) FROM samples WHERE run = $lid)")" \
	"$(v5 -c "SELECT (SELECT version FROM iotape_schema) || ' ' ||
		(SELECT count(*) FROM ONLY events) + (SELECT count(*) FROM events WHERE run = $lid) || ' ' ||
		(SELECT count(*) FROM requests WHERE run = $lid) || ' ' ||
		(SELECT count(*) FROM samples WHERE run = $lid)")$(cat v5.err)"
for c in "dump lf" "report --json lf" "vmstat lf"; do
	"$IOTAPE" $c --db "$URL" > a.out 2>&1
	"$IOTAPE" $c --db "$V5" > b.out 2>&1
	if cmp -s a.out b.out; then ok "migrated store: $c gives the same $(wc -c < a.out) bytes"
	else not_ok "migrated store: $c differs" "$(diff a.out b.out | head -n 4)"; fi
done
check "an import into the migrated store" "$IOTAPE" import --quiet --again --db "$V5" --run new "$F"

# ---- a run's rows come down their key's index: in a store of two runs, each
# half its month's partition, analyzed, the planner would rather scan the
# partition and sort (spilling at a work_mem of 64kB: a temporary file on the
# server); the reads set sorts off for their streams and make none
pg_psql "CREATE DATABASE keyorder" > /dev/null
ko() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PG_DIR" -U postgres -d keyorder -c "$1"; }
KO="postgresql:///keyorder?host=$PG_DIR&user=postgres"
# ko_temp: the database's temporary files so far, once no other session is
# left to flush its counts (a session's are flushed as it exits)
ko_temp() {
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(ko "SELECT count(*) FROM pg_stat_activity WHERE datname = 'keyorder'
			AND pid <> pg_backend_pid()")" = 0 ] && break
		sleep 0.1
	done
	ko "SELECT temp_files FROM pg_stat_database WHERE datname = 'keyorder'"
}
if "$IOTAPE" import --quiet --db "$KO" --run lf "$F" &&
	"$IOTAPE" import --quiet --db "$KO" --run v8 "$FIXTURES/variants/loop-fio-small.v8be.bin" &&
	ko "ANALYZE; ALTER DATABASE keyorder SET work_mem = '64kB'"; then
	before=$(ko_temp)
	for c in "report lf" "dump lf" "compare lf v8"; do
		"$IOTAPE" $c --db "$KO" > /dev/null 2> ko.err || echo "$c: $(cat ko.err)" >> ko.fail
	done
	after=$(ko_temp)
	if [ -s ko.fail ]; then
		not_ok "reading the store of two runs" "$(head -n 3 ko.fail)"
	else
		check_eq "report, dump and compare read a run half its partition by the key's index: no temporary files on the server" \
			"$before" "$after"
	fi
else
	not_ok "a store of two runs for the key order"
fi

pg_psql "CREATE DATABASE empty" > /dev/null
"$IOTAPE" report --db "postgresql:///empty?host=$PG_DIR&user=postgres" lf > /dev/null 2> empty.err
if grep -q "no iotape store in this database" empty.err; then
	ok "a reader of a database without iotape's tables: $(cat empty.err)"
else
	not_ok "a reader of an empty database" "$(cat empty.err)"
fi
tap_finish
