# bench/bench_model.sh: `make bench`, modelled-disk part (bench.sh runs it at its end).
# Simulated I/Os per second of `iotape replay --target model:desktop-2006` on a run of
# 1M 4 KiB I/Os (3 reads to 1 write, uniform over the disk, 8 processes, one every
# 0.1 ms): once as the trace had them one at a time (depth 1) and once with 3 ms
# completions (about 30 in flight: the disk's SPTF queue picks among them). The
# simulation's own CPU time is what replay reports (replay.model.sim_wall_s); the
# command's wall time adds loading the run and storing 1M replayed requests.
# Environment: IOTAPE, BENCH_DIR (/var/tmp/iotape-bench), BENCH_MODEL_IOS (1000000).

. "$(dirname "$0")/../tests/lib.sh"

BENCH_DIR=${BENCH_DIR:-/var/tmp/iotape-bench}
NIOS=${BENCH_MODEL_IOS:-1000000}
DB=$TEST_TMP/model.db

die() { echo "bench_model: $*" >&2; exit 1; }
say() { [ -t 2 ] && echo "bench_model: $*" >&2; return 0; }

[ -x "$IOTAPE" ] || die "no iotape binary at $IOTAPE (run make)"
command -v jq > /dev/null || die "needs jq (make deps)"
mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"

# gen LATENCY_S: blkparse text of NIOS I/Os, Q and D at i x 0.1 ms, C LATENCY_S later,
# in time order (completions wait in a FIFO: one latency for all)
gen() {
	awk -v n="$NIOS" -v lat="$1" 'BEGIN {
		srand(7); seq = 0; h = 0; t2 = 0
		for (i = 0; i < n; i++) {
			t = i * 0.0001
			while (t2 < h && ct[t2] <= t) { emit("C", ct[t2], cp[t2], co[t2], cs[t2], "[0]"); t2++ }
			s = int(rand() * 120000000) * 8; p = 1000 + i % 8; op = (i % 4 == 3) ? "W" : "R"
			emit("Q", t, p, op, s, "[bench]"); emit("D", t, p, op, s, "[bench]")
			ct[h] = t + lat; cp[h] = p; co[h] = op; cs[h] = s; h++
		}
		while (t2 < h) { emit("C", ct[t2], cp[t2], co[t2], cs[t2], "[0]"); t2++ }
	}
	function emit(a, tt, pid, o, sec, tail) {
		printf "  8,0    0 %8d %14.9f %5d  %s   %s %d + 8 %s\n", ++seq, tt, pid, a, o, sec, tail
	}'
}

for lat in 0.00005 0.003; do
	f=$BENCH_DIR/model-$NIOS-$lat.txt
	if [ ! -s "$f" ]; then
		say "writing $f..."
		gen "$lat" > "$f.tmp" && mv "$f.tmp" "$f" || die "cannot write $f"
	fi
	"$IOTAPE" import --quiet --db "$DB" --run "lat$lat" "$f" || die "import of $f failed"
done

row() {   # row LABEL RUN
	local t0 t1 js
	t0=$(date +%s.%N)
	js=$("$IOTAPE" replay --db "$DB" "$2" --target model:desktop-2006 --timing afap \
		--run "m-$2" --json --quiet) || die "iotape replay of $2 failed"
	t1=$(date +%s.%N)
	printf '%s\n' "$js" | jq -r --arg l "$1" --arg w "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		'.[0] | [$l, .depth, .ios.replay, .model.sim_wall_s, .model.sim_ios_per_s,
		 .model.simulated_s, ($w | tonumber)] | @tsv'
}
say "replaying on the modelled disk..."
{
	row "1M I/Os one at a time" lat0.00005
	row "1M I/Os, ~30 in flight (SPTF)" lat0.003
} > "$TEST_TMP/model.tsv"
awk -F'\t' -v ver="$("$IOTAPE" --version)" -v cpus="$(nproc)" '
BEGIN {
	printf "\nmodelled disk (iotape replay --target model:desktop-2006 --timing afap), %s, %d CPUs\n", ver, cpus
	printf "%-32s %5s %8s %7s %11s %10s %7s\n", "run", "depth", "I/Os", "sim s", "sim I/Os/s", "disk s", "cmd s"
	printf "%-32s %5s %8s %7s %11s %10s %7s\n", "--------------------------------", "-----", "--------", "-------", "-----------", "----------", "-------"
}
{ printf "%-32s %5d %8d %7.2f %11.0f %10.0f %7.1f\n", $1, $2, $3, $4, $5, $6, $7 }
END {
	printf "(sim: CPU time of the simulation; disk s: the simulated disk time it covered;\n"
	printf "cmd: the whole command, loading the run and storing every replayed request)\n"
}' "$TEST_TMP/model.tsv"
