# t_capture_steps.sh: lab runs with set-up and steps (issue 25). --then starts a
# step once every command before it has ended, each timed in its own commands row
# (cmd1, cmd2, ...; several --cmd still run at once); --before and --after run
# around every repeat, untraced (their I/O is not in the run), timed apart in the
# run's statistics (before.*, after.*) and named in its settings, never counted as
# workload commands; a --before that fails stops the capture with nothing changed.
# Needs root.
. "$(dirname "$0")/../lib.sh"

need_iotape "capture steps"
need_root "capture steps"
tracefs_check || { skip "capture steps" "$TRACEFS_WHY"; exit 0; }

t=$TEST_TMP db=$t/t.db
q() { sqlite3 "$db" "$@"; }
truncate -s 32M "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach loop"; tap_finish; }
d=$LOOPDEV
# rd SECTOR: one direct 4 KiB read of /dev/$d at 512-byte SECTOR
rd() { echo "dd if=/dev/$d of=/dev/null bs=512 count=8 skip=$1 iflag=direct 2>/dev/null"; }
rid() { q "SELECT id FROM runs WHERE name = '$1'"; }

"$IOTAPE" capture --db "$db" --run st -d "/dev/$d" --interval 0.1 --quiet --repeat 2 \
	--before "$(rd 40000); sleep 0.4" --after "$(rd 50000)" \
	--cmd "$(rd 1000); sleep 0.2" --cmd "$(rd 2000); sleep 0.1" \
	--then "$(rd 3000); sleep 0.1" --then "$(rd 4000)" > "$t/out" 2> "$t/err"
check_eq "capture with steps, --before and --after, 2 repeats: exit 0" 0 $?
for r in st.1 st.2; do
	R=$(rid "$r")
	# start and end of each command, ms from the first start
	q "SELECT idx, (start_ns - (SELECT min(start_ns) FROM commands WHERE run = $R)) / 1000000,
		(end_ns - (SELECT min(start_ns) FROM commands WHERE run = $R)) / 1000000
		FROM commands WHERE run = $R ORDER BY idx" > "$t/cmds"
	check_eq "$r: four commands rows (cmd1..cmd4), none for --before or --after" 4 "$(wc -l < "$t/cmds")"
	if awk -F'|' '{ s[$1] = $2; e[$1] = $3 }
		END { exit !(s[1] < e[0] && s[2] >= e[0] && s[2] >= e[1] && s[3] >= e[2]) }' "$t/cmds"; then
		ok "$r: cmd1 and cmd2 at once, cmd3 after both, cmd4 after cmd3"
	else
		not_ok "$r: steps in order" "$(cat "$t/cmds")"
	fi
	check_eq "$r: the steps stored (capture.steps)" "1 1 2 3" \
		"$(q "SELECT value FROM settings WHERE run = $R AND key = 'capture.steps'")"
	check_eq "$r: --before's and --after's reads untraced; the workload's traced" "0 4" \
		"$(q "SELECT sum(sector IN (40000, 50000)), sum(sector IN (1000, 2000, 3000, 4000))
			FROM requests WHERE run = $R AND q_ns IS NOT NULL" | tr '|' ' ')"
	check_eq "$r: --before and --after timed apart (status, real s over 0.4 for --before)" "0 0 1" \
		"$(q "SELECT (SELECT value FROM run_stats WHERE run = $R AND key = 'before.status'),
			(SELECT value FROM run_stats WHERE run = $R AND key = 'after.status'),
			(SELECT value FROM run_stats WHERE run = $R AND key = 'before.real_s') > 0.4" | tr '|' ' ')"
	check_eq "$r: --before and --after named in the settings" "$(rd 40000); sleep 0.4|$(rd 50000)" \
		"$(q "SELECT group_concat(value, '|') FROM (SELECT value FROM settings WHERE run = $R AND
			key IN ('capture.before', 'capture.after') ORDER BY key DESC)")"
	check_eq "$r: --before ended before the first command started, --after began after the last ended" "1 1" \
		"$(q "SELECT (SELECT value FROM run_stats WHERE run = $R AND key = 'before.end_ns') <
			(SELECT min(start_ns) FROM commands WHERE run = $R),
			(SELECT value FROM run_stats WHERE run = $R AND key = 'after.start_ns') >
			(SELECT max(end_ns) FROM commands WHERE run = $R)" | tr '|' ' ')"
	check_eq "$r: elapsed is the commands' first start to last end, without --before" \
		"$(q "SELECT (max(end_ns) - min(start_ns)) / 1000000 FROM commands WHERE run = $R")" \
		"$("$IOTAPE" report --db "$db" --json "$r" | jq '.time.elapsed_s * 1000 | floor')"
done
check_eq "metrics: cmd1..cmd4, nothing of --before or --after" "cmd1 cmd2 cmd3 cmd4" \
	"$("$IOTAPE" metric --db "$db" st.1 | awk 'NR > 1 { sub(/_.*/, "", $1); print $1 }' | sort -u | paste -sd' ')"

# a --before that fails: nothing changed, traced or stored
ra0=$(cat "/sys/block/$d/queue/read_ahead_kb")
n0=$(q "SELECT count(*) FROM runs")
"$IOTAPE" capture --db "$db" --run bad -d "/dev/$d" --quiet --before "exit 3" \
	--set "$d:queue/read_ahead_kb=64" --cmd true > /dev/null 2> "$t/err"
check_eq "a failed --before: exit 1, said, nothing stored or changed" \
	"1 1 $n0 $ra0" "$? $(grep -c "\-\-before 'exit 3' exited 3; nothing captured" "$t/err") $(q "SELECT count(*) FROM runs") $(cat "/sys/block/$d/queue/read_ahead_kb")"
# a failed --after: warned, the run stored
"$IOTAPE" capture --db "$db" --run badafter -d "/dev/$d" --after "exit 4" --cmd true \
	> /dev/null 2> "$t/err"
check_eq "a failed --after: warned, the run stored with after.status 4" "0 1 4" \
	"$? $(grep -c "\-\-after 'exit 4' exited 4" "$t/err") $(q "SELECT value FROM run_stats WHERE
		run = $(rid badafter) AND key = 'after.status'")"
tap_finish
