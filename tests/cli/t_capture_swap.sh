# t_capture_swap.sh: the seed report's scenario, captured for real by
# `iotape capture`: ext4 on one loop device, swap on another, a memory cgroup
# far smaller than what runs in it (an idle process holding anonymous memory,
# a checksum of every file of a tree), and a writer started only once the
# machine swaps. Asserts on the stored run, then that everything is back.
. "$(dirname "$0")/../lib.sh"

need_iotape "capture under memory pressure"
need_root "capture under memory pressure"
tracefs_check || { skip "capture under memory pressure" "$TRACEFS_WHY"; exit 0; }
[ -d /sys/fs/cgroup/memory ] || [ -e /sys/fs/cgroup/cgroup.controllers ] ||
	{ skip "capture under memory pressure" "no memory cgroup"; exit 0; }
for tool in mkfs.ext4 mkswap swapon md5sum; do
	command -v $tool > /dev/null || { skip "capture under memory pressure" "no $tool"; exit 0; }
done

t=$TEST_TMP db=$t/t.db
tfs0=$(tracefs_state_locked)
truncate -s 400M "$t/data.img"
truncate -s 256M "$t/swap.img"
loop_attach "$t/data.img" || { not_ok "attach data loop"; tap_finish; }
data=$LOOPDEV
loop_attach "$t/swap.img" || { not_ok "attach swap loop"; tap_finish; }
swap=$LOOPDEV
mkfs.ext4 -q -F "/dev/$data" && mkswap -q "/dev/$swap" > /dev/null ||
	{ not_ok "make ext4 and swap"; tap_finish; }
mkdir -p "$t/mnt"
at_exit "umount '$t/mnt' 2>/dev/null"
mount "/dev/$data" "$t/mnt" || { not_ok "mount ext4"; tap_finish; }
at_exit "swapoff '/dev/$swap' 2>/dev/null"
swapon "/dev/$swap" || { not_ok "swapon"; tap_finish; }
# a tree to checksum: a copy of part of /usr/share (about 100 MB)
mkdir -p "$t/mnt/tree"
cp -a /usr/share/doc /usr/share/perl "$t/mnt/tree/" 2>/dev/null
cp -a /usr/share/man "$t/mnt/tree/" 2>/dev/null
sync
echo 3 > /proc/sys/vm/drop_caches

dbr_before=$(locked cat /proc/sys/vm/dirty_background_ratio)
sched_path=/sys/block/$data/queue/scheduler
sched_before=$(sed 's/.*\[\(.*\)\].*/\1/' "$sched_path")
ok "set up ext4 on $data, swap on $swap, $(du -sm "$t/mnt/tree" | cut -f1) MB tree"

# 1: an idle holder of 200 MB of anonymous memory (dd's buffer, blocked on a
#    pipe nobody reads) for 15 s; 2: checksum the tree; 3: a writer with
#    fsync, started when the machine first swaps out. All in 160 MB, so the
#    holder alone must swap.
"$IOTAPE" capture --db "$db" --run swap -d "/dev/$data" -d "/dev/$swap" \
	--interval 0.25 --duration 45 --mem-limit 160M --set vm.swappiness=100 \
	--set vm.dirty_background_ratio=5 --set "$data:queue/scheduler=mq-deadline" \
	--cmd 'dd if=/dev/zero bs=200M count=1 2>/dev/null | sleep 12' \
	--cmd "find '$t/mnt/tree' -type f -exec md5sum {} + > /dev/null" \
	--cmd "dd if=/dev/zero of='$t/mnt/big' bs=1M count=120 conv=fsync 2>/dev/null" \
	--start-when 'pswpout>0' > "$t/out" 2> "$t/err"
rc=$?
check_eq "capture exits 0" 0 "$rc"
[ $rc = 0 ] || diag "$(tail -n 5 "$t/err")"

q() { sqlite3 "$db" "$1"; }
run=$(q "SELECT id FROM runs WHERE name = 'swap'")
check_eq "run stored as a complete capture" "capture|complete" \
	"$(q "SELECT kind, status FROM runs WHERE id = $run")"
