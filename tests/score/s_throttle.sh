# s_throttle.sh: dirty throttling. A buffered writer on ext4 on a disk that
# writes 40 MB/s, with vm.dirty_bytes 1 GiB (base: the writes stay in the
# page cache) or 8 MiB (changed: balance_dirty_pages holds the writer to
# the disk's speed). The files are synced and removed between runs, outside
# the captures. Planted: throttle.
scenario throttle throttle blkio 0
variation dd-64M 1
variation xargs-2x32M 2
variation loop-16x4M 1 nopsi

throttle_setup() {
	mkdisk TH 512 0 0 0 0 || return 1
	mkfs_mount "$TH" "$TEST_TMP/th" || return 1
	throttle "$TH_LOWER" 209715200 41943040 0 0
}

throttle_run() {
	local var=$1 side=$2 name=$3 m=$TEST_TMP/th cmd lim
	lim="--set vm.dirty_bytes=1073741824 --set vm.dirty_background_bytes=536870912"
	[ "$side" = changed ] &&
		lim="--set vm.dirty_bytes=8388608 --set vm.dirty_background_bytes=4194304"
	case $var in
	dd-64M) cmd="dd if=/dev/zero of=$m/f bs=1M count=64 2> /dev/null" ;;
	xargs-2x32M) cmd="printf 'a\nb\n' | xargs -P 2 -I@ dd if=/dev/zero of=$m/f@ bs=1M count=32 2> /dev/null" ;;
	loop-16x4M) cmd="for i in \$(seq 16); do dd if=/dev/zero of=$m/f\$i bs=1M count=4 2> /dev/null; done" ;;
	esac
	rm -f "$m"/f*; sync
	cap "$name" -d "/dev/$TH" $lim --cmd "$cmd"
	local rc=$?
	sync
	return $rc
}
