# t_replay.sh: iotape replay on loop devices and files, as root. A real capture
# (tests/fixtures/loop-fio-small.bin) is replayed and compared I/O by I/O per
# stream with the original; timing fidelity, scaled timing, a flush+write request,
# a scheduler sweep with the setting restored, every safety refusal (an ext4
# device is never written), bad input refused before any I/O, a file target,
# --trace, the dispatch level and SIGINT.
. "$(dirname "$0")/../lib.sh"

need_iotape "replay"
need_root "replay"

t=$TEST_TMP db=$t/t.db
q() { sqlite3 "$db" "$@"; }
"$IOTAPE" import --db "$db" --run src --quiet "$FIXTURES/loop-fio-small.bin" ||
	{ not_ok "import the fixture"; tap_finish; }
SRC=$(q "SELECT id FROM runs WHERE name = 'src'")
truncate -s 256M "$t/a.img"
loop_attach "$t/a.img" || { not_ok "attach loop"; tap_finish; }
A=$LOOPDEV

# nruns: how many runs the database holds
nruns() { q "SELECT count(*) FROM runs"; }
# rid NAME: a run's id
rid() { q "SELECT id FROM runs WHERE name = '$1'"; }
# rstat RUN KEY: a run_stats value
rstat() { q "SELECT value FROM run_stats WHERE run = $(rid "$1") AND key = '$2'"; }

# ---- a real run, original timing ------------------------------------------------
"$IOTAPE" replay --db "$db" src --target "/dev/$A" --run orig1 --json --quiet \
	> "$t/orig1.json" 2> "$t/err"
check_eq "replay exits 0" "0" "$?"
R=$(rid orig1)
check_eq "the replay is a run of kind replay whose parent is the source" \
	"replay|$SRC|complete" "$(q "SELECT kind, parent, status FROM runs WHERE id = $R")"

# per stream (pid): count, offsets, sizes, directions (writes as reads) and order
q "SELECT pid, CASE WHEN bytes = 0 THEN '-' ELSE sector END, bytes,
	CASE WHEN bytes = 0 THEN 'flush' ELSE 'read' END,
	CASE WHEN bytes > 0 AND cats & 2 THEN 1 ELSE 0 END
	FROM requests WHERE run = $SRC AND q_ns IS NOT NULL ORDER BY pid, q_ns, id" > "$t/want"
q "SELECT pid, coalesce(sector, '-'), bytes, op, as_read FROM replays
	WHERE run = $R ORDER BY pid, issue_ns, idx" > "$t/got"
if cmp -s "$t/want" "$t/got"; then
	ok "each stream's I/Os match the original's ($(wc -l < "$t/want") I/Os, $(cut -d'|' -f1 "$t/want" | sort -u | wc -l) streams)"
else
	not_ok "each stream's I/Os match the original's" "$(diff "$t/want" "$t/got" | head -n 8)"
fi
check_eq "writes were replayed as reads" "420" "$(rstat orig1 replay.writes_as_reads)"
check_eq "a requests row per replayed I/O, on the target" "733|$(( $(stat -c '0x%t' "/dev/$A") << 20 | $(stat -c '0x%T' "/dev/$A") ))" \
	"$(q "SELECT count(*), min(dev) FROM requests WHERE run = $R AND d_head = 1")"
check_eq "replayed requests keep the original pids" \
	"$(q "SELECT group_concat(pid) FROM (SELECT DISTINCT pid FROM requests WHERE run = $SRC AND q_ns IS NOT NULL ORDER BY pid)")" \
	"$(q "SELECT group_concat(pid) FROM (SELECT DISTINCT pid FROM requests WHERE run = $R ORDER BY pid)")"
check "iotape report works on the replay" "$IOTAPE" report --db "$db" orig1
"$IOTAPE" report --db "$db" orig1 --json | jq -e '.devices[0].read.requests == 720' > /dev/null &&
	ok "report counts the replay's 720 reads" || not_ok "report counts the replay's 720 reads"

