# s_device.sh: a slower device. The same direct reads on a disk as fast as
# the loop devices go (base) or held to 24 MB/s (changed) with blk-throttle
# on the loop device under the traced one, so each request's service time
# (D2C) grows. (A base held to 160 MB/s was as slow as 40 MB/s on a loaded
# machine: blk-throttle dispatches in jiffies.) Planted: device, scored in
# compare only: a report of one run has no speed to call its device slow by.
scenario device device blkio 0 compare-only
variation dd-32M 1
variation xargs-2x16M 2
variation loop-8x4M 1 nopsi

device_setup() {
	mkdisk DV 256 0 0 0 0 || return 1
	dd if=/dev/urandom of="/dev/$DV" bs=1M count=96 oflag=direct status=none
}

device_run() {
	local var=$1 side=$2 name=$3 bps=0 cmd r="dd if=/dev/$DV of=/dev/null iflag=direct"
	[ "$side" = changed ] && bps=25165824
	case $var in
	dd-32M) cmd="$r bs=256k count=128 2> /dev/null" ;;
	xargs-2x16M) cmd="printf '0\n64\n' | xargs -P 2 -I@ $r bs=256k count=64 skip=@ 2> /dev/null" ;;
	loop-8x4M) cmd="for i in \$(seq 0 7); do $r bs=256k count=16 skip=\$((i * 16)) 2> /dev/null; done" ;;
	esac
	throttle "$DV_LOWER" "$bps" "$bps" 0 0
	cap "$name" -d "/dev/$DV" --cmd "$cmd"
}
