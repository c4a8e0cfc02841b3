# t_pg_timeouts.sh: a PostgreSQL store never hangs a command, and a lost
# connection is tried again (issue 28), on a private server (tests/lib.sh
# pg_start): a server that accepts and never answers fails `runs` after
# connect_timeout (the URL's, else 10 s), saying so in one line; a lock held by
# another session fails a command after the URL's lock_timeout (or
# statement_timeout), naming the setting; a push stopped in the middle of its
# transaction holding a run's name fails a second push of that name after
# lock_timeout, and lands whole once it goes on; a push whose connection the
# server ends in the middle of its COPY is tried again and lands whole. Skipped
# without the server binaries or python3 (the silent server).
. "$(dirname "$0")/../lib.sh"

need_iotape "PostgreSQL timeouts"
need_pg "PostgreSQL timeouts"
command -v python3 > /dev/null || { skip "PostgreSQL timeouts" "no python3"; exit 0; }
pg_start || { not_ok "start a private PostgreSQL server"; tap_finish; }
t=$TEST_TMP F=$FIXTURES/loop-fio-small.bin URL=$PG_URL
cd "$t" || exit 1
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# within X LO HI: LO <= X <= HI
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

# ---- a server that accepts and never answers (a Unix socket named as a server's)
mkdir silent
python3 - "$t/silent/.s.PGSQL.5432" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(16)
held = []
while True:
    c, _ = s.accept()
    held.append(c)          # never a byte back
EOF
silent=$!
at_exit "kill $silent 2>/dev/null"
for i in $(seq 50); do [ -S silent/.s.PGSQL.5432 ] && break; sleep 0.1; done
# the default (10 s) in the background, the URL's 2 s meanwhile
t0=$(now)
"$IOTAPE" runs --db "postgresql:///x?host=$t/silent&user=u" > /dev/null 2> c10.err &
c10=$!
t1=$(now)
"$IOTAPE" runs --db "postgresql:///x?host=$t/silent&user=u&connect_timeout=2" > /dev/null 2> c2.err
rc=$? dt=$(took "$t1")
if [ $rc = 1 ] && within "$dt" 1.5 8 && [ "$(wc -l < c2.err)" = 1 ] &&
   grep -q "no answer within connect_timeout (2 s)" c2.err; then
	ok "a silent server, connect_timeout=2 in the URL: $dt s, $(cat c2.err)"
else
	not_ok "a silent server with connect_timeout=2" "exit $rc after $dt s: $(cat c2.err)"
fi

# ---- a lock another session holds: lock_timeout, statement_timeout from the URL
"$IOTAPE" import --quiet --db "$URL" --run lf "$F" || not_ok "import"
"$PG_BIN/psql" -X -q -h "$PG_DIR" -U postgres -d iotape \
	-c "BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT" \
	> /dev/null 2>&1 &
holder=$!
at_exit "kill $holder 2>/dev/null"
for i in $(seq 100); do
	[ "$(pg_psql "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		WHERE c.relname = 'runs' AND l.mode = 'AccessExclusiveLock' AND l.granted")" = 1 ] && break
	sleep 0.1
done
for s in lock_timeout statement_timeout; do
	t1=$(now)
	"$IOTAPE" runs --db "$URL&options=-c%20$s%3D1s" > /dev/null 2> lk.err
	rc=$? dt=$(took "$t1")
	if [ $rc = 1 ] && within "$dt" 0.5 10 && [ "$(wc -l < lk.err)" = 1 ] && grep -q " $s (1s)" lk.err; then
		ok "a lock held elsewhere, $s=1s in the URL: $dt s, $(cut -c1-170 lk.err)"
	else
		not_ok "a lock held elsewhere with $s=1s" "exit $rc after $dt s: $(cat lk.err)"
	fi
done
kill $holder 2>/dev/null
wait $holder 2>/dev/null
pg_psql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()" > /dev/null

