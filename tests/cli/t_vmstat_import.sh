# t_vmstat_import.sh: vmstat(8) text logs through `iotape import` (as runs of their
# own and joined to a trace's run) and `iotape vmstat`: row and since-boot counts,
# the frozen-memory warning, errors naming the line (and the column of a value
# out of range), CPU % out of 0..100 shown as '?', tables within 80 columns.
# Our recorded fixtures always; the corpus logs when the corpus is present.
. "$(dirname "$0")/../lib.sh"

need_iotape "vmstat log import"
V=$FIXTURES/vmstat t=$TEST_TMP db=$t/t.db

# json_rows DB RUN [SOURCE]: "ROWS SINCE_BOOT" of `iotape vmstat --json`
json_rows() {
	"$IOTAPE" vmstat --db "$1" ${3:+--source "$3"} --json "$2" |
		jq -r '"\(.rows | length) \([.rows[].since_boot] | add)"'
}

# width_ok LABEL DB RUN: `iotape vmstat` prints and fits 80 columns
width_ok() {
	local w
	if ! "$IOTAPE" vmstat --db "$2" "$3" > "$t/table" 2> "$t/table.err"; then
		not_ok "$1: iotape vmstat" "$(cat "$t/table.err")"; return
	fi
	w=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$t/table")
	if [ "$w" -le 80 ]; then ok "$1: iotape vmstat fits 80 columns ($w)"
	else not_ok "$1: iotape vmstat fits 80 columns" "widest line $w" "$(head -n 3 "$t/table")"; fi
}

# import LABEL ARGS...: run iotape import, stderr into $t/err
import() {
	local label=$1; shift
	if "$IOTAPE" import --db "$db" "$@" 2> "$t/err"; then return 0; fi
	not_ok "$label: import" "$(cat "$t/err")"
	return 1
}

command -v jq > /dev/null || { skip "vmstat log import" "no jq"; exit 0; }

# ---- our fixtures ------------------------------------------------------------------
if import "plain" --run plain "$V/plain-1-3.log"; then
	check_eq "plain: rows, since boot" "3 1" "$(json_rows "$db" plain)"
	check_eq "plain: summary" \
		"iotape: imported '$V/plain-1-3.log' as run 'plain': 3 vmstat rows (1 since boot), 1 s apart" \
		"$(grep -v warning "$t/err")"
	width_ok plain "$db" plain
	check_eq "plain: first row's free as printed" 22145792 \
		"$("$IOTAPE" vmstat --db "$db" --json plain | jq '.rows[0].free_kb')"
fi

if import "frozen fixture" --run frozen "$V/frozen-continuous.log"; then
	if grep -q "warning: .*frozen-continuous.log: memory columns never change: vmstat continuous mode may have frozen them (procps-ng 4.0.2); prefer one vmstat -t 1 2 per interval" "$t/err"
	then ok "frozen fixture: warns that memory columns may be frozen"
	else not_ok "frozen fixture: warns that memory columns may be frozen" "$(cat "$t/err")"; fi
fi
import "quiet" --quiet --run frozen-quiet "$V/frozen-continuous.log" &&
	check_eq "--quiet: no warning" "" "$(cat "$t/err")"

if import "date blocks" --interval 1 --run blocks "$V/date-blocks.log"; then
	check_eq "date blocks: rows, since boot" "6 2" "$(json_rows "$db" blocks)"
	check_eq "date blocks: 2nd block's first row at +2 s" 2 \
		"$("$IOTAPE" vmstat --db "$db" --json blocks | jq '.rows[3].t_s')"
fi
# without --interval: the step the date lines and blocks agree on (2 s after
# a block of 3 rows: 1 s); blocks that disagree (then 7 s after one): 1 s,
# assumed, as for a log with no dates
if import "date blocks, no --interval" --run blocks-d "$V/date-blocks.log"; then
	check_eq "date blocks: the dates give 1 s, said in a warning" 1 \
		"$(grep -c "its date lines, 2 s after a block of 3 rows, give 1 s between rows" "$t/err")"
