# bench/bench_replay.sh: `make bench`, replay part (bench.sh runs it at its end). On a
# loop device over a file in /dev/shm, on one trace (bench.sh's tracefs capture of fio
# 4k random reads at depth 32, or a smaller one captured here): IOPS of
# `iotape replay --timing afap` against `fio --read_iolog=TRACE --replay_no_stall=1`
# and raw fio io_uring random reads at the same depth (the device's limit), and
# btreplay where it works; end to end (loading and storing too) against btrecord +
# btreplay; then issue-time error with original timing, iotape's own figures and,
# for iotape, fio and btreplay, the Q times traced on the target against the
# original's (offset from the first I/O, matched in order): on that trace, which the
# device only just sustained when it was captured, and on a mixed trace at fixed rates
# (captured here once, cached in $BENCH_DIR/mixed.bin) that measures the schedulers
# rather than the device. Then (issue 32) the mixed trace at its original timing with
# each knob of the scheduling thread (SCHED_FIFO off, spin window, CPU pinning, mlock),
# quiet and with a CPU hog on CPU 1, and the peers traced under the hog; and the AFAP
# I/O phase against btreplay's (mixed trace) and tuned fio's (the saturated one).
# Appends issue 16's and 32's replay rows to $BENCH_ROWS when set (bench.sh prints them).
# Environment: IOTAPE, BENCH_DIR (/var/tmp/iotape-bench), BENCH_REPS (5, the median is
# shown), BENCH_REPLAY_IOS (200000 reads when a trace must be captured here),
# BENCH_KNOBS (the knob settings measured under load, "|" between them; see below).

. "$(dirname "$0")/../tests/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench}
REPS=${BENCH_REPS:-5}
TRACE=$BENCH_DIR/trace.bin      # tracefs binary stream (bench.sh's)
BTTIN=$BENCH_DIR/trace.btt      # blkparse -d dump of it: what fio and btrecord read
DB=$TEST_TMP/replay.db

die() { echo "bench_replay: $*" >&2; exit 1; }
say() { [ -t 2 ] && echo "bench_replay: $*" >&2; return 0; }

if [ "$(id -u)" != 0 ]; then
	echo "replay bench: needs root (loop devices), skipped"
	exit 0
fi
for tool in fio blkparse jq sqlite3; do
	command -v $tool > /dev/null || die "needs $tool (make deps)"
done
[ -x "$IOTAPE" ] || die "no iotape binary at $IOTAPE (run make)"
mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"

img=$(mktemp /dev/shm/iotape-bench-replay.XXXXXX) || die "cannot create a file in /dev/shm"
at_exit "rm -f '$img'"
truncate -s 1G "$img"
loop_attach "$img" || die "cannot attach a loop device"
L=$LOOPDEV

if [ ! -s "$TRACE" ] || [ ! -s "$BTTIN" ]; then
	# no trace from bench.sh: capture a smaller one the same way
	tracefs_check "$L" || die "no cached trace and cannot capture: $TRACEFS_WHY"
	ios=${BENCH_REPLAY_IOS:-200000}
	TRACE=$BENCH_DIR/replay-trace.bin BTTIN=$BENCH_DIR/replay-trace.btt
	if [ ! -s "$TRACE" ] || [ ! -s "$BTTIN" ]; then
		say "capturing $ios 4k random reads on $L..."
		TRACEFS_BUFFER_KB=131072 tracefs_capture "$TRACE.tmp" "$L" -- fio --name=bench \
			--filename="/dev/$L" --rw=randread --bs=4k --direct=1 --ioengine=io_uring \
			--iodepth=32 --size=1G --io_size=$((ios * 4096)) --randrepeat=1 \
			--norandommap --output=/dev/null 2> "$TEST_TMP/cap.err" || die "capture failed"
		blkparse -q -i - -d "$BTTIN" -O < "$TRACE.tmp" || die "blkparse -d failed"
		mv "$TRACE.tmp" "$TRACE"
	fi
fi

say "importing $TRACE..."
"$IOTAPE" import --db "$DB" --run trace --quiet "$TRACE" || die "import failed"
SRC=$(sqlite3 "$DB" "SELECT id FROM runs WHERE name = 'trace'")
NIOS=$(sqlite3 "$DB" "SELECT count(*) FROM requests WHERE run = $SRC AND q_ns IS NOT NULL")
# fio's trace replay writes what the trace wrote: a read-only trace only
[ "$(sqlite3 "$DB" "SELECT count(*) FROM requests WHERE run = $SRC AND cats & 2")" = 0 ] ||
	die "the trace has writes; fio would replay them"

# median FILE: the median of the numbers in FILE; range FILE: "min-max"
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g "$1" | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.0fk-%.0fk", a / 1000, b / 1000 }'; }

