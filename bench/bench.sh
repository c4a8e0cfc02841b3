# bench/bench.sh: `make bench`. Times iotape against blkparse and btt on a real trace of
# 2 million or more events: a tracefs capture of fio 4k random reads (io_uring, depth 32,
# direct) on a loop device over a file in /dev/shm, cached in $BENCH_DIR so reruns reuse
# it (capturing needs root; timing a cached trace does not). Prints a table.
# Ends with issue 16's table: each row beside its peer measured in the same run.
# Environment: IOTAPE, BENCH_DIR (/var/tmp/iotape-bench), BENCH_REPS (3, the median is
# shown), BENCH_IOS (400000 reads captured: 2.4M events), BENCH_MIN_EVENTS (2000000);
# BENCH_5M=1: issue 16's sizes (850000 reads, 5.1M events; 10.2M for the doubled
# trace), cached in /var/tmp/iotape-bench-5m. BENCH_SKIP: parts left out, of
# "sizes capture record replay model disk pg" (the blkparse/btt part and issue 16's
# table always run). BENCH_50M=0: sizes without its 50M-event trace (2.5 GB cached in
# BENCH_DIR, as much again for btt's input, and 2.6 GB of store while it runs). The
# machine's load moves every figure: compare the ratios to the peer measured in the
# same run.

. "$(dirname "$0")/../tests/lib.sh"

if [ "${BENCH_5M:-0}" = 1 ]; then
	BENCH_IOS=${BENCH_IOS:-850000}
	BENCH_MIN_EVENTS=${BENCH_MIN_EVENTS:-5000000}
	BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench-5m}
fi
BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench}
REPS=${BENCH_REPS:-3}
MIN_EVENTS=${BENCH_MIN_EVENTS:-2000000}
# issue 16's rows, one a line: work, peer, iotape, ratio, target (tab-separated);
# bench_replay.sh adds its rows
export BENCH_ROWS=$TEST_TMP/rows.tsv
: > "$BENCH_ROWS"
export BENCH_DIR
TRACE=$BENCH_DIR/trace.bin      # tracefs binary stream (blkparse -i - < trace.bin)
BTTIN=$BENCH_DIR/trace.btt      # blkparse -d dump of it, btt's input
META=$BENCH_DIR/trace.meta      # key=value lines: events, kernel, command
DB=$BENCH_DIR/b.db

die() { echo "bench: $*" >&2; exit 1; }
say() { [ -t 2 ] && echo "bench: $*" >&2; return 0; }   # progress, on a terminal only

for tool in blkparse btt fio /usr/bin/time; do
	command -v $tool > /dev/null || die "needs $tool (make deps)"
done
[ -x "$IOTAPE" ] || die "no iotape binary at $IOTAPE (run make)"
mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"

meta() { sed -n "s/^$1=//p" "$META" 2> /dev/null; }

# capture: write $TRACE, $BTTIN and $META (atomically: a cut-short capture is not kept)
capture() {
	local ios=${BENCH_IOS:-400000} img dev n
	[ "$(id -u)" = 0 ] || die "no cached trace in $BENCH_DIR and capturing needs root"
	tracefs_check || die "cannot capture: $TRACEFS_WHY"
	img=$(mktemp /dev/shm/iotape-bench.XXXXXX) || die "cannot create a file in /dev/shm"
	at_exit "rm -f '$img'"
	truncate -s 1G "$img"
	loop_attach "$img" || die "cannot attach a loop device"
	dev=$LOOPDEV
	say "capturing $ios 4k random reads on $dev (tracefs blk tracer)..."
	# io_size, not time: a fixed amount of work (6 events per read); runtime is a cap
	local cmd="fio --name=bench --filename=/dev/$dev --rw=randread --bs=4k --direct=1"
	cmd+=" --ioengine=io_uring --iodepth=32 --size=1G --io_size=$((ios * 4096))"
	cmd+=" --runtime=120 --randrepeat=1 --norandommap --output=/dev/null"
	at_exit "rm -f '$TRACE.tmp' '$BTTIN.tmp' '$META.tmp'"
	TRACEFS_BUFFER_KB=131072 tracefs_capture "$TRACE.tmp" "$dev" -- $cmd 2> "$TEST_TMP/capture.err"
	local rc=$?
	cat "$TEST_TMP/capture.err" >&2
	[ $rc = 0 ] || die "capture failed (exit $rc)"
	grep -q '^warning:' "$TEST_TMP/capture.err" && die "capture lost events; try again"
	n=$(blkparse_events "$TRACE.tmp" | wc -l)
	[ "$n" -ge "$MIN_EVENTS" ] ||
		die "captured only $n events (< $MIN_EVENTS); raise BENCH_IOS"
	blkparse -q -i - -d "$BTTIN.tmp" -O < "$TRACE.tmp" || die "blkparse -d failed"
	{
		echo "events=$n"
		echo "kernel=$(uname -r)"
		echo "cpus=$(nproc)"
		echo "captured=$(date -u +%FT%TZ)"
		echo "command=$cmd (on a loop device over a 1 GiB file in /dev/shm)"
	} > "$META.tmp"
	mv "$BTTIN.tmp" "$BTTIN" && mv "$TRACE.tmp" "$TRACE" && mv "$META.tmp" "$META"
}

