# t_record_triggers.sh: the flight recorder's triggers beyond latency and
# PSI, on loop devices with the real tracer: two dirty triggers within the
# cooldown save once (the second merges or is skipped), the hook runs with the
# saved run in its environment, and the run holds /proc/diskstats samples; a
# swap storm in a memory-limited cgroup (cgroup v1 memory controller, swap on
# a loop device) fires the swap-out trigger and the save holds it; a loop
# device whose backing file sits on a frozen ext4 (fsfreeze) fires the stuck
# trigger, and its per-device write latency when it thaws; vmstat --disk
# shows the saved diskstats. Each save's
# trigger, threshold and value are in its settings, the trigger's time falls
# inside the saved window, and report reads the run.
. "$(dirname "$0")/../lib.sh"

need_iotape "record triggers"
need_root "record triggers"
for tool in fio sqlite3 jq mkfs.ext4 mkswap swapon fsfreeze; do
	command -v $tool > /dev/null || { skip "record triggers" "no $tool"; exit 0; }
done

t=$TEST_TMP db=$t/t.db
truncate -s 1G "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach loop"; tap_finish; }
d=$LOOPDEV
dmm=$(tr : , < "/sys/class/block/$d/dev")   # diskstats keys: MAJOR,MINOR:FIELD
tracefs_check "$d" || { skip "record triggers" "$TRACEFS_WHY"; exit 0; }
TFS0=$(tracefs_state_locked)
REC_ARGS=(--db "$db")
REC=



