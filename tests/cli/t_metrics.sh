# t_metrics.sh: workload metrics (issue 15 item 11). iotape metric sets and
# lists them (a command's real time shows as real_s), iotape label labels runs,
# and compare --group-by fs --across kernel makes the seeds' two tables from
# runs with known values: "% throughput change from 2.6.1 to 2.6.1-mm4: ext2
# -5.9%, ..." (medians of repeats, min-max, text and Markdown) and real time per
# kernel ("2.5.31-stock 1m49s ..."). Then, as root with tracefs, capture reads
# dd's last line, fio's JSON and a --metric regex from the commands' output
# while passing that output through unchanged.
. "$(dirname "$0")/../lib.sh"

need_iotape "metrics"
t=$TEST_TMP db=$t/t.db

# timelog REAL: a bash `time` paste with that real time
timelog() { printf 'real\t%s\nuser\t0m0.500s\nsys\t0m1.250s\n' "$1" > "$t/time.txt"; }

# ---- the seed's throughput table: fs x kernel, two repeats a cell ----
# base throughput 1000 on 2.6.1; on 2.6.1-mm4 the seed's changes; repeats at
# median - 1 and median + 1
fail=0
for fs in ext2:941 ext3:949 jfs:930 reiserfs:978 xfs:997; do
	f=${fs%:*} v=${fs#*:}
	for k in 2.6.1 2.6.1-mm4; do
		m=1000; [ $k = 2.6.1-mm4 ] && m=$v
		for r in 1 2; do
			timelog 1m40s
			"$IOTAPE" import --quiet --again --db "$db" --run "dbt2-$f-$k.$r" "$t/time.txt" || fail=1
			"$IOTAPE" metric --db "$db" "dbt2-$f-$k.$r" "tps=$((m + 2 * r - 3))tps" || fail=1
		done
		"$IOTAPE" label --db "$db" "dbt2-$f-$k.*" fs=$f kernel=$k || fail=1
	done
done
check_eq "seed runs made, metrics set, labels set" 0 $fail

"$IOTAPE" metric --db "$db" dbt2-ext2-2.6.1.1 > "$t/list"
check_eq "metric lists the manual metric with its unit" \
	"tps 999 tps manual" "$(awk '$1 == "tps" {print $1, $2, $3, $4}' "$t/list")"
check_eq "metric lists the command's real time (source time)" \
	"real_s 100 s time|sys_s 1.25 s time|user_s 0.5 s time" \
	"$(awk '$1 ~ /_s$/ {print $1, $2, $3, $4}' "$t/list" | paste -sd'|')"
check_eq "label lists the run's labels" "fs=ext2|kernel=2.6.1" \
	"$("$IOTAPE" label --db "$db" dbt2-ext2-2.6.1.1 | paste -sd'|')"

"$IOTAPE" compare --db "$db" --group-by fs --across kernel --metric tps > "$t/x" 2> "$t/err"
check_eq "crosstab: exits 0" "0" "$?"
check_eq "crosstab: the seed's sentence" \
	"% change of tps from kernel=2.6.1 to kernel=2.6.1-mm4: ext2 -5.9%, ext3 -5.1%, jfs -7.0%, reiserfs -2.2%, xfs -0.3%" \
	"$(grep -A3 '^% change of' "$t/x" | paste -sd' ' | tr -s ' ')"
check_eq "crosstab: a row per fs, medians [min-max] and % change" \
	"ext2 1000 [999-1001] 941 [940-942] -5.9%|xfs 1000 [999-1001] 997 [996-998] -0.3%" \
	"$(grep -E '^(ext2|xfs) ' "$t/x" | tr -s ' ' | paste -sd'|')"
check_eq "crosstab: header names the columns" "fs 2.6.1 2.6.1-mm4" \
	"$(grep '^fs ' "$t/x" | tr -s ' ')"
check_eq "crosstab: says the spread is min-max and counts the runs" 1 \
	"$(grep -c 'median \[min-max\].*' "$t/x")"
check_eq "crosstab: within 80 columns" "" "$(awk 'length > 80' "$t/x")"

"$IOTAPE" compare --db "$db" --group-by fs --across kernel --metric tps --markdown 'dbt2-*' > "$t/md"
check_eq "markdown: header and alignment rows" \
	"| fs | kernel=2.6.1 | kernel=2.6.1-mm4 | % vs 2.6.1 ||---|---:|---:|---:|" \
	"$(grep '^|' "$t/md" | head -2 | paste -sd'\0')"
check_eq "markdown: the jfs row" "| jfs | 1000 [999-1001] | 930 [929-931] | -7.0% |" \
	"$(grep '^| jfs ' "$t/md")"
check_eq "markdown: a row per fs" 5 "$(grep -c '^| [a-z0-9]* | 1000' "$t/md")"

if command -v jq > /dev/null; then
	"$IOTAPE" compare --db "$db" --group-by fs --across kernel --metric tps --json > "$t/j"
	check_eq "json: pct_change and n per cell" "-5.1 2 2" \
		"$(jq -r '.rows[] | select(.group == "ext3") | "\(.cells[1].pct_change * 10 | round / 10) \(.cells[0].n) \(.cells[1].n)"' "$t/j")"
fi

# ---- the seed's real time per kernel, from time logs: one row ----
db2=$t/t2.db
for kv in 2.5.31-stock:1m49s 2.5.31-akpm:1m50s 2.4.19-stock:1m34s; do
	timelog "${kv#*:}"
	"$IOTAPE" import --quiet --again --db "$db2" --run "k-${kv%:*}" "$t/time.txt"
	"$IOTAPE" label --db "$db2" "k-${kv%:*}" "kernel=${kv%:*}"
done
"$IOTAPE" compare --db "$db2" --across kernel > "$t/x2"
check_eq "real time across kernels: one row, the seed's times in s, each cell of one run marked" \
	"all 109.0* 110.0* +0.9% 94.0* -13.8%" "$(grep '^all ' "$t/x2" | tr -s ' ')"
check_eq "a one-run cell's footnote says it cannot be told from noise" 1 \
	"$(grep -c '^\* one run: its spread is not known' "$t/x2")"
check_eq "no within-the-spread footnote where no range overlaps" 0 "$(grep -c '^~ within' "$t/x2")"

# ---- noise: a change between overlapping ranges is within the spread ----
db3=$t/t3.db
for kv in k1:100 k1:104 k2:102 k2:106 k3:110 k3:112; do
	timelog 1m
	n=$(( ${n:-0} + 1 ))
	"$IOTAPE" import --quiet --again --db "$db3" --run "r$n" "$t/time.txt"
	"$IOTAPE" label --db "$db3" "r$n" "kernel=${kv%:*}"
	"$IOTAPE" metric --db "$db3" "r$n" "tps=${kv#*:}" > /dev/null
done
"$IOTAPE" compare --db "$db3" --across kernel --metric tps > "$t/x4"
check_eq "overlapping ranges: the change marked ~, apart ones not" \
	"all 102.0 [100.0-104.0] 104.0 [102.0-106.0] +2.0%~ 111.0 [110.0-112.0] +8.8%" \
	"$(grep '^all ' "$t/x4" | tr -s ' ')"
check_eq "... and the sentence carries the mark, with its footnote" "+2.0%~ 1" \
	"$(grep -o 'all +2.0%~' "$t/x4" | cut -d' ' -f2) $(grep -c '^~ within the spread' "$t/x4")"
if command -v jq > /dev/null; then
	"$IOTAPE" compare --db "$db3" --across kernel --metric tps --json > "$t/j4"
	check_eq "json: within_spread and one_run per cell" "0 1 0 0 0 0" \
		"$(jq -r '[.rows[0].cells[] | .within_spread, .one_run] | join(" ")' "$t/j4" | awk '{ print $1, $3, $5, $2, $4, $6 }')"
fi

# ---- what is refused, and what is left out ----
"$IOTAPE" compare --db "$db" --group-by fs --across kernel --metric nope > /dev/null 2> "$t/err"
check_eq "an unknown metric: one line naming it" 1 "$(grep -c "the metric 'nope'" "$t/err")"
"$IOTAPE" import --quiet --again --db "$db" --run unlabelled "$t/time.txt"
"$IOTAPE" compare --db "$db" --group-by fs --across kernel --metric real_s > "$t/x3"
check_eq "a run without the labels is counted and left out" 1 \
	"$(grep -c '1 without the settings left out' "$t/x3")"
"$IOTAPE" metric --db "$db" unlabelled 'tps=fast' 2> "$t/err"
check_eq "metric: a value that is not a number is refused" "2 1" \
	"$? $(grep -c "'fast' is not a number" "$t/err")"
for v in 0x10 0x1p4 inf nan 1.5.2; do
	"$IOTAPE" metric --db "$db" unlabelled "tps=$v" 2> "$t/err"
	check_eq "metric: tps=$v (not plain decimal) is refused" "2 1" \
		"$? $(grep -c "'$v' is not a number" "$t/err")"
done
"$IOTAPE" label --db "$db" unlabelled 'fs ext2' 2> "$t/err"
check_eq "label: KEY=VALUE required" "2 1" "$? $(grep -c 'invalid label' "$t/err")"
"$IOTAPE" label --db "$db" unlabelled 'capture.x=1' 2> /dev/null
check_eq "label: capture.* refused" 2 "$?"
"$IOTAPE" metric --db "$db" nosuchrun tps=1 2> "$t/err"
check_eq "metric: an unknown run" "1" "$(grep -c "no run named 'nosuchrun'" "$t/err")"
"$IOTAPE" metric --db "$db" unlabelled real_s=7s
check_eq "metric: a manual real_s wins over the command's" "7 manual" \
	"$("$IOTAPE" metric --db "$db" unlabelled | awk '$1 == "real_s" {print $2, $4}')"
"$IOTAPE" rm --db "$db" unlabelled > /dev/null
check_eq "rm takes the run's metrics with it" 0 \
	"$(sqlite3 "$db" "SELECT count(*) FROM metrics WHERE run NOT IN (SELECT id FROM runs)")"

# ---- a metric named as a figure: one value in the table and the question ----
# before's read Q2C p99 set by hand (5 us) against after's from the trace: the
# table showed the trace's 72.19 beside the question's 5.0 ("619x" against
# "+43x"); now both show the metric, and compare says the sources differ
q=$t/q.db
if command -v jq > /dev/null; then
	"$IOTAPE" import --quiet --db "$q" "$FIXTURES"/quick/before.bin.gz \
		"$FIXTURES"/quick/after.bin.gz &&
		"$IOTAPE" compare --db "$q" --json --metric read_q2c_p99_us before after \
			> "$t/q0.json" &&
		"$IOTAPE" metric --db "$q" before read_q2c_p99_us=5 > /dev/null &&
		"$IOTAPE" compare --db "$q" --json --metric read_q2c_p99_us before after \
			> "$t/q1.json" &&
		"$IOTAPE" compare --db "$q" --metric read_q2c_p99_us before after \
			> "$t/q1.txt"
	check_eq "metric over a figure: runs imported, metric set, compared" 0 $?
	check_eq "metric over a figure: one source, no note" "null" \
		"$(jq -c '.comparisons[0].question.two_sources' "$t/q0.json")"
	check_eq "metric over a figure: the table's value is the question's (5 against the trace's)" \
		"5 5 $(jq '.runs[1].figures.read_q2c_p99_us' "$t/q0.json")" \
		"$(jq -r '"\(.runs[0].figures.read_q2c_p99_us) \(.comparisons[0].base_value) \(.runs[1].figures.read_q2c_p99_us)"' "$t/q1.json")"
	check_eq "metric over a figure: JSON says which run's is the metric" \
		"two sources: read_q2c_p99_us is a workload metric (manual) in before and the trace's figure in after" \
		"$(jq -r '.comparisons[0].question.two_sources' "$t/q1.json" | sed 's/, not one.*//')"
	check_eq "metric over a figure: the text says so under the question" 1 \
		"$(grep -c '^two sources: read_q2c_p99_us is a workload metric (manual) in before and the$' "$t/q1.txt")"
else
	skip "metric over a figure" "no jq"
fi

# ---- capture: dd, fio and --metric read from the output passed through ----
if [ "$(id -u)" != 0 ]; then skip "capture metrics" "needs root"; tap_finish; fi
tracefs_check || { skip "capture metrics" "$TRACEFS_WHY"; tap_finish; }
truncate -s 64M "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach loop"; tap_finish; }
d=$LOOPDEV
"$IOTAPE" capture --db "$db" --run dd -d "/dev/$d" --interval 0.2 --quiet \
	--metric 'rate_mb=copied, [0-9.e-]+ s, ([0-9.]+) MB/s' \
	--metric 'records=^([0-9]+)\+0 records out' --label fs=raw \
	--cmd "LC_ALL=C dd if=/dev/zero of=/dev/$d bs=64k count=32 oflag=direct; echo out-line" \
	> "$t/out" 2> "$t/err"
