# t_robust_clock.sh: a clock stepped 4400 s back or ahead halfway through a
# trace (tests/fixtures/robust/step*.bin, the committed capture with its
# second half moved): the span never goes negative and rates are over the
# time that had I/O (the unstepped capture's), no latency has the step's
# size, and tput, qd and mail draw bins from 0 up.
. "$(dirname "$0")/../lib.sh"

need_iotape "clock steps"
command -v jq > /dev/null || { skip "clock steps" "no jq"; exit 0; }
R=$FIXTURES/robust t=$TEST_TMP db=$t/t.db

"$IOTAPE" import --quiet --db "$db" --run orig "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" report --db "$db" --json orig > "$t/orig.json"
for run in stepback stepahead; do
	if ! "$IOTAPE" import --quiet --db "$db" --run $run "$R/$run.bin" 2> "$t/err"; then
		not_ok "$run: import" "$(cat "$t/err")"; continue
	fi
	"$IOTAPE" report --db "$db" --json $run > "$t/$run.json"
	check_eq "$run: span as the unstepped capture's" \
		"$(jq '.span_s * 1000 | round' "$t/orig.json")" "$(jq '.span_s * 1000 | round' "$t/$run.json")"
	check_eq "$run: read and write IOPS as the unstepped capture's" \
		"$(jq -c '[.devices[0].read.iops, .devices[0].write.iops] | map(. * 10 | round)' "$t/orig.json")" \
		"$(jq -c '[.devices[0].read.iops, .devices[0].write.iops] | map(. * 10 | round)' "$t/$run.json")"
	q2c_max=$(jq '.all.q2c.max_us' "$t/$run.json")
	if awk -v m="$q2c_max" 'BEGIN { exit !(m < 100000) }'; then
		ok "$run: no latency of the step's size (Q2C max $q2c_max us)"
	else
		not_ok "$run: no latency of the step's size" "Q2C max $q2c_max us"
	fi
	check_eq "$run: step counted" 1 "$(sqlite3 "$db" "SELECT value FROM run_stats s JOIN runs r
		ON r.id = s.run WHERE r.name = '$run' AND key = 'clock_jumps'")"
	check "$run: runs lists a positive span" \
		bash -c "'$IOTAPE' runs --db '$db' | awk '\$2 == \"$run\" && \$7 > 0.9 && \$7 < 1.1 { f = 1 } END { exit !f }'"
	for kind in tput qd; do
		if "$IOTAPE" plot --db "$db" --kind $kind --format txt -o "$t/plot-$run" $run \
			> /dev/null 2> "$t/err"; then
			neg=$(awk '!/^#/ && $1 < 0' "$t/plot-$run/$run.$kind.dat" | wc -l)
			check_eq "$run: plot --kind $kind, no bin before 0" 0 "$neg"
		else
			not_ok "$run: plot --kind $kind" "$(cat "$t/err")"
		fi
	done
done
check "mail of the two stepped runs" "$IOTAPE" mail --db "$db" -o "$t/mail" stepback stepahead
tap_finish
