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
# A clock glitch (issue 25): one Q of 200 reads over 2 s stamped 8 s early
# in its place (tests/fixtures/robust/glitch.bin). The span is the 2 s that
# had I/O, not 10 (IOPS 100, not 24), the step back and the clock's return
# are both steps, the early Q's I/O is ended at the return (no Q2C of 8 s),
# and dump prints its time as negative, not blkparse's unsigned wrap-around.
if "$IOTAPE" import --quiet --db "$db" --run glitch "$R/glitch.bin" 2> "$t/err"; then
	"$IOTAPE" report --db "$db" --json glitch > "$t/glitch.json"
	check_eq "glitch: span 1.990 s and 100.5 IOPS, over the time that had I/O" "1.990 100.5" \
		"$(jq -r '"\(.span_s * 1000 | round / 1000) \(.devices[0].read.iops * 10 | round / 10)"' "$t/glitch.json" |
			awk '{ printf "%.3f %.1f", $1, $2 }')"
	check_eq "glitch: no latency of the glitch's size (Q2C max 55 us, 199 Q2C)" "55 199" \
		"$(jq -r '"\(.all.q2c.max_us | round) \(.all.q2c.n)"' "$t/glitch.json")"
	check_eq "glitch: two steps (back, and the clock's return), one I/O ended at it" "2 1" \
		"$(sqlite3 "$db" "SELECT value FROM run_stats s JOIN runs r ON r.id = s.run
			WHERE r.name = 'glitch' AND key IN ('clock_jumps', 'jump_abandoned') ORDER BY key" | paste -sd' ')"
	check_eq "glitch: dump prints the early Q's time as -6.2 s" \
		"  8,0    0      901    -6.200000000   100  Q   R 51440 + 8 [reader]" \
		"$("$IOTAPE" dump --db "$db" glitch | sed -n 901p)"
else
	not_ok "glitch: import" "$(cat "$t/err")"
fi
# completions in a span of 0 s: no average in flight to print (JSON null)
printf '  8,0    0        1     0.000000000  4242  Q   R 2048 + 8 [rd]\n%s\n%s\n' \
	'  8,0    0        2     0.000000000  4242  D   R 2048 + 8 [rd]' \
	'  8,0    0        3     0.000000000     0  C   R 2048 + 8 [0]' > "$t/zero.txt"
"$IOTAPE" import --quiet --db "$db" --run zero "$t/zero.txt"
check_eq "a span of 0 s: report prints no 'nan', avg_inflight null" "0 null" \
	"$("$IOTAPE" report --db "$db" zero | grep -ci nan) $("$IOTAPE" report --db "$db" --json zero |
		jq '.devices[0].avg_inflight')"
tap_finish