check_eq "capture dd: exits 0" 0 "$?"
check_eq "capture dd: stdout passed through" "out-line" "$(cat "$t/out")"
check_eq "capture dd: dd's lines passed through to stderr" 1 \
	"$(grep -c '^2097152 bytes .* copied, ' "$t/err")"
"$IOTAPE" metric --db "$db" dd > "$t/list"
m() { awk -v n="$1" '$1 == n {print $2, $3, $4}' "$t/list"; }
# a whole number whole (2.09715e+06 at six digits, before)
check_eq "capture dd: dd_bytes" "2097152 bytes dd" "$(m dd_bytes)"
check_eq "capture dd: --metric of a count, no unit" "32 - regex" "$(m records)"
# dd prints its rate in kB/s, MB/s or GB/s, whichever fits: the regex asks
# for MB/s, so it finds a value only when dd printed that unit
read -r ddrate ddunit <<< "$(grep -o 'copied, [0-9.e-]* s, [0-9.]* [kMG]B/s' "$t/err" |
	tail -1 | awk '{ print $4, $5 }')"
if [ "$ddunit" = MB/s ]; then
	check_eq "capture dd: --metric reads the rate dd printed" "$ddrate" "$(m rate_mb | cut -d' ' -f1)"
else
	check_eq "capture dd: --metric finds no MB/s rate when dd printed $ddunit" "" "$(m rate_mb)"
