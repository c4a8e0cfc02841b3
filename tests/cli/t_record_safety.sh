# t_record_safety.sh: the flight recorder on a production machine: the ring
# spills past --mem to files in --out (bounded by --keep, removed at the end,
# stale ones removed at a restart or refused with the reason) and a save reads
# them; --db or --out on a traced disk is refused without --allow-traced; a
# save onto a full filesystem (ext4 on a loop device) fails in one line,
# leaves the store without a half run, recording goes on and the next save
# works once there is room; SIGTERM during a save leaves a complete run or
# none and tracefs as it was; a SIGKILL leaves what `record --reset` puts back;
# without CAP_IPC_LOCK the ring's failed mlock() is one warning, not an end.
. "$(dirname "$0")/../lib.sh"

need_iotape "record safety"
need_root "record safety"
command -v sqlite3 > /dev/null || { skip "record safety" "no sqlite3"; exit 0; }
command -v mkfs.ext4 > /dev/null || { skip "record safety" "no mkfs.ext4"; exit 0; }

t=$TEST_TMP
truncate -s 128M "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach loop"; tap_finish; }
d=$LOOPDEV
tracefs_check "$d" || { skip "record safety" "$TRACEFS_WHY"; exit 0; }
dd if=/dev/urandom of="/dev/$d" bs=1M count=128 oflag=direct status=none
# a small filesystem for the full-disk case, mounted in the test's folder
truncate -s 24M "$t/small.img"
mkfs.ext4 -q -F "$t/small.img" || { not_ok "mkfs.ext4"; tap_finish; }
loop_attach "$t/small.img" || { not_ok "attach the small loop"; tap_finish; }
small=$LOOPDEV
mnt=$t/mnt
mkdir -p "$mnt"
at_exit "umount '$mnt' 2> /dev/null"
mount "/dev/$small" "$mnt" || { not_ok "mount the small filesystem"; tap_finish; }

TFS0=$(tracefs_state_locked)
REC_ARGS=(-d "/dev/$d")
REC= REC_WRAP=

# reader [slow]: a reader on the traced disk (at full speed, or slow: about
# 1000 reads/s), until stopped
reader() {
	local n=8000 pause=0
	[ "${1:-}" = slow ] && n=100 pause=0.1
	( while :; do dd if="/dev/$d" of=/dev/null bs=4k count=$n iflag=direct \
		2> /dev/null; sleep $pause; done ) &
	RD=$!
	at_exit "kill $RD 2> /dev/null"
}


