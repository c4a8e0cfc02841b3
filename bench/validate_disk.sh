# bench/validate_disk.sh: is `iotape disk` the model, through the block device?
# Not part of `make test` (minutes); `make validate-disk` runs it. Parts (all by
# default; name some to run only those):
#  random   4 KiB random reads at depth 1 on desktop-2006 at its full size (500 GB,
#           sparse): fio's completion time, the trace's D2C (iotape capture -d NAME)
#           and the model's own service time, against overhead + average seek + half
#           a turn + transfer (12.9 ms).
#  seq      sequential 1 MiB reads at depth 1 and 4 in the outer and the inner zone:
#           fio's MB/s against the zones' sustained rates (64.8 and 31.0 MB/s).
#  disksim  the DiskSim 4.0 validation traces (requests to real SCSI disks with their
#           measured response times; IOTAPE_DISKSIM_VALID names their folder, files
#           NAME.trace): the first DISKSIM_N requests of each imported; a profile
#           fitted to them (iotape model fit); replayed offline on the model (replay
#           --target model:PROFILE) and in real time on a disk of that profile (replay
#           --target NAME --trace, the block layer's D2C), once as it is and once
#           with --compensate: D2C mean, p50, p95 of the real disk, the offline
#           model and the live disk, and their errors.
# Environment: IOTAPE, VALIDATE_DIR (/var/tmp/iotape-validate), RANDOM_SECONDS (30),
# SEQ_SECONDS (8), IOTAPE_DISKSIM_VALID, DISKSIM_TRACES (atlas_III atlas10k),
# DISKSIM_N (1500: about a minute each).

. "$(dirname "$0")/../tests/lib.sh"

V=${VALIDATE_DIR:-/var/tmp/iotape-validate}
DB=$V/validate.db
die() { echo "validate_disk: $*" >&2; exit 1; }
say() { echo "validate_disk: $*" >&2; }
[ -x "$IOTAPE" ] || die "no iotape binary at $IOTAPE (run make)"
[ "$(id -u)" = 0 ] || die "needs root"
for tool in fio jq sqlite3; do command -v $tool > /dev/null || die "needs $tool"; done
mkdir -p "$V" || die "cannot make $V"
export TMPDIR=$V
parts=${*:-random seq disksim}
name=val-$$
at_exit "'$IOTAPE' disk stop --force $name > /dev/null 2>&1"

# lab RUN CMD...: CMD, again once another job's capture ended when a replay
# refused to start beside it (its state file is there while it runs)
lab() {
	local i
	for i in 1 2 3 4 5 6; do
		"$@" 2> "$V/lab.err" && return 0
		grep -q "left the machine changed" "$V/lab.err" || { cat "$V/lab.err" >&2; return 1; }
		TRACEFS_LOCK_WAIT=1800 locked true
	done
	return 1
}

# report_d2c RUN: "n mean_ms p50_ms p95_ms" of the run's D2C
report_d2c() {
	"$IOTAPE" report --db "$DB" --json "$1" |
		jq -r '.all.d2c | "\(.n) \(.mean_us / 1000) \(.p50_us / 1000) \(.p95_us // .p90_us | . / 1000)"'
}

random() {
	local dev clat svc d2c
	dev=$("$IOTAPE" disk start --name "$name" --model desktop-2006) || die "cannot start a disk"
	"$IOTAPE" rm --db "$DB" random > /dev/null 2>&1
	say "random 4 KiB reads at depth 1 for ${RANDOM_SECONDS:-30} s, traced..."
	"$IOTAPE" capture --db "$DB" --run random --quiet -d "$name" --cmd \
		"fio --name=r --filename=$dev --rw=randread --bs=4k --direct=1 --ioengine=psync --runtime=${RANDOM_SECONDS:-30} --time_based --output-format=json --output=$V/random.json" \
		> /dev/null || die "capture failed"
	"$IOTAPE" disk stats --json "$name" > "$V/random.stats.json"
	clat=$(jq '.jobs[0].read.clat_ns.mean / 1e6' "$V/random.json")
	svc=$(jq '.model_service.mean_us / 1000' "$V/random.stats.json")
	d2c=$(report_d2c random)
	"$IOTAPE" disk stop "$name"
	"$IOTAPE" model list desktop-2006 | grep "random 4 KiB read about"
	printf 'random 4 KiB reads, depth 1, desktop-2006 (500 GB):\n'
	printf '  model (daemon)  %6.2f ms mean service, %d requests\n' "$svc" "$(jq .model_service.n "$V/random.stats.json")"
	printf '  trace D2C       %6.2f ms mean, p50 %.2f, p95 %.2f (n %d)\n' "$(cut -d' ' -f2 <<< "$d2c")" \
		"$(cut -d' ' -f3 <<< "$d2c")" "$(cut -d' ' -f4 <<< "$d2c")" "$(cut -d' ' -f1 <<< "$d2c")"
	printf '  fio clat        %6.2f ms mean\n' "$clat"
	jq -r '"  late            \(.late.mean_us | floor) us mean, p99 \(.late.p99_us | floor)\n  host overhead   \(.overhead.mean_us | floor) us mean, p50 \(.overhead.p50_us | floor), p99 \(.overhead.p99_us | floor)"' "$V/random.stats.json"
}