for d in "$data" "$swap"; do
	dev=$(cat "/sys/block/$d/dev" | awk -F: '{ print $1 * 1048576 + $2 }')
	n=$(q "SELECT count(*) FROM events WHERE id BETWEEN
		(SELECT first_event FROM runs WHERE id = $run) AND
		(SELECT last_event FROM runs WHERE id = $run) AND dev = $dev")
	[ "${n:-0}" -gt 100 ] && ok "events on $d: $n" || not_ok "events on $d" "n=$n"
done
check_eq "devices and roles" "$data|data $swap|swap" \
	"$(q "SELECT name, role FROM devices WHERE run = $run ORDER BY role" | tr '\n' ' ' | sed 's/ $//')"
pswpout=$(q "SELECT max(value) - min(value) FROM samples WHERE run = $run AND
	source = 'vmstat' AND key = 'pswpout'")
[ "${pswpout%.*}" -gt 0 ] 2>/dev/null && ok "the run swapped: pswpout +$pswpout pages" ||
	not_ok "the run swapped" "pswpout delta=$pswpout"
ncmd=$(q "SELECT count(*) FROM commands WHERE run = $run AND start_ns IS NOT NULL
	AND end_ns IS NOT NULL AND real_s > 0 AND user_s IS NOT NULL AND status = 0")
check_eq "three commands with timings and exit 0" 3 "$ncmd"
[ "$ncmd" = 3 ] || diag "$(q "SELECT idx, real_s, user_s, status, start_ns IS NOT NULL, end_ns IS NOT NULL FROM commands WHERE run = $run" | paste -sd" ")"
# the writer started after the first sample that showed a swap-out
first_swap=$(q "SELECT min(s.time_ns) FROM samples s WHERE s.run = $run AND
	s.source = 'vmstat' AND s.key = 'pswpout' AND s.value >
	(SELECT min(value) FROM samples WHERE run = $run AND source = 'vmstat' AND key = 'pswpout')")
writer=$(q "SELECT start_ns FROM commands WHERE run = $run AND idx = 2")
if [ -n "$first_swap" ] && [ -n "$writer" ] && [ "$writer" -ge "$first_swap" ]; then
	ok "the writer started by its condition, $(( (writer - first_swap) / 1000000 )) ms after the first swap-out sample"
else
	not_ok "the writer started by its condition" "first swap-out sample $first_swap, writer start $writer"
fi
started_first=$(q "SELECT start_ns FROM commands WHERE run = $run AND idx = 0")
[ "${writer:-0}" -gt "${started_first:-0}" ] && ok "the writer started later than the holder" ||
	not_ok "the writer started later than the holder"
check_eq "setting recorded at start" 5 \
	"$(q "SELECT value FROM settings WHERE run = $run AND key = 'vm.dirty_background_ratio' AND at = 'start'")"
check_eq "queue setting recorded" mq-deadline \
	"$(q "SELECT value FROM settings WHERE run = $run AND key = '$data:queue/scheduler' AND at = 'start'")"
for k in kernel.release cpus mem.total_kb "$data:size_bytes" "$data:queue/read_ahead_kb" vm.swappiness; do
	v=$(q "SELECT value FROM settings WHERE run = $run AND key = '$k' AND at = 'end'")
	[ -n "$v" ] && ok "setting $k recorded ($v)" || not_ok "setting $k recorded"
done
nvm=$(q "SELECT count(DISTINCT key) FROM samples WHERE run = $run")
[ "$nvm" -gt 100 ] && ok "$nvm sampled counters" || not_ok "sampled counters" "$nvm"
check_eq "no lost events" 0 "$(q "SELECT value FROM run_stats WHERE run = $run AND key = 'lost_events'")"
"$IOTAPE" report --db "$db" swap > "$t/report" && ok "report of the capture" ||
	not_ok "report of the capture"

# everything is back
check_eq "dirty_background_ratio restored" "$dbr_before" "$(locked cat /proc/sys/vm/dirty_background_ratio)"
check_eq "scheduler restored" "$sched_before" "$(sed 's/.*\[\(.*\)\].*/\1/' "$sched_path")"
check_eq "tracefs restored (tracer, binary output, context-info)" "$tfs0" "$(tracefs_state_locked)"
check_eq "block tracing off" "0 0" "$(cat /sys/block/$data/trace/enable) $(cat /sys/block/$swap/trace/enable)"
left=$(ls -d /sys/fs/cgroup/memory/iotape-* /sys/fs/cgroup/iotape-* 2>/dev/null)
check_eq "no memory cgroup left" "" "$left"
check_eq "no state file left" "" "$(lab_state_left)"
tap_finish
