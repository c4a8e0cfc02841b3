# t_compare_figures.sh: compare's figures table (issue 15 item 9) on runs
# imported from the fixtures (and the seed captures of the corpus when it is
# there): latencies in us as report prints them (text and --json), the trace
# span as a row for runs without command times (elapsed only for runs that
# timed commands), device rows together by device with '-' for a run
# without the device, whichever run brings them; and mail's table with the
# same duration row; a finding in the better run's favour quotes the
# better run's own figures, as its report does. No root needed.
. "$(dirname "$0")/../lib.sh"

need_iotape "compare figures"
command -v jq > /dev/null || { skip "compare figures" "no jq"; exit 0; }
command -v sqlite3 > /dev/null || { skip "compare figures" "no sqlite3"; exit 0; }

t=$TEST_TMP db=$t/t.db
imp() { "$IOTAPE" import --db "$db" --quiet --again --run "$@"; }
imp small "$FIXTURES/loop-fio-small.bin" &&
imp small2 "$FIXTURES/loop-fio-small.bin" &&
imp msr "$FIXTURES/import/msr-web.csv" &&
imp systor "$FIXTURES/import/systor17.csv" ||
	{ not_ok "import the fixtures"; tap_finish; }
# a run that timed a command: the fixture with a vmstat log holding bash's time
{ head -n 3 "$FIXTURES/vmstat/plain-1-3.log"
  printf 'real\t0m0.500s\nuser\t0m0.100s\nsys\t0m0.050s\n'
  tail -n 1 "$FIXTURES/vmstat/plain-1-3.log"; } > "$t/timed.log"
imp timed "$FIXTURES/loop-fio-small.bin" &&
"$IOTAPE" import --db "$db" --quiet --run timed --interval 1 "$t/timed.log" ||
	{ not_ok "import a run with a timed command"; tap_finish; }
ok "imported the fixtures"
q() { sqlite3 "$db" "$1"; }

# ---- units: us, as report ------------------------------------------------------
"$IOTAPE" compare --db "$db" small small2 > "$t/txt" 2> "$t/err" &&
"$IOTAPE" compare --db "$db" --json small small2 > "$t/json" 2>> "$t/err" ||
	not_ok "compare small small2" "$(cat "$t/err")"
check_eq "text: latency rows in us, none in ms" "8 0" \
	"$(grep -cE '^(read|write) (Q2C|D2C) p(50|99) us ' "$t/txt") $(grep -cE '^[a-zA-Z0-9, ]+ ms ' "$t/txt")"
check_eq "json: latency keys in us, none in ms" "8 0" \
	"$(jq '[.runs[0].figures | keys[] | select(test("_(q2c|d2c)_p(50|99)_us$"))] | length' "$t/json") $(jq '[.. | objects | keys[] | select(test("_ms$"))] | length' "$t/json")"