# --timing original: p99 issue error under 1 ms (median of three replays). The
# replayer's own lag (issue time minus when the I/O was free to go) is checked
# always; the error against the schedule also counts I/Os that waited for their
# process's previous I/O, so it follows the device: it is checked when the device
# kept up (D2C at most 1.5x the original's), as it does on an idle machine (a
# CI run saw D2C 2.8x and a 7 ms p99 while the replayer's own p99 was 34 us). Neither
# can hold while the hypervisor takes the VM's CPUs away (steal, which iotape
# measures during each replay): then the check is skipped, saying so.
p99s= own99s= slow= steal=
for i in 1 2 3; do
	[ $i = 1 ] || "$IOTAPE" replay --db "$db" src --target "/dev/$A" --run "orig$i" \
		--json --quiet > "$t/orig$i.json" 2> "$t/err"
	p99s="$p99s $(jq -r '.[0].issue_error_us.p99' "$t/orig$i.json")"
	own99s="$own99s $(jq -r '.[0].own_error_us.p99' "$t/orig$i.json")"
	slow="$slow $(jq -r '.[0].d2c_mean_us | .replay / .original' "$t/orig$i.json")"
	steal="$steal $(jq -r '.[0].steal_pct // 0' "$t/orig$i.json")"
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
med=$(median $p99s) own=$(median $own99s) sl=$(median $slow)
st=$(printf "%.0f" "$(median $steal)")
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
why_steal="the hypervisor took ${st}% of the CPU time (steal)"
if lt "$own" 1000; then
	ok "--timing original: the replayer's own p99 lag ${own} us < 1 ms (runs:$own99s)"
elif ! lt "$st" 2; then
	skip "--timing original: the replayer's own p99 lag < 1 ms" "$why_steal; p99s:$own99s"
else
	not_ok "--timing original: the replayer's own p99 lag < 1 ms" "p99s:$own99s, steal:$steal"
fi
if lt "$med" 1000; then
	ok "--timing original: p99 issue error ${med} us < 1 ms (runs:$p99s)"
elif ! lt "$st" 2; then
	skip "--timing original: p99 issue error < 1 ms" "$why_steal; p99s:$p99s"
elif ! lt "$sl" 1.5; then
	skip "--timing original: p99 issue error < 1 ms" \
		"the device was ${sl}x slower than in the original (a busy machine); p99s:$p99s"
else
	not_ok "--timing original: p99 issue error < 1 ms" "p99s:$p99s, device x$sl"
fi
diag "fidelity: $(jq -c '.[0] | [.issue_error_us, .own_error_us, .steal_pct]' "$t/orig1.json")"

# --timing scale:X is X times as fast
span() { jq -r '.[0].span_s.replay' "$1"; }
for x in 2 0.5; do
	"$IOTAPE" replay --db "$db" src --target "/dev/$A" --timing "scale:$x" --run "sc$x" \
		--json --quiet > "$t/sc$x.json" 2> "$t/err"
done
r2=$(awk -v a="$(span "$t/sc2.json")" -v b="$(span "$t/orig1.json")" 'BEGIN { printf "%.2f", a / b }')
r05=$(awk -v a="$(span "$t/sc0.5.json")" -v b="$(span "$t/orig1.json")" 'BEGIN { printf "%.2f", a / b }')
awk -v r="$r2" 'BEGIN { exit !(r > 0.4 && r < 0.6) }' &&
	ok "scale:2 takes half as long (x$r2)" || not_ok "scale:2 takes half as long" "ratio $r2"
awk -v r="$r05" 'BEGIN { exit !(r > 1.8 && r < 2.2) }' &&
	ok "scale:0.5 takes twice as long (x$r05)" || not_ok "scale:0.5 takes twice as long" "ratio $r05"

# --level dispatch: the D rows, after the original scheduler
"$IOTAPE" replay --db "$db" src --target "/dev/$A" --level dispatch --timing afap \
	--run disp --quiet > /dev/null 2>&1
check_eq "--level dispatch replays the 426 dispatches" \
	"$(q "SELECT count(*) FROM requests WHERE run = $SRC AND d_head = 1")" \
	"$(q "SELECT count(*) FROM replays WHERE run = $(rid disp)")"
check_eq "dispatched sizes are replayed (merged requests)" \
	"$(q "SELECT sum(d_bytes) FROM requests WHERE run = $SRC AND d_head = 1")" \
	"$(q "SELECT sum(bytes) FROM replays WHERE run = $(rid disp)")"
"$IOTAPE" replay --db "$db" src --target "/dev/$A" --streams single --timing afap \
	--depth 4 --run single --quiet > /dev/null 2>&1