: > "$TEST_TMP/iotape.iops"; : > "$TEST_TMP/fio_replay.iops"; : > "$TEST_TMP/fio_raw.iops"
: > "$TEST_TMP/fio_lim.iops"; : > "$TEST_TMP/iotape.wall"; : > "$TEST_TMP/iotape.rss"
: > "$TEST_TMP/iotape.span"; : > "$TEST_TMP/fio_replay.wall"
DEPTH=
# Every tool runs on CPU 0 (taskset), the loop device's worker wherever the kernel puts
# it: on 2 vCPUs, where the submitter lands against the worker moves IOPS by 2-3x
# from run to run; one CPU for all keeps the comparison fair. Rounds interleave the
# tools so that load from elsewhere falls on all of them.
PIN="taskset -c 0"
fio_raw() {   # fio_raw EXTRA-OPTIONS...: fio's random reads, its IOPS on stdout
	$PIN fio --name=raw --filename="/dev/$L" --rw=randread --bs=4k --direct=1 \
		--ioengine=io_uring --iodepth="$DEPTH" --size=1G --io_size=$((NIOS * 4096)) \
		--randrepeat=1 --norandommap --output-format=json "$@" 2> "$TEST_TMP/fio.err" |
		jq -r '.jobs[0].read.iops'
}
for ((i = 1; i <= REPS; i++)); do
	say "afap round $i of $REPS: iotape replay, fio replay, fio raw..."
	# end to end: loading the plan, the I/O, storing every I/O's row
	/usr/bin/time -f '%e %M' -o "$TEST_TMP/afap.time" $PIN "$IOTAPE" replay --db "$DB" \
		trace --target "/dev/$L" --timing afap --run "afap.$i" \
		--json --quiet > "$TEST_TMP/afap.json" || die "iotape replay failed"
	jq -r '.[0].iops.replay' "$TEST_TMP/afap.json" >> "$TEST_TMP/iotape.iops"
	jq -r '.[0].span_s.replay' "$TEST_TMP/afap.json" >> "$TEST_TMP/iotape.span"
	tail -n 1 "$TEST_TMP/afap.time" | cut -d' ' -f1 >> "$TEST_TMP/iotape.wall"
	tail -n 1 "$TEST_TMP/afap.time" | cut -d' ' -f2 >> "$TEST_TMP/iotape.rss"
	DEPTH=$(jq -r '.[0].depth' "$TEST_TMP/afap.json")
	sqlite3 "$DB" "DELETE FROM replays WHERE run = (SELECT id FROM runs WHERE name = 'afap.$i');
		DELETE FROM requests WHERE run = (SELECT id FROM runs WHERE name = 'afap.$i')"
	/usr/bin/time -f '%e' -o "$TEST_TMP/fio.time" \
	$PIN fio --name=replay --read_iolog="$BTTIN" --replay_no_stall=1 --replay_redirect="/dev/$L" \
		--ioengine=io_uring --iodepth="$DEPTH" --direct=1 --output-format=json \
		> "$TEST_TMP/fio_replay.json" 2> "$TEST_TMP/fio.err" || die "fio replay failed"
	jq -r '.jobs[0].read.iops' "$TEST_TMP/fio_replay.json" >> "$TEST_TMP/fio_replay.iops"
	tail -n 1 "$TEST_TMP/fio.time" >> "$TEST_TMP/fio_replay.wall"
	fio_raw >> "$TEST_TMP/fio_raw.iops" || die "fio failed"
	# the limit: fio with what iotape does too (registered buffers and files, a
	# whole depth per submission) and without its per-I/O clock reads
	fio_raw --fixedbufs=1 --registerfiles=1 --iodepth_batch_submit="$DEPTH" \
		--iodepth_batch_complete_min=1 --iodepth_batch_complete_max="$DEPTH" \
		--gtod_reduce=1 >> "$TEST_TMP/fio_lim.iops" || die "fio failed"
done

# btreplay (libaio, -N: no stalls), where it works: it needs btrecord's bunches,
# and hangs on some traces; given 60 s. Its input is named after the loop device,
# so that btreplay opens /dev/$L without a map (its -M parser crashes here).
BTR= BTR_REC_S= BTR_S= BTRDIR=
if command -v btrecord > /dev/null && command -v btreplay > /dev/null; then
	say "btrecord and btreplay..."
	BTRDIR=$TEST_TMP/btr
	mkdir -p "$BTRDIR/rec"
	ln -s "$BTTIN" "$BTRDIR/$L.blktrace.0"
	t0=$(date +%s.%N)
	if $PIN btrecord -d "$BTRDIR" -D "$BTRDIR/rec" "$L" > /dev/null 2>&1; then
		t1=$(date +%s.%N)
		BTR_REC_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		timeout -k 5 60 $PIN btreplay -d "$BTRDIR/rec" -N "$L" > /dev/null 2>&1
		rc=$?
		t2=$(date +%s.%N)
		if [ $rc = 0 ]; then
			BTR=$(awk -v n="$NIOS" -v a="$t1" -v b="$t2" 'BEGIN { printf "%.0f", n / (b - a) }')
			BTR_S=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", b - a }')
		elif [ $rc = 124 ] || [ $rc = 137 ]; then
			BTR="did not finish in 60 s"
		else
			BTR="failed (exit $rc)"
		fi
	else
		BTR="btrecord failed"
		BTRDIR=
	fi
fi

