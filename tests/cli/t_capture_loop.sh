# t_capture_loop.sh: capture a real three-process fio workload on a loop device with
# the tracefs blk tracer, import it, and check `iotape dump` against blkparse's
# per-event lines and `iotape report --json` against btt. Needs root.
. "$(dirname "$0")/../lib.sh"

need_root "capture on a loop device"
if ! tracefs_check; then skip "capture on a loop device" "$TRACEFS_WHY"; exit 0; fi
for tool in fio blkparse btt jq; do
	command -v $tool > /dev/null || { skip "capture on a loop device" "no $tool"; exit 0; }
done
need_iotape "capture on a loop device"

t=$TEST_TMP
truncate -s 256M "$t/disk.img"
if ! loop_attach "$t/disk.img"; then skip "capture on a loop device" "cannot attach one"; exit 0; fi
if ! tracefs_check "$LOOPDEV"; then skip "capture on $LOOPDEV" "$TRACEFS_WHY"; exit 0; fi

db=$t/t.db
# capture SCHED: capture the workload with I/O scheduler SCHED on the loop device, import
# it as run cap-SCHED, and compare with blkparse and btt
capture() {
	local sched=$1 run=cap-$1 trace=$t/$1.bin rc n procs
	local bp=$t/$1.blkparse
	sysfs_set "/sys/block/$LOOPDEV/queue/scheduler" "$sched" || {
		not_ok "$sched: set the scheduler of $LOOPDEV"; return; }
	# About 3 s at ~2700 IOPS: some 50k events (6 per read, more per write).
	DEV=$LOOPDEV RUNTIME=${CAPTURE_SECONDS:-3} RR_IOPS=2000 SW_IOPS=500 BW_IOPS=200 \
		tracefs_capture "$trace" "$LOOPDEV" -- \
		fio --output="$t/fio.out" "$REPO_ROOT/tests/cli/loop-mixed.fio" 2> "$t/capture.err"
	rc=$?
	cat "$t/capture.err" >&2
	if [ $rc != 0 ]; then
		not_ok "$sched: capture fio on $LOOPDEV" "exit $rc" "$(tail -n 5 "$t/capture.err")" \
			"$(tail -n 5 "$t/fio.out" 2> /dev/null)"
		return
	fi
	if grep -q '^warning:' "$t/capture.err"; then
		not_ok "$sched: capture without lost events" "$(grep '^warning:' "$t/capture.err")"
	else
		ok "$sched: capture without lost events"
	fi

	# the whole stream one batch: iotape sorts across blkparse's 512-record
	# batches, and a same-nanosecond pair at a batch's end came out in the
	# other order (1 run in 6 on a loaded machine)
	blkparse_events_sorted "$trace" > "$bp"
	n=$(wc -l < "$bp")
	if [ "$n" -ge 10000 ]; then ok "$sched: captured $n events (>= 10000)"
	else not_ok "$sched: captured >= 10000 events" "blkparse sees $n events"; fi
	procs=$(awk '{ print $5 }' "$bp" | sort -u | wc -l)
	diag "$sched: $n events, $(stat -c %s "$trace") bytes, $procs pids," \
		"actions $(awk '{ print $6 }' "$bp" | sort -u | tr -d '\n')"

	if "$IOTAPE" import --db "$db" --run "$run" "$trace" 2> "$t/import.err"; then
		ok "$sched: import the capture"
	else
		not_ok "$sched: import the capture" "$(tail -n 5 "$t/import.err")"
		return
	fi
	if "$IOTAPE" runs --db "$db" > "$t/runs.txt" 2>&1 && grep -qw -- "$run" "$t/runs.txt"; then
		ok "$sched: runs lists $run"
	else
		not_ok "$sched: runs lists $run" "$(head -n 5 "$t/runs.txt")"
	fi

	compare_dump "$db" "$run" "$bp" "$sched"

	if blkparse -b "$(blkparse_batch "$trace")" -q -i - -d "$t/$1.btt-in" -O < "$trace" 2> "$t/bpd.err"; then
		compare_btt "$db" "$run" "$t/$1.btt-in" "$sched"
	else
		not_ok "$sched: blkparse -d dump for btt" "$(tail -n 3 "$t/bpd.err")"
	fi
}

diag "$(uname -r), $(blkparse -V), $(btt -V 2>&1), $(fio --version)"
capture none
capture mq-deadline

tap_finish
