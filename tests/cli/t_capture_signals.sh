# t_capture_signals.sh: a capture stopped by SIGINT or SIGTERM stores its run
# marked interrupted and leaves nothing on, also when the signal goes to its
# whole process group with its stderr piped to a reader that dies with it (a
# terminal's Ctrl-C, a systemd stop); one killed with SIGKILL leaves a state
# file that the next capture refuses on and --reset undoes.
. "$(dirname "$0")/../lib.sh"

need_iotape "capture signals"
need_root "capture signals"
tracefs_check || { skip "capture signals" "$TRACEFS_WHY"; exit 0; }

t=$TEST_TMP db=$t/t.db
truncate -s 128M "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach loop"; tap_finish; }
d=$LOOPDEV
ratio0=$(locked cat /proc/sys/vm/dirty_ratio)
ra0=$(cat /sys/block/$d/queue/read_ahead_kb)
# tracefs as it is with no capture running (other tests' captures run
# beside this one): read under the capture lock
locked_state() { locked tracefs_state; }
# wait_capturing ERRFILE PID: until the capture has the lock and traces (or
# has ended)
wait_capturing() {
	local i
	for i in $(seq 9000); do
		grep -q "iotape: capturing" "$1" 2> /dev/null && return 0
		kill -0 "$2" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}
tfs0=$(locked_state)

# clean_state LABEL: nothing of a capture is left on the machine
clean_state() {
	local bad=
	local tfs; tfs=$(locked_state)
	[ "$tfs" = "$tfs0" ] || bad="$bad tracefs($tfs, was $tfs0)"
	[ "$(cat /sys/block/$d/trace/enable)" = 0 ] || bad="$bad trace/enable"
	[ "$(locked cat /proc/sys/vm/dirty_ratio)" = "$ratio0" ] || bad="$bad dirty_ratio"
	[ "$(cat /sys/block/$d/queue/read_ahead_kb)" = "$ra0" ] || bad="$bad read_ahead_kb"
	ls -d /sys/fs/cgroup/memory/iotape-* /sys/fs/cgroup/iotape-* > /dev/null 2>&1 && bad="$bad cgroup"
	[ -n "$(lab_state_left)" ] && bad="$bad state-file"
	if [ -z "$bad" ]; then ok "$1: nothing left changed"
	else not_ok "$1: nothing left changed" "left:$bad"; fi
}

for sig in INT TERM; do
	"$IOTAPE" capture --db "$db" --run "sig$sig" -d "/dev/$d" --interval 0.2 \
		--set vm.dirty_ratio=33 --set "$d:queue/read_ahead_kb=64" --mem-limit 256M \
		--cmd "while :; do dd if=/dev/$d of=/dev/null bs=4k count=2000 iflag=direct 2>/dev/null; done" \
		> "$t/out" 2> "$t/err.$sig" &
	pid=$!
	wait_capturing "$t/err.$sig" $pid
	sleep 2
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc != 0 ] && ok "SIG$sig: capture exits $rc" || not_ok "SIG$sig: capture exits non-zero"
	st=$(sqlite3 "$db" "SELECT status FROM runs WHERE name = 'sig$sig'")
	check_eq "SIG$sig: run stored, marked interrupted" interrupted "$st"
	n=$(sqlite3 "$db" "SELECT coalesce(last_event - first_event + 1, 0) FROM runs WHERE name = 'sig$sig'")
	[ "${n:-0}" -gt 100 ] && ok "SIG$sig: $n events stored" || not_ok "SIG$sig: events stored" "n=$n"
	check_eq "SIG$sig: the workload's end recorded" 1 \
		"$(sqlite3 "$db" "SELECT count(*) FROM commands c JOIN runs r ON r.id = c.run
			WHERE r.name = 'sig$sig' AND end_ns IS NOT NULL")"
	clean_state "SIG$sig"
	pgrep -f "if=/dev/$d of=/dev/null bs=4k count=2000" > /dev/null &&
		not_ok "SIG$sig: workload ended" || ok "SIG$sig: workload ended"
done