check_eq "--streams single --depth 4: one stream, never over 4 in flight" "0|4" \
	"$(q "SELECT max(stream), (SELECT max(n) FROM (SELECT (SELECT count(*) FROM replays b
		WHERE b.run = a.run AND b.issue_ns <= a.issue_ns AND b.complete_ns > a.issue_ns) n
		FROM replays a WHERE a.run = $(rid single))) FROM replays WHERE run = $(rid single)")"

# ---- a flush+write request replays as both; FUA as RWF_DSYNC -----------------------
cat > "$t/fw.txt" <<'EOF'
  7,0    0        1     0.000000000  4242  Q FWS 2048 + 8 [writer]
  7,0    0        2     0.000010000  4242  D FWS 2048 + 8 [writer]
  7,0    0        3     0.000300000     0  C FWS 2048 + 8 [0]
  7,0    0        4     0.001000000  4242  Q WFS 4096 + 8 [writer]
  7,0    0        5     0.001010000  4242  D WFS 4096 + 8 [writer]
  7,0    0        6     0.001200000     0  C WFS 4096 + 8 [0]
EOF
"$IOTAPE" import --db "$db" --run fw --quiet "$t/fw.txt"
"$IOTAPE" replay --db "$db" fw --target "$t/fw.img" --run fwr --quiet > /dev/null 2> "$t/err"
check_eq "flush+write: a flush, then the write once the flush completed; FUA kept" \
	"flush||0|0|0
write|2048|4096|0|1
write|4096|4096|1|1" \
	"$(q "SELECT op, sector, bytes, fua, issue_ns >= (SELECT complete_ns FROM replays
		WHERE run = r.run AND idx = 0) FROM replays r WHERE run = $(rid fwr) ORDER BY idx")"
[ "$(od -An -tx1 -j $((2048 * 512)) -N 16 "$t/fw.img" | tr -d ' 0\n')" != "" ] &&
	ok "the write reached the file" || not_ok "the write reached the file"

# ---- a sweep over schedulers: one run each, recorded, restored -------------------
sysfs_set "/sys/block/$A/queue/scheduler" kyber 2>/dev/null ||
	sysfs_set "/sys/block/$A/queue/scheduler" none
before=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$A/queue/scheduler")
"$IOTAPE" replay --db "$db" src --target "/dev/$A" --timing afap --run sw \
	--set queue/scheduler=none,mq-deadline --quiet > /dev/null 2> "$t/err"
check_eq "the sweep exits 0" 0 $?
for s in none mq-deadline; do
	check_eq "sweep: run 'sw[queue/scheduler=$s]' ran under $s, tagged" \
		"$s|queue/scheduler=$s" \
		"$(q "SELECT (SELECT value FROM settings WHERE run = r.id AND key = '$A:queue/scheduler'
			AND at = 'start'), (SELECT value FROM run_stats WHERE run = r.id AND key = 'tag')
			FROM runs r WHERE name = 'sw[queue/scheduler=$s]'")"
done
check_eq "the device's scheduler is back" "$before" \
	"$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$A/queue/scheduler")"
check_eq "no lab state file left" "" "$(lab_state_left)"
# the scheduler's tunables and nr_requests: switching the scheduler away
# and back resets them to its defaults, so they are put back too
if sysfs_set "/sys/block/$A/queue/scheduler" mq-deadline 2> /dev/null; then
	q0=/sys/block/$A/queue
	nr0=$(cat "$q0/nr_requests")
	sysfs_set "$q0/iosched/read_expire" 123 && sysfs_set "$q0/iosched/fifo_batch" 3 &&
		sysfs_set "$q0/nr_requests" 32
	re=$(cat "$q0/iosched/read_expire")     # in jiffies: 123 ms reads 124 at HZ 250
	"$IOTAPE" replay --db "$db" src --target "/dev/$A" --timing afap --run swt \
		--set queue/scheduler=none --quiet > /dev/null 2> "$t/err"
	check_eq "--set queue/scheduler: the old scheduler's tunables and nr_requests put back" \
		"0 mq-deadline $re 3 32" "$? $(sed 's/.*\[\(.*\)\].*/\1/' "$q0/scheduler") $(cat "$q0/iosched/read_expire") $(cat "$q0/iosched/fifo_batch") $(cat "$q0/nr_requests")"
	sysfs_set "$q0/nr_requests" "$nr0"
	sysfs_set "$q0/scheduler" "$before"
