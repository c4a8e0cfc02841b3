# t_faults.sh: faults injected for real. A disk that fills while importing,
# a database another writer holds, two imports at once, a trace whose clock
# steps back and ahead by hours, lost completions and completions of I/O
# issued before the trace: clean errors, nothing half-written, statistics
# not poisoned.
. "$(dirname "$0")/../lib.sh"

need_iotape "faults"
t=$TEST_TMP V=$FIXTURES/variants small=$FIXTURES/loop-fio-small.bin
q() { sqlite3 "$1" "$2"; }

# ---- a clock step: imported, flagged, latencies not poisoned ----
db=$t/c.db
if "$IOTAPE" import --db "$db" --run step "$V/clockstep.bin" 2> "$t/err"; then
	ok "trace with clock steps imports"
else
	not_ok "trace with clock steps imports" "$(cat "$t/err")"
fi
check_eq "both steps flagged" 2 "$(q "$db" "SELECT value FROM run_stats WHERE key = 'clock_jumps'")"
max=$("$IOTAPE" report --db "$db" --json step | jq '.all.q2c.max_us')
awk -v m="$max" 'BEGIN { exit !(m < 1e6) }' && ok "no latency spans a step (Q2C max $max us)" ||
	not_ok "no latency spans a step" "Q2C max $max us"
ab=$(q "$db" "SELECT value FROM run_stats WHERE key = 'jump_abandoned'")
[ "${ab:-0}" -ge 0 ] && ok "I/Os in flight at the steps ended there: $ab" || not_ok "jump_abandoned recorded"

# ---- lost completions, completions of I/O issued before the trace ----
db=$t/l.db
"$IOTAPE" import --quiet --db "$db" --run lost "$V/lostc.bin"
um=$(q "$db" "SELECT value FROM run_stats WHERE key = 'unmatched_c'")
pe=$(q "$db" "SELECT value FROM run_stats WHERE key = 'pending_end'")
# the data completions whose bio was neither queued nor dispatched earlier
# in the trace (by blkparse); the flush bios' own completions ("C WS 0"
# after "C FN") pair with their bios since stitching follows kernels 5.x
# and 6.x there
want=$(blkparse -i - < "$V/lostc.bin" | awk '$6 ~ /^[QD]$/ && / \+ / { q[$8] = 1 }
	$6 == "C" && / \+ / && !($8 in q) { n++ } END { print n + 0 }')
check_eq "completions with no request counted unmatched, as blkparse shows them" \
	"$want" "${um:-missing}"
[ "${pe:-0}" -ge 8 ] && ok "requests never completed counted: $pe" ||
	not_ok "requests never completed counted" "$pe"
n=$(q "$db" "SELECT count(*) FROM requests WHERE c_ns IS NULL AND q_ns IS NOT NULL AND bytes > 0")
ql=$("$IOTAPE" report --db "$db" --json lost | jq '.all.q2c.n')
full=$("$IOTAPE" import --quiet --db "$t/full.db" --run full "$small" &&
	"$IOTAPE" report --db "$t/full.db" --json full | jq '.all.q2c.n')
[ "$ql" -lt "$full" ] && ok "lost completions are no latency samples ($ql of $full; $n never completed)" ||
	not_ok "lost completions are no latency samples" "lost $ql full $full"

# ---- a disk that fills while importing ----
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$t/small"
	at_exit "umount '$t/small' 2>/dev/null"
	mount -t tmpfs -o size=3m none "$t/small"
	db=$t/small/d.db
	"$IOTAPE" import --quiet --db "$db" --run first "$small"
	before=$(q "$db" "SELECT count(*) FROM runs; SELECT count(*) FROM events; SELECT count(*) FROM requests" | tr '\n' ' ')
	big=${IOTAPE_CORPUS:-$REPO_ROOT/../shared/corpus}/seed-debsums-patch/one-disk/trace.bin
	[ -f "$big" ] || big=$V/loop-fio-small.v8.bin
	# fill the rest of the disk first, so any import overflows it
	dd if=/dev/zero of="$t/small/filler" bs=64k 2>/dev/null
	rm -f "$t/small/filler"; dd if=/dev/zero of="$t/small/filler" bs=1k count=$(( $(df -k --output=avail "$t/small" | tail -n 1) - 200 )) 2>/dev/null
	"$IOTAPE" import --db "$db" "$big" "$V/loop-fio-small.be.bin" 2> "$t/err"
	rc=$?
	after=$(q "$db" "SELECT count(*) FROM runs; SELECT count(*) FROM events; SELECT count(*) FROM requests" | tr '\n' ' ')
	if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ] && grep -qi "full" "$t/err"; then
		ok "disk full: one clear error: $(cat "$t/err")"
	else
		not_ok "disk full: one clear error" "exit $rc: $(cat "$t/err")"
	fi
	rm -f "$t/small/filler"
	check_eq "disk full: integrity" ok "$(q "$db" 'PRAGMA integrity_check')"
	check_eq "disk full: earlier run intact, nothing half-written" "$before" "$after"
	"$IOTAPE" import --quiet --db "$db" --run third "$V/loop-fio-small.be.bin" &&
		ok "disk full: the database takes imports again once there is room" ||
		not_ok "disk full: the database takes imports again"
	umount "$t/small"
