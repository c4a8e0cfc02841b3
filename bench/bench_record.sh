# bench/bench_record.sh: the cost of the flight recorder (issue 13). The same fio
# 4k random-read job (io_uring, depth 32, direct) on a loop device over a file in
# /dev/shm, in one bench run: untraced, under `iotape record` and under `iotape
# capture`, capped at 50k IOPS and at full speed. Prints the throughput ratios
# against untraced, the recorder's CPU (% of one core: utime + stime of
# /proc/PID/stat over the fio run), its peak RSS (VmHWM), and its CPU while the
# device is idle, each against the issue's target with "pass" or "miss". Needs
# root. Sourced by bench/bench.sh after tests/lib.sh; standalone:
# `IOTAPE=./iotape bash bench/bench_record.sh`.
# Environment: BENCH_RECORD_SECS (10, each fio run), BENCH_RECORD_IDLE (10,
# seconds idle), BENCH_RECORD_KEEP (64M, the ring's --keep), BENCH_RECORD_RATE
# (50000, the capped rate).

bench_record() {
	local secs=${BENCH_RECORD_SECS:-10} idle=${BENCH_RECORD_IDLE:-10}
	local keep=${BENCH_RECORD_KEEP:-64M} cap=${BENCH_RECORD_RATE:-50000}
	local img dev rate tck keepkb err pid t0 t1 c0 c1 i
	[ "$(id -u)" = 0 ] || { echo "record bench: needs root, skipped"; return 0; }
	tracefs_check || { echo "record bench: $TRACEFS_WHY, skipped"; return 0; }
	img=$(mktemp /dev/shm/iotape-recbench.XXXXXX) || return 1
	at_exit "rm -f '$img'"
	truncate -s 1G "$img"
	dd if=/dev/zero of="$img" bs=1M count=1024 conv=notrunc status=none
	loop_attach "$img" || return 1
	dev=/dev/$LOOPDEV
	tck=$(getconf CLK_TCK)
	keepkb=$(numfmt --from=iec "$keep")
	keepkb=$((keepkb / 1024))
	rec_fio() {  # rec_fio RATE: prints the job's read IOPS
		local r=()
		[ "$1" != 0 ] && r=(--rate_iops="$1")
		fio --output-format=json --name=rr --filename="$dev" --rw=randread \
			--bs=4k --direct=1 --ioengine=io_uring --iodepth=32 \
			--runtime="$secs" --time_based "${r[@]}" 2>/dev/null |
			jq '.jobs[0].read.iops'
	}
	cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }   # utime + stime
	now_s() { awk '{ print $1 }' /proc/uptime; }
	# pct TICKS0 TICKS1 T0 T1: CPU % of one core over [T0, T1]
	pct() { awk -v a="$1" -v b="$2" -v s="$3" -v e="$4" -v hz="$tck" \
		'BEGIN { printf "%.1f", (e > s) ? 100 * (b - a) / hz / (e - s) : 0 }'; }
	declare -A res
	res[hwm]=0
	err=$TEST_TMP/rec.err
	# rec_start: the recorder in the background (pid in $pid), recording
	rec_start() {
		"$IOTAPE" record --db "$TEST_TMP/rec.db" -d "$dev" --keep "$keep" \
			--window 120s 2> "$err" > /dev/null &
		pid=$!
		at_exit "kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null"
		# it waits for the capture lock (other captures) before it records
		for ((i = 0; i < 6000; i++)); do
			grep -qs "iotape: recording" "$err" && return 0
			kill -0 $pid 2> /dev/null || break
			sleep 0.1
		done
		cat "$err" >&2
		kill -TERM $pid 2> /dev/null; wait $pid 2> /dev/null
		return 1
	}
	rec_stop() {
		local hwm
		hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
		[ "$hwm" -gt "${res[hwm]}" ] && res[hwm]=$hwm
		kill -TERM $pid; wait $pid
	}
	# per rate, the three setups one after the other (the machine may be
	# shared: peers measured close together)
	for rate in "$cap" 0; do
		res[none,$rate]=$(rec_fio "$rate")
		rec_start || { echo "record bench: the recorder did not start, skipped"; return 0; }
		if [ -z "${res[idle]:-}" ]; then
			sleep 1
			c0=$(cpu_ticks $pid) t0=$(now_s)
			sleep "$idle"
			c1=$(cpu_ticks $pid) t1=$(now_s)
			res[idle]=$(pct "$c0" "$c1" "$t0" "$t1")
		fi
		c0=$(cpu_ticks $pid) t0=$(now_s)
		res[rec,$rate]=$(rec_fio "$rate")
		c1=$(cpu_ticks $pid) t1=$(now_s)
		res[cpu,$rate]=$(pct "$c0" "$c1" "$t0" "$t1")
		rec_stop
		"$IOTAPE" capture --quiet --db "$TEST_TMP/reccap.db" --run "c$rate" -d "$dev" \
			-- bash -c "$(declare -f rec_fio); dev=$dev secs=$secs; rec_fio $rate > $TEST_TMP/reccap.out"
		res[cap,$rate]=$(cat "$TEST_TMP/reccap.out")
	done
	# verdict AWK_EXPR: pass when it holds
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'; }
	verdict() { awk "BEGIN { print ($1) ? \"pass\" : \"miss\" }"; }
	printf '\nrecorder cost: fio 4k random reads, io_uring QD32, %s s each, on %s (/dev/shm);\n' "$secs" "$LOOPDEV"
	printf 'iotape record --keep %s --window 120s (no trigger), iotape capture, in one run\n' "$keep"
	printf '%-30s %12s %12s\n' setup "IOPS ($((cap / 1000))k)" "IOPS (max)"
	printf '%-30s %12.0f %12.0f\n' "no tracing" "${res[none,$cap]}" "${res[none,0]}"
	printf '%-30s %12.0f %12.0f\n' "iotape record" "${res[rec,$cap]}" "${res[rec,0]}"
	printf '%-30s %12.0f %12.0f\n' "iotape capture" "${res[cap,$cap]}" "${res[cap,0]}"
	local r50 rmax c50 cmax
	r50=$(ratio "${res[rec,$cap]}" "${res[none,$cap]}") rmax=$(ratio "${res[rec,0]}" "${res[none,0]}")
	c50=$(ratio "${res[cap,$cap]}" "${res[none,$cap]}") cmax=$(ratio "${res[cap,0]}" "${res[none,0]}")
	printf '%-44s %12s %14s %s\n' measure value target ""
	printf '%-44s %12s %14s %s\n' "record/untraced IOPS at $((cap / 1000))k" "$r50" ">= 0.970" "$(verdict "$r50 >= 0.97")"
	printf '%-44s %12s %14s\n' "record/untraced IOPS at full speed" "$rmax" "-"
	printf '%-44s %12s %14s\n' "capture/untraced IOPS at $((cap / 1000))k, full" "$c50, $cmax" "-"
	printf '%-44s %11s%% %14s %s\n' "recorder CPU, device idle ($idle s)" "${res[idle]}" "< 5%" "$(verdict "${res[idle]} < 5")"
	printf '%-44s %11s%% %14s\n' "recorder CPU at $((cap / 1000))k IOPS" "${res[cpu,$cap]}" "-"
	printf '%-44s %11s%% %14s\n' "recorder CPU at full speed" "${res[cpu,0]}" "-"
	printf '%-44s %9.1f MiB %10s MiB %s\n' "recorder peak RSS (VmHWM)" "$(awk -v k="${res[hwm]}" 'BEGIN { print k / 1024 }')" \
		"<= $(((keepkb + 8192) / 1024))" "$(verdict "${res[hwm]} <= $keepkb + 8192")"
	printf 'CPU: %% of one core (utime + stime over the run); RSS target: --keep + 8 MiB\n'
}

# run standalone: bash bench/bench_record.sh
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	. "$(dirname "$0")/../tests/lib.sh"
	IOTAPE=${IOTAPE:-$(dirname "$0")/../iotape}
	bench_record
fi