fi
{ cat "$V/date-blocks.log"; sed -n '/06:10:29/,$p' "$V/date-blocks.log" |
	sed 's/06:10:29/06:10:36/'; } > "$t/blocks-odd.log"
if import "date blocks that disagree" --run blocks-odd "$t/blocks-odd.log"; then
	check_eq "date blocks that disagree: 1 s assumed, said" "1 1" \
		"$(grep -c "does not say its interval; assuming 1 s" "$t/err") $("$IOTAPE" vmstat --db "$db" --json blocks-odd | jq '.rows[1].t_s')"
fi
import "no boot row" --no-boot-row --run noboot "$V/timestamped-1-3.log" &&
	check_eq "--no-boot-row: none marked" "3 0" "$(json_rows "$db" noboot)"
for f in wide-gu-1-3 active-1-3 linux24-handmade repeated-headers; do
	import "$f" --run "$f" "$V/$f.log" && width_ok "$f" "$db" "$f"
done
check_eq "repeated headers: rows, since boot" "25 1" "$(json_rows "$db" repeated-headers)"
check_eq "-a layout: buff is null" null \
	"$("$IOTAPE" vmstat --db "$db" --json active-1-3 | jq '.rows[0].buff_kb')"

# a time report inside the log: zsh's line and GNU time -v's block name
# their command (the -v block was refused as "not vmstat output")
{ cat "$V/plain-1-3.log"
  printf 'dd if=/dev/zero of=f bs=1M count=8  0.00s user 0.01s system 90%% cpu 0.015 total\n'
  printf '\tCommand being timed: "sync"\n\tUser time (seconds): 0.00\n\tSystem time (seconds): 0.02\n'
  printf '\tPercent of CPU this job got: 1%%\n\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:01.25\n'
  printf '\tMaximum resident set size (kbytes): 1656\n\tExit status: 0\n'
} > "$t/vm-times.log"
import "time reports inside a log" --run vmt --interval 1 "$t/vm-times.log" &&
	check_eq "zsh's and GNU time -v's reports in a log: their commands, real, sys" \
		"dd if=/dev/zero of=f bs=1M count=8|0.015|0.01;sync|1.25|0.02" \
		"$(sqlite3 "$db" "SELECT argv, real_s, sys_s FROM commands WHERE run = (SELECT id FROM runs WHERE name = 'vmt') ORDER BY idx" | paste -sd';')"

# bash's report between rows: it ends at the row before it, not at the
# log's last row (its three lines were gathered until the next report or
# the end of the file); zsh's report after it with no row between ran after
# it; all in a decimal comma (bash under de_DE)
L=$V/plain-1-3.log
{ head -n 3 "$L"; printf 'real\t0m1,500s\nuser\t0m0,100s\nsys\t0m0,050s\n'
  printf 'sync  0.00s user 0.01s system 1%% cpu 1:02.25 total\n'; tail -n 2 "$L"; } > "$t/vm-mid.log"
import "a report between rows" --run vmmid --interval 1 "$t/vm-mid.log" &&
	check_eq "a report between rows ends at the row before it; the next one after it" \
		"-1.5|0.0|1.5;0.0|62.25|62.25" \
		"$(sqlite3 "$db" "SELECT round(start_ns / 1e9, 2), round(end_ns / 1e9, 2), real_s
			FROM commands WHERE run = (SELECT id FROM runs WHERE name = 'vmmid')
			ORDER BY idx" | paste -sd';')"