# SIGTERM to the process group of `iotape capture -- CMD 2>&1 | cat`: cat dies
# first, and the capture's next line on stderr must not end it (SIGPIPE) with
# the tracer left on
at_exit "'$IOTAPE' capture --reset > /dev/null 2>&1"
setsid sh -c "exec '$IOTAPE' capture --db '$db' --run pgrp -d /dev/$d --interval 0.2 \
	-- sh -c 'while :; do dd if=/dev/$d of=/dev/null bs=4k count=2000 iflag=direct 2>/dev/null; done' \
	2>&1 | cat > '$t/pgrp.out'" &
grp=$!
wait_capturing "$t/pgrp.out" $grp
sleep 1
kill -TERM -- -$grp
for i in $(seq 100); do pgrep -g $grp > /dev/null || break; sleep 0.1; done
wait $grp 2>/dev/null
pgrep -g $grp > /dev/null && not_ok "group SIGTERM: the capture ends" "$(pgrep -a -g $grp)" ||
	ok "group SIGTERM: the capture ends"
check_eq "group SIGTERM: run stored, marked interrupted" interrupted \
	"$(sqlite3 "$db" "SELECT status FROM runs WHERE name = 'pgrp'")"
clean_state "group SIGTERM"
pgrep -f "if=/dev/$d of=/dev/null bs=4k count=2000" > /dev/null &&
	not_ok "group SIGTERM: workload ended" || ok "group SIGTERM: workload ended"
"$IOTAPE" capture --reset > /dev/null 2>&1   # (what a failure above left)

# SIGKILL: the state file stays; the next capture refuses; --reset restores
"$IOTAPE" capture --db "$db" --run killed -d "/dev/$d" --set vm.dirty_ratio=33 \
	--set "$d:queue/read_ahead_kb=64" --mem-limit 256M --cmd "sleep 60.125" > /dev/null 2> "$t/err.kill" &
pid=$!
wait_capturing "$t/err.kill" $pid
at_exit "'$IOTAPE' capture --reset > /dev/null 2>&1"
sleep 1.5
kill -KILL $pid
wait $pid 2>/dev/null
# the workload dies with it (its own process group, so no signal reached it:
# the capture's reaper sees the capture gone and kills it)
for i in $(seq 50); do pgrep -x -f "sleep 60.125" > /dev/null || break; sleep 0.1; done
pgrep -x -f "sleep 60.125" > /dev/null && not_ok "SIGKILL: the workload is killed with the capture" ||
	ok "SIGKILL: the workload is killed with the capture"
check_eq "SIGKILL: the setting stays changed" 33 "$(cat /proc/sys/vm/dirty_ratio)"
"$IOTAPE" capture --db "$db" --run next -d "/dev/$d" -- true > /dev/null 2> "$t/refuse"
rc=$?
if [ $rc != 0 ] && grep -q "capture --reset" "$t/refuse" && grep -q "vm/dirty_ratio (was '$ratio0')" "$t/refuse"; then
	ok "after SIGKILL the next capture refuses and names what was left"
else
	not_ok "after SIGKILL the next capture refuses" "exit $rc: $(cat "$t/refuse")"
fi
check_eq "the refused capture stored nothing" "" "$(sqlite3 "$db" "SELECT name FROM runs WHERE name = 'next'")"
"$IOTAPE" capture --reset > "$t/reset" 2>&1
check_eq "--reset exits 0" 0 $?
grep -q "restored set /proc/sys/vm/dirty_ratio = $ratio0" "$t/reset" &&
	ok "--reset says what it restored" || not_ok "--reset says what it restored" "$(cat "$t/reset")"
clean_state "after --reset"
pgrep -x -f "sleep 60.125" > /dev/null && not_ok "--reset ended the cgroup's tasks" ||
	ok "--reset ended the cgroup's tasks"
# (another job's capture may hold the lock: then a reset rightly refuses;
# asked again once that one ends, at most 5 times)
for i in 1 2 3 4 5; do
	"$IOTAPE" capture --reset > "$t/reset2" 2>&1
	grep -q "a capture or replay is running" "$t/reset2" || break
	locked true
done
grep -q "nothing to reset" "$t/reset2" && ok "a second --reset has nothing to do" ||
	not_ok "a second --reset has nothing to do" "$(cat "$t/reset2")"
tap_finish
