# s_readahead.sh: readahead size. Buffered sequential reads of files on ext4
# on a disk that costs per request (blk-throttle: 2000 IOPS, 200 MB/s), with
# the disk's read_ahead_kb 512 (base) or 8 (changed): 8 KiB requests pay the
# per-request cost 64 times as often. Planted: readahead.
scenario readahead readahead blkio 0
variation dd-24M 1
variation xargs-2x12M 2
variation loop-12x2M 1 nopsi

readahead_setup() {
	mkdisk RA 512 0 0 0 0 || return 1
	mkfs_mount "$RA" "$TEST_TMP/ra" || return 1
	dd if=/dev/urandom of="$TEST_TMP/ra/big" bs=1M count=24 status=none &&
	for i in 1 2; do
		dd if=/dev/urandom of="$TEST_TMP/ra/mid$i" bs=1M count=12 status=none
	done &&
	for i in $(seq 12); do
		dd if=/dev/urandom of="$TEST_TMP/ra/small$i" bs=1M count=2 status=none
	done && sync || return 1
	throttle "$RA_LOWER" 209715200 209715200 2000 2000
}

readahead_run() {
	local var=$1 side=$2 name=$3 ra=512 cmd d=$TEST_TMP/ra
	[ "$side" = changed ] && ra=8
	case $var in
	dd-24M) cmd="dd if=$d/big of=/dev/null bs=4k 2> /dev/null" ;;
	xargs-2x12M) cmd="ls $d/mid1 $d/mid2 | xargs -P 2 -I@ dd if=@ of=/dev/null bs=4k 2> /dev/null" ;;
	loop-12x2M) cmd="for f in $d/small*; do dd if=\$f of=/dev/null bs=4k 2> /dev/null; done" ;;
	esac
	cap "$name" -d "/dev/$RA" --set "$RA:queue/read_ahead_kb=$ra" --drop-caches \
		--cmd "$cmd"
}
