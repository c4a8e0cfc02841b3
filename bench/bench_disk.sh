# bench/bench_disk.sh: `make bench`, the modelled disk in real time (`iotape disk`;
# bench.sh runs it unless BENCH_SKIP names "disk"). Each row beside its peer from
# the same run:
#  - the daemon's ceiling: 4 KiB random reads (fio, io_uring, depth 32, and depth 1)
#    on a disk started with --zero-time (answered at once, no model) against a
#    loop device with direct I/O over a plain file in the same folder;
#  - the host's overhead per request (FUSE and loop: the trace's D2C less the
#    daemon's answer time, `iotape disk stats`), p50 and p99, at depth 1;
#  - the model's lateness (answer - modelled completion) p50 and p99 at 100, 1,000
#    and 10,000 modelled I/Os per second: profiles whose every read is a buffer
#    hit (hit_rate 1) costing 10, 1 and 0.1 ms, kept busy at depth 4, with the
#    default spin (100 us) and, at 100, without.
# Needs root, /dev/fuse, fio. Environment: IOTAPE, BENCH_DISK_SECONDS (5 per fio
# run), TMPDIR (the backing files; /var/tmp).

. "$(dirname "$0")/../tests/lib.sh"

SECS=${BENCH_DISK_SECONDS:-5}
die() { echo "bench_disk: $*" >&2; exit 1; }
say() { [ -t 2 ] && echo "bench_disk: $*" >&2; return 0; }

[ -x "$IOTAPE" ] || die "no iotape binary at $IOTAPE (run make)"
[ "$(id -u)" = 0 ] || die "needs root (FUSE, loop devices)"
[ -c /dev/fuse ] || die "no /dev/fuse"
for tool in fio jq; do command -v $tool > /dev/null || die "needs $tool (make deps)"; done

export TMPDIR=${TMPDIR:-/var/tmp}
name=bench-$$
at_exit "'$IOTAPE' disk stop --force $name > /dev/null 2>&1"
rows=$TEST_TMP/rows.tsv
: > "$rows"

# fio_run DEV DEPTH [SECONDS]: "IOPS CLAT_P50_US CLAT_P99_US" of 4 KiB random reads
fio_run() {
	fio --name=b --filename="$1" --rw=randread --bs=4k --direct=1 --ioengine=io_uring \
		--iodepth="$2" --runtime="${3:-$SECS}" --time_based --randrepeat=0 \
		--output-format=json 2> /dev/null |
		jq -r '.jobs[0].read | "\(.iops) \(.clat_ns.percentile["50.000000"] / 1000) \(.clat_ns.percentile["99.000000"] / 1000)"'
}

# disk_up PROFILE [OPTIONS...]: start disk $name, sets DEV
disk_up() {
	local prof=$1; shift
	"$IOTAPE" disk stop --force "$name" > /dev/null 2>&1
	DEV=$("$IOTAPE" disk start --name "$name" --model "$prof" --size 1G "$@") ||
		die "cannot start a disk ($prof)"
}

# ---- the ceiling: zero time against a plain loop device ---------------------------------
plain=$(mktemp "$TMPDIR/bench-disk-plain.XXXXXX") || die "cannot make a file in $TMPDIR"
at_exit "rm -f '$plain'"
truncate -s 1G "$plain"
loop_attach "$plain" --direct-io=on || die "cannot attach a loop device"
PLAIN=/dev/$LOOPDEV
echo mq-deadline > /sys/block/$LOOPDEV/queue/scheduler 2> /dev/null
say "4 KiB random reads: plain loop device against the zero-time disk..."
read -r p32 pp50 pp99 <<< "$(fio_run "$PLAIN" 32)"
read -r p1 p1p50 p1p99 <<< "$(fio_run "$PLAIN" 1)"
disk_up desktop-2006 --zero-time
read -r z32 zp50 zp99 <<< "$(fio_run "$DEV" 32)"
"$IOTAPE" disk stats --json "$name" > "$TEST_TMP/z32.json"
disk_up desktop-2006 --zero-time
read -r z1 z1p50 z1p99 <<< "$(fio_run "$DEV" 1)"
"$IOTAPE" disk stats --json "$name" > "$TEST_TMP/z1.json"
printf '%s\t%s\t%s\t%s\n' "4k randread depth 32, I/Os per s" \
	"$(printf 'plain loop %.0f' "$p32")" "$(printf 'disk, zero time %.0f' "$z32")" \
	"$(awk -v a="$z32" -v b="$p32" 'BEGIN { printf "%.2fx", a / b }')" >> "$rows"
