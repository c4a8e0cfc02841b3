#!/usr/bin/env bash
# capture/demo.sh: the main job on a built-in default (`make demo`). As root:
# a loop device over a 512 MiB file and two real captures on it, 'before' (a
# 4k random reader alone) and 'after' (the same reader beside a writer that
# fsyncs), then compare's answer to why the reader's p99 latency grew and
# pictures of both (gnuplot). Without root or tracefs: the committed
# captures of the same two workloads (tests/fixtures/quick, the README's
# quick start) imported instead.
# Leaves demo/demo.db and demo/*.png and ends saying how to read them
# (`./iotape compare --db demo/demo.db before after`): a plain `iotape
# report` opens iotape.db. `capture/demo.sh --export DIR` also writes both
# runs to DIR as blktrace files (before.bin, after.bin): tests/fixtures/quick
# holds them, gzip -9 -n.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export_dir=
if [ "${1:-}" = --export ]; then
	export_dir=$(mkdir -p "$2" && cd "$2" && pwd) || exit 1
fi
# the paths as the caller types them: relative from the top (make demo)
if [ "$(pwd -P)" = "$(cd "$top" && pwd -P)" ]; then
	iotape=./iotape db=demo/demo.db dir=demo
else
	iotape=$top/iotape db=$top/demo/demo.db dir=$top/demo
fi
cd "$top" || exit 1
mkdir -p demo
rm -f "$db"

# hint: where the runs are and how to read them again, runnable as printed
hint() {
	local i d
	i=$(printf '%q' "$iotape") d=$(printf '%q' "$db")
	printf "demo: runs 'before' and 'after' are in %s; pictures in %s/; next:\n" "$d" "$dir" >&2
	printf "demo:   %s compare --db %s before after\n" "$i" "$d" >&2
	printf "demo:   %s mail --db %s before after -o %s/mail\n" "$i" "$d" "$dir" >&2
}

# show: the demo's question, the reader's read Q2C p99 in 'after' against
# 'before' (its command's real time is mostly fio starting: 0.38 s against
# 0.45 s read as no significant difference), then the pictures of both
show() {
	"$iotape" compare --db "$db" --metric read_q2c_p99_us before after &&
		"$iotape" plot --db "$db" -o "$dir" before after > /dev/null &&
		hint
}

# can_trace: root, fio and a blk tracer; tracefs is looked at, and left as it
# was (the capture mounts it when it is absent, and unmounts it after)
can_trace() {
	local T=/sys/kernel/tracing mounted=0 rc
	[ "$(id -u)" = 0 ] && command -v fio > /dev/null || return 1
	if [ ! -e "$T/available_tracers" ]; then
		mount -t tracefs none "$T" 2>/dev/null || return 1
		mounted=1
	fi
	grep -qw blk "$T/available_tracers"
	rc=$?
	[ $mounted = 1 ] && umount "$T" 2>/dev/null
	return $rc
}

if ! can_trace; then
	echo "demo: not root, no fio or no tracefs blk tracer: importing the committed captures" >&2
	"$iotape" import --quiet --db "$db" "$top/tests/fixtures/quick/before.bin.gz" \
		"$top/tests/fixtures/quick/after.bin.gz" && show && exit 0
	exit 1
fi

img=$(mktemp /var/tmp/iotape-demo.XXXXXX)
loop=
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	rm -f "$img"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
truncate -s 512M "$img"
loop=$(losetup -f --show "$img") || exit 1

# the reader: 1024 random 4k reads, direct, one at a time; the writer: 32 MB
# of 64k writes from the middle of the device, an fsync every 8
reader=(--name=reader --rw=randread --bs=4k --size=4M --direct=1)
writer=(--name=writer --rw=write --bs=64k --size=32M --fsync=8 --offset=256M)
fio=(fio --output=/dev/null --filename="$loop" --ioengine=psync)
echo "demo: capturing on $loop: 'before', a 4k random reader alone" >&2
"$iotape" capture --db "$db" --run before -d "$loop" --interval 0.25 -- \
	"${fio[@]}" "${reader[@]}" 2> /dev/null || exit 1
echo "demo: capturing 'after': the same reader beside a writer that fsyncs" >&2
"$iotape" capture --db "$db" --run after -d "$loop" --interval 0.25 -- \
	"${fio[@]}" "${reader[@]}" "${writer[@]}" 2> /dev/null || exit 1
if [ -n "$export_dir" ]; then
	for r in before after; do
		"$iotape" export --quiet --db "$db" --format blktrace \
			-o "$export_dir/$r.bin" "$r" || exit 1
	done
fi
show
