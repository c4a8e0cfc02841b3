#!/usr/bin/env bash
# tests/fuzz/run.sh SECONDS: runs each libFuzzer harness in build-fuzz/ for
# SECONDS (inputs up to 64 KiB), seeded from the tests' fixtures and ../shared/corpus (copied into
# build-fuzz/corpus-NAME, never into the tree), and prints the executions of
# each. Crashes land in build-fuzz/crash-NAME-*: make each a fixture in
# tests/fixtures/fuzz/ (tests/cli/t_fuzz_fixtures.sh replays them).
set -u
secs=${1:-60}
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
printf '%-16s %10s %12s %8s %s\n' harness seconds executions exec/s result
for h in blktrace trace_input blkparse_text vmstat_text; do
	log=$b/fuzz-$h.log
	"$b/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$b/crash-$h-" \
		"$b/corpus-$h" > "$log" 2>&1
	rc=$?
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	r=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	res=ok
	[ $rc != 0 ] && { res="FOUND (see $log)"; status=1; }
	printf '%-16s %10s %12s %8s %s\n' "$h" "$secs" "${n:-?}" "${r:-?}" "$res"
done
exit $status