fi
# a state file a killed capture or replay left (its own --state-dir here):
# a replay without --set refuses too, storing nothing, as the machine may
# still run with what it changed
mkdir -p "$t/sd"
printf 'pid\t%s\nset\t/sys/block/%s/queue/scheduler\t%s\n' "$(dead_pid)" "$A" "$before" > "$t/sd/capture.state"
n1=$(q "SELECT count(*) FROM runs")
"$IOTAPE" replay --db "$db" src --target "/dev/$A" --timing afap --run left --state-dir "$t/sd" \
	> /dev/null 2> "$t/err"
check_eq "a killed run's state file: replay without --set refuses, naming it and the reset with its --state-dir, stores nothing" \
	"1 1 1 $n1" "$? $(grep -c "was killed and left the machine changed ($t/sd/capture.state" "$t/err") $(grep -c "run 'iotape capture --reset --state-dir $t/sd' to put it back" "$t/err") $(q "SELECT count(*) FROM runs")"

# ---- safety: what may not be written is not ----------------------------------------
truncate -s 64M "$t/e.img"
loop_attach "$t/e.img" || { not_ok "attach loop"; tap_finish; }
E=$LOOPDEV
mkfs.ext4 -q -F "/dev/$E" > /dev/null 2>&1
sum0=$(md5sum < "/dev/$E")
n0=$(nruns)
"$IOTAPE" replay --db "$db" src --target "/dev/$E" --allow-write --wrap > /dev/null 2> "$t/err"
rc=$?
if [ $rc = 1 ] && grep -q "refusing to write to '/dev/$E': it holds an ext4 signature" "$t/err"; then
	ok "--allow-write on an ext4 device is refused, naming ext4"
else
	not_ok "--allow-write on an ext4 device is refused" "exit $rc: $(cat "$t/err")"
fi
"$IOTAPE" replay --db "$db" src --target "/dev/$E" --wrap --timing afap --run ro --quiet \
	> /dev/null 2> "$t/err"
check_eq "without --allow-write the ext4 device is replayed (read only)" 0 $?
check_eq "the ext4 device was never written" "$sum0" "$(md5sum < "/dev/$E")"
mkdir -p "$t/mnt"
if mount "/dev/$E" "$t/mnt" 2> /dev/null; then
	at_exit "umount '$t/mnt' 2>/dev/null"
	"$IOTAPE" replay --db "$db" src --target "/dev/$E" --allow-write --wrap > /dev/null 2> "$t/err"
	rc=$?
	[ $rc = 1 ] && grep -q "it is mounted" "$t/err" &&
		ok "--allow-write on a mounted device is refused" ||
		not_ok "--allow-write on a mounted device is refused" "exit $rc: $(cat "$t/err")"
	umount "$t/mnt"
else
	skip "--allow-write on a mounted device is refused" "cannot mount ext4"
fi
mkswap "/dev/$E" > /dev/null 2>&1
"$IOTAPE" replay --db "$db" src --target "/dev/$E" --allow-write --wrap > /dev/null 2> "$t/err"
grep -q "holds a swap signature" "$t/err" && ok "a swap signature is refused" ||
	not_ok "a swap signature is refused" "$(cat "$t/err")"
wipefs -a -q "/dev/$E" > /dev/null 2>&1
# an MBR with one partition entry (what fdisk writes first)
printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\x00\x01\x00' |
	dd of="/dev/$E" bs=1 seek=446 conv=notrunc status=none
printf '\x55\xaa' | dd of="/dev/$E" bs=1 seek=510 conv=notrunc status=none
"$IOTAPE" replay --db "$db" src --target "/dev/$E" --allow-write --wrap > /dev/null 2> "$t/err"
grep -q "holds a dos partition table" "$t/err" && ok "a partition table is refused" ||
	not_ok "a partition table is refused" "$(cat "$t/err")"
wipefs -a -q "/dev/$E" > /dev/null 2>&1
# a mistyped device name is not made as a file in /dev
nodev=/dev/iotape-no-such-dev-$$
at_exit "rm -f $nodev"
"$IOTAPE" replay --db "$db" src --target "$nodev" --timing afap --run typo > /dev/null 2> "$t/err"
check_eq "a missing target under /dev: exit 1, 'no such device', no file made" "1 1 absent" \
	"$? $(grep -c "target '$nodev': no such device" "$t/err") $([ -e "$nodev" ] && echo made || echo absent)"
check_eq "no refused replay stored a run (only the read-only one)" "$((n0 + 1))" "$(nruns)"
# a blank device with --allow-write is written
sum1=$(md5sum < "/dev/$E")
"$IOTAPE" replay --db "$db" src --target "/dev/$E" --allow-write --wrap --timing afap \
	--run rw --quiet > /dev/null 2> "$t/err"
check_eq "--allow-write on a blank device: 420 writes, 13 flushes" "420|13|0" \
	"$(q "SELECT sum(op = 'write'), sum(op = 'flush'), sum(as_read) FROM replays WHERE run = $(rid rw)")"
[ "$(md5sum < "/dev/$E")" != "$sum1" ] && ok "... and the device was written" ||
	not_ok "... and the device was written"

# ---- bad input: one error line, exit 1, nothing stored, before any I/O ------------
n0=$(nruns)
sumA=$(md5sum < "/dev/$A")
refused() {   # refused DESC PATTERN ARGS...
	local d=$1 pat=$2 rc; shift 2
	"$IOTAPE" replay --db "$db" "$@" > "$t/out" 2> "$t/err"; rc=$?
	if [ $rc = 1 ] && [ "$(wc -l < "$t/err")" = 1 ] && grep -q -- "$pat" "$t/err"; then
		ok "$d: $(cat "$t/err")"
	else
		not_ok "$d" "exit $rc" "$(cat "$t/err")"
	fi
}
cat > "$t/donly.txt" <<'EOF'
  7,0    0        1     0.000000000  4242  D R 2048 + 8 [reader]
  7,0    0        2     0.000300000     0  C R 2048 + 8 [0]
EOF
"$IOTAPE" import --db "$db" --run donly --quiet "$t/donly.txt"
n0=$(nruns)
refused "a run with no requests at the level" "no requests at the queue level" \
	donly --target "/dev/$A"
truncate -s 16M "$t/s.img"
loop_attach "$t/s.img" || { not_ok "attach loop"; tap_finish; }
S=$LOOPDEV
refused "a target too small" "use --wrap" src --target "/dev/$S"
refused "--offset past the target: the sector with the offset named" \
	"sector [0-9]* with --offset 32000, but '/dev/$S' holds 32768 sectors" \
	src --target "/dev/$S" --offset 32000
refused "--offset past any device: one line, no request id" \
	"^iotape: the run's I/O at sector [0-9]* with --offset is past any device's end$" \
	src --target "/dev/$S" --offset 18446744073709551615
refused "a run device missing from --map" "device 7,0 of run 'src' is not in --map" \
	src --map 8,0=/dev/$A
# the scheduling thread's knobs (bench_replay.sh measures their effect): bad values
# refused before any I/O (below: good ones replay)
for kv in IOTAPE_REPLAY_FIFO=2 IOTAPE_REPLAY_CPU=x IOTAPE_REPLAY_MLOCK=yes; do
	env "$kv" "$IOTAPE" replay --db "$db" src --target "/dev/$A" > "$t/out" 2> "$t/err"
	check_eq "$kv refused as a usage error, before any I/O" \
		"2|1|iotape: invalid value '${kv#*=}' for ${kv%%=*}" \
		"$?|$(wc -l < "$t/err")|$(cut -d' ' -f1-6 "$t/err")"
done
mkdir -p "$t/ramfs"
if mount -t ramfs none "$t/ramfs" 2> /dev/null; then
	at_exit "umount '$t/ramfs' 2>/dev/null"
	refused "a target where O_DIRECT fails" "does not support O_DIRECT" \
		src --target "$t/ramfs/x.img"
	[ -e "$t/ramfs/x.img" ] && not_ok "the refused file target is not left" ||
		ok "the refused file target is not left"
else
	skip "a target where O_DIRECT fails" "cannot mount ramfs"
fi
refused "an unknown run" "no run named 'nosuch'" nosuch --target "/dev/$A"
check_eq "bad input stored nothing" "$n0" "$(nruns)"
check_eq "bad input wrote nothing" "$sumA" "$(md5sum < "/dev/$A")"
IOTAPE_REPLAY_FIFO=0 IOTAPE_REPLAY_CPU=0 IOTAPE_REPLAY_MLOCK=1 "$IOTAPE" replay --db "$db" src \
	--target "/dev/$A" --run knobs --json --quiet > "$t/knobs.json" 2> "$t/err"
rc=$?
check_eq "a timed replay pinned, locked and not SCHED_FIFO completes" "0|complete|0|733" \
	"$rc|$(q "SELECT status FROM runs WHERE name = 'knobs'")|$(jq -r '.[0].realtime' "$t/knobs.json")|$(q "SELECT count(*) FROM replays WHERE run = $(rid knobs)")"
"$IOTAPE" replay --db "$db" src --target "/dev/$S" --wrap --timing afap --run wrapped \
	--quiet > /dev/null 2>&1
[ "$(rstat wrapped replay.wrapped)" -gt 0 ] 2> /dev/null &&
	ok "--wrap replays on the small target ($(rstat wrapped replay.wrapped) wrapped)" ||
	not_ok "--wrap replays on the small target"

# ---- a regular file target ---------------------------------------------------------
"$IOTAPE" replay --db "$db" src --target "$t/file.img" --timing afap --run file --quiet \
	> /dev/null 2> "$t/err"
check_eq "a file target: created, writes written" "0|733|420" \
	"$?|$(q "SELECT count(*), sum(op = 'write') FROM replays WHERE run = $(rid file)")"
check_eq "the file was extended to what the run reaches (sector 395776)" \
	$((395776 * 512)) "$(stat -c %s "$t/file.img")"

# ---- --trace: the target's block events in the replay run ----------------------------
if tracefs_check "$A"; then
	tfs0=$(tracefs_state_locked)
	rsec0=$(awk '{ print $3 }' "/sys/block/$A/stat")
	"$IOTAPE" replay --db "$db" src --target "/dev/$A" --timing afap --trace --run tr \
		--quiet > /dev/null 2> "$t/err"
	check_eq "--trace exits 0" 0 $?
	# the O_DIRECT check (a pread) and the engine's warm-up: two block reads
	# before the schedule (and the trace) starts, not in the traced run
	# (below); sectors, as the device merges requests
	check_eq "--trace: the device read the replay's sectors and two blocks more" \
		"$(q "SELECT (sum(bytes) + 2 * $(cat "/sys/block/$A/queue/logical_block_size")) / 512
			FROM replays WHERE run = $(rid tr) AND op = 'read'")" \
		"$(( $(awk '{ print $3 }' "/sys/block/$A/stat") - rsec0 ))"
	n=$(q "SELECT coalesce(last_event - first_event + 1, 0) FROM runs WHERE name = 'tr'")
	[ "${n:-0}" -gt 733 ] && ok "--trace stored $n block events" ||
		not_ok "--trace stored block events" "n=$n: $(cat "$t/err")"
	check_eq "--trace: the traced Q rows are the replayed I/Os" "733" \
		"$(q "SELECT count(*) FROM requests WHERE run = $(rid tr) AND q_ns IS NOT NULL")"
	check_eq "--trace: tracefs is back as it was" "$tfs0|0" \
		"$(tracefs_state_locked)|$(cat "/sys/block/$A/trace/enable")"
else
	skip "--trace" "$TRACEFS_WHY"
fi

# ---- SIGINT: stored as interrupted, settings back --------------------------------
before=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$A/queue/scheduler")
"$IOTAPE" replay --db "$db" src --target "/dev/$A" --timing scale:0.1 --run int \
	--set queue/scheduler=mq-deadline --quiet > /dev/null 2> "$t/err" &
pid=$!
# interrupted once it replays: its --set in force (it may first wait for the
# capture lock another job holds, and a SIGINT then stores nothing)
for i in $(seq 600); do
	[ "$before" != mq-deadline ] && grep -q '\[mq-deadline\]' "/sys/block/$A/queue/scheduler" && break
	[ "$before" = mq-deadline ] && [ "$i" -ge 20 ] && break
	kill -0 $pid 2> /dev/null || break
	sleep 0.1
done
sleep 1
kill -INT $pid
wait $pid
check_eq "SIGINT: exit 130" 130 $?
check_eq "SIGINT: the run is stored, marked interrupted" "interrupted" \
	"$(q "SELECT status FROM runs WHERE name = 'int'")"
n=$(q "SELECT count(*) FROM replays WHERE run = $(rid int)")
[ "${n:-0}" -gt 0 ] && [ "$n" -lt 733 ] && ok "SIGINT: the $n I/Os issued are stored" ||
	not_ok "SIGINT: the I/Os issued are stored" "n=$n"
check_eq "SIGINT: the scheduler is back" "$before" \
	"$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$A/queue/scheduler")"
tap_finish