if [ -s "$TRACE" ] && [ -s "$BTTIN" ] && [ "$(meta events)" -ge "$MIN_EVENTS" ] 2> /dev/null; then
	say "reusing $TRACE ($(meta events) events, captured $(meta captured))"
else
	capture
fi
EVENTS=$(meta events)
at_exit "rm -f '$DB' '$DB-journal' '$DB-wal' '$DB-shm'"

# timeit NAME CMD...: run CMD $REPS times (its stdout to /dev/null, in a scratch
# directory: btt writes files there); keep each run's "wall_s peak_rss_kb" in
# $TEST_TMP/NAME.times ("wall_s peak_rss_kb cpu_s", CPU user + system, children
# too: on a loaded machine the CPU time moves less than the wall time); a failure
# ends the benchmark. $PRE runs before each repetition; KEEP set and not 0 adds to
# NAME's earlier runs.
timeit() {
	local name=$1 i dir; shift
	dir=$TEST_TMP/$name.cwd; mkdir -p "$dir"
	[ "${KEEP:-0}" = 0 ] && : > "$TEST_TMP/$name.times"
	for ((i = 0; i < REPS; i++)); do
		[ -n "${PRE:-}" ] && eval "$PRE"
		if ! (cd "$dir" && /usr/bin/time -f '%e %M %U %S' -o "$TEST_TMP/$name.t" "$@" \
			> /dev/null 2> "$TEST_TMP/$name.err" < "${STDIN:-/dev/null}"); then
			cat "$TEST_TMP/$name.err" >&2
			die "$name failed: $*"
		fi
		tail -n 1 "$TEST_TMP/$name.t" | awk '{ print $1, $2, $3 + $4 }' >> "$TEST_TMP/$name.times"
	done
}

