# t_width.sh: every command's text is for a mailing list, 80 columns, a wide
# (CJK) character counted as two, as a terminal shows it (wc -L in a UTF-8
# locale). Each command `iotape --help` lists is rendered here: its --help, and
# what it prints on the committed fixtures (run names long, CJK, with labels
# and metrics) and on every run of the corpus when it is there. A command this
# test does not render fails it, so a new command is added here.
. "$(dirname "$0")/../lib.sh"

need_iotape "80 columns"
t=$TEST_TMP
db=$t/w.db
F=$FIXTURES
export IOTAPE_DB=$db
cd "$t" || exit 1
declare -A rendered=()

# cols FILE: its widest line in columns
cols() { LC_ALL=C.UTF-8 wc -L < "$1"; }

# fits LABEL FILE...: ok when no line of the FILEs is over 80 columns (but a
# file's path alone on its line: never cut); else the first such lines with
# their widths
fits() {
	local label=$1 f line w bad=(); shift
	for f in "$@"; do
		[ "$(cols "$f")" -le 80 ] && continue
		while IFS= read -r line; do
			w=$(printf '%s' "$line" | LC_ALL=C.UTF-8 wc -L)
			[ "$w" -gt 80 ] && [[ $line == *" "* || ! -e $line ]] &&
				bad+=("$(basename "$f"): $w: $line")
		done < "$f"
	done
	if [ ${#bad[@]} = 0 ]; then ok "$label: within 80 columns"
	else not_ok "$label: within 80 columns" "${bad[@]:0:5}"; fi
}

# headings FILE: the headings ("== title ===") that stand empty: another
# heading or the end after them, only blank lines between
headings() {
	awk '/^== .* =+$/ { if (h != "") print h; h = $0; next }
	     NF { h = "" } END { if (h != "") print h }' "$1"
}

# show CMD ARG...: `iotape CMD ARG...`; its stdout within 80 columns, and the
# command counted as rendered (a failure to run is a failure)
n=0
show() {
	local out=$t/out.$((++n))
	if ! "$IOTAPE" "$@" > "$out" 2> "$t/err"; then
		not_ok "iotape $*" "exit $?: $(tail -n 3 "$t/err")"
		return
	fi
	rendered[$1]=1
	fits "$*" "$out"
}

# ---- every command's --help ------------------------------------------------
cmds=$("$IOTAPE" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
[ -n "$cmds" ] || not_ok "iotape --help lists commands"
"$IOTAPE" --help > "$t/help" && fits "iotape --help" "$t/help"
for c in $cmds; do
	"$IOTAPE" "$c" --help > "$t/help.$c" 2>&1 || not_ok "iotape $c --help exits 0"
	h+=("$t/help.$c")
done
fits "every command's --help" "${h[@]}"

# ---- the committed fixtures, under names that test the columns ----------------
cjk=テスト実行の長い名前
# (a name over 76 columns cannot fit a line with anything beside it: 60 and
# what replay and mv add to it)
long=pgbench-ext4-mq-deadline-kernel-6.18.44-cloud-amd64-rc1-rep01
imp() { "$IOTAPE" import --quiet --again "$@" 2> "$t/err" || not_ok "import $*" "$(tail -n 3 "$t/err")"; }
imp --run before "$F/loop-fio-small.bin"
imp --run "$cjk" "$F/loop-fio-small.bin"
imp --run "$long" "$F/variants/loop-fio-small.v8.bin"
imp --run msr --split "$F/import/msr-web.csv"
imp --run iolog "$F/import/fio-v3.iolog"
imp --run iostat-log "$F/import/iostat-x-12.log"
imp --run times "$F/import/time-bash-dd.txt"
# a grid for compare --across: long setting values, one cell per run
for k in 6.1.0-18-amd64 6.18.44-cloud-amd64-long; do
	for fs in ext2 ext3 xfs; do
		imp --run "dbt2-$fs-$k" "$F/loop-fio-small.bin"
		"$IOTAPE" label "dbt2-$fs-$k" fs=$fs kernel=$k > /dev/null
		"$IOTAPE" metric "dbt2-$fs-$k" tps=$((RANDOM % 900 + 100)).5 > /dev/null
	done
done

show runs
show runs --kind import
show label "$cjk" fs=ext4 "kernel=6.18.44-cloud-amd64-with-a-very-long-local-version-string"
show label "$cjk"
show metric "$cjk" "tps=1234.5" "latency_p99=12.5ms"
show metric "$cjk"
show metric times
show report before
show report "$cjk"
show report "$long"
show report msr-web_0
show report iolog
show report times
show report --model desktop-2006 before
show compare before "$cjk"
show compare "$cjk" "$long"
show compare "$long" before
# names of 75 columns, alike but for their ends: a word longer than what is
# left of a line (the "~ stands for" start, evidence "NAME: ...") is cut at
# the margin (they ran to 94 columns)
huge=$(printf 'x%.0s' $(seq 66))-run-one
imp --run "$huge" "$F/loop-fio-small.bin"
imp --run "${huge%one}two" "$F/quick/after.bin.gz"
show compare "$huge" "${huge%one}two"
# seven runs in one compare: its table in parts of five columns (six runs
# were 90 columns); every run still in it (as ~N: '~' stands for 'seven-')
for i in 1 2 3 4 5 6 7; do imp --run "seven-$i" "$F/loop-fio-small.bin"; done
show compare 'seven-*'
check_eq "compare of seven runs: each run heads a column" "7" \
	"$("$IOTAPE" compare 'seven-*' | grep '^ \{24\}' | tr -s ' ' '\n' | grep -x '~[1-7]' | sort -u | wc -l)"
show compare --group-by fs --across kernel --metric tps 'dbt2-*'
show compare --group-by kernel --across fs --metric tps 'dbt2-*'
show compare --group-by fs --metric tps 'dbt2-*'
show iostat "$cjk"
show iostat --explain "$cjk"
show iostat iostat-log
show iostat --explain iostat-log
show model list
show model list desktop-2006
show disk list --state-dir "$t/lab"
# replays store no machine state: a lab of their own, beside others' captures
show replay --state-dir "$t/lab" "$cjk" --target model:desktop-2006 --run "$cjk-2006"
show replay --state-dir "$t/lab" before --target "$t/replay.img" --timing afap \
	--repeat 2 --run "$long-replay"
show export --quiet "$cjk" --format fio
show plot --format txt -o plot "$cjk" "$long" before
fits "plot --format txt: the text plots" plot/*.txt
show mail -o mail "$cjk" "$long"
fits "mail: the mail" mail/*.mail.txt mail/*.full.txt
check_eq "mail: no heading stands empty" "" "$(headings mail/*.mail.txt mail/*.full.txt)"
show fleet --worst read_q2c_p99
show fleet --worst write_d2c_max --limit 3
show mv "$long" "$long-renamed"
show push --to "$t/other.db" "$cjk" before
show pull --db "$t/pulled.db" --from "$t/other.db" '*:*'
show rm "$long-renamed"
show vacuum
# vmstat of a run with samples: the corpus's logs below; here the fixture's
for f in "$F"/vmstat/*.log; do
	[ -e "$f" ] || continue
	imp --run vm "$f" && show vmstat vm
	break
done

# blkparse's lines, byte for byte as blkparse prints them (t_corpus.sh): not
# ours to fit; the command is run, not held to 80
"$IOTAPE" dump before > /dev/null && rendered[dump]=1
# capture and record print their runs' names and where they are on stderr;
# their runs are rendered above as every run is (t_capture_loop.sh,
# t_record.sh run them as root on loop devices)
"$IOTAPE" capture --help > /dev/null && rendered[capture]=1
"$IOTAPE" record --help > /dev/null && rendered[record]=1
"$IOTAPE" import --help > /dev/null && rendered[import]=1

# ---- the corpus: every trace and log, as imported ----------------------------
if CORPUS=$(corpus_dir); then
	S=$CORPUS/seed-debsums-patch
	cdb=$t/corpus.db
	# name:input[:import option]
	runs="one-disk:$S/one-disk/trace.bin:--names=$S/one-disk/cmdlines.txt
one-disk:$S/one-disk/vmstat.log:--no-boot-row
two-disks:$S/two-disks/trace.bin:--names=$S/two-disks/cmdlines.txt
two-disks:$S/two-disks/vmstat.log:--no-boot-row
liuzel:$CORPUS/liuzel01-centos7-sda/sda
asif:$CORPUS/asifazamali-sda1/sda1
romeus:$CORPUS/romeus-loop-blkparse-d/trace_x_0_y_0.bin
hadoop:$CORPUS/zzunny97-hadoop-40cpu-partial/sdb.blktrace.29
apress:$CORPUS/apress-mbpa-blkparse/blktrace.txt
oxdead:$CORPUS/oxdeadmeat-nvme-dmcrypt/nvme0n1.blktrace.txt
t0038:$CORPUS/fio-t0038-iolog/t0038.iolog
ramindin:$CORPUS/vmstat-ramindin-blocks/vmstat.log
marionavarra:$CORPUS/vmstat-marionavarra-timestamped/vmstat.log"
	names=()
	while IFS=: read -r name input opt; do
		if "$IOTAPE" import --db "$cdb" --quiet --run "$name" ${opt:+"$opt"} "$input" \
			2> "$t/err"; then
			[[ " ${names[*]} " == *" $name "* ]] || names+=("$name")
		else
			not_ok "corpus: import $name" "$(tail -n 3 "$t/err")"
		fi
	done <<< "$runs"
	export IOTAPE_DB=$cdb
	show runs
	for r in "${names[@]}"; do
		case $r in
		ramindin | marionavarra) show vmstat "$r" ;;
		*) show report "$r"; show iostat "$r" ;;
		esac
	done
	show vmstat one-disk
	show compare one-disk two-disks
	show compare liuzel asif
	show compare apress oxdead
	show compare hadoop romeus
	show mail -o cmail one-disk two-disks
	fits "corpus mail" cmail/*.mail.txt
	check_eq "corpus mail: no heading stands empty" "" "$(headings cmail/*.mail.txt)"
	show plot --format txt -o cplot one-disk two-disks
	fits "corpus text plots" cplot/*.txt
	show fleet
else
	skip "the corpus's runs in 80 columns" "corpus absent"
fi

# ---- every command rendered ---------------------------------------------------
missing=
for c in $cmds; do [ -n "${rendered[$c]:-}" ] || missing+=" $c"; done
check_eq "every command of iotape --help is rendered here" "" "${missing# }"
tap_finish