# the p50 of reads' Q2C (bios with data, as report pairs them) worked out in SQL
R=$(q "SELECT id FROM runs WHERE name = 'small'")
want=$(q "SELECT (c_ns - q_ns) / 1000.0 FROM requests WHERE run = $R AND bytes > 0 AND split = 0
	AND q_ns IS NOT NULL AND c_ns IS NOT NULL AND (cats & 8194) = 0 ORDER BY c_ns - q_ns
	LIMIT 1 OFFSET (SELECT (count(*) - 1) / 2 FROM requests WHERE run = $R AND bytes > 0
	AND split = 0 AND q_ns IS NOT NULL AND c_ns IS NOT NULL AND (cats & 8194) = 0)")
got=$(jq '.runs[0].figures.read_q2c_p50_us' "$t/json")
within_pct "$got" "$want" 5 && ok "read Q2C p50 us = the reads' median Q2C in us ($want)" ||
	not_ok "read Q2C p50 us = the reads' median Q2C in us" "want $want, got $got"
check_eq "the same unit as report: its all-I/O Q2C p50 us within 2x of compare's read p50" 1 \
	"$(jq -n --argjson a "$("$IOTAPE" report --db "$db" --json small | jq '.all.q2c.p50_us')" \
		--argjson b "$got" '(($a - $b) | fabs) / $a < 0.5 | if . then 1 else 0 end')"

# ---- the duration row ---------------------------------------------------------------
span=$("$IOTAPE" report --db "$db" --json msr | jq '.span_s')
check_eq "imports without commands: a trace span row, no elapsed row" "1 0" \
	"$(grep -c '^trace span s ' "$t/txt") $(grep -c '^elapsed' "$t/txt")"
"$IOTAPE" compare --db "$db" --json msr systor > "$t/ms.json"
check_eq "json: span_s = report's span_s" "$span" "$(jq '.runs[0].figures.span_s' "$t/ms.json")"
check_eq "json: no elapsed_s for runs without commands" "false false" \
	"$(jq -r '[.runs[].figures | has("elapsed_s")] | join(" ")' "$t/ms.json")"
check_eq "without timed commands the workload's span is the question" "workload_span_s" \
	"$(jq -r '.comparisons[0].explains' "$t/ms.json")"
"$IOTAPE" compare --db "$db" small timed > "$t/timed.txt"
check_eq "a run that timed a command: its elapsed row beside the span" \
	"elapsed s (commands) - 0.500" \
	"$(awk '/^elapsed s \(commands\)/ { print "elapsed s (commands)", $4, $5 }' "$t/timed.txt")"
check_eq "... and both runs' trace spans" 1 "$(grep -c '^trace span s  *1\.001  *1\.001 ' "$t/timed.txt")"

# ---- device rows: together, by device, '-' for a run without it -----------------------
"$IOTAPE" compare --db "$db" msr systor > "$t/ms.txt"
check_eq "device rows in device order, right after the totals" \
	"write IOPS|0,0 read|0,0 write|0,1 read|0,1 write|0,2 read|0,2 write|read Q2C" \
	"$(awk '/^(write IOPS|[0-9]+,[0-9]+ |read Q2C p50)/ { print $1 " " $2 }' "$t/ms.txt" |
		sed 's/ MB\/s//; s/ p50//' | paste -sd'|')"
check_eq "a device only the second run has: '-' for the first" "- -" \
	"$(awk '/^0,2 (read|write) MB\/s/ { printf "%s%s", n++ ? " " : "", $4 }' "$t/ms.txt")"
check_eq "json: the same order" \
	"dev0_0_read_mb_s dev0_0_write_mb_s dev0_1_read_mb_s dev0_1_write_mb_s dev0_2_read_mb_s dev0_2_write_mb_s" \
	"$(jq -r '[.runs[1].figures | keys_unsorted[] | select(startswith("dev"))] | join(" ")' "$t/ms.json")"
"$IOTAPE" compare --db "$db" systor msr > "$t/sm.txt"
check_eq "reversed: the device the first run lacks is '-' in its place, not last" \
	"0,2 read MB/s 2.40 -" "$(grep '^0,2 read' "$t/sm.txt" | tr -s ' ')"
check_eq "one device each: no device rows" 0 "$(grep -c '^[0-9]*,[0-9]* ' "$t/txt")"

# ---- the seed captures (corpus): 3.49 s vs 3.05 s ----------------------------------------
if CORPUS=$(corpus_dir) && [ -r "$CORPUS/seed-debsums-patch/one-disk/trace.bin" ]; then
	for v in one-disk two-disks; do
		imp "$v" "$CORPUS/seed-debsums-patch/$v/trace.bin" || not_ok "import seed $v"
	done
	"$IOTAPE" compare --db "$db" one-disk two-disks > "$t/seed.txt"
	check_eq "seed: the trace spans 3.490 s and 3.049 s are the first row" \
		"trace span s 3.490 3.049 -12.6%" "$(sed -n 2p "$t/seed.txt" | tr -s ' ')"
	check_eq "seed: 7,2 (two-disks only) among the device rows" \
		"7,0 7,0 7,1 7,1 7,2 7,2" \
		"$(awk '/^[0-9]+,[0-9]+ / { printf "%s%s", n++ ? " " : "", $1 }' "$t/seed.txt")"
	check_eq "seed: the question is the workload's span, one-disk worse" 1 \
		"$(grep -c "^the workload's span (lower is better): one-disk [0-9.]* s, two-disks" "$t/seed.txt")"
else
	skip "seed captures" "no ../shared/corpus"
fi

