# s_device.sh: a slower device. The same reads on a disk of 160 MB/s (base)
# or 40 MB/s (changed), set with blk-throttle on the loop device under the
# traced one, so each request's service time (D2C) grows. Planted: device.
scenario device device blkio 0
variation dd-48M 1
variation xargs-2x24M 2
variation loop-12x4M 1 nopsi

device_setup() {
	mkdisk DV 256 0 0 0 0 || return 1
	dd if=/dev/urandom of="/dev/$DV" bs=1M count=96 oflag=direct status=none
}

device_run() {
	local var=$1 side=$2 name=$3 bps=167772160 cmd r="dd if=/dev/$DV of=/dev/null iflag=direct"
	[ "$side" = changed ] && bps=41943040
	case $var in
	dd-48M) cmd="$r bs=256k count=192 2> /dev/null" ;;
	xargs-2x24M) cmd="printf '0\n96\n' | xargs -P 2 -I@ $r bs=256k count=96 skip=@ 2> /dev/null" ;;
	loop-12x4M) cmd="for i in \$(seq 0 11); do $r bs=256k count=16 skip=\$((i * 16)) 2> /dev/null; done" ;;
	esac
	throttle "$DV_LOWER" "$bps" "$bps" 0 0
	cap "$name" -d "/dev/$DV" --cmd "$cmd"
}