# wait_saved ERRFILE N SECONDS: waits for the Nth "saved run" line
wait_saved() {
	local i
	for i in $(seq $(($3 * 10))); do
		[ "$(grep -c "saved run" "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

q() { sqlite3 "$db" "$@"; }
setting() { q "SELECT value FROM settings s JOIN runs r ON r.id = s.run WHERE r.name = '$1' AND key = '$2'"; }
mono_ns() { awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime; }   # CLOCK_BOOTTIME, 10 ms
kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
devno() { awk -F: '{ print $1 * 1048576 + $2 }' "/sys/block/$1/dev"; }

# check_saved LABEL RUN TRIGGER THRESHOLD: the run's trigger, threshold and
# value are stored, its trigger time inside its window; report reads it
check_saved() {
	local label=$1 run=$2 tn from to val
	check_eq "$label: its trigger is stored" "$3" "$(setting "$run" record.trigger)"
	check_eq "$label: its threshold is stored" "$4" "$(setting "$run" record.threshold)"
	val=$(setting "$run" record.value)
	[ -n "$val" ] && ok "$label: its value is stored ($val)" || not_ok "$label: its value is stored"
	tn=$(setting "$run" record.trigger_ns)
	from=$(setting "$run" record.window_from_ns) to=$(setting "$run" record.window_to_ns)
	[ -n "$tn" ] && [ "$tn" -ge "$from" ] && [ "$tn" -le "$to" ] &&
		ok "$label: the trigger time falls inside the saved window" ||
		not_ok "$label: the trigger inside the window" "$from $tn $to"
	check "$label: report reads the incident" "$IOTAPE" report --db "$db" "$run"
}

# ---- two dirty triggers in the cooldown; the hook; diskstats ------------------
sync
d0=$(kb Dirty)
# Dirty is the machine's: margins well above what other work adds meanwhile
lo=$((d0 / 1024 + 320)) hi=$((d0 / 1024 + 640))
rec_start "$t/err1" -d "/dev/$d" --window 30s --pre 3s --post 3s --cooldown 60s \
	--trigger "dirty>${lo}M" --trigger "dirty>${hi}M" \
	--hook "echo \"\$IOTAPE_RUN|\$IOTAPE_TRIGGER|\$IOTAPE_THRESHOLD|\$IOTAPE_DB\" > '$t/hook.out'; exit 7" ||
	{ not_ok "dirty: the recorder starts" "$(cat "$t/err1")"; tap_finish; }
sleep 2
w0=$(mono_ns)
# buffered writes to the device: page cache, dirty until written back
dd if=/dev/zero of="/dev/$d" bs=1M count=900 status=none
wait_saved "$t/err1" 1 20
sleep 2     # a second save would be reported by now; the hook ends
rec_stop dirty
sync
runs=$(q "SELECT name FROM runs WHERE name LIKE 'incident-%' ORDER BY id")
run=$(printf '%s\n' "$runs" | head -n 1)
if [ -z "$run" ]; then
	not_ok "dirty: a save" "$(cat "$t/err1")"
else
	ok "dirty: saved $run"
	check_eq "dirty: two triggers within the cooldown save once" 1 "$(printf '%s\n' "$runs" | grep -c .)"
	merged=$(setting "$run" record.merged_triggers)
	skipped=$(sed -n 's/.* \([0-9]*\) triggers skipped in the cooldown.*/\1/p' "$t/err1")
	[ $((merged + skipped)) -ge 1 ] &&
		ok "dirty: the second trigger merged ($merged) or was skipped ($skipped)" ||
		not_ok "dirty: the second trigger merged or was skipped" "merged=$merged skipped=$skipped"
	check_saved dirty "$run" "dirty>${lo}M" "$lo.0 MiB"
	tn=$(setting "$run" record.trigger_ns)
	[ "$tn" -gt "$w0" ] && ok "dirty: it fired after the writer started" ||
		not_ok "dirty: it fired after the writer started" "trigger=$tn writer=$w0"
	n=$(q "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.name = '$run'
		AND s.source = 'diskstats' AND s.key = '$dmm:write_sectors'")
	[ "${n:-0}" -ge 10 ] && ok "dirty: $n diskstats samples of $d saved" ||
		not_ok "dirty: diskstats samples saved" "n=$n"
	nk=$(q "SELECT count(DISTINCT key) FROM samples s JOIN runs r ON r.id = s.run
		WHERE r.name = '$run' AND s.source = 'diskstats'")
	[ "${nk:-0}" -ge 11 ] && ok "dirty: $nk diskstats fields, of $d only" ||
		not_ok "dirty: diskstats fields" "$nk"
	check_eq "dirty: diskstats only of the traced disk" 0 "$(q "SELECT count(*) FROM samples s
		JOIN runs r ON r.id = s.run WHERE r.name = '$run' AND s.source = 'diskstats'
		AND s.key NOT LIKE '$dmm:%'")"
	check_eq "dirty: diskstats on the events' clock, inside the window" 0 "$(q "SELECT count(*)
		FROM samples s JOIN runs r ON r.id = s.run WHERE r.name = '$run'
		AND s.source = 'diskstats' AND (s.time_ns < $(setting "$run" record.window_from_ns)
		OR s.time_ns > $(setting "$run" record.window_to_ns))")"
	check_eq "dirty: the hook ran with the run, trigger, threshold and db" \
		"$run|dirty>${lo}M|$lo.0 MiB|$db" "$(cat "$t/hook.out" 2> /dev/null)"
	grep -q "hook for '$run' (pid [0-9]*) exited 7" "$t/err1" &&
		ok "dirty: the hook's exit status is said" ||
		not_ok "dirty: the hook's exit status is said" "$(cat "$t/err1")"
fi

# ---- a swap storm in a memory cgroup ---------------------------------------------
cg=/sys/fs/cgroup/memory
if [ ! -w "$cg/cgroup.procs" ] || [ -n "$(awk 'NR > 1' /proc/swaps)" ]; then
	skip "swap storm" "no cgroup v1 memory controller, or swap already on"
else
	dd if=/dev/zero of="$t/s.img" bs=1M count=512 status=none
	loop_attach "$t/s.img" --direct-io=on && s=$LOOPDEV || { not_ok "attach swap loop"; tap_finish; }
	mkswap -q "/dev/$s" > /dev/null
	at_exit "swapoff '/dev/$s' 2>/dev/null"
	swapon "/dev/$s" || { not_ok "swapon"; tap_finish; }
	g=$cg/iotape-rectrig.$$
	at_exit "rmdir '$g' 2>/dev/null"
	mkdir "$g" && echo $((128 << 20)) > "$g/memory.limit_in_bytes" ||
		{ not_ok "make a memory cgroup"; tap_finish; }
	base=$(q "SELECT coalesce(max(id), 0) FROM runs")
	rec_start "$t/err2" -d "/dev/$s" --window 30s --pre 4s --post 3s \
		--trigger 'swapout>1M/s/2s' ||
		{ not_ok "swap: the recorder starts" "$(cat "$t/err2")"; tap_finish; }
	sleep 4
	s0=$(mono_ns)
	# 300 MB of anonymous memory (tail's line with no end) in 128 MB
	sh -c "echo \$\$ > '$g/cgroup.procs'; exec sh -c 'head -c 300M /dev/zero | tail -n 1 > /dev/null'"
	s1=$(mono_ns)
	wait_saved "$t/err2" 1 20
	rec_stop swap
	swapoff "/dev/$s"
	rmdir "$g"
	run=$(q "SELECT name FROM runs WHERE id > $base ORDER BY id LIMIT 1")
	if [ -z "$run" ]; then
		not_ok "swap: the storm was saved" "$(cat "$t/err2")"
	else
		ok "swap: the storm was saved ($(setting "$run" record.value))"
		check_saved swap "$run" 'swapout>1M/s/2s' "1.00 MiB/s"
		tn=$(setting "$run" record.trigger_ns)
		[ "$tn" -ge "$s0" ] && [ "$tn" -le $((s1 + 1000000000)) ] &&
			ok "swap: it fired during the storm" ||
			not_ok "swap: it fired during the storm" "storm $s0..$s1, trigger $tn"
		sdev=$(devno "$s")
		nw=$(q "SELECT count(*) FROM requests q JOIN runs r ON r.id = q.run WHERE r.name = '$run'
			AND q.dev = $sdev AND rwbs LIKE '%W%'")
		[ "${nw:-0}" -gt 100 ] && ok "swap: the run holds $nw writes to the swap device" ||
			not_ok "swap: the run holds the swap-outs" "$nw"
		po=$(q "SELECT max(value) - min(value) FROM samples s JOIN runs r ON r.id = s.run
			WHERE r.name = '$run' AND s.source = 'vmstat' AND s.key = 'pswpout'")
		[ "${po%.*}" -gt 1024 ] 2> /dev/null && ok "swap: its samples hold pswpout +$po pages" ||
			not_ok "swap: its samples hold the swap-outs" "pswpout +$po"
		# the swap device's diskstats: vmstat --disk counts its writes, and the
		# sectors written match the requests traced (within a sample's worth)
		ws=$("$IOTAPE" vmstat --db "$db" --disk --json "$run" |
			jq --arg d "$(tr : , < "/sys/class/block/$s/dev")" '[.disks[] | select(.disk == $d) | .rows[].write_sectors] | add')
		rs=$(q "SELECT sum(bytes) / 512 FROM requests q JOIN runs r ON r.id = q.run
			WHERE r.name = '$run' AND q.dev = $sdev AND rwbs LIKE '%W%'")
		diag "swap: diskstats write_sectors $ws, traced $rs"
		[ "${ws%.*}" -gt 8192 ] 2> /dev/null && [ "${ws%.*}" -le $((rs + rs / 2)) ] &&
			[ "${ws%.*}" -ge $((rs / 2)) ] &&
			ok "swap: vmstat --disk shows the swap device's writes ($ws sectors)" ||
			not_ok "swap: vmstat --disk shows the swap device's writes" "diskstats $ws, traced $rs"
		"$IOTAPE" vmstat --db "$db" --disk "$run" > "$t/disk.txt"
		check_eq "swap: vmstat --disk fits 80 columns" 0 "$(awk 'length > 80' "$t/disk.txt" | wc -l)"
		grep -q "^disk $s ([0-9]*,[0-9]*): counts in each interval" "$t/disk.txt" &&
			ok "swap: vmstat --disk names the disk" || not_ok "swap: vmstat --disk names the disk" "$(head -3 "$t/disk.txt")"
	fi
fi

# ---- a stuck device: its backing file on a frozen filesystem ----------------------
truncate -s 256M "$t/f.img"
loop_attach "$t/f.img" || { not_ok "attach loop"; tap_finish; }
f=$LOOPDEV
mkfs.ext4 -q -F "/dev/$f" || { not_ok "mkfs.ext4"; tap_finish; }
mkdir -p "$t/mnt"
at_exit "umount '$t/mnt' 2>/dev/null"
mount "/dev/$f" "$t/mnt" || { not_ok "mount ext4"; tap_finish; }
truncate -s 128M "$t/mnt/b.img"
loop_attach "$t/mnt/b.img" || { not_ok "attach loop on ext4"; tap_finish; }
b=$LOOPDEV
at_exit "fsfreeze -u '$t/mnt' 2>/dev/null"
base=$(q "SELECT coalesce(max(id), 0) FROM runs")
rec_start "$t/err3" -d "/dev/$b" --window 30s --pre 3s --post 4s \
	--trigger "stuck>2s@$b" --trigger "write_d2c_max>1s@$b" ||
	{ not_ok "stuck: the recorder starts" "$(cat "$t/err3")"; tap_finish; }
fio --name=w --filename="/dev/$b" --rw=randwrite --direct=1 --bs=64k --runtime=10 \
	--time_based --ioengine=libaio --iodepth=4 --rate_iops=200 > /dev/null 2>&1 &
fio1=$!
sleep 2
z0=$(mono_ns)
fsfreeze -f "$t/mnt"     # writes block from its start; it returns after a sync
sleep 4
z1=$(mono_ns)
fsfreeze -u "$t/mnt"
wait $fio1
wait_saved "$t/err3" 1 20
rec_stop stuck
run=$(q "SELECT name FROM runs WHERE id > $base ORDER BY id LIMIT 1")
if [ -z "$run" ]; then
	not_ok "stuck: the frozen device was saved" "$(cat "$t/err3")"
else
	ok "stuck: the frozen device was saved ($(setting "$run" record.value))"
	check_saved stuck "$run" "stuck>2s@$b" "2.0 s"
	tn=$(setting "$run" record.trigger_ns)
	[ "$tn" -ge $((z0 + 1900000000)) ] && [ "$tn" -le "$z1" ] &&
		ok "stuck: it fired 2 s into the freeze" ||
		not_ok "stuck: it fired 2 s into the freeze" "freeze $z0..$z1, trigger $tn"
	setting "$run" record.value | grep -q "^$b: [1-9][0-9]* in flight, none completed for 2\.[0-9] s$" &&
		ok "stuck: its value names the device" ||
		not_ok "stuck: its value names the device" "$(setting "$run" record.value)"
	check_eq "stuck: one save for the freeze" 1 "$(q "SELECT count(*) FROM runs WHERE id > $base")"
	diag "stuck: merged triggers $(setting "$run" record.merged_triggers) (the write latency at the thaw)"
	slow=$(q "SELECT count(*) FROM requests q JOIN runs r ON r.id = q.run WHERE r.name = '$run'
		AND c_ns - d_ns > 1500000000")
	[ "${slow:-0}" -gt 0 ] && ok "stuck: the run holds $slow requests stuck through the freeze" ||
		not_ok "stuck: the run holds the stuck requests" "$slow"
	grep -q "trigger write_d2c_max>1s@$b\|$b" "$t/err3"
fi
"$IOTAPE" record --db "$db" -d "/dev/$b" --trigger "stuck>1s@nosuchdev" --state-dir "$t/state" \
	> /dev/null 2> "$t/nodev"
[ $? != 0 ] && grep -q "'nosuchdev' is not a traced device" "$t/nodev" &&
	ok "a trigger on an untraced device is refused" ||
	not_ok "a trigger on an untraced device is refused" "$(cat "$t/nodev")"
"$IOTAPE" record --trigger "swapout>10MB" > /dev/null 2> "$t/bad"
[ $? = 2 ] && grep -q "invalid --trigger 'swapout>10MB' (e.g. swapout>10MB/s" "$t/bad" &&
	ok "a bad trigger is refused with an example" ||
	not_ok "a bad trigger is refused with an example" "$(cat "$t/bad")"
check_eq "tracefs as it was" "$TFS0" "$(tracefs_state_locked)"
tap_finish