printf '%s\t%s\t%s\t%s\n' "4k randread depth 1, I/Os per s" \
	"$(printf 'plain loop %.0f' "$p1")" "$(printf 'disk, zero time %.0f' "$z1")" \
	"$(awk -v a="$z1" -v b="$p1" 'BEGIN { printf "%.2fx", a / b }')" >> "$rows"
printf '%s\t%s\t%s\t%s\n' "  completion p50/p99 us, depth 1" \
	"$(printf 'plain loop %.0f / %.0f' "$p1p50" "$p1p99")" \
	"$(printf 'disk, zero time %.0f / %.0f' "$z1p50" "$z1p99")" \
	"$(awk -v a="$z1p50" -v b="$p1p50" 'BEGIN { printf "+%.0f us p50", a - b }')" >> "$rows"
printf '%s\t%s\t%s\t%s\n' "host overhead per request us" "(FUSE + loop, measured)" \
	"$(jq -r '.overhead | "p50 \(.p50_us | floor) / p99 \(.p99_us | floor) (n \(.n))"' "$TEST_TMP/z1.json")" \
	"$(jq -r '.overhead | "depth 32: \(.p50_us | floor) / \(.p99_us | floor)"' "$TEST_TMP/z32.json")" >> "$rows"

# ---- lateness at 100, 1,000, 10,000 modelled I/Os per second ------------------------------
# a 4 KiB buffer hit costs overhead + 4096 / 300 MB/s (13.65 us) on this base
for iops in 100 1000 10000 100s0; do
	spin=100
	case $iops in *s0) iops=${iops%s0} spin=0 ;; esac
	prof=$TEST_TMP/hit$iops.profile
	awk -v i="$iops" 'BEGIN { printf "base = desktop-2006\nname = hit-%d-iops\nhit_rate = 1\n" \
		"overhead_ms = %.5f\n", i, 1000 / i - 0.01365 }' > "$prof"
	say "lateness at $iops modelled I/Os per second (spin $spin us)..."
	disk_up "$prof" --spin $spin
	s=$SECS
	[ "$iops" = 100 ] && s=$((SECS * 2))
	read -r io q50 q99 <<< "$(fio_run "$DEV" 4 "$s")"
	"$IOTAPE" disk stats --json "$name" > "$TEST_TMP/l$iops.json"
	printf '%s\t%s\t%s\t%s\n' "lateness at $iops I/Os/s, spin $spin us" \
		"$(printf 'fio %.0f I/Os/s (depth 4)' "$io")" \
		"$(jq -r '.late | "p50 \(.p50_us | floor) / p99 \(.p99_us | floor) us"' "$TEST_TMP/l$iops.json")" \
		"$(jq -r '"late >1ms \(.late_over_1ms) of \(.late.n)"' "$TEST_TMP/l$iops.json")" >> "$rows"
done
"$IOTAPE" disk stop --force "$name" > /dev/null 2>&1

awk -F'\t' -v loadavg="$(cut -d' ' -f1-3 /proc/loadavg)" -v ver="$("$IOTAPE" --version)" '
BEGIN {
	printf "\nissue 29: the modelled disk in real time (%s, %d s fio runs, load %s)\n", ver, '"$SECS"', loadavg
	printf "%-37s | %-28s | %-30s | %s\n", "work", "peer, same run", "iotape disk", "ratio / note"
}
{ printf "%-37s | %-28s | %-30s | %s\n", $1, $2, $3, $4 }
END {
	printf "(zero time: answered as soon as read, no model: the daemon and the host alone;\n"
	printf "lateness: answer minus the modelled completion, from iotape disk stats)\n"
}' "$rows"