fi
check_eq "capture dd: dd_bytes_per_s is that rate in bytes/s ($ddrate $ddunit)" "1" \
	"$(awk -v a="$(m dd_bytes_per_s | cut -d' ' -f1)" -v b="$ddrate" -v u="$ddunit" '
	BEGIN { k = u == "kB/s" ? 1e3 : u == "MB/s" ? 1e6 : 1e9
		d = a - b * k; if (d < 0) d = -d; print (a > 0 && d <= 1e-5 * a) }')"
check_eq "capture dd: real_s from the command's times" "s time" "$(m real_s | cut -d' ' -f2-)"
check_eq "capture dd: --label stored" "fs=raw" "$("$IOTAPE" label --db "$db" dd | grep '^fs=')"

if command -v fio > /dev/null && command -v jq > /dev/null; then
	"$IOTAPE" capture --db "$db" --run fio -d "/dev/$d" --interval 0.2 --quiet \
		-- fio --name=m --filename=/dev/$d --size=8M --bs=4k --rw=randread \
		--direct=1 --ioengine=psync --output-format=json > "$t/fio.json" 2> "$t/err"
	check_eq "capture fio: exits 0" 0 "$?"
	"$IOTAPE" metric --db "$db" fio > "$t/list"
	check_eq "capture fio: JSON passed through unchanged (jq reads it)" "2048" \
		"$(jq '.jobs[0].read.total_ios' "$t/fio.json")"
	check_eq "capture fio: read_iops as fio's JSON has it" \
		"$(jq '.jobs[0].read.iops' "$t/fio.json" |
			awk '{ if ($1 == int($1) && $1 < 1e14) printf "%.0f", $1; else printf "%.6g", $1 }')" \
		"$(m read_iops | cut -d' ' -f1)"
	check_eq "capture fio: read_clat_ns_p99 as fio's percentile 99.000000" \
		"$(jq '.jobs[0].read.clat_ns.percentile["99.000000"]' "$t/fio.json" |
			awk '{ if ($1 == int($1) && $1 < 1e14) printf "%.0f", $1; else printf "%.6g", $1 }')" \
		"$(m read_clat_ns_p99 | cut -d' ' -f1)"
	check_eq "capture fio: read_bw_bytes in bytes/s" "bytes/s fio" "$(m read_bw_bytes | cut -d' ' -f2-)"
	check_eq "capture fio: no write metrics for a read job" "" "$(m write_iops)"
else
	skip "capture fio" "no fio or jq"
fi
tap_finish