# offsets ERRFILE RUN SRC: |(Q_i - Q_0) - (orig_i - orig_0)| in us for the i-th Q of
# RUN against the i-th of the source run SRC, in order, into ERRFILE; and into
# ERRFILE.med the same offsets about their median instead of the first I/O's (a first
# I/O that took the cold path late or early shifts every offset from it alike)
offsets() {
	local q="SELECT q_ns - (SELECT min(q_ns) FROM requests WHERE run = %s AND q_ns IS NOT NULL)
		FROM requests WHERE run = %s AND q_ns IS NOT NULL ORDER BY q_ns, id"
	sqlite3 "$DB" "$(printf "$q" "$3" "$3")" > "$TEST_TMP/o.t"
	sqlite3 "$DB" "$(printf "$q" "$2" "$2")" > "$TEST_TMP/r.t"
	paste -d ' ' "$TEST_TMP/o.t" "$TEST_TMP/r.t" |
		awk 'NF == 2 { printf "%.3f\n", ($2 - $1) / 1000 }' | sort -g > "$TEST_TMP/d.t"
	awk '{ printf "%.3f\n", ($1 < 0 ? -$1 : $1) }' "$TEST_TMP/d.t" | sort -g > "$1"
	awk -v m="$(median "$TEST_TMP/d.t")" '{ d = $1 - m; printf "%.3f\n", (d < 0 ? -d : d) }' \
		"$TEST_TMP/d.t" | sort -g > "$1.med"
	# and into ERRFILE.gap the inter-arrival error: each gap between one Q and the
	# next against the original's, |(Q_i - Q_i-1) - (orig_i - orig_i-1)|
	paste -d ' ' "$TEST_TMP/o.t" "$TEST_TMP/r.t" | awk 'NF == 2 {
		if (NR > 1) { d = ($2 - p2) - ($1 - p1); printf "%.3f\n", (d < 0 ? -d : d) / 1000 }
		p1 = $1; p2 = $2 }' | sort -g > "$1.gap"
}
# pcts FILE: "n p50 p99 max" of the sorted numbers in FILE
pcts() {
	awk '{ v[NR] = $1 } END { if (!NR) { print 0, "-", "-", "-"; exit }
		printf "%d %.1f %.1f %.1f\n", NR, v[int((NR - 1) * 0.50) + 1], v[int((NR - 1) * 0.99) + 1], v[NR] }' "$1"
}

# peers_timed TAG BTT BTRREC SRC [BTREPLAY-FLAGS...]: fio --read_iolog (at $DEPTH) and
# btreplay (its btrecord bunches in BTRREC; none when empty) replay BTT at its original
# timing, traced; their Q offsets against the source run SRC (an id) go to
# $TEST_TMP/TAG.fio.off and TAG.btr.off (left empty when a tool failed, with its
# reason on stderr)
peers_timed() {
	local tag=$1 btt=$2 rec=$3 src=$4; shift 4
	: > "$TEST_TMP/$tag.fio.off"; : > "$TEST_TMP/$tag.btr.off"
	tracefs_check "$L" || return 0
	# traced as iotape replay --trace traces itself: by iotape capture's reader
	say "$tag timing: fio replay, traced..."
	if "$IOTAPE" capture --db "$DB" --run "$tag.fio" -d "/dev/$L" --quiet \
		--buffer-kb 65536 -- fio --name=replay --read_iolog="$btt" \
		--replay_redirect="/dev/$L" --ioengine=io_uring --iodepth="$DEPTH" --direct=1 \
		--output=/dev/null > /dev/null 2> "$TEST_TMP/fio.err"; then
		offsets "$TEST_TMP/$tag.fio.off" "$(sqlite3 "$DB" "SELECT id FROM runs WHERE name = '$tag.fio'")" "$src"
	else
		echo "bench_replay: fio replay ($tag, traced) failed: $(tail -n 2 "$TEST_TMP/fio.err" | tr '\n' ' ')" >&2
	fi
	[ -n "$rec" ] || return 0
	say "$tag timing: btreplay, traced..."
	if "$IOTAPE" capture --db "$DB" --run "$tag.btr" -d "/dev/$L" --quiet --buffer-kb 65536 \
		-- timeout -k 5 120 btreplay "$@" -d "$rec" "$L" > /dev/null 2> "$TEST_TMP/btr.err"; then
		offsets "$TEST_TMP/$tag.btr.off" "$(sqlite3 "$DB" "SELECT id FROM runs WHERE name = '$tag.btr'")" "$src"
	else
		echo "bench_replay: btreplay ($tag, traced) failed: $(tail -n 2 "$TEST_TMP/btr.err" | tr '\n' ' ')" >&2
	fi
}
# pcts_of FILE: pcts of FILE, or empty when FILE is
pcts_of() { [ -s "$1" ] && pcts "$1"; return 0; }

say "original timing: iotape replay --trace..."
"$IOTAPE" replay --db "$DB" trace --target "/dev/$L" --timing original --trace --run orig \
	--json --quiet > "$TEST_TMP/orig.json" || die "iotape replay --timing original failed"
offsets "$TEST_TMP/iotape.off" "$(sqlite3 "$DB" "SELECT id FROM runs WHERE name = 'orig'")" "$SRC"
"$IOTAPE" replay --db "$DB" trace --target "/dev/$L" --timing scale:0.5 --run half \
	--json --quiet > "$TEST_TMP/half.json" || die "iotape replay --timing scale:0.5 failed"
peers_timed sat "$BTTIN" "${BTRDIR:+$BTRDIR/rec}" "$SRC"
FIO_OFF=$(pcts_of "$TEST_TMP/sat.fio.off") BTR_OFF=$(pcts_of "$TEST_TMP/sat.btr.off")