# joined to a trace's run: times from its first event
if import "trace" --quiet --run trace "$FIXTURES/loop-fio-small.bin" &&
   import "join" --run trace --interval 2 "$V/plain-1-3.log"; then
	check_eq "joined: summary says into" \
		"iotape: imported '$V/plain-1-3.log' into run 'trace': 3 vmstat rows (1 since boot), 2 s apart" \
		"$(cat "$t/err")"
	check_eq "joined: row times 0 2 4 s from the trace's start" "0 2 4" \
		"$("$IOTAPE" vmstat --db "$db" --json trace | jq -r '[.rows[].t_s] | join(" ")')"
	check_eq "joined: the trace is still there" 3570 \
		"$(sqlite3 "$db" "SELECT count(*) FROM events e JOIN runs r ON e.id BETWEEN r.first_event AND r.last_event WHERE r.name = 'trace'")"
fi

# errors: one line naming file and line, nothing stored
runs_before=$(sqlite3 "$db" "SELECT count(*) FROM runs; SELECT count(*) FROM samples" | tr '\n' ' ')
printf '%s\n' \
	'procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----' \
	' r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st' \
	' 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98  0  0' \
	' 1  0      0   1000    100   2000    0    0     0     0   10   10  1  1 98' > "$t/short.log"
"$IOTAPE" import --db "$db" "$t/short.log" 2> "$t/err"; rc=$?
if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ] &&
   grep -q "short.log: line 4: 15 fields where the header at line 2 names 17" "$t/err"; then
	ok "bad row: $(cat "$t/err")"
else not_ok "bad row: one error naming the line" "exit $rc: $(cat "$t/err")"; fi
# values a row cannot hold: a count or kB below 0, or past 2^53 - 1 (1e26 was
# stored and made the table 95 columns wide)
for v in -5 99999999999999999999999999 9007199254740992 1.5 0x10; do
	awk -v v="$v" 'NR == 4 { $4 = v } 1' "$V/plain-1-3.log" > "$t/free.log"
	"$IOTAPE" import --db "$db" "$t/free.log" 2> "$t/err"; rc=$?
	if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ] &&
	   grep -qE "free.log: line 4: (bad value '$v' for free|'$v' is not a number)" "$t/err"; then
		ok "free = $v: $(cat "$t/err")"
	else not_ok "free = $v: one error naming file, line and column" "exit $rc: $(cat "$t/err")"; fi
done
check_eq "bad values stored nothing" "$runs_before" \
	"$(sqlite3 "$db" "SELECT count(*) FROM runs; SELECT count(*) FROM samples" | tr '\n' ' ')"
# a CPU % out of 0..100: kept, shown as '?' as `iotape vmstat --help` says
awk 'NR == 4 { $13 = 250 } NR == 5 { $16 = 101 } 1' "$V/plain-1-3.log" > "$t/cpu.log"
if import "us = 250" --run cpu250 "$t/cpu.log"; then
	"$IOTAPE" vmstat --db "$db" cpu250 > "$t/table"
	check_eq "us = 250, wa = 101: '?' in the table, the numbers in --json, the footnote" \
		"? ? 250 101 1" \
		"$(awk '$1 == "1" { print $14 } $1 == "2" { print $17 }' "$t/table" | paste -sd' ') $(
		"$IOTAPE" vmstat --db "$db" --json cpu250 | jq -r '"\(.rows[1].us_pct) \(.rows[2].wa_pct)"') $(
		grep -c '^? a CPU percentage out of range' "$t/table")"
	runs_before=$(sqlite3 "$db" "SELECT count(*) FROM runs; SELECT count(*) FROM samples" | tr '\n' ' ')
fi
"$IOTAPE" import --db "$db" --run trace "$V/plain-1-3.log" 2> "$t/err"; rc=$?
if [ $rc != 0 ] && grep -q "run 'trace' already has a vmstat log's samples" "$t/err"; then
	ok "a second log for one run is refused"
else not_ok "a second log for one run is refused" "exit $rc: $(cat "$t/err")"; fi
check_eq "errors stored nothing" "$runs_before" \
	"$(sqlite3 "$db" "SELECT count(*) FROM runs; SELECT count(*) FROM samples" | tr '\n' ' ')"
