# bench/bench_capture.sh: the cost of capturing. The same fio 4k random-read
# job (io_uring, depth 32, direct) on a loop device over a file in /dev/shm,
# in one run: without tracing, under `iotape capture`, and under the plain
# tracefs blk tracer in text mode (cat trace_pipe > /dev/null); at full speed
# and capped at 50k IOPS. Prints IOPS, the ratios and lost events. Needs
# root. Sourced by bench/bench.sh after tests/lib.sh.

bench_capture() {
	local img dev secs=${BENCH_CAPTURE_SECS:-8} rate out iops lost
	[ "$(id -u)" = 0 ] || { echo "capture bench: needs root, skipped"; return 0; }
	tracefs_check || { echo "capture bench: $TRACEFS_WHY, skipped"; return 0; }
	img=$(mktemp /dev/shm/iotape-capbench.XXXXXX) || return 1
	at_exit "rm -f '$img'"
	truncate -s 1G "$img"
	dd if=/dev/zero of="$img" bs=1M count=1024 conv=notrunc status=none
	loop_attach "$img" || return 1
	dev=/dev/$LOOPDEV
	fio_job() {  # fio_job RATE: prints the job's read IOPS
		local r=()
		[ "$1" != 0 ] && r=(--rate_iops="$1")
		fio --output-format=json --name=rr --filename="$dev" --rw=randread \
			--bs=4k --direct=1 --ioengine=io_uring --iodepth=32 \
			--runtime="$secs" --time_based "${r[@]}" 2>/dev/null |
			jq '.jobs[0].read.iops'
	}
	printf '\ncapture cost: fio 4k random reads, io_uring QD32, %s s, on %s (/dev/shm)\n' "$secs" "$LOOPDEV"
	printf '%-34s %12s %12s %8s %8s\n' setup "IOPS (max)" "IOPS (50k)" ratio lost
	declare -A res
	for rate in 0 50000; do
		res[none,$rate]=$(fio_job $rate)
		out=$(mktemp "$TEST_TMP/cap.XXXXXX")
		"$IOTAPE" capture --quiet --db "$TEST_TMP/cap.db" --run "c$rate" -d "$dev" \
			-- bash -c "$(declare -f fio_job); dev=$dev secs=$secs; fio_job $rate > $out"
		res[iotape,$rate]=$(cat "$out")
		res[lost,$rate]=$(sqlite3 "$TEST_TMP/cap.db" "SELECT value FROM run_stats s JOIN runs r ON r.id = s.run WHERE r.name = 'c$rate' AND key = 'lost_events'")
		# the plain text tracer, read and thrown away
		out=$(mktemp "$TEST_TMP/txt.XXXXXX")
		(
			exec 9>>"$TRACER_LOCK"; flock 9
			T=$TRACEFS mnt=0
			# as a capture does: mounted for the run when absent
			if [ ! -e "$T/current_tracer" ]; then
				mount -t tracefs none "$T" && mnt=1
			fi
			if echo blk > "$T/current_tracer" &&
			   echo 1 > "/sys/block/$LOOPDEV/trace/enable"; then
				cat "$T/trace_pipe" > /dev/null & cat=$!
				fio_job $rate > "$out"
				echo 0 > "/sys/block/$LOOPDEV/trace/enable"
				kill $cat; wait $cat 2>/dev/null
			else
				echo 0 > "$out"   # not traced: no figure, not an untraced one
			fi
			echo nop > "$T/current_tracer" 2>/dev/null
			[ $mnt = 1 ] && umount "$T"
		)
		res[text,$rate]=$(cat "$out")
	done
	for s in none iotape text; do
		local label=$s
		case $s in none) label="no tracing" ;; iotape) label="iotape capture (binary, stored)" ;;
			text) label="tracefs blk tracer, text" ;; esac
		printf '%-34s %12.0f %12.0f %8.3f %8s\n' "$label" "${res[$s,0]}" "${res[$s,50000]}" \
			"$(awk -v a="${res[$s,0]}" -v b="${res[none,0]}" 'BEGIN { print b ? a / b : 0 }')" \
			"$( [ $s = iotape ] && echo "${res[lost,0]:-?}/${res[lost,50000]:-?}" || echo -)"
	done
	printf 'ratio: max IOPS against no tracing; lost: events the tracer dropped (max/50k)\n'
}