# ---- mail: the same duration row ----------------------------------------------------------
if command -v gnuplot > /dev/null; then
	if "$IOTAPE" mail --db "$db" -o "$t/mail" msr systor > /dev/null 2> "$t/err"; then
		f=$t/mail/msr-vs-systor.full.txt
		check_eq "mail: a trace span row (report's span), no elapsed row" \
			"1 0" "$(grep -c "^  trace span s  *$(printf '%.2f' "$span") " "$f") $(grep -c '^  elapsed s ' "$f")"
		# no D in these traces: Q2C rows only, no rows of '-' for D2C
		check_eq "mail: latency in us, Q2C only (no D2C without D)" "2 0" \
			"$(grep -cE '^  Q2C (mean|p99) us ' "$f") $(sed -n '/^== headline/,/^== the question/p' "$f" |
				grep -cE '^  (D2C|[A-Za-z0-9 ]+ ms) ')"
	else
		not_ok "mail msr systor" "$(cat "$t/err")"
	fi
else
	skip "mail" "no gnuplot"
fi
# names wider than their column (after a common prefix is taken out as '~'):
# numbered columns, the names whole above the table and in the caption of "where the time went", every line in 80 columns
a=baseline-kernel-6.1.0-run-one b=patched-kernel-6.1.0-run-two
imp "$a" "$FIXTURES/loop-fio-small.bin" && imp "$b" "$FIXTURES/loop-fio-small.bin" ||
	not_ok "import two runs with long names"
"$IOTAPE" compare --db "$db" "$a" "$b" > "$t/long.txt" 2> "$t/err"
check_eq "long names: legend lines, numbered columns" "[1] $a|[2] $b|[1] [2] change" \
	"$(sed -n 1,2p "$t/long.txt" | paste -sd'|')|$(sed -n 3p "$t/long.txt" | xargs)"
check_eq "long names: both whole in the where-the-time-went caption" "1" \
	"$(sed -n '/^== where the time went/,/^process/p' "$t/long.txt" | tr '\n' ' ' |
		grep -oE "in $a, then in $b:" | wc -l)"
check_eq "long names: no line over 80 columns" "" "$(awk 'length > 80' "$t/long.txt")"
"$IOTAPE" compare --db "$db" small small2 > "$t/short.txt"
check_eq "short names: the names head their columns" "small small2 change" \
	"$(sed -n 1p "$t/short.txt" | xargs)"
# a run's whole name with glob characters (replay --set's 'name[key=value]')
# names that run in compare, label and rm
imp 'sw[s=none]' "$FIXTURES/loop-fio-small.bin" && imp 'sw[s=kyber]' "$FIXTURES/loop-fio-small.bin" ||
	not_ok "import runs named with brackets"
"$IOTAPE" compare --db "$db" 'sw[s=none]' 'sw[s=kyber]' > /dev/null 2> "$t/err"
check_eq "compare 'sw[s=none]' 'sw[s=kyber]': the two runs" "0" "$?"
"$IOTAPE" label --db "$db" 'sw[s=none]' s=none 2> "$t/err"
check_eq "label 'sw[s=none]': labelled" "0 none" "$? $(q "SELECT value FROM settings WHERE run = (SELECT id FROM runs WHERE name = 'sw[s=none]') AND key = 's'")"
"$IOTAPE" rm --db "$db" 'sw[s=none]' > /dev/null 2> "$t/err"
check_eq "rm 'sw[s=none]': that run only" "0 sw[s=kyber]" "$? $(q "SELECT group_concat(name) FROM runs WHERE name LIKE 'sw%'")"
# names past ASCII: the shared start cut on a character, never inside one
# (valid UTF-8 out), the columns numbered (padding counts bytes)
u1='ストレージテスト-実行ト' u2='ストレージテスト-実行ノ'
imp "$u1" "$FIXTURES/loop-fio-small.bin" && imp "$u2" "$FIXTURES/loop-fio-small.bin" ||
	not_ok "import runs named in Japanese"
