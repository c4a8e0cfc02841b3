# t_capture_sweep.sh: capture --set KEY=V1,V2 x --repeat N makes one run per
# combination and repeat, named NAME[KEY=V,...].R and tagged, each under its
# own values; names already taken are refused before anything runs. Needs root.
. "$(dirname "$0")/../lib.sh"

need_iotape "capture sweeps"
need_root "capture sweeps"
tracefs_check || { skip "capture sweeps" "$TRACEFS_WHY"; exit 0; }

t=$TEST_TMP db=$t/t.db
truncate -s 64M "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach loop"; tap_finish; }
d=$LOOPDEV
ra0=$(cat /sys/block/$d/queue/read_ahead_kb)
ratio0=$(locked cat /proc/sys/vm/dirty_ratio)
w="dd if=/dev/$d of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null"

# setting RUN KEY: the value KEY had at RUN's start
setting() {
	sqlite3 "$db" "SELECT s.value FROM settings s JOIN runs r ON r.id = s.run
		WHERE r.name = '$1' AND s.key = '$2' AND s.at = 'start'"
}

# two swept keys (the first varies fastest) and one fixed value
"$IOTAPE" capture --db "$db" --run sw -d "/dev/$d" --interval 0.1 --quiet \
	--set "$d:queue/read_ahead_kb=64,128" --set vm.dirty_ratio=33,34 \
	--set vm.dirty_background_ratio=7 --cmd "$w" 2> "$t/err"
check_eq "sweep: capture exits 0" "0" "$?"
ra="$d:queue/read_ahead_kb"
expect="sw[$ra=64,vm.dirty_ratio=33]
sw[$ra=128,vm.dirty_ratio=33]
sw[$ra=64,vm.dirty_ratio=34]
sw[$ra=128,vm.dirty_ratio=34]"
check_eq "sweep: one run per combination, in order" "$expect" \
	"$(sqlite3 "$db" "SELECT name FROM runs WHERE name LIKE 'sw[%' ORDER BY id")"
check_eq "sweep: each run tagged with its values" "$expect" \
	"$(sqlite3 "$db" "SELECT 'sw[' || s.value || ']' FROM run_stats s JOIN runs r
		ON r.id = s.run WHERE r.name LIKE 'sw[%' AND s.key = 'tag' ORDER BY r.id")"
check_eq "sweep: each run under its values" "64 33 7|128 33 7|64 34 7|128 34 7" \
	"$(for r in $expect; do printf '%s ' "$(setting "$r" "$ra")" \
		"$(setting "$r" vm.dirty_ratio)"; setting "$r" vm.dirty_background_ratio; done |
		paste -sd'|')"
check_eq "sweep: settings put back" "$ra0 $ratio0" \
	"$(cat /sys/block/$d/queue/read_ahead_kb) $(locked cat /proc/sys/vm/dirty_ratio)"

# the paired sysctls (issue 25): writing vm.dirty_bytes zeroes vm.dirty_ratio and
# 0 cannot be written back (EINVAL); each pair comes back by writing the one that
# was not 0, after a sweep of either member, in either state
keep_vm_dirty
vd0=$(locked vm_dirty)
for key in dirty_bytes dirty_background_bytes dirty_ratio dirty_background_ratio; do
	case $key in *bytes) vals=600000000,150000000 ;; *background*) vals=7,8 ;; *) vals=33,34 ;; esac
	"$IOTAPE" capture --db "$db" --run "pair-$key" -d "/dev/$d" --interval 0.1 --quiet \
		--set "vm.$key=$vals" --cmd "cat /proc/sys/vm/$key" > "$t/pair.out" 2> "$t/err"
	check_eq "vm.$key=$vals: both runs under their value, the pair put back" \
		"0|${vals/,/ }|$vd0" "$?|$(paste -sd' ' "$t/pair.out")|$(locked vm_dirty)"
done
# both members of a pair in one run: the bytes one written, then the ratio one
# (the kernel zeroing the other each time); put back all the same
"$IOTAPE" capture --db "$db" --run pair-both -d "/dev/$d" --interval 0.1 --quiet \
	--set vm.dirty_bytes=300000000 --set vm.dirty_ratio=33 \
	--cmd "cat /proc/sys/vm/dirty_bytes /proc/sys/vm/dirty_ratio" > "$t/pair.out" 2> "$t/err"
check_eq "vm.dirty_bytes then vm.dirty_ratio in one run: the pair put back" \
	"0|0 33|$vd0" "$?|$(paste -sd' ' "$t/pair.out")|$(locked vm_dirty)"

# repeats of one swept key
"$IOTAPE" capture --db "$db" --run rep -d "/dev/$d" --interval 0.1 --quiet \
	--set vm.dirty_ratio=33,34 --repeat 2 --cmd "$w" 2> "$t/err"
check_eq "repeat: capture exits 0" "0" "$?"
check_eq "repeat: NAME[KEY=V].R for each value and repeat" \
	"rep[vm.dirty_ratio=33].1 rep[vm.dirty_ratio=33].2 rep[vm.dirty_ratio=34].1 rep[vm.dirty_ratio=34].2" \
	"$(sqlite3 "$db" "SELECT name FROM runs WHERE name LIKE 'rep%' ORDER BY id" | paste -sd' ')"

# a taken name is refused before any run
n0=$(sqlite3 "$db" "SELECT count(*) FROM runs")
"$IOTAPE" capture --db "$db" --run rep -d "/dev/$d" --interval 0.1 --quiet \
	--set vm.dirty_ratio=35,34 --repeat 2 --cmd "$w" 2> "$t/err"
rc=$?
[ $rc != 0 ] && ok "taken name: capture exits $rc" || not_ok "taken name: capture exits non-zero"
check_eq "taken name: the message names the run" \
	"iotape: $db: a run named 'rep[vm.dirty_ratio=34].1' exists; give another --run" \
	"$(cat "$t/err")"
check_eq "taken name: nothing captured" "$n0" "$(sqlite3 "$db" "SELECT count(*) FROM runs")"

tap_finish
