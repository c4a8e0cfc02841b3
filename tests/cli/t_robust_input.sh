# t_robust_input.sh: inputs of the kinds that broke blkparse, btt or iotape
# (issue 12), each a crafted trace of tests/fixtures/robust: a trace of
# completions only, cgroup-id payloads, message and long-name records, the
# start-time notify record. Checked against blkparse 1.2.0 and btt 2.09 on
# the same input.
. "$(dirname "$0")/../lib.sh"

need_iotape "robust inputs"
for tool in blkparse btt jq; do
	command -v $tool > /dev/null || { skip "robust inputs" "no $tool"; exit 0; }
done
R=$FIXTURES/robust t=$TEST_TMP db=$t/t.db

# Completions only (action mask C): report counts the completed bios, as
# its help says, by direction as blkparse prints them; btt has nothing to
# pair, and neither has iotape.
"$IOTAPE" import --quiet --db "$db" --run conly "$R/conly.bin"
"$IOTAPE" report --db "$db" --json conly > "$t/conly.json"
check_eq "conly: completed bios counted (read write), as blkparse's C lines" \
	"$(blkparse -i - < "$R/conly.bin" | awk '$6 == "C" && / \+ / {
		if ($7 ~ /W/) w++; else r++ } END { print r + 0, w + 0 }')" \
	"$(jq -r '"\(.devices[0].read.requests) \(.devices[0].write.requests)"' "$t/conly.json")"
check_eq "conly: read IOPS as the full capture's" 299.7 \
	"$(jq '.devices[0].read.iops * 10 | round / 10' "$t/conly.json")"
blkparse -q -i - -d "$t/conly.dump" -O < "$R/conly.bin" > /dev/null 2>&1
compare_btt "$db" conly "$t/conly.dump" conly

# cgroup-id payloads (action flag 0x100, tracefs option blk_cgroup): the
# first 8 payload bytes are the cgroup id; remap, unplug depth and message
# are read after it. blkparse 1.2.0 predates the flag ("Bad fs action"),
# so the expected lines are its output for the same records without it.
"$IOTAPE" import --quiet --db "$db" --run cg "$R/cgroup.bin"
"$IOTAPE" dump --db "$db" cg > "$t/cg.dump"
blkparse_events "$R/cgroup-stripped.bin" > "$t/cg.bp"
compare_dump "$db" cg "$t/cg.bp" "cgroup payloads"
check_eq "cgroup payloads: remap origin, unplug depth, message" \
	"(253,2) 1000|1|bfq1234 insert_request" \
	"$(awk '$6 == "A" { a = $(NF-1) " " $NF } $6 == "U" { u = $NF }
		$6 == "m" { sub(/.* m +N /, ""); m = $0 } END { print a "|" u "|" m }' "$t/cg.dump")"
if blkparse -i - < "$R/cgroup.bin" 2>&1 | grep -q "Bad fs action"; then
	diag "blkparse $(blkparse -V 2>&1 | awk '{ print $NF }') cannot read cgroup records (Bad fs action)"
fi
check_eq "cgroup payloads: the I/O paired (Q2C n, origin)" "1 1" \
	"$("$IOTAPE" report --db "$db" --json cg | jq -r '.all.q2c.n') $(sqlite3 "$db" \
	"SELECT count(*) FROM requests q JOIN runs r ON r.id = q.run WHERE r.name = 'cg'
	 AND orig_dev = (253 << 20 | 2) AND orig_sector = 1000")"

# Message lines print pid 0 and names are cut at 15 characters, as blkparse
"$IOTAPE" import --quiet --db "$db" --run names "$R/names.bin"
blkparse_events "$R/names.bin" > "$t/names.bp"
compare_dump "$db" names "$t/names.bp" "messages and long names"

# Names and no I/O (a run whose reads all hit the page cache): its span is
# 0, not the trace clock's value at its records (12481.97 s)
"$IOTAPE" import --quiet --db "$db" --run namesonly "$R/names-only.bin"
check_eq "names only: a span of 0 in report and runs" "0|0.000" \
	"$("$IOTAPE" report --db "$db" --json namesonly | jq -r '.span_s')|$("$IOTAPE" runs --db "$db" |
		awk '$2 == "namesonly" { print $NF }')"

# Wall-clock alignment: a vmstat -t log attached to a trace that has a
# start-time notify (BLK_TN_TIMESTAMP) lands at its wall-clock times, as
# blkparse's %z places the I/O (blktrace 918e979), not at the first I/O.
"$IOTAPE" import --quiet --db "$db" --run wall "$R/walltime.bin"
"$IOTAPE" import --quiet --db "$db" --run wall "$R/walltime-vmstat.log"
# the first row (06:10:27) minus the first I/O's wall clock by blkparse
want=$(TZ=UTC blkparse -i - -f '%z %a\n' < "$R/walltime.bin" | awk '$2 == "Q" {
	split($1, h, ":"); printf "%.1f %.1f %.1f", 27 - h[3], 28 - h[3], 29 - h[3]; exit }')
check_eq "wall clock: vmstat rows at their times after the first I/O (s, by blkparse %z)" \
	"$want" "$(sqlite3 "$db" "SELECT group_concat(printf('%.1f', (t - g) / 1e9), ' ') FROM
	(SELECT DISTINCT s.time_ns AS t, r.genesis_ns AS g FROM samples s JOIN runs r ON r.id = s.run
	 WHERE r.name = 'wall' ORDER BY t)")"
check_eq "wall clock: the alignment used is recorded" trace-timestamp \
	"$(sqlite3 "$db" "SELECT value FROM run_stats s JOIN runs r ON r.id = s.run
	   WHERE r.name = 'wall' AND key = 'vmstat_log.alignment'")"
# a trace with no start-time record (tracefs): the first row at the first I/O
"$IOTAPE" import --quiet --db "$db" --run nowall "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" import --quiet --db "$db" --run nowall "$R/walltime-vmstat.log"
check_eq "no start-time record: aligned with the first event, and said" "0.0 first-event" \
	"$(sqlite3 "$db" "SELECT printf('%.1f', (min(s.time_ns) - r.genesis_ns) / 1e9) FROM samples s
	   JOIN runs r ON r.id = s.run WHERE r.name = 'nowall'") $(sqlite3 "$db" "SELECT value FROM
	   run_stats s JOIN runs r ON r.id = s.run WHERE r.name = 'nowall' AND key = 'vmstat_log.alignment'")"
tap_finish