# The saturated trace above measures the device: replayed at its original rate, the
# loop device falls behind and I/Os wait for a slot of the original depth (held).
# The scheduler is measured on a trace the device sustains: three fio processes at
# fixed rates (4k random reads, 64k sequential writes, 16k random writes, about
# 3,600 I/Os a second for 16 s), captured once into $BENCH_DIR, replayed by every
# tool with its writes (the target is this bench's scratch loop device).
MIX=$BENCH_DIR/mixed.bin MIXBTT=$BENCH_DIR/mixed.btt
if { [ ! -s "$MIX" ] || [ ! -s "$MIXBTT" ]; } && tracefs_check "$L"; then
	say "capturing the mixed trace (16 s) on $L..."
	TRACEFS_BUFFER_KB=65536 tracefs_capture "$MIX.tmp" "$L" -- fio --output=/dev/null \
		--filename="/dev/$L" --direct=1 --ioengine=io_uring --size=1G --runtime=16 \
		--time_based --randrepeat=1 --norandommap \
		--name=rr --rw=randread --bs=4k --iodepth=4 --rate_iops=3000 \
		--name=sw --rw=write --bs=64k --iodepth=2 --rate_iops=300 --offset=512m \
		--name=rw --rw=randwrite --bs=16k --iodepth=1 --rate_iops=300 \
		2> "$TEST_TMP/mix.err" && ! grep -q '^warning:' "$TEST_TMP/mix.err" &&
	blkparse -q -i - -d "$MIXBTT.tmp" -O < "$MIX.tmp" &&
	mv "$MIXBTT.tmp" "$MIXBTT" && mv "$MIX.tmp" "$MIX" ||
		echo "bench_replay: mixed capture failed: $(tail -n 2 "$TEST_TMP/mix.err" | tr '\n' ' ')" >&2
	rm -f "$MIX.tmp" "$MIXBTT.tmp"
fi
MIX_ROW= MREC= MSRC=
if [ -s "$MIX" ] && [ -s "$MIXBTT" ]; then
	"$IOTAPE" import --db "$DB" --run mixed --quiet "$MIX" || die "import of $MIX failed"
	MSRC=$(sqlite3 "$DB" "SELECT id FROM runs WHERE name = 'mixed'")
	say "mixed trace: iotape replay, untraced and traced..."
	"$IOTAPE" replay --db "$DB" mixed --target "/dev/$L" --allow-write --timing original \
		--run mixed.iotape --json --quiet > "$TEST_TMP/mix.json" ||
		die "iotape replay of the mixed trace failed"
	"$IOTAPE" replay --db "$DB" mixed --target "/dev/$L" --allow-write --timing original \
		--trace --run mixed.traced --json --quiet > "$TEST_TMP/mixt.json" ||
		die "iotape replay --trace of the mixed trace failed"
	offsets "$TEST_TMP/mix.iotape.off" "$(sqlite3 "$DB" "SELECT id FROM runs WHERE name = 'mixed.traced'")" "$MSRC"
	MREC=
	if [ -n "$BTRDIR" ]; then
		mkdir -p "$BTRDIR/mix/rec"
		ln -sf "$MIXBTT" "$BTRDIR/mix/$L.blktrace.0"
		$PIN btrecord -d "$BTRDIR/mix" -D "$BTRDIR/mix/rec" "$L" > /dev/null 2>&1 &&
			MREC=$BTRDIR/mix/rec
	fi
	DEPTH=$(jq -r '.[0].depth' "$TEST_TMP/mix.json") peers_timed mix "$MIXBTT" "$MREC" "$MSRC" -W
	MIX_ROW=$(jq -r '.[0] | [.issue_error_us.p50, .issue_error_us.p99, .issue_error_us.max,
		.issue_error_us.late_1ms, .issue_error_us.held, .own_error_us.p99, .span_s.original] | @tsv' \
		"$TEST_TMP/mix.json")
	MIXT_ROW=$(jq -r '.[0] | [.issue_error_us.p99, .issue_error_us.held, .own_error_us.p99] | @tsv' \
		"$TEST_TMP/mixt.json")
fi