seq_part() {
	local dev
	dev=$("$IOTAPE" disk start --name "$name" --model desktop-2006 --size 100G) || die "cannot start a disk"
	printf 'sequential 1 MiB reads, desktop-2006 of 100 GB (zones 0 and 29: 64.8 and 31.0 MB/s)\n'
	for where in outer inner; do
		local off=0
		[ $where = inner ] && off=$((100 * 1024 - 2048))
		for depth in 1 4; do
			fio --name=s --filename="$dev" --rw=read --bs=1M --direct=1 --ioengine=io_uring \
				--iodepth=$depth --offset=${off}M --size=2G --runtime=${SEQ_SECONDS:-8} --time_based \
				--output-format=json > "$V/seq.json" 2> /dev/null || die "fio failed"
			printf '  %s zone, depth %d: %6.1f MB/s\n' $where $depth \
				"$(jq '.jobs[0].read.bw_bytes / 1e6' "$V/seq.json")"
		done
	done
	"$IOTAPE" disk stop "$name"
}

disksim() {
	local vd=${IOTAPE_DISKSIM_VALID:-} n=${DISKSIM_N:-1500} d
	if [ -z "$vd" ] || [ ! -d "$vd" ]; then
		echo "disksim: skipped (IOTAPE_DISKSIM_VALID names no folder of DiskSim 4.0's valid/*.trace)"
		return 0
	fi
	printf 'DiskSim 4.0 validation traces, first %d requests each; D2C in ms\n' "$n"
	printf '  %-12s %-11s %7s %7s %7s   %s\n' trace disk mean p50 p95 "mean error vs real"
	for d in ${DISKSIM_TRACES:-atlas_III atlas10k}; do
		[ -r "$vd/$d.trace" ] || { echo "  $d: no $vd/$d.trace"; continue; }
		# Q and D at the arrival, C at arrival + the measured response (blkparse text)
		head -n "$n" "$vd/$d.trace" | awk '{ o = ($1 == "W") ? "W" : "R"
			printf "%.9f 0 Q %s %d %d\n%.9f 1 D %s %d %d\n%.9f 2 C %s %d %d\n",
				at / 1e6, o, $3, $4, at / 1e6, o, $3, $4, (at + $5) / 1e6, o, $3, $4
			at += $6 }' | sort -s -g -k1,1 -k2,2 |
			awk '{ printf "  8,0    0 %8d %14.9f  4242  %s   %s %d + %d [%s]\n", NR, $1, $3, $4,
				$5, $6, ($3 == "C") ? "0" : "disksim" }' > "$V/$d.txt"
		"$IOTAPE" rm --db "$DB" "$d" > /dev/null 2>&1
		"$IOTAPE" rm --db "$DB" "$d-offline" > /dev/null 2>&1
		"$IOTAPE" import --db "$DB" --run "$d" --quiet "$V/$d.txt" || die "import $d"
		"$IOTAPE" model fit --db "$DB" "$d" -o "$V/$d.profile" > "$V/$d.fit" || die "model fit $d"
		lab "$IOTAPE" replay --db "$DB" "$d" --target "model:$V/$d.profile" --run "$d-offline" \
			--quiet > /dev/null || die "offline replay of $d"
		local v real off live comp
		for v in live comp; do
			"$IOTAPE" disk start --name "$name" --model "$V/$d.profile" \
				$([ $v = comp ] && echo --compensate) > /dev/null || die "disk of $d"
			say "$d: replaying $n requests in real time ($v)..."
			"$IOTAPE" rm --db "$DB" "$d-$v" > /dev/null 2>&1
			lab "$IOTAPE" replay --db "$DB" "$d" --target "$name" --level dispatch --allow-write \
				--trace --run "$d-$v" --quiet > /dev/null || die "live replay of $d"
			"$IOTAPE" disk stats --json "$name" > "$V/$d.$v.stats.json"
			"$IOTAPE" disk stop "$name"
		done
		real=$(report_d2c "$d") off=$(report_d2c "$d-offline") live=$(report_d2c "$d-live")
		comp=$(report_d2c "$d-comp")
		awk -v d="$d" -v r="$real" -v o="$off" -v l="$live" -v c="$comp" 'BEGIN {
			split(r, R, " "); split(o, O, " "); split(l, L, " "); split(c, C, " ")
			printf "  %-12s %-11s %7.2f %7.2f %7.2f\n", d, "real", R[2], R[3], R[4]
			printf "  %-12s %-11s %7.2f %7.2f %7.2f   %+.1f%%\n", "", "offline", O[2], O[3], O[4], 100 * (O[2] / R[2] - 1)
			printf "  %-12s %-11s %7.2f %7.2f %7.2f   %+.1f%% (against offline %+.1f%%)\n", "",
				"live", L[2], L[3], L[4], 100 * (L[2] / R[2] - 1), 100 * (L[2] / O[2] - 1)
			printf "  %-12s %-11s %7.2f %7.2f %7.2f   %+.1f%% (against offline %+.1f%%)\n", "",
				"compensated", C[2], C[3], C[4], 100 * (C[2] / R[2] - 1), 100 * (C[2] / O[2] - 1) }'
		for v in live comp; do
			jq -r --arg v "$v" '"  \(" " * 12) \($v): model in the daemon \(.model_service.mean_us / 10 | floor / 100) ms, late \(.late.mean_us | floor) us, host overhead \(.overhead.mean_us | floor) us mean (p50 \(.overhead.p50_us | floor)), arrivals \(.compensate_us | floor) us earlier"' "$V/$d.$v.stats.json"
		done
	done
}

for p in $parts; do
	case $p in
	random) random ;;
	seq) seq_part ;;
	disksim) disksim ;;
	*) die "unknown part '$p' (random, seq, disksim)" ;;
	esac
done