# median NAME FIELD: the median of column FIELD (1 wall s, 2 peak RSS KiB, 3 CPU s) of
# NAME's runs
median() {
	sort -g -k "$2,$2" "$TEST_TMP/$1.times" | awk -v f="$2" '
		{ v[NR] = $f } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# blkparse and import take turns (one run each, $REPS times), so a change in the
# machine's load falls on both alike
say "timing blkparse and iotape import, taking turns ($REPS runs each)..."
for ((rep = 0; rep < REPS; rep++)); do
	KEEP=$rep REPS=1 STDIN=$TRACE timeit blkparse blkparse -i - -o /dev/null
	KEEP=$rep REPS=1 PRE="rm -f '$DB' '$DB-journal' '$DB-wal' '$DB-shm'" \
		timeit import "$IOTAPE" import --db "$DB" --run bench "$TRACE"
done
say "timing iotape dump (blkparse's text)..."
timeit dump "$IOTAPE" dump --db "$DB" bench
say "timing btt and iotape report..."
timeit btt btt -i "$BTTIN"
timeit report "$IOTAPE" report --db "$DB" bench

awk -v events="$EVENTS" -v bytes="$(stat -c %s "$TRACE")" -v reps="$REPS" \
	-v kernel="$(meta kernel)" -v cpus="$(meta cpus)" \
	-v versions="$("$IOTAPE" --version), $(blkparse -V), $(btt -V 2>&1)" \
	-v bp="$(median blkparse 1)" -v bpm="$(median blkparse 2)" \
	-v im="$(median import 1)" -v imm="$(median import 2)" \
	-v dp="$(median dump 1)" -v dpm="$(median dump 2)" \
	-v bpc="$(median blkparse 3)" -v imc="$(median import 3)" -v dpc="$(median dump 3)" \
	-v btc="$(median btt 3)" -v rpc="$(median report 3)" \
	-v bt="$(median btt 1)" -v btm="$(median btt 2)" \
	-v rp="$(median report 1)" -v rpm="$(median report 2)" '
function rate(t) { return t > 0 ? events / t : 0 }
function row(task, t, rss, cpu) {
	printf "%-32s %8.2f %12.0f %10.1f %8.2f\n", task, t, rate(t), rss / 1024, cpu }
BEGIN {
	printf "iotape bench: %d events (%.1f MB tracefs capture), Linux %s, %d CPUs\n",
		events, bytes / 1e6, kernel, cpus
	printf "%s\n", versions
	printf "median of %d runs; wall time; events/s = trace events / wall time\n\n", reps
	printf "%-32s %8s %12s %10s %8s\n", "task", "wall s", "events/s", "peak MiB", "cpu s"
	printf "%-32s %8s %12s %10s %8s\n", "--------------------------------", "------", "--------", "--------", "-----"
	row("blkparse -i - -o /dev/null", bp, bpm, bpc)
	row("iotape import (fresh db)", im, imm, imc)
	row("iotape dump (blkparse text)", dp, dpm, dpc)
	row("btt -i DUMP", bt, btm, btc)
	row("iotape report", rp, rpm, rpc)
	printf "\n"
	printf "import vs blkparse: iotape time is %.2fx blkparse time (events/s %.2fx)\n",
		im / bp, bp / im
	printf "dump vs blkparse:   iotape time is %.2fx blkparse time\n", dp / bp
	printf "report vs btt:      iotape time is %.2fx btt time\n", rp / bt
	printf "iotape import peak RSS: %.1f MiB\n", imm / 1024
}'

# the analyzers on ~5M events: the trace twice, end to end (the second copy's
# clock steps back, which iotape flags), against btt on the same events
T2=$BENCH_DIR/trace2x.bin B2=$BENCH_DIR/trace2x.btt DB2=$BENCH_DIR/b2.db
at_exit "rm -f '$DB2' '$DB2-journal'"
if ! [ -s "$T2" ] || ! [ -s "$B2" ]; then
	cat "$TRACE" "$TRACE" > "$T2.tmp" && mv "$T2.tmp" "$T2"
	blkparse -q -i - -d "$B2.tmp" -O < "$T2" > /dev/null && mv "$B2.tmp" "$B2"
fi
rm -f "$DB2"
# timed once for its peak RSS: RAM flat in run size means the same as the trace's
REPS=1 timeit import2 "$IOTAPE" import --quiet --db "$DB2" --run big "$T2"
say "timing btt, iotape report and compare on $((2 * EVENTS)) events..."
timeit btt2 btt -i "$B2"
timeit report2 "$IOTAPE" report --db "$DB2" big
timeit compare2 "$IOTAPE" compare --db "$DB2" big big
awk -v events=$((2 * EVENTS)) \
	-v bt="$(median btt2 1)" -v btm="$(median btt2 2)" \
	-v rp="$(median report2 1)" -v rpm="$(median report2 2)" \
	-v cp="$(median compare2 1)" -v cpm="$(median compare2 2)" '
BEGIN {
	printf "\nanalyzing %d events (the trace twice), median of runs:\n", events
	printf "%-40s %8s %10s\n", "task", "wall s", "peak MiB"
	printf "%-40s %8.2f %10.1f\n", "btt -i DUMP", bt, btm / 1024
	printf "%-40s %8.2f %10.1f\n", "iotape report (figures + analyzers)", rp, rpm / 1024
	printf "%-40s %8.2f %10.1f\n", "iotape compare (the run against itself)", cp, cpm / 1024
	printf "report vs btt: %.2fx btt time; compare (two runs): %.2fx\n", rp / bt, cp / bt
}'

# mail against what it puts together: compare and plot, on the doubled run
say "timing iotape plot and mail on $((2 * EVENTS)) events..."
# (BENCH_MAIL_REPS, 1: gnuplot on twice 4.8M events takes a while)
REPS=${BENCH_MAIL_REPS:-1} timeit plot2 "$IOTAPE" plot --db "$DB2" -o "$TEST_TMP/plot" big big
REPS=${BENCH_MAIL_REPS:-1} timeit mail2 "$IOTAPE" mail --db "$DB2" -o "$TEST_TMP/mail" big big
awk -v cp="$(median compare2 1)" -v pl="$(median plot2 1)" -v ml="$(median mail2 1)" \
	-v mlm="$(median mail2 2)" 'BEGIN {
	printf "%-40s %8.2f\n", "iotape plot (every kind, PNG)", pl
	printf "%-40s %8.2f %10.1f\n", "iotape mail (compare, plots, text)", ml, mlm / 1024
	printf "mail vs compare + plot: %.2fx\n", ml / (cp + pl) }'

# issue 16's rows from this part (bench_replay.sh adds the replays')
awk -v OFS='\t' -v ev="$EVENTS" -v ev2=$((2 * EVENTS)) \
	-v bp="$(median blkparse 1)" -v bpm="$(median blkparse 2)" \
	-v im="$(median import 1)" -v imm="$(median import 2)" -v im2m="$(median import2 2)" \
	-v dp="$(median dump 1)" -v bpc="$(median blkparse 3)" -v imc="$(median import 3)" \
	-v dpc="$(median dump 3)" -v btc="$(median btt 3)" -v rpc="$(median report 3)" \
	-v cpc="$(median compare2 3)" -v plc="$(median plot2 3)" -v mlc="$(median mail2 3)" \
	-v bt="$(median btt 1)" -v btm="$(median btt 2)" \
	-v rp="$(median report 1)" -v rpm="$(median report 2)" \
	-v bt2="$(median btt2 1)" -v bt2m="$(median btt2 2)" \
	-v rp2="$(median report2 1)" -v rp2m="$(median report2 2)" \
	-v cp="$(median compare2 1)" -v pl="$(median plot2 1)" -v ml="$(median mail2 1)" '
