# t_lab_shared.sh: a shared lab machine (issue 25): with a capture of another device
# running, a replay that changes no shared setting runs beside it (no false "was
# killed" message), `capture --reset` refuses naming the running capture's pid and
# leaves its state alone, and a replay with --set waits for the capture lock, as a
# second capture does, then runs; everything is put back. A capture in a mount
# namespace of its own (a container's /run) waits for one here. Needs root.
. "$(dirname "$0")/../lib.sh"

need_iotape "replay beside a capture"
need_root "replay beside a capture"
tracefs_check || { skip "replay beside a capture" "$TRACEFS_WHY"; exit 0; }

t=$TEST_TMP db=$t/t.db cdb=$t/c.db
q() { sqlite3 "$db" "$@"; }
"$IOTAPE" import --quiet --db "$db" --run src "$FIXTURES/loop-fio-small.bin"
truncate -s 32M "$t/a.img" "$t/b.img"
loop_attach "$t/a.img" || { not_ok "attach loop"; tap_finish; }
A=$LOOPDEV
loop_attach "$t/b.img" || { not_ok "attach loop"; tap_finish; }
B=$LOOPDEV
sched() { sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$B/queue/scheduler"; }
sched0=$(sched)
other=$(awk '{ for (i = 1; i <= NF; i++) if ($i !~ /\[/) { print $i; exit } }' \
	"/sys/block/$B/queue/scheduler")

# a capture of A, holding the lab's lock for 4 s
"$IOTAPE" capture --db "$cdb" --run beside -d "/dev/$A" --interval 0.2 --duration 4 \
	> /dev/null 2> "$t/cap.err" &
cap=$!
at_exit "kill $cap 2> /dev/null; wait $cap 2> /dev/null"
for i in $(seq 600); do
	grep -q "iotape: capturing" "$t/cap.err" && break
	kill -0 $cap 2> /dev/null || break
	sleep 0.1
done
grep -q "iotape: capturing" "$t/cap.err" || { not_ok "the capture beside starts" "$(cat "$t/cap.err")"; tap_finish; }

"$IOTAPE" replay --db "$db" src --target "/dev/$B" --wrap --timing afap --run r1 \
	> /dev/null 2> "$t/err"
check_eq "beside a capture: a replay without --set runs, says nothing of a kill" \
	"0 0 complete" "$? $(grep -c killed "$t/err") $(q "SELECT status FROM runs WHERE name = 'r1'")"
kill -0 $cap 2> /dev/null && ok "... while the capture still runs" ||
	not_ok "... while the capture still runs" "it ended first: the check proves nothing"
"$IOTAPE" capture --reset > /dev/null 2> "$t/err"
check_eq "beside a capture: --reset refuses, naming its pid, its state file kept" "1 1 yes" \
	"$? $(grep -c "is running (pid $cap holds" "$t/err") $([ -e /run/iotape/capture.state ] && echo yes || echo no)"

"$IOTAPE" replay --db "$db" src --target "/dev/$B" --wrap --timing afap --run r2 \
	--set "queue/scheduler=$other" > /dev/null 2> "$t/r2.err" &
rp=$!
sleep 1
if kill -0 $cap 2> /dev/null; then
	check_eq "a replay with --set waits for the capture's lock" "1 0" \
		"$(grep -c "waiting for another capture to finish" "$t/r2.err") $(q "SELECT count(*) FROM runs WHERE name = 'r2'")"
else
	skip "a replay with --set waits for the capture's lock" "the capture ended within a second"
fi
wait $cap; crc=$?
wait $rp; rrc=$?
got="$crc $rrc $(q "SELECT status FROM runs WHERE name = 'r2'") $(q "SELECT value FROM settings s JOIN runs r
	ON r.id = s.run WHERE r.name = 'r2' AND key = '$B:queue/scheduler' AND at = 'start'")"
if [ "$got" = "0 0 complete $other" ]; then
	ok "then both complete: the capture's run and the replay under $other"
else
	not_ok "then both complete: the capture's run and the replay under $other" \
		"got: $got" "$(tail -n 3 "$t/r2.err")"
fi
check_eq "the capture's run is stored" "1" \
	"$(sqlite3 "$cdb" "SELECT count(*) FROM runs WHERE name = 'beside' AND status = 'complete'")"
check_eq "everything put back: the scheduler, no state file" "$sched0|" "$(sched)|$(lab_state_left)"

# a capture in a container of its own (a mount namespace with its own /run: its
# own lock file) shares the tracer with this one's: it waits, then both run
if command -v unshare > /dev/null; then
	"$IOTAPE" capture --db "$cdb" --run here -d "/dev/$A" --interval 0.2 --duration 3 \
		> /dev/null 2> "$t/here.err" &
	cap=$!
	for i in $(seq 600); do
		grep -q "iotape: capturing" "$t/here.err" && break
		kill -0 $cap 2> /dev/null || break
		sleep 0.1
	done
	# its --reset of a state file its own killed capture left would put the
	# tracer back under this one's feet: it refuses
	unshare -m --propagation private sh -c 'mount -t tmpfs none /run &&
		mkdir /run/iotape && printf "pid\t%s\n" "$1" > /run/iotape/capture.state &&
		"$0" capture --reset' "$IOTAPE" "$(dead_pid)" > /dev/null 2> "$t/reset.err"
	check_eq "another container's --reset refuses while this one's capture runs" "1 1" \
		"$? $(grep -c "another container or mount namespace holds the tracer" "$t/reset.err")"
	unshare -m --propagation private sh -c 'mount -t tmpfs none /run &&
		exec "$0" capture --db "$1" --run there -d "/dev/$2" --interval 0.2 --duration 1' \
		"$IOTAPE" "$cdb" "$B" > /dev/null 2> "$t/there.err"
	trc=$?
	kill -0 $cap 2> /dev/null; alive=$?
	wait $cap; crc=$?
	check_eq "another container's capture waits for this one's, then both complete" \
		"0 0 1 1 2" "$trc $crc $alive $(grep -c "waiting for another capture to finish (one in another container" "$t/there.err") $(sqlite3 "$cdb" "SELECT count(*) FROM runs WHERE name IN ('here', 'there') AND status = 'complete'")"
	[ "$trc" = 0 ] || diag "$(cat "$t/there.err")"
	check_eq "... and everything is put back" "$sched0|" "$(sched)|$(lab_state_left)"
else
	skip "another container's capture waits" "no unshare"
fi
tap_finish