"$IOTAPE" compare --db "$db" "$u1" "$u2" > "$t/utf8.txt" 2> "$t/err"
check_eq "UTF-8 names: valid UTF-8, the prefix cut after its '-', numbered columns" "ok|runs: ~ stands for 'ストレージテスト-'|[1] ~実行ト|[2] ~実行ノ" \
	"$(iconv -f UTF-8 -t UTF-8 "$t/utf8.txt" > /dev/null 2>&1 && echo ok || echo invalid)|$(sed -n 1,3p "$t/utf8.txt" | paste -sd'|')"
# the shared start ends after a separator, not inside a version ('6.1' of
# '6.18'); every line of compare and mail in 80 columns with names of 62
k1=kernel-6.18-ext4-debsums-running-patch-apply-mq-deadline-ra-512
k2=kernel-6.1-ext4-debsums-running-patch-apply-mq-deadline-ra-128
imp "$k1" "$FIXTURES/loop-fio-small.bin" && imp "$k2" "$FIXTURES/loop-fio-small.bin" ||
	not_ok "import runs named by kernel version"
"$IOTAPE" compare --db "$db" "$k1" "$k2" > "$t/ver.txt" 2> "$t/err"
check_eq "versions: the shared start cut after 'kernel-'" "runs: ~ stands for 'kernel-'|[1] ~6.18-ext4-debsums-running-patch-apply-mq-deadline-ra-512" \
	"$(sed -n 1,2p "$t/ver.txt" | paste -sd'|')"
check_eq "versions: compare in 80 columns" "" "$(awk 'length > 80' "$t/ver.txt")"
if command -v gnuplot > /dev/null; then
	"$IOTAPE" mail --db "$db" -o "$t/vmail" "$k1" "$k2" > /dev/null 2> "$t/err"
	check_eq "versions: mail in 80 columns, file names of 64 at most" "0|" \
		"$(ls "$t/vmail" | awk -F. '{ sub(/\.[^.]*\.[^.]*$/, "") } length > 64' | wc -l)|$(awk 'length > 80' "$t"/vmail/*.mail.txt "$t"/vmail/*.full.txt)"
fi
# names that map to one file stem ('_' for each byte past ASCII) keep their
# own files: the stem ends in the names' hash
if command -v gnuplot > /dev/null; then
	for u in "$u1" "$u2"; do
		"$IOTAPE" plot --db "$db" -o "$t/stems" --format txt --kind tput "$u" small > /dev/null 2>&1
	done
	check_eq "plot: two names of one stem, two files" "2" "$(ls "$t/stems" | grep -c '\.tput\.txt$')"
fi
# a cause present in the better run only, listed under its name: its why in
# that run's own figures (the demo's pair: before's seek finding quoted
# after's dispatch counts)
"$IOTAPE" import --db "$db" --quiet "$FIXTURES/quick/before.bin.gz" \
	"$FIXTURES/quick/after.bin.gz" || { not_ok "import the quick fixtures"; tap_finish; }
# seekwhy: the first "N vs M dispatches" of the text on stdin
seekwhy() { tr '\n' ' ' | sed 's/  */ /g' | grep -o '[0-9]* vs [0-9]* dispatches' | head -n 1; }
rep=$("$IOTAPE" report --db "$db" before | sed -n '/- seek:/,/loop devices/p' | seekwhy)
cmp=$("$IOTAPE" compare --db "$db" before after | sed -n '/- before: seek/,/to know/p' | seekwhy)
check_eq "compare's 'before: seek' finding gives before's dispatch counts, as report before does" \
	"$rep" "${cmp:-none}"
# queue's how adds up to its cost: its categories' difference less the
# queueing after's slower service brought, which is the device's (the how
# said "0.106 s ... less 0.000 s" beside a cost of 0.07 s)
check_eq "compare's queue how: the categories less the device's part make its cost" 1 \
	"$("$IOTAPE" compare --db "$db" --json before after | jq -r '.comparisons[0].findings[] |
		select(.analyzer == "queue") | [.cost_s, (.how | capture("^(?<y>[0-9.]+) s .* less (?<x>[0-9.]+) s .*of that, (?<m>[-+0-9.]+) s of queueing")
		| (.y | tonumber) - (.x | tonumber) - (.m | tonumber))] | if (.[0] - .[1] | fabs) < 0.002 then 1 else 0 end')"
check_eq "compare's evidence has no run's name with nothing after it" 0 \
	"$("$IOTAPE" compare --db "$db" before after | grep -cE '^ *(before|after): *$')"