function m(k) { return k / 1024 }
function ev_s(n) { return sprintf("%.1fM", n / 1e6) }
BEGIN {
	print "import " ev_s(ev) " events", sprintf("blkparse text %.2f s (cpu %.2f), %.0f MiB",
		bp, bpc, m(bpm)), sprintf("%.2f s (cpu %.2f), %.0f MiB (%.0f MiB at %s)", im,
		imc, m(imm), m(im2m), ev_s(ev2)),
		sprintf("rate %.2fx (cpu %.2fx)", bp / im, bpc / imc), "rate >= 2x blkparse, RAM flat"
	print "dump " ev_s(ev), sprintf("blkparse text %.2f s (cpu %.2f)", bp, bpc),
		sprintf("%.2f s (cpu %.2f)", dp, dpc), sprintf("rate %.2fx (cpu %.2fx)", bp / dp,
		bpc / dpc), ">= 2x"
	print "report " ev_s(ev) " / " ev_s(ev2), sprintf("btt %.2f s, %.0f MiB / %.2f s, %.0f MiB",
		bt, m(btm), bt2, m(bt2m)), sprintf("%.2f s, %.0f MiB / %.2f s, %.0f MiB",
		rp, m(rpm), rp2, m(rp2m)), sprintf("time %.2fx / %.2fx (cpu %.2fx), RAM %.2fx / %.2fx",
		rp / bt, rp2 / bt2, rpc / btc, rpm / btm, rp2m / bt2m), "time <= 0.5x btt; RAM <= btt, flat"
	print "mail " ev_s(ev2) " x 2 runs", sprintf("compare %.2f s + plot %.2f s (cpu %.2f + %.2f)",
		cp, pl, cpc, plc), sprintf("%.2f s (cpu %.2f)", ml, mlc),
		sprintf("%.2fx (cpu %.2fx)", ml / (cp + pl), mlc / (cpc + plc)), "<= compare + plot"
}' >> "$BENCH_ROWS"

# part NAME: true unless BENCH_SKIP names it
part() { case " ${BENCH_SKIP:-} " in *" $1 "*) echo "($1: skipped, BENCH_SKIP)"; return 1;; esac; }

# import's rate at 1M and 5M events, report's memory at 5M and 50M
# (bench/bench_sizes.sh)
if part sizes; then
	. "$(dirname "$0")/bench_sizes.sh"
	bench_sizes
fi

# the cost of capturing (bench/bench_capture.sh)
if part capture; then
	. "$(dirname "$0")/bench_capture.sh"
	bench_capture
fi

# the flight recorder's cost (bench/bench_record.sh): against untraced and capture
if part record; then
	. "$(dirname "$0")/bench_record.sh"
	bench_record
fi

# replaying (bench/bench_replay.sh): iotape replay against fio and btreplay
part replay && BENCH_DIR=$BENCH_DIR IOTAPE=$IOTAPE bash "$(dirname "$0")/bench_replay.sh"

# the modelled disk (bench/bench_model.sh): simulated I/Os per second
part model && BENCH_DIR=$BENCH_DIR IOTAPE=$IOTAPE bash "$(dirname "$0")/bench_model.sh"

# the modelled disk in real time (bench/bench_disk.sh): its ceiling against a
# plain loop device, the host's overhead, lateness at 100 to 10,000 I/Os a second
part disk && IOTAPE=$IOTAPE bash "$(dirname "$0")/bench_disk.sh"

# the PostgreSQL store (bench/bench_pg.sh): import, push and report against SQLite
part pg && BENCH_DIR=$BENCH_DIR IOTAPE=$IOTAPE BENCH_REPS=$REPS bash "$(dirname "$0")/bench_pg.sh"

# issue 16's table: every row beside its peer from this same run
awk -F'\t' -v loadavg="$(cut -d' ' -f1-3 /proc/loadavg)" '
BEGIN {
	printf "\nissue 16: iotape against its peers, measured in this run (load %s;\n", loadavg
	printf "on a shared machine compare the ratios, not the seconds)\n"
	printf "%-26s | %-40s | %-36s | %-18s | %s\n", "work", "peer (median)", "iotape (median)", "ratio", "target"
}
{ printf "%-26s | %-40s | %-36s | %-18s | %s\n", $1, $2, $3, $4, $5 }' "$BENCH_ROWS"
