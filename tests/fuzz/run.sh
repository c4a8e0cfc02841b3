#!/usr/bin/env bash
# tests/fuzz/run.sh SECONDS [NAME...]: runs each libFuzzer harness in
# build-fuzz/ (or the NAMEs given) for SECONDS at nice 19 (inputs up to 64
# KiB), seeded from the tests' fixtures and ../shared/corpus (copied into
# build-fuzz/corpus-NAME, never into the tree), and prints the executions of
# each. New inputs go to build-fuzz/keep-NAME, minimised (libFuzzer
# -merge=1) after each run, so the next run on this machine starts where
# this one stopped; they stay out of the tree, since the seeds include the
# public traces of ../shared/corpus that must not be copied into it. Crashes land in build-fuzz/crash-NAME-*: make each a fixture
# in tests/fixtures/fuzz/ (tests/cli/t_fuzz_fixtures.sh replays them; for
# stitch, IOTAPE_FUZZ_WRITE=FILE build-fuzz/fuzz_stitch CRASH writes it as a
# trace).
set -u
secs=${1:-60}
shift
harnesses=${*:-blktrace trace_input blkparse_text vmstat_text stitch fmt_fio fmt_msr fmt_systor fmt_cloudphysics fmt_blkreplay fmt_iostat fmt_time}
top=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$top/../shared/corpus
b=$top/build-fuzz
status=0
seed() {  # seed NAME FILE...: copy seeds (their first 64 KiB)
	local name=$1 f; shift
	mkdir -p "$b/corpus-$name"
	for f in "$@"; do
		[ -f "$f" ] || continue
		head -c 65536 "$f" > "$b/corpus-$name/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
	done
}
seed blktrace "$top"/tests/fixtures/*.bin "$top"/tests/fixtures/variants/* "$top"/tests/fixtures/bad/*.bin \
	"$corpus"/*/*.blktrace.* "$corpus"/romeus-loop-blkparse-d/*.bin
seed trace_input "$top"/tests/fixtures/variants/* "$corpus"/asifazamali-sda1/*
seed blkparse_text "$corpus"/*/*.txt "$top"/tests/fixtures/bad/not-blkparse.txt
seed vmstat_text "$top"/tests/fixtures/vmstat/* "$corpus"/vmstat-*/vmstat.log "$corpus"/seed-debsums-patch/*/vmstat*.log
# the import formats' harnesses: our own fixtures only (written by
# tests/fixtures/make-import-fixtures.py, and our vmstat recordings)
I=$top/tests/fixtures/import X=$top/tests/fixtures/bad
seed fmt_fio "$I"/*.iolog "$X"/*.iolog
seed fmt_msr "$I"/msr-*.csv "$X"/msr-*.csv
seed fmt_systor "$I"/systor17*.csv "$X"/systor17-*.csv
seed fmt_cloudphysics "$I"/cloudphysics*.csv "$X"/cloudphysics-*.csv
seed fmt_blkreplay "$I"/*.load "$X"/*.load
seed fmt_iostat "$I"/iostat-*.log "$X"/iostat-* "$X"/not-blkparse.txt
seed fmt_time "$I"/time-*.txt "$X"/time-*.txt "$top"/tests/fixtures/vmstat/*
printf '%-16s %10s %12s %8s %s\n' harness seconds executions exec/s result
for h in $harnesses; do
	log=$b/fuzz-$h.log
	keep=$b/keep-$h
	mkdir -p "$keep" "$b/corpus-$h"
	# inputs kept small: small inputs mutate faster
	case $h in
	stitch) len=2048 ;;                    # 680 generated events
	blkparse_text|vmstat_text) len=8192 ;; # a hundred lines
	*) len=65536 ;;
	esac
	nice -n 19 "$b/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=$len -print_final_stats=1 -artifact_prefix="$b/crash-$h-" \
		"$keep" "$b/corpus-$h" > "$log" 2>&1
	rc=$?
	# keep the smallest set of inputs that covers what the corpus covers
	rm -rf "$b/min-$h" && mkdir -p "$b/min-$h" &&
	nice -n 19 "$b/fuzz_$h" -merge=1 -max_len=$len "$b/min-$h" "$keep" \
		> "$b/merge-$h.log" 2>&1 &&
	rm -rf "$keep" && mv "$b/min-$h" "$keep"
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	r=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	res=ok
	[ $rc != 0 ] && { res="FOUND (see $log)"; status=1; }
	printf '%-16s %10s %12s %8s %s\n' "$h" "$secs" "${n:-?}" "${r:-?}" "$res"
done
exit $status
