# t_corpus_text.sh: the text promises 80 columns for a mailing list: every
# trace of ../shared/corpus, imported, gives report, compare and mail lines of
# at most 80 columns, and report's size histograms leave 0% bins out (--json
# keeps every bin). Skipped where the corpus is absent.
. "$(dirname "$0")/../lib.sh"

need_iotape "corpus text in 80 columns"
need_corpus "corpus text in 80 columns"
t=$TEST_TMP
db=$t/text.db
S=$CORPUS/seed-debsums-patch

# name:input[:names file]
runs="one-disk:$S/one-disk/trace.bin:$S/one-disk/cmdlines.txt
two-disks:$S/two-disks/trace.bin:$S/two-disks/cmdlines.txt
liuzel:$CORPUS/liuzel01-centos7-sda/sda
asif:$CORPUS/asifazamali-sda1/sda1
romeus0:$CORPUS/romeus-loop-blkparse-d/trace_x_0_y_0.bin
romeus1:$CORPUS/romeus-loop-blkparse-d/trace_x_1_y_1.bin
hadoop:$CORPUS/zzunny97-hadoop-40cpu-partial/sdb.blktrace.29
apress:$CORPUS/apress-mbpa-blkparse/blktrace.txt
oxdead:$CORPUS/oxdeadmeat-nvme-dmcrypt/nvme0n1.blktrace.txt
fio0038:$CORPUS/fio-t0038-iolog/t0038.iolog"
names=()
while IFS=: read -r name input cmdlines; do
	if "$IOTAPE" import --quiet --db "$db" --run "$name" \
		${cmdlines:+--names "$cmdlines"} "$input" 2> "$t/err"; then
		names+=("$name")
	else
		not_ok "import $name" "$(tail -n 3 "$t/err")"
	fi
done <<< "$runs"

# wide LABEL FILE...: ok when no line of FILE is over 80 columns
wide() {
	local label=$1 bad; shift
	bad=$(awk 'length > 80 { print FILENAME ":" FNR ": " length ": " $0 }' "$@" | head -n 5)
	if [ -z "$bad" ]; then ok "$label: within 80 columns"
	else not_ok "$label: within 80 columns" "$bad"; fi
}

n=${#names[@]}
for ((i = 0; i < n; i++)); do
	a=${names[$i]} b=${names[$(((i + 1) % n))]}
	"$IOTAPE" report --db "$db" "$a" > "$t/$a.report" 2>&1
	wide "report $a" "$t/$a.report"
	"$IOTAPE" compare --db "$db" "$a" "$b" > "$t/$a.compare" 2>&1
	wide "compare $a $b" "$t/$a.compare"
	rm -rf "$t/mail"
	if "$IOTAPE" mail --db "$db" "$a" "$b" -o "$t/mail" > /dev/null 2> "$t/err"; then
		wide "mail $a $b" $(find "$t/mail" -name '*.txt')
	else
		not_ok "mail $a $b" "$(tail -n 3 "$t/err")"
	fi
done

# queue names the most contended process: never one that waited nothing
# (apress named jbd2 at 0.00 s while a java process of fewer bios waited 0.17 s)
check_eq "report: queue never names a process that waited 0.00 s behind others" "" \
	"$(grep -l "waited 0.00 s behind other processes' I/O" "$t"/*.report)"

# cpu's how adds up to its cost: the categories' difference less what came
# with less work at the other run's wait per second ("0.326 s ... less 0.863
# s" beside a cost of -0.04 s, said nowhere)
for v in one-disk two-disks; do
	"$IOTAPE" import --quiet --db "$t/cpu.db" --run $v --names "$S/$v/saved_cmdlines.txt" "$S/$v/trace.bin" &&
	"$IOTAPE" import --quiet --db "$t/cpu.db" --run $v --no-boot-row "$S/$v/vmstat.log" &&
	"$IOTAPE" import --quiet --db "$t/cpu.db" --run $v "$S/$v/times.txt" ||
		not_ok "import the seed's $v with its vmstat log and times"
done
check_eq "compare two-disks one-disk: cpu's how adds up to its cost" 1 \
	"$("$IOTAPE" compare --db "$t/cpu.db" --json two-disks one-disk | jq -r '.comparisons[0].findings[] |
		select(.analyzer == "cpu") | [.cost_s, (.how | capture("^(?<y>[0-9.]+) s .* less (?<x>[0-9.]+) s .*the other (?<w>[-+0-9.]+) s came")
		| (.y | tonumber) - (.x | tonumber) - (.w | tonumber))] | if (.[0] - .[1] | fabs) < 0.002 then 1 else 0 end')"

# the seed's times.txt measured each command's start and end: debsums and
# patch ran at once, so the elapsed time is the first start to the last end,
# about the trace's span (their sum, 5.8 s against a 3.5 s trace, before)
check_eq "compare two-disks one-disk: the seed's concurrent commands' elapsed time within 3% of the trace's span" "1 1 0" \
	"$("$IOTAPE" compare --db "$t/cpu.db" --json two-disks one-disk | jq -r '.runs[] |
		.figures | if ((.elapsed_s / .span_s) - 1 | fabs) < 0.03 then 1 else 0 end' | paste -sd' ') $("$IOTAPE" compare --db "$t/cpu.db" two-disks one-disk | grep -c 'longer than its trace')"

# the sentence under "where the time went" is of the command asked about
# (patch's, for cmd2 "bzcat ... | patch -p1"), or else of a user process,
# never the flushers' span (writeback's, which moved most, before)
check_eq "compare --metric cmd2_real_s and the default: the sentence under the table is patch's" "1 1" \
	"$(for m in cmd2_real_s total; do "$IOTAPE" compare --db "$t/cpu.db" --metric $m two-disks one-disk |
		grep -c "^patch's span shrank"; done | paste -sd' ')"

