# t_record.sh: the flight recorder on a loop device: a manual save (SIGUSR1 and
# --save) keeps events from before and after it; a read-latency trigger fires
# when a heavy writer with fsync starts and its time falls inside the saved
# window; a small ring under a long workload keeps its RSS bounded and counts
# what it dropped, oldest first; SIGTERM leaves tracefs as it was; a tracer in
# use is refused.
. "$(dirname "$0")/../lib.sh"

need_iotape "record"
need_root "record"
command -v fio > /dev/null || { skip "record" "no fio"; exit 0; }
command -v sqlite3 > /dev/null || { skip "record" "no sqlite3"; exit 0; }

t=$TEST_TMP db=$t/t.db
truncate -s 256M "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach loop"; tap_finish; }
d=$LOOPDEV
tracefs_check "$d" || { skip "record" "$TRACEFS_WHY"; exit 0; }
dd if=/dev/urandom of="/dev/$d" bs=1M count=256 oflag=direct status=none
# tracefs as it is with no capture running: read under the capture lock
TFS0=$(tracefs_state_locked)
REC_ARGS=(--db "$db" -d "/dev/$d")
REC=

# stop_rec LABEL: SIGTERM; it exits 0 and leaves tracefs, the device and the
# state folder as they were
stop_rec() {
	rec_stop "$1" "$d"
	# (another capture may hold the lock and its own state file by now)
	! grep -qx "pid	$REC" /run/iotape/capture.state 2> /dev/null &&
		! grep -qx "$REC" /run/iotape/record.pid 2> /dev/null &&
		ok "$1: no state or pid file left" ||
		not_ok "$1: no state or pid file left" "$(ls -l /run/iotape)"
}