wait $c10
rc=$? dt=$(took "$t0")
if [ $rc = 1 ] && within "$dt" 8 25 && grep -q "no answer within connect_timeout (10 s)" c10.err; then
	ok "a silent server, no connect_timeout given: iotape's 10 s ($dt s): $(cat c10.err)"
else
	not_ok "a silent server with iotape's connect_timeout" "exit $rc after $dt s: $(cat c10.err)"
fi

# a run long enough to be caught in its COPY: 80000 reads queued, dispatched and
# completed (blktrace v7 records, little-endian; include/uapi/linux/blktrace_api.h)
python3 - "$t/big.bin" <<'EOF'
import struct, sys
Q, D, C = 1, 7, 8
READ, QUEUE, ISSUE, COMPLETE = 1 << 0, 1 << 4, 1 << 6, 1 << 7
cat = {Q: READ | QUEUE, D: READ | ISSUE, C: READ | COMPLETE}
with open(sys.argv[1], 'wb') as f:
    seq = 0
    for i in range(80000):
        t = i * 10000
        for act, dt in ((Q, 0), (D, 1000), (C, 5000)):
            seq += 1
            f.write(struct.pack('<IIQQIIIIIHH', 0x65617407, seq, t + dt, (i * 8) % 10000000,
                                4096, act | cat[act] << 16, 100 + i % 4, 7 << 20, 0, 0, 0))
EOF
"$IOTAPE" import --quiet --db l.db --run big "$F" && "$IOTAPE" import --quiet --again --db l.db --run big2 big.bin ||
	{ not_ok "import big.bin"; tap_finish; }
host=$(hostname)
# copying WHO: wait (up to 20 s) for a COPY of iotape's; its backend's pid
copying() {
	local p i
	for i in $(seq 400); do
		p=$(pg_psql "SELECT pid FROM pg_stat_activity WHERE application_name = 'iotape' AND query LIKE 'COPY %events%' LIMIT 1")
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.05
	done
	return 1
}

# ---- a push stopped in its transaction holds the run's name: a second push of that
# name waits lock_timeout, fails saying so; the first lands whole when it goes on
"$IOTAPE" push --db l.db --to "$URL" big2 > a.out 2> a.err &
a=$!
if copying > /dev/null; then
	kill -STOP $a
	t1=$(now)
	"$IOTAPE" push --db l.db --to "$URL&options=-c%20lock_timeout%3D2s" --replace big2 > b.out 2> b.err
	rc=$? dt=$(took "$t1")
	kill -CONT $a
	if [ $rc = 1 ] && within "$dt" 1.5 20 && grep -q "lock_timeout (2s)" b.err; then
		ok "a push stopped holding the name: the second push fails after $dt s: $(cut -c1-160 b.err)"
	else
		not_ok "a second push of a name a stopped push holds" "exit $rc after $dt s: $(cat b.err)"
	fi
	wait $a
	check_eq "the stopped push, gone on, lands whole" "0 240000" \
		"$? $(pg_psql "SELECT count(*) FROM events e JOIN runs r ON r.id = e.run WHERE r.name = '$host:big2'")"
else
	kill $a 2>/dev/null
	skip "a push stopped holding the name" "the push ended before its COPY was seen"
fi

# ---- the server ends a push's connection in its COPY: tried again, whole
"$IOTAPE" push --db l.db --to "$URL" --replace big2 > c.out 2> c.err &
c=$!
if p=$(copying); then
	pg_psql "SELECT pg_terminate_backend($p)" > /dev/null
	wait $c
	rc=$?
	if [ $rc = 0 ] && tr -s '\n ' '  ' < c.out | grep -q "tried 1 more time" &&
	   [ "$(pg_psql "SELECT count(*) FROM events e JOIN runs r ON r.id = e.run WHERE r.name = '$host:big2'")" = 240000 ]; then
		ok "a push whose connection was ended in its COPY: tried again, whole: $(cat c.out)"
	else
		not_ok "a push whose connection was ended" "exit $rc: $(cat c.out c.err)"
	fi
else
	wait $c
	skip "a push whose connection is ended" "the push ended before its COPY was seen"
fi
tap_finish