"$IOTAPE" vmstat --db "$db" --source proc plain 2> "$t/err"; rc=$?
if [ $rc != 0 ] && grep -q "run 'plain' has no /proc samples" "$t/err"; then
	ok "vmstat --source proc on a log-only run: error"
else not_ok "vmstat --source proc on a log-only run: error" "exit $rc: $(cat "$t/err")"; fi

# ---- the corpus logs ----------------------------------------------------------------
# a log whose I/O comes 10 s in, with and without vmstat -t stamps, joined to
# a trace with no wall-clock record: both placed where their bi/bo match the
# trace's I/O (the stamped one was left at the first event, its busy rows
# after the trace's end)
{
	echo "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----"
	echo " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 UTC"
	for i in $(seq 0 15); do
		bi=0 bo=4
		[ $i = 11 ] && bi=1200 bo=2816
		[ $i = 12 ] && bo=56462
		printf ' 1  0      0 812344  21012 402112    0    0 %5d %5d  110  190  1  1 98  0  0 2026-12-01 10:00:%02d\n' \
			$bi $bo $i
	done
} > "$t/late-t.log"
sed 's/ 2026-12-01 10:00:[0-9]*$//; s/ *UTC$//; s/ -----timestamp-----$//' "$t/late-t.log" > "$t/late.log"
for v in late late-t; do
	import "$v: trace" --quiet --again --run "$v" "$FIXTURES/loop-fio-small.bin" &&
		import "$v: join" --quiet --run "$v" --interval 1 "$t/$v.log"
done
check_eq "a log's I/O 10 s in: the -t log placed as the same log without stamps, on the trace's I/O" \
	"$("$IOTAPE" vmstat --db "$db" --json late | jq -c '[.rows[].t_s]') shifted" \
	"$("$IOTAPE" vmstat --db "$db" --json late-t | jq -c '[.rows[].t_s]') $(sqlite3 "$db" "SELECT value FROM run_stats s JOIN runs r ON r.id = s.run WHERE r.name = 'late-t' AND key = 'vmstat_log.alignment'" | grep -o shifted)"

if ! CORPUS=$(corpus_dir); then
	skip "corpus vmstat logs" "corpus absent"
	tap_finish
fi

# date + `vmstat 10 7` blocks: 209 blocks, one cut short (4 rows), each led by its
# since-boot row
f=$CORPUS/vmstat-ramindin-blocks/vmstat.log
if [ -r "$f" ] && import "ramindin" --run ramindin "$f"; then
	# (once "assuming 1 s": every rate's amount was a tenth of vmstat's)
	if grep -q "does not say its interval; its date lines, 60 s after a block of 7 rows, give 10 s between rows (give --interval if not)" "$t/err"; then
		ok "ramindin: the interval its date lines give, 10 s, with a warning"
	else not_ok "ramindin: the interval its date lines give, 10 s, with a warning" "$(cat "$t/err")"; fi
	check_eq "ramindin: block 2 at +60 s, its 2nd row +70 s" "60 70" \
		"$("$IOTAPE" vmstat --db "$db" --json ramindin | jq -r '"\(.rows[7].t_s) \(.rows[8].t_s)"')"
	check_eq "ramindin: rows, since boot" "1460 209" "$(json_rows "$db" ramindin)"
	width_ok ramindin "$db" ramindin
	import "ramindin --interval 10" --run ramindin10 --interval 10 "$f" &&
		check_eq "ramindin --interval 10: no warning; block 2 at +60 s, its 2nd row +70 s" \
			"0 60 70" "$(grep -c warning "$t/err") $("$IOTAPE" vmstat --db "$db" --json ramindin10 |
				jq -r '"\(.rows[7].t_s) \(.rows[8].t_s)"')"
	# swapped in: each interval row's si times its interval, the row
	# after a since-boot row counted from that row (one vmstat run's
	# start), not from the last row of the run before: 8.7 MB of si at
	# 10 s a row (once 12.7 MB: 55 s a row), the same with --interval 10
	check_eq "ramindin: swapped in, its date lines' 10 s and --interval 10 (MB)" "8.940 8.940" \
		"$(for r in ramindin ramindin10; do "$IOTAPE" report --db "$db" --json $r |
			jq -r '.analysis.swap.swap_in_mb * 1000 | round / 1000'; done |
			xargs printf '%.3f %.3f')"
