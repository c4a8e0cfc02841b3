# t_pg_writers.sh: every writer stores straight into PostgreSQL (--db URL and
# IOTAPE_DB) on a private server (tests/lib.sh pg_start): import gives the same dump
# and report as into SQLite; replay, capture and record (a real loop device, the
# tracefs blk tracer under the capture lock) store a run of the right shape: its
# kind, events, requests, samples and settings, read back by dump and report, with
# its summary written in the same transaction. The capture and record parts are
# skipped without root, tracefs or the blk tracer; all of it without the server.
. "$(dirname "$0")/../lib.sh"

need_iotape "writers into PostgreSQL"
need_pg "writers into PostgreSQL"
command -v jq > /dev/null || { skip "writers into PostgreSQL" "no jq"; exit 0; }
pg_start || { not_ok "start a private PostgreSQL server"; tap_finish; }
t=$TEST_TMP db=$t/t.db F=$FIXTURES/loop-fio-small.bin URL=$PG_URL
cd "$t" || exit 1
pq() { pg_psql "$1"; }
runq() { pq "SELECT $2 FROM runs WHERE name = '$1'"; }

# ---- import (deterministic): the same bytes as from SQLite
"$IOTAPE" import --quiet --db "$db" --run lf "$F" || { not_ok "import into SQLite"; tap_finish; }
if IOTAPE_DB=$URL "$IOTAPE" import --quiet --run lf "$F"; then
	ok "import into PostgreSQL through IOTAPE_DB"
	for cmd in "dump lf" "report lf" "report --json lf"; do
		# shellcheck disable=SC2086
		"$IOTAPE" $cmd --db "$db" > a.out; "$IOTAPE" $cmd --db "$URL" > b.out
		if cmp -s a.out b.out && [ -s a.out ]; then ok "import: $cmd the same bytes as from SQLite"
		else not_ok "import: $cmd differs" "$(diff a.out b.out | head -n 4)"; fi
	done
else
	not_ok "import into PostgreSQL through IOTAPE_DB"
fi

# ---- replay (on a modelled disk: simulated time, so the shape is checked)
if "$IOTAPE" replay --db "$URL" lf --target model:deskstar-7k500 --run rp --quiet > /dev/null 2> rp.err; then
	check_eq "replay: a replay run, child of lf, complete" "replay complete lf" \
		"$(pq "SELECT r.kind || ' ' || r.status || ' ' || p.name FROM runs r JOIN runs p ON p.id = r.parent WHERE r.name = 'rp'")"
	check_eq "replay: one replayed I/O per request of lf with data or a flush" \
		"$(pq "SELECT count(*) FROM replays x JOIN runs r ON r.id = x.run WHERE r.name = 'rp'")" \
		"$("$IOTAPE" replay --db "$db" lf --target model:deskstar-7k500 --run rp --quiet > /dev/null 2>&1;
		   sqlite3 "$db" "SELECT count(*) FROM replays x JOIN runs r ON r.id = x.run WHERE r.name = 'rp'")"
	check "replay: report reads it from PostgreSQL" "$IOTAPE" report --db "$URL" rp
	check_eq "replay: its summary landed with it" 2 \
		"$(pq "SELECT count(*) FROM run_summary s JOIN runs r ON r.id = s.run WHERE r.name = 'rp'")"
else
	not_ok "replay into PostgreSQL" "$(cat rp.err)"
fi