# Timed replay under load (issue 32 item 2): the mixed trace replayed at its original
# timing with each of the scheduling thread's knobs (replay.c's sched_begin(), set from
# the environment), on a quiet machine and with a CPU hog (a shell busy loop, or
# stress-ng --cpu 1 where installed) on CPU 1, the other core of two; then, under the
# hog, traced: iotape, fio --read_iolog and btreplay, their Q offsets against the
# original's as above. BENCH_KNOBS: the settings, "|" between them (one or more
# VAR=VALUE each; "default" is none). Each replay is as long as the trace (16 s).
HOG=
hog_start() {
	if command -v stress-ng > /dev/null; then
		taskset -c 1 stress-ng --cpu 1 --quiet > /dev/null 2>&1 & HOG=$!
	else
		taskset -c 1 sh -c 'while :; do :; done' & HOG=$!
	fi
	HOG_WHAT=$(command -v stress-ng > /dev/null && echo "stress-ng --cpu 1" || echo "a shell busy loop")
}
hog_stop() { [ -n "$HOG" ] && kill "$HOG" 2> /dev/null && wait "$HOG" 2> /dev/null; HOG=; return 0; }
at_exit hog_stop
: > "$TEST_TMP/load.tsv"
HOG_WHAT=
if [ -n "$MIX_ROW" ]; then
	IFS='|' read -r -a knobs <<< "${BENCH_KNOBS-default|IOTAPE_REPLAY_FIFO=0|IOTAPE_REPLAY_SPIN_US=20|IOTAPE_REPLAY_SPIN_US=1000|IOTAPE_REPLAY_CPU=0|IOTAPE_REPLAY_MLOCK=1}"
	for hog in 0 1; do
		[ $hog = 1 ] && hog_start
		for k in "${knobs[@]}"; do
			say "mixed trace, hog $hog, $k..."
			env $( [ "$k" = default ] || echo "$k" ) "$IOTAPE" replay --db "$DB" mixed \
				--target "/dev/$L" --allow-write --timing original --run "load.$hog.$RANDOM" \
				--json --quiet > "$TEST_TMP/load.json" || { hog_stop; die "iotape replay ($k) failed"; }
			jq -r --arg h "$hog" --arg k "$k" '.[0] | [$h, $k, .issue_error_us.p50,
				.issue_error_us.p99, .issue_error_us.max, .own_error_us.p50,
				.own_error_us.p99, .own_error_us.max, .issue_error_us.held, .realtime,
				(.steal_pct // 0)] | @tsv' "$TEST_TMP/load.json" >> "$TEST_TMP/load.tsv"
		done
		if [ $hog = 1 ]; then
			say "mixed trace under the hog: iotape --trace..."
			"$IOTAPE" replay --db "$DB" mixed --target "/dev/$L" --allow-write \
				--timing original --trace --run mixhog.traced --json --quiet \
				> "$TEST_TMP/mixhog.json" || { hog_stop; die "iotape replay --trace (hog) failed"; }
			offsets "$TEST_TMP/mixhog.iotape.off" "$(sqlite3 "$DB" "SELECT id FROM runs WHERE name = 'mixhog.traced'")" "$MSRC"
			DEPTH=$(jq -r '.[0].depth' "$TEST_TMP/mix.json") peers_timed mixhog "$MIXBTT" "$MREC" "$MSRC" -W
		fi
		hog_stop
	done
fi

# The AFAP I/O phase against btreplay's (issue 32 item 6) on the mixed trace, where
# btreplay works: iotape replay --timing afap (its I/O phase: first issue to last
# completion) and btreplay -N -W (its wall time: it reports no I/O phase; reading its
# bunches is a small part), at the original depth, $REPS rounds interleaved, on CPU 0.
# btreplay keeps no depth of the trace (-N: each bunch of up to 8 I/Os submitted
# without waiting for the last), so iotape is timed at --depth $AFAP_DEEP (128) too:
# the same concurrency, and what is left is each tool's own cost an I/O.
AFAP_DEEP=${BENCH_AFAP_DEPTH:-128}
: > "$TEST_TMP/mafap.iotape"; : > "$TEST_TMP/mafap.btr"; : > "$TEST_TMP/mafap.deep"
if [ -n "$MIX_ROW" ]; then
	for ((i = 1; i <= REPS; i++)); do
		say "mixed trace as fast as possible, round $i of $REPS..."
		$PIN "$IOTAPE" replay --db "$DB" mixed --target "/dev/$L" --allow-write --timing afap \
			--run "mafap.$i" --json --quiet > "$TEST_TMP/mafap.json" || die "iotape afap (mixed) failed"
		jq -r '.[0].span_s.replay' "$TEST_TMP/mafap.json" >> "$TEST_TMP/mafap.iotape"
		MDEPTH=$(jq -r '.[0].depth' "$TEST_TMP/mafap.json")
		$PIN "$IOTAPE" replay --db "$DB" mixed --target "/dev/$L" --allow-write --timing afap \
			--depth "$AFAP_DEEP" --run "mafapd.$i" --json --quiet > "$TEST_TMP/mafap.json" ||
			die "iotape afap --depth $AFAP_DEEP (mixed) failed"
		jq -r '.[0].span_s.replay' "$TEST_TMP/mafap.json" >> "$TEST_TMP/mafap.deep"
		if [ -n "$MREC" ]; then
			t1=$(date +%s.%N)
			if timeout -k 5 60 $PIN btreplay -d "$MREC" -N -W "$L" > /dev/null 2>&1; then
				t2=$(date +%s.%N)
				awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f\n", b - a }' >> "$TEST_TMP/mafap.btr"
			fi
		fi
	done
fi

jq -r '.[0] | [.issue_error_us.p50, .issue_error_us.p99, .issue_error_us.max,
	.issue_error_us.late_1ms, .own_error_us.p99, .span_s.replay, .span_s.original,
	(.steal_pct // 0), .issue_error_us.held] | @tsv' "$TEST_TMP/orig.json" > "$TEST_TMP/orig.tsv"
jq -r '.[0] | [.issue_error_us.p50, .issue_error_us.p99, .issue_error_us.max,
	.issue_error_us.late_1ms, .own_error_us.p99, .span_s.replay, .span_s.original,
	(.steal_pct // 0)] | @tsv' "$TEST_TMP/half.json" > "$TEST_TMP/half.tsv"

awk -v nios="$NIOS" -v depth="$DEPTH" -v reps="$REPS" -v kernel="$(uname -r)" \
	-v cpus="$(nproc)" -v fiov="$(fio --version)" -v ver="$("$IOTAPE" --version)" \
	-v it="$(median "$TEST_TMP/iotape.iops")" -v fr="$(median "$TEST_TMP/fio_replay.iops")" \
	-v fw="$(median "$TEST_TMP/fio_raw.iops")" -v fl="$(median "$TEST_TMP/fio_lim.iops")" \
	-v itr="$(range "$TEST_TMP/iotape.iops")" -v frr="$(range "$TEST_TMP/fio_replay.iops")" \
	-v fwr="$(range "$TEST_TMP/fio_raw.iops")" -v flr="$(range "$TEST_TMP/fio_lim.iops")" \
	-v btr="$BTR" -v io_off="$(pcts "$TEST_TMP/iotape.off")" -v fio_off="$FIO_OFF" \
	-v btr_off="$BTR_OFF" -v iw="$(median "$TEST_TMP/iotape.wall")" \
	-v isp="$(median "$TEST_TMP/iotape.span")" -v irss="$(median "$TEST_TMP/iotape.rss")" \
	-v fw2="$(median "$TEST_TMP/fio_replay.wall")" -v brec="$BTR_REC_S" -v bs="$BTR_S" \
	-v orig="$(cat "$TEST_TMP/orig.tsv")" -v half="$(cat "$TEST_TMP/half.tsv")" \
	-v mix="$MIX_ROW" -v mixt="${MIXT_ROW:-}" -v mio="$(pcts_of "$TEST_TMP/mix.iotape.off")" \
	-v mfio="$(pcts_of "$TEST_TMP/mix.fio.off")" -v mbtr="$(pcts_of "$TEST_TMP/mix.btr.off")" \
	-v miom="$(pcts_of "$TEST_TMP/mix.iotape.off.med")" -v mfiom="$(pcts_of "$TEST_TMP/mix.fio.off.med")" \
	-v mbtrm="$(pcts_of "$TEST_TMP/mix.btr.off.med")" -v miog="$(pcts_of "$TEST_TMP/mix.iotape.off.gap")" \
	-v mfiog="$(pcts_of "$TEST_TMP/mix.fio.off.gap")" -v mbtrg="$(pcts_of "$TEST_TMP/mix.btr.off.gap")" '
function offrow(label, p) {
	if (p == "") { printf "    %-20s -\n", label; return }
	split(p, x, " ")
	printf "    %-20s %d %s %s %s\n", label, x[1], x[2], x[3], x[4] }
function row(task, iops, r) {
	printf "%-42s %9.0f %11s %7.2f\n", task, iops, r, (fl > 0 ? iops / fl : 0) }
BEGIN {
	printf "\niotape replay bench: %d 4k random reads (a fio capture), depth %d, on a\n", nios, depth
	printf "loop device over a file in /dev/shm; Linux %s, %d CPUs, %s, %s\n", kernel, cpus, ver, fiov
	printf "median (and range) of %d rounds, every tool on CPU 0\n\n", reps
	printf "%-42s %9s %11s %7s\n", "as fast as possible", "IOPS", "range", "x limit"
	printf "%-42s %9s %11s %7s\n", "------------------------------------------", "---------", "-----------", "-------"
	row("fio io_uring randread, tuned (the limit)", fl, flr)
	row("fio io_uring randread, defaults", fw, fwr)
	row("iotape replay --timing afap", it, itr)
	row("fio --read_iolog --replay_no_stall=1", fr, frr)
	if (btr ~ /^[0-9]+$/) row("btreplay -N", btr, "1 run")
	else if (btr != "") printf "%-42s %9s\n", "btreplay -N", btr
	printf "\niotape afap / fio replay_no_stall: %.2fx\n", (fr > 0 ? it / fr : 0)
	printf "(tuned: --fixedbufs --registerfiles, a whole depth per submit, --gtod_reduce)\n"
	split(orig, o, "\t"); split(half, h, "\t")
	printf "\ntimed replays, issue error in us\n"
	printf "  iotape original, vs schedule:    p50 %.1f p99 %.1f max %.1f, %d over 1 ms\n", o[1], o[2], o[3], o[4]
	printf "    own lag (vs free to go) p99 %.1f us; span %.3f s (original %.3f s); steal %.0f%%\n", o[5], o[6], o[7], o[8]
	printf "  iotape scale:0.5, vs schedule:   p50 %.1f p99 %.1f max %.1f, %d over 1 ms\n", h[1], h[2], h[3], h[4]
	printf "    own lag p99 %.1f us; span %.3f s (original %.3f s x 2); steal %.0f%%\n", h[5], h[6], h[7], h[8]
	printf "    %d I/Os held past their time for a slot of the original depth (the\n", o[9]
	printf "    device fell behind the original rate)\n"
	printf "  traced Q offset from the first vs the original, us (n p50 p99 max):\n"
	offrow("iotape original:", io_off)
	offrow("fio read_iolog:", fio_off)
	offrow("btreplay:", btr_off)
	if (mix != "") {
		split(mix, m, "\t"); split(mixt, t, "\t")
		printf "\nthe mixed trace (%.1f s: 4k random reads, 64k sequential and 16k random\n", m[7]
		printf "writes at fixed rates), original timing, issue error in us:\n"
		printf "  iotape, vs schedule:  p50 %.1f p99 %.1f max %.1f, %d over 1 ms, %d held\n", m[1], m[2], m[3], m[4], m[5]
		printf "    own lag p99 %.1f us; traced: p99 %.1f, %d held, own lag p99 %.1f\n", m[6], t[1], t[2], t[3]
		printf "  traced Q offset from the first vs the original, us (n p50 p99 max):\n"
		offrow("iotape --trace:", mio)
		offrow("fio read_iolog:", mfio)
		offrow("btreplay -W:", mbtr)
		printf "  the same about each tool\047s median offset, us (n p50 p99 max):\n"
		offrow("iotape --trace:", miom)
		offrow("fio read_iolog:", mfiom)
		offrow("btreplay -W:", mbtrm)
		printf "  inter-arrival error (each gap to the next Q against the original\047s), us:\n"
		offrow("iotape --trace:", miog)
		offrow("fio read_iolog:", mfiog)
		offrow("btreplay -W:", mbtrg)
	}
	printf "\nend to end, as fast as possible (median of %d; wall s, loading and storing too):\n", reps
	printf "  iotape replay: %.2f s (I/O %.2f s), peak RSS %.0f MiB\n", iw, isp, irss / 1024
	printf "  fio --read_iolog --replay_no_stall=1: %.2f s\n", fw2
	if (brec != "" && bs != "")
		printf "  btrecord %.2f s + btreplay -N %.2f s = %.2f s; iotape / that: %.2fx\n",
			brec, bs, brec + bs, iw / (brec + bs)
}'

# under load and the AFAP I/O phase (issue 32 items 2 and 6)
if [ -s "$TEST_TMP/load.tsv" ]; then
	awk -F '\t' -v hogw="$HOG_WHAT" -v mio="$(pcts_of "$TEST_TMP/mixhog.iotape.off")" \
		-v mfio="$(pcts_of "$TEST_TMP/mixhog.fio.off")" -v mbtr="$(pcts_of "$TEST_TMP/mixhog.btr.off")" \
		-v miom="$(pcts_of "$TEST_TMP/mixhog.iotape.off.med")" -v mbtrm="$(pcts_of "$TEST_TMP/mixhog.btr.off.med")" \
		-v mfiom="$(pcts_of "$TEST_TMP/mixhog.fio.off.med")" -v qio="$(pcts_of "$TEST_TMP/mix.iotape.off.med")" \
		-v qbtr="$(pcts_of "$TEST_TMP/mix.btr.off.med")" '
	function offrow(label, p) {
		if (p == "") { printf "    %-20s -\n", label; return }
		split(p, x, " ")
		printf "    %-20s %d %s %s %s\n", label, x[1], x[2], x[3], x[4] }
	{ n++; h[n] = $1; k[n] = $2; for (j = 3; j <= 11; j++) v[n, j] = $j
	  if ($2 == "default") def[$1] = n }
	END {
		printf "\ntimed replay under load: the mixed trace at its original timing, quiet and\n"
		printf "with a CPU hog (%s) on CPU 1; per knob of the scheduling thread\n", hogw
		printf "  %-4s %-28s %25s %25s %6s %3s\n", "hog", "knob", "vs schedule p50/p99/max", "own lag p50/p99/max", "held", "rt"
		for (i = 1; i <= n; i++)
			printf "  %-4s %-28s %7.1f %8.1f %8.1f %7.1f %8.1f %8.1f %6d %3d\n", h[i] ? "yes" : "no", k[i],
				v[i, 3], v[i, 4], v[i, 5], v[i, 6], v[i, 7], v[i, 8], v[i, 9], v[i, 10]
		printf "  (vs schedule: issue time minus scheduled time, us, with the I/Os held for a\n"
		printf "  slot of the original depth when the loop device fell behind; own lag: issue\n"
		printf "  time minus when the I/O was free to go, the scheduler\047s own part)\n"
		printf "  each knob against the default, own lag p99 (and vs schedule p99), us:\n"
		for (i = 1; i <= n; i++) {
			if (k[i] == "default" || !(h[i] in def)) continue
			d = def[h[i]]
			printf "    %-28s %s: %.1f against %.1f (%.2fx); vs schedule %.1f against %.1f\n", k[i],
				h[i] ? "hog  " : "quiet", v[i, 7], v[d, 7], (v[d, 7] > 0 ? v[i, 7] / v[d, 7] : 0),
				v[i, 4], v[d, 4]
		}
		printf "  traced Q offset from the first vs the original under the hog, us (n p50 p99 max):\n"
		offrow("iotape --trace:", mio)
		offrow("fio read_iolog:", mfio)
		offrow("btreplay -W:", mbtr)
		printf "  the same about each tool\047s median offset (quiet: iotape, btreplay above):\n"
		offrow("iotape --trace:", miom)
		offrow("fio read_iolog:", mfiom)
		offrow("btreplay -W:", mbtrm)
		printf "  (fio reports no lateness of its own; the peers are measured traced as iotape)\n"
	}' "$TEST_TMP/load.tsv"
fi
if [ -s "$TEST_TMP/mafap.iotape" ]; then
	mi=$(median "$TEST_TMP/mafap.iotape")
	mb=$([ -s "$TEST_TMP/mafap.btr" ] && median "$TEST_TMP/mafap.btr")
	awk -v mi="$mi" -v mb="$mb" -v md="$(median "$TEST_TMP/mafap.deep")" -v dd="$AFAP_DEEP" -v nb="$(wc -l < "$TEST_TMP/mafap.btr")" -v d="$MDEPTH" -v reps="$REPS" -v nios="$NIOS" -v isp="$(median "$TEST_TMP/iotape.span")" \
		-v fl="$(median "$TEST_TMP/fio_lim.iops")" -v bs="$BTR_S" -v btr="$BTR" -v depth="$DEPTH" 'BEGIN {
		printf "\nthe AFAP I/O phase (median of %d, s):\n", reps
		if (mb != "")
			printf "  mixed trace, depth %d: iotape %.3f, btreplay -N -W %.3f (wall, %d of %d rounds finished\n    in 60 s); iotape / btreplay %.2fx\n", d, mi, mb, nb, reps, mi / mb
		else
			printf "  mixed trace, depth %d: iotape %.3f, btreplay did not run\n", d, mi
		if (md != "")
			printf "  mixed trace, iotape --depth %d (btreplay -N keeps no depth): %.3f%s\n", dd, md,
				(mb != "" ? sprintf("; iotape / btreplay %.2fx", md / mb) : "")
		printf "  saturated trace, %d reads at depth %d: iotape %.3f, fio tuned %.3f; iotape / fio %.2fx\n",
			nios, depth, isp, (fl > 0 ? nios / fl : 0), (fl > 0 ? isp / (nios / fl) : 0)
		if (bs != "")
			printf "    btreplay -N %.3f; iotape / btreplay %.2fx\n", bs, isp / bs
		else if (btr != "")
			printf "    btreplay -N: %s\n", btr
	}'
fi

# issue 16's rows
if [ -n "${BENCH_ROWS:-}" ]; then
	awk -v OFS='\t' -v nios="$NIOS" -v iw="$(median "$TEST_TMP/iotape.wall")" \
		-v isp="$(median "$TEST_TMP/iotape.span")" -v irss="$(median "$TEST_TMP/iotape.rss")" \
		-v fw2="$(median "$TEST_TMP/fio_replay.wall")" -v brec="$BTR_REC_S" -v bs="$BTR_S" \
		-v span="$(cut -f7 "$TEST_TMP/orig.tsv")" -v io_off="$(pcts "$TEST_TMP/iotape.off")" \
		-v btr_off="$BTR_OFF" -v fio_off="$FIO_OFF" -v held="$(cut -f9 "$TEST_TMP/orig.tsv")" \
		-v mix="$MIX_ROW" -v mio="$(pcts_of "$TEST_TMP/mix.iotape.off")" \
		-v mfio="$(pcts_of "$TEST_TMP/mix.fio.off")" -v mbtr="$(pcts_of "$TEST_TMP/mix.btr.off")" \
		-v miom="$(pcts_of "$TEST_TMP/mix.iotape.off.med")" -v mbtrm="$(pcts_of "$TEST_TMP/mix.btr.off.med")" \
		-v miog="$(pcts_of "$TEST_TMP/mix.iotape.off.gap")" '
	# timed_row WORK IOTAPE BTREPLAY FIO NOTE: offsets "n p50 p99 max" of each ("" when
	# the tool did not run)
	function timed_row(work, io, bt, fi, note,   a, b, c, peer, ratio) {
		split(io, a, " ")
		peer = ""
		if (bt != "") { split(bt, b, " "); peer = sprintf("btreplay offset p99 %s us", b[3]) }
		if (fi != "") { split(fi, c, " "); peer = peer (peer == "" ? "" : "; ") sprintf("fio p99 %s us", c[3]) }
		ratio = (bt != "" && b[3] > 0) ? sprintf("p99 %.2fx btreplay", a[3] / b[3]) : "-"
		print work, (peer == "" ? "-" : peer), sprintf("offset p50 %s p99 %s max %s us; %s",
			a[2], a[3], a[4], note), ratio, "offset p99 <= 50 us"
	}
	BEGIN {
		if (bs != "") {
			peer = sprintf("btreplay %.2f s (+ btrecord %.2f s), fio %.2f s", bs, brec, fw2)
			ratio = sprintf("%.2fx btrecord+btreplay", iw / (brec + bs))
		} else {
			peer = sprintf("fio %.2f s (btreplay did not run)", fw2)
			ratio = sprintf("%.2fx fio", iw / fw2)
		}
		print sprintf("replay AFAP, %dk I/Os", nios / 1000), peer,
			sprintf("I/O %.2f s, %.2f s end to end, %.0f MiB", isp, iw, irss / 1024), ratio,
			"end to end <= btrecord + btreplay; RSS bounded"
		timed_row(sprintf("replay timed, %.0f s saturated", span), io_off, btr_off, fio_off,
			sprintf("device-bound: %d held", held))
		if (mix != "") {
			split(mix, m, "\t")
			split(miom, a, " "); split(mbtrm, b, " "); split(miog, g, " ")
			timed_row(sprintf("replay timed, %.0f s mixed", m[7]), mio, mbtr, mfio,
				sprintf("about the median p99 %s (btreplay %s); inter-arrival p99 %s; untraced vs schedule p99 %.1f",
				a[3], (mbtrm == "" ? "-" : b[3]), g[3], m[2]))
		}
	}' >> "$BENCH_ROWS"
fi
# issue 32's rows: timed replay under a CPU hog, the AFAP I/O phase
if [ -n "${BENCH_ROWS:-}" ] && [ -s "$TEST_TMP/load.tsv" ]; then
	awk -F '\t' -v OFS='\t' -v miom="$(pcts_of "$TEST_TMP/mixhog.iotape.off.med")" \
		-v mbtrm="$(pcts_of "$TEST_TMP/mixhog.btr.off.med")" '
	$1 == 1 && $2 == "default" { sp99 = $4; own99 = $7; held = $9 }
	END {
		split(miom, a, " "); split(mbtrm, b, " ")
		print "replay timed, mixed, CPU hog", (mbtrm == "" ? "-" : sprintf("btreplay traced offset p99 %s us (about its median)", b[3])),
			sprintf("own lag p99 %.1f us; vs schedule p99 %.1f (%d held); traced offset p99 %s about the median",
				own99, sp99, held, (miom == "" ? "-" : a[3])),
			(mbtrm != "" && miom != "" && b[3] > 0 ? sprintf("%.2fx btreplay", a[3] / b[3]) : "-"),
			"offset p99 <= 50 us with a CPU hog"
	}' "$TEST_TMP/load.tsv" >> "$BENCH_ROWS"
fi
if [ -n "${BENCH_ROWS:-}" ] && [ -s "$TEST_TMP/mafap.iotape" ]; then
	awk -v OFS='\t' -v mi="$(median "$TEST_TMP/mafap.iotape")" \
		-v mb="$([ -s "$TEST_TMP/mafap.btr" ] && median "$TEST_TMP/mafap.btr")" -v d="$MDEPTH" \
		-v md="$(median "$TEST_TMP/mafap.deep")" -v dd="$AFAP_DEEP" 'BEGIN {
		print "replay AFAP I/O phase, mixed", (mb == "" ? "btreplay did not run" : sprintf("btreplay -N %.3f s", mb)),
			sprintf("I/O %.3f s at depth %d, %.3f s at depth %d", mi, d, md, dd),
			(mb == "" ? "-" : sprintf("%.2fx / %.2fx btreplay", mi / mb, md / mb)),
			"within 1.10x btreplay (at its depth)"
	}' >> "$BENCH_ROWS"
fi