# wait_saved ERRFILE N: waits (up to 30 s) for the Nth "saved run" line
wait_saved() {
	local i
	for i in $(seq 300); do
		[ "$(grep -c "saved run" "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

q() { sqlite3 "$db" "$@"; }
setting() { q "SELECT value FROM settings s JOIN runs r ON r.id = s.run WHERE r.name = '$1' AND key = '$2'"; }
stat_of() { q "SELECT value FROM run_stats s JOIN runs r ON r.id = s.run WHERE r.name = '$1' AND key = '$2'"; }
ev_time() { q "SELECT $2(time_ns) FROM events e JOIN runs r ON r.id = e.run WHERE r.name = '$1'"; }
mono_ns() { awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime; }   # CLOCK_BOOTTIME, 10 ms

# ---- a manual save while fio reads --------------------------------------------
rec_start "$t/err1" --window 30s --pre 3s --post 2s --keep 16M ||
	{ not_ok "manual: the recorder starts" "$(cat "$t/err1")"; tap_finish; }
# (fio reads until both saves are in, not for a set time: a machine that
# stalled a few seconds once ended an 8 s fio before the signal, and the
# post window was empty)
fio --name=r --filename="/dev/$d" --rw=randread --direct=1 --bs=4k --runtime=60 \
	--time_based --ioengine=libaio --iodepth=4 --rate_iops=1000 > /dev/null 2>&1 &
fio1=$!
at_exit "kill $fio1 2> /dev/null"
sleep 4
"$IOTAPE" record --save > "$t/save.out" 2>&1
check_eq "record --save signals the recorder" 0 $?
wait_saved "$t/err1" 1 && ok "manual: a save is reported" ||
	not_ok "manual: a save is reported" "$(cat "$t/err1")"
kill -USR1 $REC      # a second one, by hand, after the first save: saved too
wait_saved "$t/err1" 2 && ok "manual: SIGUSR1 saves again" ||
	not_ok "manual: SIGUSR1 saves again" "$(cat "$t/err1")"
kill $fio1 2> /dev/null
wait $fio1
stop_rec manual
runs=$(q "SELECT name FROM runs WHERE name LIKE 'incident-%' ORDER BY id")
run=$(printf '%s\n' "$runs" | head -n 1)
[[ $run =~ ^incident-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$ ]] &&
	ok "manual: run named incident-DATE ($run)" || not_ok "manual: run named incident-DATE" "$runs"
check_eq "manual: two saves, two runs" 2 "$(printf '%s\n' "$runs" | grep -c .)"
check_eq "manual: its trigger is stored" manual "$(setting "$run" record.trigger)"
tn=$(setting "$run" record.trigger_ns)
first=$(ev_time "$run" min) last=$(ev_time "$run" max)
n=$(q "SELECT count(*) FROM events e JOIN runs r ON r.id = e.run WHERE r.name = '$run'")
[ "${n:-0}" -gt 1000 ] && ok "manual: $n events saved" || not_ok "manual: events saved" "n=$n"
[ -n "$tn" ] && [ "${first:-0}" -lt $((tn - 2000000000)) ] &&
	ok "manual: the pre window holds events from 2 s before the signal" ||
	not_ok "manual: the pre window holds events from before" "first=$first trigger=$tn"
[ -n "$tn" ] && [ "${last:-0}" -gt $((tn + 1000000000)) ] &&
	ok "manual: the post window holds events from after the signal" ||
	not_ok "manual: events after the signal" "last=$last trigger=$tn"
[ "${last:-0}" -le $((tn + 2000000000)) ] && [ "${first:-0}" -ge $((tn - 3000000000)) ] &&
	ok "manual: nothing outside [trigger - pre, trigger + post]" ||
	not_ok "manual: nothing outside the window" "first=$first last=$last trigger=$tn"
ns=$(q "SELECT count(DISTINCT s.source) FROM samples s JOIN runs r ON r.id = s.run WHERE r.name = '$run'")
[ "${ns:-0}" -ge 3 ] && ok "manual: /proc samples saved ($ns sources)" || not_ok "manual: samples saved" "$ns"
check "manual: report reads the incident" "$IOTAPE" report --db "$db" "$run"
check "manual: vmstat reads the incident" "$IOTAPE" vmstat --db "$db" "$run"
"$IOTAPE" runs --db "$db" | grep -q "$run" && ok "manual: runs lists it" || not_ok "manual: runs lists it"

# ---- a read-latency trigger -------------------------------------------------
# (5 ms: the reads come from the backing file's page cache, well under a
# millisecond alone; behind the writer's 4 MiB writes their p99 was 16 ms on a
# machine whose disk takes the fsyncs fast, hundreds of ms on a slow one)
base=$(q "SELECT coalesce(max(id), 0) FROM runs")
rec_start "$t/err2" --window 30s --pre 4s --post 2s --cooldown 60s \
	--trigger 'read_q2c_p99>5ms/2s' ||
	{ not_ok "latency: the recorder starts" "$(cat "$t/err2")"; tap_finish; }
fio --name=r --filename="/dev/$d" --rw=randread --direct=1 --bs=4k --runtime=13 \
	--time_based --ioengine=libaio --iodepth=16 --rate_iops=200 > /dev/null 2>&1 &
fio1=$!
sleep 5
w0=$(mono_ns)
# big direct writes fill the device's queue; reads wait for it
fio --name=w --filename="/dev/$d" --rw=randwrite --bs=4M --runtime=6 --time_based \
	--ioengine=libaio --direct=1 --iodepth=64 --fsync=8 > /dev/null 2>&1 &
fio2=$!
wait $fio2; wait $fio1
wait_saved "$t/err2" 1
stop_rec latency
run=$(q "SELECT name FROM runs WHERE id > $base ORDER BY id LIMIT 1")
if [ -z "$run" ]; then
	not_ok "latency: the spike was saved" "$(cat "$t/err2")"
else
	ok "latency: the spike was saved ($(setting "$run" record.value))"
	check_eq "latency: one save in the cooldown" 1 "$(q "SELECT count(*) FROM runs WHERE id > $base")"
	check_eq "latency: its trigger is stored" 'read_q2c_p99>5ms/2s' "$(setting "$run" record.trigger)"
	tn=$(setting "$run" record.trigger_ns)
	from=$(setting "$run" record.window_from_ns) to=$(setting "$run" record.window_to_ns)
	[ "$tn" -ge "$from" ] && [ "$tn" -le "$to" ] &&
		ok "latency: the trigger time falls inside the saved window" ||
		not_ok "latency: the trigger inside the window" "$from $tn $to"
	[ "$tn" -gt $((w0 - 500000000)) ] && ok "latency: it fired after the writer started" ||
		not_ok "latency: it fired after the writer started" "trigger=$tn writer=$w0"
	first=$(ev_time "$run" min)
	[ "${first:-0}" -lt $((w0 - 1000000000)) ] &&
		ok "latency: the pre window holds reads from before the spike" ||
		not_ok "latency: reads before the spike" "first=$first writer=$w0"
	slow=$(q "SELECT count(*) FROM requests q JOIN runs r ON r.id = q.run WHERE r.name = '$run'
		AND rwbs LIKE '%R%' AND c_ns - q_ns > 5000000" 2> /dev/null)
	[ "${slow:-0}" -gt 0 ] && ok "latency: the run holds $slow reads over 5 ms" ||
		not_ok "latency: the run holds the slow reads" "$slow"
	check "latency: report reads the incident" "$IOTAPE" report --db "$db" "$run"
fi

# ---- a small ring under a long workload ---------------------------------------
# full speed first (RSS), then a slower reader, during which a save keeps what
# the ring still holds: everything dropped is older than all of it
rec_start "$t/err3" --window 60s --pre 2s --post 0.1s --keep 1M ||
	{ not_ok "small ring: the recorder starts" "$(cat "$t/err3")"; tap_finish; }
fio --name=r --filename="/dev/$d" --rw=randread --direct=1 --bs=4k --runtime=8 \
	--time_based --ioengine=libaio --iodepth=8 > /dev/null 2>&1 &
fio1=$!
sleep 2
rss1=$(awk '/^VmRSS/ { print $2 }' /proc/$REC/status)
sleep 5
rss2=$(awk '/^VmRSS/ { print $2 }' /proc/$REC/status)
diag "small ring: VmRSS ${rss1} kB at 2 s, ${rss2} kB at 7 s"
# (the sanitizer build's own allocator and shadow take more: 33.6 MiB seen
# there in one CI run; 48 MiB)
rss_max=32768; [ -n "$SAN" ] && rss_max=49152
[ "$rss2" -lt $rss_max ] && ok "small ring: RSS stays under $((rss_max / 1024)) MiB ($rss2 kB)" ||
	not_ok "small ring: RSS bounded" "$rss2 kB (limit $rss_max kB)"
# 2 MiB of slack. The recorder allocates nothing from the heap while it
# records; when it did (a read buffer per /proc file per sample, a struct per
# segment), the sanitizer's quarantine of freed blocks grew 4.5 MiB in these
# 5 s in one CI run. 4 MiB there for the sanitizer's own allocator.
grow_max=2048; [ -n "$SAN" ] && grow_max=4096
[ $((rss2 - rss1)) -lt $grow_max ] && ok "small ring: RSS does not grow while events flow" ||
	not_ok "small ring: RSS does not grow" "$rss1 -> $rss2 kB (limit +$grow_max kB)"
wait $fio1
fio --name=r --filename="/dev/$d" --rw=randread --direct=1 --bs=4k --runtime=6 \
	--time_based --ioengine=libaio --iodepth=2 --rate_iops=1000 > /dev/null 2>&1 &
fio1=$!
sleep 4
kill -USR1 $REC
wait_saved "$t/err3" 1
wait $fio1
stop_rec "small ring"
dropped=$(sed -n 's/.* \([0-9]*\) events dropped from the ring/\1/p' "$t/err3")
[ "${dropped:-0}" -gt 0 ] && ok "small ring: dropped events reported ($dropped)" ||
	not_ok "small ring: dropped events reported" "$(cat "$t/err3")"
run=$(q "SELECT name FROM runs WHERE name LIKE 'incident-%' ORDER BY id DESC LIMIT 1")
de=$(stat_of "$run" record_dropped_events) until=$(stat_of "$run" record_dropped_until_ns)
[ "${de:-0}" -gt 0 ] && ok "small ring: the run counts dropped events ($de)" ||
	not_ok "small ring: the run counts dropped events" "$de"
first=$(ev_time "$run" min)
# trace_pipe hands records over up to a few hundred ms out of time order
# across CPUs (220 ms seen here): the ring drops in arrival order
diag "small ring: dropped until $until, first kept $first"
[ -n "$first" ] && [ "${until:-0}" -gt 0 ] && [ "$until" -le $((first + 500000000)) ] &&
	ok "small ring: dropped oldest first (before the saved events, within 500 ms of the tracer's reordering)" ||
	not_ok "small ring: dropped oldest first" "dropped until $until, first kept $first"

# ---- a tracer in use is refused ------------------------------------------------
# hold the real lock, so no capture runs meanwhile; the recorder uses its own.
# The machine-wide half is let go once the tracer is set, for the recorder to
# take: one in another container that takes it meanwhile finds it in use too.
# tracefs mounted here when it is not (and unmounted again), so the check
# runs on a machine where nothing mounted it
(
	capture_lock || exit 1
	T=$TRACEFS mounted=0
	if [ ! -e "$T/current_tracer" ]; then
		mount -t tracefs none "$T" || exit 1
		mounted=1
	fi
	echo blk > "$T/current_tracer"
	exec 8<&-
	"$IOTAPE" record --db "$db" -d "/dev/$d" --state-dir "$t/state" > /dev/null 2> "$t/busy"
	echo $? > "$t/busy.rc"
	echo nop > "$T/current_tracer"
	[ $mounted = 0 ] || umount "$T"
)
check_eq "in use: the recorder refuses" 1 "$(cat "$t/busy.rc")"
grep -q "tracer is in use.*'blk'" "$t/busy" && ok "in use: it says which tracer" ||
	not_ok "in use: it says which tracer" "$(cat "$t/busy")"
check_eq "in use: tracefs as it was" "$TFS0" "$(tracefs_state_locked)"
"$IOTAPE" record --save --state-dir "$t/state" > /dev/null 2> "$t/nosave"
[ $? != 0 ] && grep -q "no recorder is running" "$t/nosave" &&
	ok "--save without a recorder says so" || not_ok "--save without a recorder" "$(cat "$t/nosave")"
tap_finish