# shape LABEL RUN KIND: RUN in PostgreSQL is a complete run of KIND with events,
# requests, /proc samples and settings, which dump and report read back whole, and
# its summary equals report's read figures
shape() {
	local label=$1 run=$2 kind=$3 ev rq ns nset nd reads sreads
	check_eq "$label: a $kind run, complete" "$kind complete" "$(runq "$run" "kind || ' ' || status")"
	ev=$(pq "SELECT count(*) FROM events e JOIN runs r ON r.id = e.run WHERE r.name = '$run'")
	rq=$(pq "SELECT count(*) FROM requests q JOIN runs r ON r.id = q.run WHERE r.name = '$run'")
	ns=$(pq "SELECT count(DISTINCT s.source) FROM samples s JOIN runs r ON r.id = s.run WHERE r.name = '$run'")
	nset=$(pq "SELECT count(*) FROM settings s JOIN runs r ON r.id = s.run WHERE r.name = '$run'")
	if [ "${ev:-0}" -gt 100 ] && [ "${rq:-0}" -gt 10 ] && [ "${ns:-0}" -ge 3 ] && [ "${nset:-0}" -gt 0 ]; then
		ok "$label: $ev events, $rq requests, $ns sample sources, $nset settings"
	else
		not_ok "$label: rows stored" "events $ev, requests $rq, sample sources $ns, settings $nset"
	fi
	nd=$("$IOTAPE" dump --db "$URL" "$run" 2> dump.err | wc -l)
	check_eq "$label: dump prints one line per event" "$ev" "$nd"
	"$IOTAPE" report --json --db "$URL" "$run" > rep.json 2> rep.err ||
		not_ok "$label: report" "$(cat rep.err)"
	reads=$(jq '[.devices[].read.requests] | add // 0' rep.json 2> /dev/null)
	sreads=$(pq "SELECT s.requests FROM run_summary s JOIN runs r ON r.id = s.run WHERE r.name = '$run' AND dir = 'read'")
	check_eq "$label: the summary's read p99 is report's" \
		"$(jq -r '.all.q2c.p99_us' rep.json | xargs printf '%.3f')" \
		"$(pq "SELECT q2c_p99_ns / 1e3 FROM run_summary s JOIN runs r ON r.id = s.run WHERE r.name = '$run' AND dir = 'read'" | xargs printf '%.3f')"
	[ "${sreads:-0}" -gt 0 ] && [ "$sreads" = "$reads" ] &&
		ok "$label: the summary counts report's $sreads reads" ||
		not_ok "$label: the summary counts report's reads" "summary $sreads, report $reads"
}

# ---- capture and record need root, tracefs and a loop device
if [ "$(id -u)" != 0 ] || ! tracefs_check; then
	skip "capture and record into PostgreSQL" "${TRACEFS_WHY:-needs root}"
	tap_finish
fi
truncate -s 128M "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach a loop device"; tap_finish; }
d=$LOOPDEV
tracefs_check "$d" || { skip "capture and record into PostgreSQL" "$TRACEFS_WHY"; tap_finish; }
dd if=/dev/urandom of="/dev/$d" bs=1M count=128 oflag=direct status=none
# reads only (direct, 4 KiB): the summary's read figures are report's all-devices
rd="dd if=/dev/$d of=/dev/null bs=4k count=3000 iflag=direct status=none"

if "$IOTAPE" capture --db "$URL" --run cap -d "/dev/$d" --interval 0.2 --label t.writer=capture \
	--cmd "$rd" > cap.out 2> cap.err; then
	shape capture cap capture
	check_eq "capture: its label is a setting" capture \
		"$(pq "SELECT value FROM settings s JOIN runs r ON r.id = s.run WHERE r.name = 'cap' AND key = 't.writer'")"
else
	not_ok "capture into PostgreSQL" "$(tail -n 5 cap.err)"
fi

# the recorder saves into IOTAPE_DB; it waits for the capture lock first
IOTAPE_DB=$URL "$IOTAPE" record -d "/dev/$d" --interval 0.25 --window 30s --pre 3s --post 1s \
	> /dev/null 2> rec.err &
rec=$!
at_exit "kill -TERM $rec 2>/dev/null; wait $rec 2>/dev/null"
for i in $(seq 9000); do
	grep -q "iotape: recording" rec.err && break
	kill -0 $rec 2> /dev/null || break
	sleep 0.1
done
if grep -q "iotape: recording" rec.err; then
	bash -c "$rd"
	"$IOTAPE" record --save > /dev/null 2>&1
	for i in $(seq 300); do grep -q "saved run" rec.err && break; sleep 0.1; done
	kill -TERM $rec; wait $rec
	check_eq "record: exits 0 on SIGTERM" 0 $?
	run=$(pq "SELECT name FROM runs WHERE name LIKE 'incident-%' ORDER BY id LIMIT 1")
	if [ -n "$run" ]; then shape record "$run" capture
	else not_ok "record: a saved run in PostgreSQL" "$(cat rec.err)"; fi
else
	not_ok "record into PostgreSQL starts" "$(cat rec.err)"
fi
tap_finish