# wait_line ERRFILE PATTERN N: waits (30 s) for the Nth line matching PATTERN
wait_line() {
	local i
	for i in $(seq 300); do
		[ "$(grep -c "$2" "$1")" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}


segs() { find "$1" -maxdepth 1 -name 'seg-*.ring' | wc -l; }
seg_kb() { du -sk --apparent-size "$1" | cut -f1; }
runs_in() { sqlite3 "$1" "SELECT count(*) FROM runs WHERE name LIKE 'incident-%'"; }

# ---- a saves' path on a traced disk is refused ------------------------------
"$IOTAPE" record -d "/dev/$small" --db "$mnt/x.db" > /dev/null 2> "$t/traced"
rc=$?
[ $rc != 0 ] && grep -q "the database '$mnt/x.db' is on $small, a traced disk" "$t/traced" &&
	ok "--db on a traced disk is refused, naming the disk" ||
	not_ok "--db on a traced disk is refused" "exit $rc: $(cat "$t/traced")"
# a store that exists and is no iotape database: refused at the start (its
# first save failed and the incident was lost), the file untouched
sqlite3 "$t/foreign.db" "CREATE TABLE x (a); INSERT INTO x VALUES (1)"
fsum=$(md5sum < "$t/foreign.db")
"$IOTAPE" record -d "/dev/$d" --db "$t/foreign.db" > /dev/null 2> "$t/foreign"
check_eq "--db another program's SQLite file: refused at the start, one line, untouched" \
	"1 1 $fsum" "$? $(grep -c "^iotape: incidents cannot be saved: $t/foreign.db: not an iotape database" "$t/foreign") $(md5sum < "$t/foreign.db")"
# a file system on a loop device over a file on the traced disk: the same
# feedback, one step removed
truncate -s 8M "$mnt/inner.img"
if mkfs.ext4 -q -F "$mnt/inner.img" && loop_attach "$mnt/inner.img"; then
	inner=$LOOPDEV
	mkdir -p "$t/inner"
	at_exit "umount '$t/inner' 2> /dev/null"
	if mount "/dev/$inner" "$t/inner"; then
		"$IOTAPE" record -d "/dev/$small" --db "$t/inner/x.db" > /dev/null 2> "$t/traced"
		rc=$?
		[ $rc != 0 ] && grep -q "the database '$t/inner/x.db' is on $small, a traced disk" "$t/traced" &&
			ok "--db on a loop device over a file on a traced disk is refused, naming the disk" ||
			not_ok "--db on a loop device over a file on a traced disk is refused" \
				"exit $rc: $(cat "$t/traced")"
		umount "$t/inner"
	else
		not_ok "mount the inner loop device"
	fi
	losetup -d "/dev/$inner"
else
	not_ok "make the inner loop device"
fi
rm -f "$mnt/inner.img"
"$IOTAPE" record -d "/dev/$small" --out "$mnt/spill" --db "$t/y.db" > /dev/null 2> "$t/traced2"
grep -q "\-\-out '$mnt/spill' is on $small" "$t/traced2" &&
	ok "--out on a traced disk is refused" || not_ok "--out on a traced disk is refused" "$(cat "$t/traced2")"
# a folder not made yet is judged by the nearest one that is
"$IOTAPE" record -d "/dev/$small" --out "$mnt/a/b/spill" --db "$t/y.db" > /dev/null 2> "$t/traced3"
grep -q "\-\-out '$mnt/a/b/spill' is on $small" "$t/traced3" &&
	ok "--out on a traced disk, folders not made yet: refused" ||
	not_ok "--out on a traced disk, folders not made yet: refused" "$(cat "$t/traced3")"
check_eq "the refusal leaves tracefs as it was" "$TFS0" "$(tracefs_state_locked)"
"$IOTAPE" record --keep 64M --mem 4M > /dev/null 2> "$t/nospill"
[ $? = 2 ] && grep -q "needs --out DIR" "$t/nospill" && ok "--keep over --mem needs --out" ||
	not_ok "--keep over --mem needs --out" "$(cat "$t/nospill")"

# ---- the spill --------------------------------------------------------------
out=$t/spill
mkdir -p "$out/seg-8.ring"            # a stale "segment" that cannot be removed
"$IOTAPE" record -d "/dev/$d" --out "$out" --keep 64M --mem 2M > /dev/null 2> "$t/stale"
[ $? != 0 ] && grep -q "cannot remove the stale segment '$out/seg-8.ring'" "$t/stale" &&
	ok "a stale segment that cannot be removed is refused, saying why" ||
	not_ok "a stale segment that cannot be removed" "$(cat "$t/stale")"
rmdir "$out/seg-8.ring"
: > "$out/seg-7.ring"                  # one a killed recorder left
rec_start "$t/err1" --out "$out" --keep 48M --mem 2M --window 60s --pre 30s --post 0.2s ||
	{ not_ok "spill: the recorder starts" "$(cat "$t/err1")"; tap_finish; }
[ -e "$out/seg-7.ring" ] && not_ok "spill: a stale segment is removed at the start" ||
	ok "spill: a stale segment is removed at the start"
reader
sleep 8
n=$(segs "$out") kb=$(seg_kb "$out")
rss=$(awk '/^VmRSS/ { print $2 }' /proc/$REC/status)
diag "spill: $n segment files, $kb kB on disk, VmRSS $rss kB"
[ "$n" -gt 4 ] && ok "spill: the ring spills to $n files" || not_ok "spill: the ring spills" "$n files"
[ "$kb" -le $((48 * 1024)) ] && ok "spill: the files stay under --keep ($kb kB)" ||
	not_ok "spill: the files stay under --keep" "$kb kB"
# 24 MiB: --mem 2M, the reader's buffers, the program; the sanitizer build
# adds its shadow memory and quarantine (30 MiB seen): 40 MiB there, still
# under --keep's 48
rss_max=24576; [ -n "$SAN" ] && rss_max=40960
[ "$rss" -lt $rss_max ] && ok "spill: RSS stays under --keep ($rss kB < $rss_max kB)" ||
	not_ok "spill: RSS bounded" "$rss kB (limit $rss_max kB)"
kill -USR1 $REC
wait_line "$t/err1" "saved run" 1
kill $RD; wait $RD 2> /dev/null
db1=$out/incidents.db
check_eq "spill: the save goes to DIR/incidents.db" 1 "$(runs_in "$db1")"
ev=$(sqlite3 "$db1" "SELECT count(*) FROM events")
# 2 MiB of memory holds at most 2 MiB / 48 bytes of records
[ "${ev:-0}" -gt 60000 ] && ok "spill: the save reads the spilled segments ($ev events)" ||
	not_ok "spill: the save reads the spilled segments" "$ev events"
check "spill: report reads the incident" "$IOTAPE" report --db "$db1" \
	"$(sqlite3 "$db1" "SELECT name FROM runs LIMIT 1")"
rec_stop spill "$d"
check_eq "spill: the files go at the end" 0 "$(segs "$out")"

# ---- a full disk during a save ----------------------------------------------
db=$mnt/inc.db
rec_start "$t/err2" --db "$db" --keep 64M --window 60s --pre 5s --post 0.2s ||
	{ not_ok "full disk: the recorder starts" "$(cat "$t/err2")"; tap_finish; }
reader slow
sleep 1
kill -USR1 $REC
wait_line "$t/err2" "saved run" 1 && ok "full disk: a first save with room" ||
	not_ok "full disk: a first save with room" "$(cat "$t/err2")"
sleep 4
dd if=/dev/zero of="$mnt/fill" bs=1M status=none 2> /dev/null
sync
df -k "$mnt" | tail -1 | { read -r _ _ _ avail _; diag "full disk: $avail kB left"; }
kill -USR1 $REC
wait_line "$t/err2" "saving the incident failed" 1 && ok "full disk: the save fails" ||
	not_ok "full disk: the save fails" "$(cat "$t/err2")"
line=$(grep "saving the incident failed" "$t/err2")
check_eq "full disk: one line says so" 1 "$(printf '%s\n' "$line" | grep -c .)"
diag "$line"
printf '%s\n' "$line" | grep -q "recording goes on" &&
	ok "full disk: the line says recording goes on" || not_ok "full disk: recording goes on" "$line"
kill -0 $REC 2> /dev/null && ok "full disk: the recorder keeps recording" ||
	not_ok "full disk: the recorder keeps recording"
"$IOTAPE" runs --db "$db" > "$t/runs" 2>&1
check_eq "full disk: runs reads the store" 0 $?
check_eq "full disk: no half run (one incident, as before)" 1 "$(runs_in "$db")"
check_eq "full disk: the store is consistent" ok "$(sqlite3 "$db" 'PRAGMA integrity_check')"
check_eq "full disk: no events without a run" 0 \
	"$(sqlite3 "$db" 'SELECT count(*) FROM events WHERE run NOT IN (SELECT id FROM runs)')"
rm -f "$mnt/fill"
sync
kill -USR1 $REC
wait_line "$t/err2" "saved run" 2 && ok "full disk: with room again the next save works" ||
	not_ok "full disk: the next save works" "$(cat "$t/err2")"
check_eq "full disk: two incidents now" 2 "$(runs_in "$db")"
n2=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE run = (SELECT max(id) FROM runs)")
[ "${n2:-0}" -gt 1000 ] && ok "full disk: the second save holds $n2 events" ||
	not_ok "full disk: the second save holds events" "$n2"
kill $RD; wait $RD 2> /dev/null
rec_stop "full disk" "$d"

# ---- SIGTERM during a save --------------------------------------------------
db=$t/term.db
rec_start "$t/err3" --db "$db" --keep 256M --window 120s --pre 60s --post 0.1s ||
	{ not_ok "SIGTERM: the recorder starts" "$(cat "$t/err3")"; tap_finish; }
reader
sleep 12
kill $RD; wait $RD 2> /dev/null
kill -USR1 $REC
sleep 1.3              # the post window and the tracer's second: saving now
t0=$(date +%s.%N)
kill -TERM $REC; wait $REC
rc=$?
t1=$(date +%s.%N)
diag "SIGTERM: the recorder ended $(echo "$t1 - $t0" | bc) s after SIGTERM"
check_eq "SIGTERM: the recorder exits 0" 0 $rc
check_eq "SIGTERM: tracefs as it was" "$TFS0" "$(tracefs_state_locked)"
n=$(runs_in "$db" 2> /dev/null || echo 0)
bad=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status IS NOT 'complete'" 2> /dev/null || echo 0)
[ "${n:-0}" -le 1 ] && [ "${bad:-0}" = 0 ] &&
	ok "SIGTERM: the store has $n complete incident runs and no other" ||
	not_ok "SIGTERM: a complete run or none" "runs=$n incomplete=$bad"
if [ "${n:-0}" = 1 ]; then
	ev=$(sqlite3 "$db" "SELECT count(*) FROM events")
	last=$(sqlite3 "$db" "SELECT last_event - first_event + 1 FROM runs")
	check_eq "SIGTERM: the run holds all its events" "$last" "$ev"
	diag "SIGTERM: the saved run holds $ev events"
fi

# ---- SIGKILL: record --reset puts it back -----------------------------------
rec_start "$t/err4" --out "$out" --keep 16M --mem 1M --window 30s --pre 5s --post 1s ||
	{ not_ok "SIGKILL: the recorder starts" "$(cat "$t/err4")"; tap_finish; }
at_exit "'$IOTAPE' record --reset > /dev/null 2>&1"
reader
sleep 3
kill -KILL $REC; wait $REC 2> /dev/null
kill $RD; wait $RD 2> /dev/null
k=$(segs "$out")
check_eq "SIGKILL: the tracer stays on" 1 "$(cat /sys/block/$d/trace/enable)"
"$IOTAPE" record --reset > "$t/reset" 2>&1
check_eq "SIGKILL: record --reset exits 0" 0 $?
grep -q "restored set .*current_tracer" "$t/reset" && ok "SIGKILL: --reset says what it restored" ||
	not_ok "SIGKILL: --reset says what it restored" "$(cat "$t/reset")"
check_eq "SIGKILL: tracefs as it was after --reset" "$TFS0" "$(tracefs_state_locked)"
check_eq "SIGKILL: trace/enable back to 0" 0 "$(cat /sys/block/$d/trace/enable)"
[ "$k" -gt 0 ] && ok "SIGKILL: $k segment files left" || not_ok "SIGKILL: segment files left" "$k"
# the next one without CAP_IPC_LOCK and a 64 KiB memlock limit: mlock()
# fails, a warning says so once, and it records
REC_WRAP=
command -v prlimit > /dev/null && command -v setpriv > /dev/null &&
	REC_WRAP="prlimit --memlock=65536:65536 setpriv --bounding-set -ipc_lock"
rec_start "$t/err5" --out "$out" --keep 16M --mem 1M --window 30s --pre 5s --post 1s ||
	{ not_ok "SIGKILL: the next recorder starts" "$(cat "$t/err5")"; tap_finish; }
check_eq "SIGKILL: the next recorder removed the stale segments" 0 "$(segs "$out")"
reader; sleep 1; kill $RD; wait $RD 2> /dev/null
if grep -qa __asan_init "$IOTAPE"; then
	skip "no mlock: the warning" "AddressSanitizer makes mlock() a no-op"
elif [ -n "$REC_WRAP" ]; then
	check_eq "no mlock: one warning says the ring is not locked" 1 \
		"$(grep -c "cannot lock the ring in memory (mlock: " "$t/err5")"
	kill -0 $REC 2> /dev/null && ok "no mlock: it goes on recording" ||
		not_ok "no mlock: it goes on recording" "$(cat "$t/err5")"
else
	skip "no mlock: the warning" "no prlimit or setpriv"
fi
rec_stop "after SIGKILL" "$d"
# --out DIR is made if missing, folders and all
REC_WRAP=
rec_start "$t/err6" --out "$t/new/a/spill" --keep 16M --mem 1M --window 30s --pre 5s --post 1s ||
	{ not_ok "--out not there yet: the recorder starts" "$(cat "$t/err6")"; tap_finish; }
check_eq "--out not there yet: made, folders and all" yes \
	"$([ -d "$t/new/a/spill" ] && echo yes)"
rec_stop "--out made"
tap_finish