# the merge ratio is btt's (#Q / #D, the empty flushes in neither)
if command -v btt > /dev/null && command -v blkparse > /dev/null; then
	"$IOTAPE" export --quiet --db "$db" --format blktrace -o "$t/after.bin" after
	blkparse -q -i - -d "$t/after.btt" < "$t/after.bin" > /dev/null
	(cd "$t" && btt -i after.btt > btt.out 2> /dev/null)
	check_eq "report's merge ratio is btt's Device Merge Information ratio" \
		"$(awk '/Device Merge Information/ { on = 1 } on && /\(  7,  2\)/ { print $7; exit }' "$t/btt.out")" \
		"$("$IOTAPE" report --db "$db" --json after | jq '.devices[0].merge_ratio * 10 | round / 10')"
else
	skip "report's merge ratio against btt's" "no btt"
fi
# aqu-sz counts requests as iostat does, not bios: the after fixture merges
# 9279 bios into 1088 requests (one 0.70 s interval: the same window)
check_eq "report's aqu-sz is iostat's (requests in flight, not bios)" \
	"$("$IOTAPE" iostat --db "$db" --json after | jq '.rows[0]["aqu-sz"] * 100 | round')" \
	"$("$IOTAPE" report --db "$db" --json after | jq '.time.devices[0].aqu_sz * 100 | round')"

# a vmstat log much longer than the trace, with a wrapped iowait counter in
# its first seconds: the memory figures are of the rows over the trace's
# second, not of the log's (a 2-hour log gave "min free" 31 minutes later
# and "CPU iowait % 380530.4")
{
	echo "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----"
	echo " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
	echo " 1  0      0 900000  50328 2371304    0    0   100   100  100  100  1  1 98  0  0"
	echo " 1  0      0 800000  50328 2371304    0    0   100   100  100  100  1  1 98  4  0"
	echo " 1  0      0 800000  50328 2371304    0    0   100   100  100  100  1  1 98 3035110221  0"
	for i in $(seq 60); do
		echo " 1  0      0   1000  50328 2371304    0    0     0     0  100  100  1  1 98  0  0"
	done
} > "$t/long.vmstat"
imp long1 "$FIXTURES/loop-fio-small.bin" && imp long2 "$FIXTURES/loop-fio-small.bin" &&
	"$IOTAPE" import --db "$db" --quiet --run long1 "$t/long.vmstat" &&
	"$IOTAPE" import --db "$db" --quiet --run long2 "$t/long.vmstat" ||
	not_ok "import the long vmstat log"
"$IOTAPE" compare --db "$db" --json long1 long2 > "$t/long.json"
check_eq "a log longer than the trace: min free of its rows over the trace, iowait from 0 to 100" \
	"819 4" "$(jq -r '.runs[0].figures | "\(.min_free_mb | round) \(.iowait_pct | round)"' "$t/long.json")"
# a device's MB/s counts its dispatches: bios queued and never dispatched
# when the trace stopped (20 of 128 KiB on 8,0) add nothing (they made it
# 28.03 MB/s against 0.43 where report said 0.43)
"$IOTAPE" import --quiet --again --db "$db" --run late-src "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" dump --db "$db" late-src > "$t/one.txt"
sed 's/^  7,0 /  8,0 /' "$t/one.txt" | cat "$t/one.txt" - > "$t/two.txt"
end=$(tail -n 1 "$t/one.txt" | awk '{ print $4 }')
{ cat "$t/two.txt"; for k in $(seq 20); do
	printf '  8,0    0   %6d   %s  9999  Q   R %d + 256 [late]\n' $((90000 + k)) "$end" $((100000 + k * 256))
  done; } > "$t/twolate.txt"
"$IOTAPE" import --quiet --db "$db" --run two "$t/two.txt" &&
"$IOTAPE" import --quiet --db "$db" --run twolate "$t/twolate.txt" ||
	not_ok "import the two-device traces" ""
check_eq "8,0 read MB/s: the bios never dispatched count not" "+0.0%" \
	"$("$IOTAPE" compare --db "$db" two twolate | awk '/^8,0 read MB\/s/ { print $NF }')"

tap_finish
