# bench/bench_capture.sh: the cost of capturing. The same fio 4k random-read
# job (io_uring, depth 32, direct) on a loop device over a file in /dev/shm,
# in one run: without tracing, under `iotape capture`, under the plain
# tracefs blk tracer in text mode (cat trace_pipe > /dev/null), and under the
# blk tracer alone in binary mode with nobody reading (the floor: what making
# the events costs); at full speed (BENCH_CAPTURE_ROUNDS rounds, medians) and
# capped at 50k IOPS. Prints IOPS, the ratios and lost events, and issue 32's
# row. Needs root. Sourced by bench/bench.sh after tests/lib.sh.

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
	# bare_tracer MODE RATE: fio_job RATE's IOPS under the blk tracer alone,
	# taking the capture lock: MODE text (trace_pipe read and thrown away)
	# or floor (binary, unread); 0 when the tracer cannot be set
	bare_tracer() {
		local out T=$TRACEFS mnt=0 cat=
		out=$(mktemp "$TEST_TMP/bare.XXXXXX")
		(
			capture_lock || { echo 0 > "$out"; exit 0; }
			# as a capture does: mounted for the run when absent
			if [ ! -e "$T/current_tracer" ]; then
				mount -t tracefs none "$T" && mnt=1
			fi
			if echo blk > "$T/current_tracer" &&
			   { [ "$1" = text ] || echo 1 > "$T/options/bin"; } &&
			   echo 1 > "/sys/block/$LOOPDEV/trace/enable"; then
				if [ "$1" = text ]; then
					cat "$T/trace_pipe" > /dev/null 8<&- 9>&- & cat=$!
				fi
				fio_job "$2" > "$out"
				echo 0 > "/sys/block/$LOOPDEV/trace/enable"
				[ -n "$cat" ] && { kill $cat; wait $cat 2>/dev/null; }
			else
				echo 0 > "$out"   # not traced: no figure, not an untraced one
			fi
			echo 0 > "$T/options/bin" 2>/dev/null
			echo nop > "$T/current_tracer" 2>/dev/null
			[ $mnt = 1 ] && umount "$T"
		)
		cat "$out"
	}
	printf '\ncapture cost: fio 4k random reads, io_uring QD32, %s s, on %s (/dev/shm)\n' "$secs" "$LOOPDEV"
	printf '%-34s %12s %12s %8s %8s\n' setup "IOPS (max)" "IOPS (50k)" ratio lost
	declare -A res
	# capture_job RATE K: fio_job RATE's IOPS under `iotape capture`, as run
	# cRATE.K (lost RATE K: the events its tracer dropped); the capture's
	# own CPU while fio ran (its threads' utime + stime from /proc, the
	# command's parent being the capture), % of one core, into
	# $TEST_TMP/capcpu.RATE.K
	capture_job() {
		local out
		out=$(mktemp "$TEST_TMP/cap.XXXXXX")
		"$IOTAPE" capture --quiet --db "$TEST_TMP/cap.db" --run "c$1.$2" -d "$dev" \
			-- bash -c "$(declare -f fio_job cpu_ticks); dev=$dev secs=$secs
				a=\$(cpu_ticks \$PPID); s=\$(date +%s.%N); fio_job $1 > $out
				b=\$(cpu_ticks \$PPID); e=\$(date +%s.%N)
				awk -v a=\$a -v b=\$b -v s=\$s -v e=\$e -v hz=\$(getconf CLK_TCK) \\
					'BEGIN { printf \"%.1f\\n\", 100 * (b - a) / hz / (e - s) }' \\
					> $TEST_TMP/capcpu.$1.$2"
		cat "$out"
	}
	# cpu_ticks PID: the utime + stime of PID's threads, clock ticks
	# (proc(5): fields 14 and 15 of /proc/PID/task/TID/stat)
	cpu_ticks() {
		cat /proc/"$1"/task/*/stat 2>/dev/null |
			awk '{ sub(/^.*\) /, ""); t += $12 + $13 } END { print t + 0 }'
	}
	lost() { sqlite3 "$TEST_TMP/cap.db" "SELECT value FROM run_stats s JOIN runs r
		ON r.id = s.run WHERE r.name = 'c$1.$2' AND key = 'lost_events'"; }
	# med V...: the median of the numbers given
	med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	# uncapped, the figures move by a fifth from one run to the next on
	# this VM (the tracer alone read 0.73 to 1.04 of untraced in six
	# rounds): BENCH_CAPTURE_ROUNDS rounds (5) taking turns, medians
	local rounds=${BENCH_CAPTURE_ROUNDS:-5} k none=() cap=() floor=()
	for ((k = 1; k <= rounds; k++)); do
		none+=("$(fio_job 0)")
		cap+=("$(capture_job 0 $k)")
		floor+=("$(bare_tracer floor 0)")
	done
	res[none,0]=$(med "${none[@]}") res[iotape,0]=$(med "${cap[@]}")
	res[floor,0]=$(med "${floor[@]}")
	res[text,0]=$(bare_tracer text 0)
	# capped at 50k IOPS, once each: the workload's rate is kept or not
	res[none,50000]=$(fio_job 50000)
	res[iotape,50000]=$(capture_job 50000 1)
	res[text,50000]=$(bare_tracer text 50000)
	res[floor,50000]=$(bare_tracer floor 50000)
	# lost, uncapped: the most any round dropped
	res[lost,0]=$(for ((k = 1; k <= rounds; k++)); do lost 0 $k; done | sort -g | tail -n 1)
	res[lost,50000]=$(lost 50000 1)
	for s in none iotape text floor; do
		local label=$s
		case $s in none) label="no tracing" ;; iotape) label="iotape capture (binary, stored)" ;;
			text) label="tracefs blk tracer, text" ;;
			floor) label="blk tracer alone (binary, unread)" ;; esac
		printf '%-34s %12.0f %12.0f %8.3f %8s\n' "$label" "${res[$s,0]}" "${res[$s,50000]}" \
			"$(awk -v a="${res[$s,0]}" -v b="${res[none,0]}" 'BEGIN { print b ? a / b : 0 }')" \
			"$( [ $s = iotape ] && echo "${res[lost,0]:-?}/${res[lost,50000]:-?}" || echo -)"
	done
	printf 'ratio: max IOPS against no tracing (uncapped: medians of %s rounds taking\n' "$rounds"
	printf 'turns); lost: events the tracer dropped (max/50k);\n'
	printf 'the tracer alone is the floor any capture of every action starts from\n'
	local own
	own=$(med $(for ((k = 1; k <= rounds; k++)); do cat "$TEST_TMP/capcpu.0.$k"; done))
	printf "iotape capture's own CPU while fio ran, uncapped: %s%% of one core (median\n" "$own"
	printf "of %s rounds; the rest of its cost is the tracer's, in the I/O's own path)\n" "$rounds"
	# issue 32's row: the capture's ratio beside the tracer's own floor
	printf '%s\t%s\t%s\t%s\t%s\n' "capture, uncapped IOPS ratio" \
		"$(awk -v a="${res[floor,0]}" -v b="${res[none,0]}" \
			'BEGIN { printf "blk tracer alone %.3f", b ? a / b : 0 }')" \
		"$(awk -v a="${res[iotape,0]}" -v b="${res[none,0]}" -v own="$own" \
			'BEGIN { printf "%.3f (its own CPU %s%% of a core)", b ? a / b : 0, own }')" \
		"$(awk -v a="${res[iotape,0]}" -v b="${res[floor,0]}" \
			'BEGIN { printf "%.2fx the floor", b ? a / b : 0 }')" ">= 0.9 of untraced" >> "$BENCH_ROWS"
}