else
	skip "ramindin vmstat log" "absent"
fi
# the seed's vmstat -t 1 log, its first row since boot: the swap-out of its
# first interval row counted (it was left out with that row), so what vmstat
# swapped out is what /proc/vmstat's pswpout says, 4 KiB pages
S=$CORPUS/seed-debsums-patch/one-disk
if [ -r "$S/vmstat.log" ] && [ -r "$S/proc-vmstat-end.txt" ] &&
	import "seed one-disk" --run seed1 "$S/vmstat.log"; then
	pages=$(( $(awk '$1 == "pswpout" { print $2 }' "$S/proc-vmstat-end.txt") -
		$(awk '$1 == "pswpout" { print $2 }' "$S/proc-vmstat-start.txt") ))
	out=$("$IOTAPE" report --db "$db" --json seed1 | jq -r '.analysis.swap.swap_out_mb')
	within_pct "$out" "$(awk -v p="$pages" 'BEGIN { print p * 4096 / 1e6 }')" 2 &&
		ok "seed one-disk: swapped out $out MB, as pswpout's $pages pages" ||
		not_ok "seed one-disk: swapped out as pswpout says" "$out MB, $pages pages"
else
	skip "seed one-disk: swapped out as pswpout says" "absent"
fi

# vmstat -t 1, repeated headers, ~8k rows
f=$CORPUS/vmstat-marionavarra-timestamped/vmstat.log
if [ -r "$f" ] && import "marionavarra" --run mario "$f"; then
	check_eq "marionavarra: rows, since boot" "7977 1" "$(json_rows "$db" mario)"
	check_eq "marionavarra: last row at 09:03:09 + 7984 s" 7984 \
		"$("$IOTAPE" vmstat --db "$db" --json mario | jq '.rows[-1].t_s')"
	width_ok marionavarra "$db" mario
else
	skip "marionavarra vmstat log" "absent"
fi

# the frozen trap: warned for vmstat-continuous.log, not for vmstat.log
d=$CORPUS/seed-debsums-patch/one-disk
if [ -r "$d/vmstat.log" ] && [ -r "$d/vmstat-continuous.log" ]; then
	if import "seed vmstat.log" --run seed --no-boot-row "$d/vmstat.log"; then
		check_eq "seed vmstat.log: no frozen warning" 0 "$(grep -c 'memory columns never change' "$t/err")"
		check_eq "seed vmstat.log: rows, since boot (--no-boot-row)" "7 0" "$(json_rows "$db" seed)"
		width_ok "seed vmstat.log" "$db" seed
	fi
	if import "seed vmstat-continuous.log" --run seed-cont "$d/vmstat-continuous.log"; then
		check_eq "seed vmstat-continuous.log: frozen warning" 1 \
			"$(grep -c 'memory columns never change: vmstat continuous mode may have frozen them' "$t/err")"
		check_eq "seed vmstat-continuous.log: rows, since boot" "8 1" "$(json_rows "$db" seed-cont)"
	fi
	if [ -r "$d/trace.bin" ] && import "seed trace" --quiet --run one "$d/trace.bin" &&
	   import "seed join" --run one --no-boot-row "$d/vmstat.log"; then
		check_eq "seed: log joined to the one-disk trace, max swpd 4688 kB" 4688 \
			"$("$IOTAPE" vmstat --db "$db" --json one | jq '[.rows[].swpd_kb] | max')"
	fi
else
	skip "seed vmstat logs" "absent"
fi
tap_finish
