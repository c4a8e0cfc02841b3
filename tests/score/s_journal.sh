# s_journal.sh: journal commits. A synchronous writer (dd oflag=dsync: each
# 4 KiB write returns once jbd2 has committed it) on ext4 on a disk of 40
# MB/s and 2,000 IOPS, mounted barrier=0 (base: the commit's writes only)
# or barrier=1 (changed: a cache flush before each commit and its commit
# block written FUA; the upper loop device's flush is an fsync of the one
# under it). The writer issues none of that I/O itself: it waits idle in the
# trace. The files are removed and synced between runs, outside the
# captures. Planted: journal (its wait is no block I/O delay of the
# writer's: jbd2_log_wait_commit() sleeps, so no kernel figure beside it).
scenario journal journal none 0
variation dd-1500x4k 1
variation xargs-2x750x4k 2
variation loop-6x250x4k 1 nopsi

journal_setup() {
	mkdisk JR 256 0 0 0 0 || return 1
	mkfs_mount "$JR" "$TEST_TMP/jr" || return 1
	throttle "$JR_LOWER" 41943040 41943040 2000 2000
}

journal_run() {
	local var=$1 side=$2 name=$3 m=$TEST_TMP/jr cmd barrier=0 rc
	[ "$side" = changed ] && barrier=1
	mount -o "remount,barrier=$barrier" "$m" || return 1
	case $var in
	dd-1500x4k) cmd="dd if=/dev/zero of=$m/f bs=4k count=1500 oflag=dsync 2> /dev/null" ;;
	xargs-2x750x4k) cmd="printf 'a\nb\n' | xargs -P 2 -I@ dd if=/dev/zero of=$m/f@ bs=4k count=750 oflag=dsync 2> /dev/null" ;;
	loop-6x250x4k) cmd="for i in \$(seq 6); do dd if=/dev/zero of=$m/f\$i bs=4k count=250 oflag=dsync 2> /dev/null; done" ;;
	esac
	rm -f "$m"/f*; sync
	cap "$name" -d "/dev/$JR" --cmd "$cmd"
	rc=$?
	rm -f "$m"/f*; sync
	return $rc
}
