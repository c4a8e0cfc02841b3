# s_writeback.sh: writeback thresholds. Files written into the page cache
# of ext4 on a disk that writes 40 MB/s, then a 3 s pause, then a sync of
# the files (96 MiB: 2.5 s of writing; runs of 3 to 6 s, so that a `vmstat
# 1` log has intervals inside them, as a reporter's would): with dirty_background_bytes 4 MiB (base) the flusher writes
# them back during the pause; with dirty_background_ratio 50 (changed)
# nothing does and the sync pays for all of it. dirty_expire_centisecs 3000
# in both (the flusher's timer stays out). Planted: writeback.
scenario writeback writeback blkio 0
variation dd-96M 1
variation xargs-2x48M 2
variation loop-8x12M 1 nopsi

writeback_setup() {
	mkdisk WB 512 0 0 0 0 || return 1
	mkfs_mount "$WB" "$TEST_TMP/wb" || return 1
	throttle "$WB_LOWER" 209715200 41943040 0 0
}

writeback_run() {
	local var=$1 side=$2 name=$3 m=$TEST_TMP/wb cmd bg
	bg="--set vm.dirty_background_bytes=4194304"
	[ "$side" = changed ] && bg="--set vm.dirty_background_ratio=50"
	case $var in
	dd-96M) cmd="dd if=/dev/zero of=$m/f bs=1M count=96 2> /dev/null" ;;
	xargs-2x48M) cmd="printf 'a\nb\n' | xargs -P 2 -I@ dd if=/dev/zero of=$m/f@ bs=1M count=48 2> /dev/null" ;;
	loop-8x12M) cmd="for i in 1 2 3 4 5 6 7 8; do dd if=/dev/zero of=$m/f\$i bs=1M count=12 2> /dev/null; done" ;;
	esac
	rm -f "$m"/f*; sync
	cap "$name" -d "/dev/$WB" $bg --set vm.dirty_expire_centisecs=3000 \
		--cmd "$cmd; sleep 3; sync $m/f*"
}
