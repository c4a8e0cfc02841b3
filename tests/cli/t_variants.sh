# t_variants.sh: the same records in the other byte order and in version 8
# (struct blk_io_trace2) import to the same run: identical dump and report;
# a per-CPU set with a missing member imports what is there and says so.
. "$(dirname "$0")/../lib.sh"

need_iotape "trace variants"
V=$FIXTURES/variants t=$TEST_TMP db=$t/t.db

"$IOTAPE" import --quiet --db "$db" --run le "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" dump --db "$db" le > "$t/le.dump"
"$IOTAPE" report --db "$db" le > "$t/le.report"
for v in be v8 v8be; do
	if ! "$IOTAPE" import --quiet --db "$db" --run "$v" "$V/loop-fio-small.$v.bin" 2> "$t/err"; then
		not_ok "import $v" "$(cat "$t/err")"; continue
	fi
	"$IOTAPE" dump --db "$db" "$v" > "$t/$v.dump"
	"$IOTAPE" report --db "$db" "$v" | sed "s/run '$v' (import, complete, blktrace-v[78])/X/" > "$t/$v.report"
	sed "s/run 'le' (import, complete, blktrace-v7)/X/" "$t/le.report" > "$t/le.report.x"
	if cmp -s "$t/le.dump" "$t/$v.dump" && cmp -s "$t/le.report.x" "$t/$v.report"; then
		ok "$v: same dump ($(wc -l < "$t/$v.dump") lines) and report as little-endian v7"
	else
		not_ok "$v: same dump and report" "$(diff "$t/le.dump" "$t/$v.dump" | head -n 4)" \
			"$(diff "$t/le.report.x" "$t/$v.report" | head -n 4)"
	fi
done
check_eq "format and byte order recorded" "be|blktrace-v7|1 v8|blktrace-v8|0 v8be|blktrace-v8|1" \
	"$(sqlite3 "$db" "SELECT name, format, big_endian FROM runs WHERE name IN ('be','v8','v8be') ORDER BY name" | tr '\n' ' ' | sed 's/ $//')"

# per-CPU set of CPUs 0 and 2: the base name and a member's path both work
for input in "$V/gap" "$V/gap.blktrace.2"; do
	rm -f "$t/g.db"
	if "$IOTAPE" import --db "$t/g.db" --run gap "$input" 2> "$t/err" &&
	   grep -q "per-CPU set has no file for CPU 1; importing the 2 present" "$t/err"; then
		ok "gap set from $(basename "$input"): missing CPU 1 named"
	else
		not_ok "gap set from $(basename "$input")" "$(cat "$t/err")"
	fi
done
check_eq "gap set: every record of both members" \
	"$(wc -l < "$t/le.dump")" "$("$IOTAPE" dump --db "$t/g.db" gap | wc -l)"
check_eq "gap set: missing CPUs stored" 1 \
	"$(sqlite3 "$t/g.db" "SELECT value FROM run_stats WHERE key = 'missing_cpus'")"
# merged by time, the two halves give back the original order of events
diff <("$IOTAPE" dump --db "$t/g.db" gap | awk '{ $2 = $3 = ""; print }') \
     <(awk '{ $2 = $3 = ""; print }' "$t/le.dump") > "$t/gapdiff"
check_eq "gap set: merged by time as the original stream" 0 "$(wc -l < "$t/gapdiff")"

# tracefs writes "CPU:1 [LOST 42 EVENTS]" into the binary stream when its
# ring buffer overflows: skipped, and the lost events counted
if "$IOTAPE" import --quiet --db "$db" --run lostmark "$V/lostmarker.bin" 2> "$t/err"; then
	ok "stream with a LOST EVENTS marker imports"
else
	not_ok "stream with a LOST EVENTS marker imports" "$(cat "$t/err")"
fi
check_eq "lost events from the marker counted" 42 "$(sqlite3 "$db" "SELECT value FROM run_stats s
	JOIN runs r ON r.id = s.run WHERE r.name = 'lostmark' AND key = 'lost_events_marked'")"
check_eq "every record around the marker kept" "$(wc -l < "$t/le.dump")" \
	"$("$IOTAPE" dump --db "$db" lostmark | wc -l)"
tap_finish
