#!/usr/bin/env bash
# capture/demo.sh: the main job on a built-in default (`make demo`). As root:
# a loop device over a 512 MiB file, a real capture of two workloads sharing
# it (a 4k random reader and a sequential writer that fsyncs), then the
# report. Without root or tracefs: import the committed capture instead.
# Leaves demo/demo.db and ends saying how to read it (`./iotape report --db
# demo/demo.db demo`): a plain `iotape report` opens iotape.db.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# the paths as the caller types them: relative from the top (make demo)
if [ "$(pwd -P)" = "$(cd "$top" && pwd -P)" ]; then
	iotape=./iotape db=demo/demo.db
else
	iotape=$top/iotape db=$top/demo/demo.db
fi
cd "$top" || exit 1
mkdir -p demo
rm -f "$db"

# hint: where the run is and how to read it again, runnable as printed
hint() {
	local i d
	i=$(printf '%q' "$iotape") d=$(printf '%q' "$db")
	printf "demo: the run 'demo' is in %s; read it again with\n" "$d" >&2
	printf "demo:   %s report --db %s demo\n" "$i" "$d" >&2
	printf "demo:   %s runs --db %s\n" "$i" "$d" >&2
}

# can_trace: root and a blk tracer; tracefs is looked at, and left as it was
# (the capture mounts it when it is absent, and unmounts it after)
can_trace() {
	local T=/sys/kernel/tracing mounted=0 rc
	[ "$(id -u)" = 0 ] || return 1
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
	echo "demo: not root or no tracefs blk tracer: importing the committed capture" >&2
	"$iotape" import --db "$db" --run demo "$top/tests/fixtures/loop-fio-small.bin" &&
		"$iotape" report --db "$db" demo && hint && exit 0
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

echo "demo: capturing fio on $loop (4k random reads + 64k writes with fsync, 5 s)" >&2
"$iotape" capture --db "$db" --run demo -d "$loop" --interval 0.5 -- \
	fio --output=/dev/null --filename="$loop" --direct=1 --runtime=5 \
	--time_based --ioengine=psync \
	--name=reader --rw=randread --bs=4k --rate_iops=400 \
	--name=writer --rw=write --bs=64k --fsync=8 --rate_iops=100 --offset=256M \
	|| exit 1
"$iotape" report --db "$db" demo && hint