# queue's one-run words ("in one run sharing the device is the workload
# ...; compare runs to see ...") are report's, not compare's, which has two
check_eq "queue: its one-run words in report, not in compare" "1 0" \
	"$("$IOTAPE" report --db "$db" --json one-disk | jq -r '.. | objects | select(.analyzer? == "queue") | .confidence_why' |
		grep -c '^in one run sharing the device') $("$IOTAPE" compare --db "$db" --json two-disks one-disk |
		jq -r '.comparisons[0].findings[] | select(.analyzer == "queue") | .confidence_why' | grep -c 'in one run sharing')"

# readahead not present (find's reads: 6% of its requests end to end): its
# how estimates nothing ("the 0 requests of 128 KiB ... at 0.0 us", before)
check_eq "report one-disk: readahead not present, its how estimates nothing" "0 1" \
	"$("$IOTAPE" report --db "$db" --json one-disk | jq -r '.. | objects | select(.analyzer? == "readahead") |
		"\(.present) \(.how | test("^no sequential stream") | if . then 1 else 0 end)"')"

# a vmstat log alone (2.2 hours): report shows its causes as its JSON has
# them (it stopped at "see iotape vmstat"), in 80 columns; cpu's 216 s is
# under the share a cause needs, and it says so (it was listed as of "no
# measurable cost")
"$IOTAPE" import --quiet --db "$t/vm.db" --run vmm "$CORPUS/vmstat-marionavarra-timestamped/vmstat.log"
"$IOTAPE" report --db "$t/vm.db" vmm > "$t/vmm.report"
wide "report of a vmstat log alone" "$t/vmm.report"
check_eq "report of a vmstat log alone: cpu listed as not a cause, under the share a cause needs" 1 \
	"$(sed -n '/^present, not named as a cause:/,/^$/p' "$t/vmm.report" | tr -s ' \n' ' ' |
		grep -c 'cpu: .* (+216.32 s): under the [0-9.]* s a cause needs here')"

# compare's "where the time went": one row per process family, so the seed
# pair's two md5sum processes are one row (not two rows with zeros where a
# process of the other run did not match); a 15-character name whole
where() { sed -n '/^== where the time went/,/^== why/p' "$1"; }
rows=$(where "$t/one-disk.compare" | grep -c '^md5sum ')
if [ "$rows" = 1 ] && ! where "$t/one-disk.compare" | grep -q '^md5sum:'; then
	ok "compare: the two md5sum processes are one family row"
else
	not_ok "compare: one family row" "$(where "$t/one-disk.compare")"
fi
for r in one-disk two-disks; do
	sed 's/md5sum$/debsums-md5sums/' "$S/$r/cmdlines.txt" > "$t/$r.names"
	"$IOTAPE" import --quiet --db "$t/long.db" --run "$r" --names "$t/$r.names" \
		"$S/$r/trace.bin"
done
"$IOTAPE" compare --db "$t/long.db" one-disk two-disks > "$t/long.compare" 2>&1
wide "compare with 15-character family names" "$t/long.compare"
if where "$t/long.compare" | grep -qE '^debsums-md5sums +[0-9]+\.[0-9]{2} '; then
	ok "compare: a 15-character family name whole, its figures beside it"
else
	not_ok "compare: a 15-character family name whole" "$(where "$t/long.compare")"
fi

# size histograms: no 0% bin in the text (hadoop's 2 reads of 8K among 2589),
# each continuation line under the first bin; every bin in --json
awk '/^          (read |write) sizes:/ { on = 1; print; next }
	on && /^                       [^ ]/ { print; next } { on = 0 }' \
	"$t"/*.report > "$t/sizes"
if [ -s "$t/sizes" ] && ! grep -q ' 0%' "$t/sizes" &&
   grep -q '^ *read  sizes: <=4K 4% 16K' "$t/hadoop.report"; then
	ok "report: size histograms without 0% bins"
else
	not_ok "report: size histograms without 0% bins" "$(grep ' 0%' "$t/sizes")" \
		"$(grep -A1 'read  sizes' "$t/hadoop.report")"
fi
"$IOTAPE" report --db "$db" --json hadoop > "$t/hadoop.json"
k=$(jq '[.time.devices[].read_sizes | keys | length] | min' "$t/hadoop.json")
v=$(jq '.time.devices[0].read_sizes["8K"]' "$t/hadoop.json")
if [ "$k" = 9 ] && [ "${v:-0}" -ge 1 ]; then
	ok "report --json: every size bin, 8K's $v reads too"
else
	not_ok "report --json: every size bin" "bins $k, 8K $v"
fi
tap_finish