else
	skip "disk full while importing" "needs root (tmpfs)"
fi

# ---- another writer holds the database ----
db=$t/lock.db
"$IOTAPE" import --quiet --db "$db" --run a "$small"
# a writer holding the lock for 2 s: the import waits and lands
sqlite3 "$db" "BEGIN EXCLUSIVE; SELECT count(*) FROM runs;" > /dev/null
( sqlite3 "$db" ".timeout 100" "BEGIN EXCLUSIVE;" "SELECT 1 WHERE 0;" ".shell sleep 2" "COMMIT;" > /dev/null 2>&1 ) &
holder=$!
sleep 0.5
start=$(date +%s.%N)
if "$IOTAPE" import --quiet --again --db "$db" --run b "$small" 2> "$t/err"; then
	ok "a writer held the database: the import waited $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s and landed"
else
	not_ok "a writer held the database: the import waited and landed" "$(cat "$t/err")"
fi
wait $holder
# a writer holding it past the busy timeout (10 s): a clear error
( sqlite3 "$db" "BEGIN EXCLUSIVE;" "SELECT 1 WHERE 0;" ".shell sleep 13" "COMMIT;" > /dev/null 2>&1 ) &
holder=$!
sleep 0.5
"$IOTAPE" import --again --db "$db" --run c "$small" 2> "$t/err"
rc=$?
wait $holder
if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ] && grep -q "locked" "$t/err" &&
	grep -q "was writing it for over 10 s: run this when it ends" "$t/err"; then
	ok "a writer held the database too long: $(cat "$t/err")"
else
	not_ok "a writer held the database too long: a clear error" "exit $rc: $(cat "$t/err")"
fi
check_eq "nothing of the failed import stored" "a b" "$(q "$db" "SELECT group_concat(name, ' ') FROM runs")"
# two imports at once both land
"$IOTAPE" import --quiet --db "$db" --run p1 "$V/loop-fio-small.v8.bin" & p1=$!
"$IOTAPE" import --quiet --db "$db" --run p2 "$V/loop-fio-small.be.bin" & p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check_eq "two imports at once both land" "0 0 p1 p2" "$r1 $r2 $(q "$db" "SELECT group_concat(name, ' ') FROM runs WHERE name LIKE 'p%' ORDER BY name")"
d1=$("$IOTAPE" dump --db "$db" p1 | md5sum) d2=$("$IOTAPE" dump --db "$db" p2 | md5sum)
check_eq "the concurrent runs hold their own events" "$d1" "$d2"
check_eq "integrity after concurrent imports" ok "$(q "$db" 'PRAGMA integrity_check')"

# ---- the replay target fails mid-replay: its filesystem turns read-only
# (ext4's trigger_fs_error with errors=remount-ro; this kernel has no
# device-mapper to pull a device away) ----
if [ "$(id -u)" = 0 ] && "$IOTAPE" replay --help > /dev/null 2>&1; then
	db=$t/r.db
	"$IOTAPE" import --quiet --db "$db" --run src "$small"
	truncate -s 128M "$t/rt.img"
	loop_attach "$t/rt.img"
	mkfs.ext4 -q -F "/dev/$LOOPDEV"
	mkdir -p "$t/rmnt"
	at_exit "umount '$t/rmnt' 2>/dev/null"
	mount -o errors=remount-ro "/dev/$LOOPDEV" "$t/rmnt"
	trig=/sys/fs/ext4/$LOOPDEV/trigger_fs_error
	if [ -w "$trig" ]; then
		( sleep 0.4; echo 1 > "$trig" ) &
		flip=$!
		"$IOTAPE" replay --db "$db" src --target "$t/rmnt/target" --run gone \
			> /dev/null 2> "$t/err"
		rc=$?
		wait $flip
		if [ $rc != 0 ] && grep -q "I/Os failed on the target" "$t/err" &&
		   [ "$(grep -c '^iotape: [^w]' "$t/err")" = 1 ]; then
			ok "target failed mid-replay: $(grep '^iotape: [^w]' "$t/err")"
		else
			not_ok "target failed mid-replay: a clean error" "exit $rc: $(cat "$t/err")"
		fi
		check_eq "the partial replay is stored, marked failed" failed \
			"$(q "$db" "SELECT status FROM runs WHERE name = 'gone'")"
		n=$(q "$db" "SELECT count(*) FROM requests r JOIN runs u ON u.id = r.run WHERE u.name = 'gone'")
		[ "${n:-0}" -gt 0 ] && ok "its $n I/Os are in the store" || not_ok "its I/Os are in the store"
	else
		skip "replay target failing mid-replay" "no $trig"
	fi
	sleep 0.5
	umount "$t/rmnt"
else
	skip "replay target failing mid-replay" "needs root and replay"
fi
tap_finish
