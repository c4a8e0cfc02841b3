# s_cpu.sh: CPU contention. gzip -1 of files read from ext4 on a disk (200
# MB/s, caches dropped), pinned to CPU 1, alone (base) or with two busy
# loops pinned to the same CPU (changed; started beside the capture, not in
# it: they do no I/O). gzip then gets a third of the CPU. Planted: cpu.
# 64 MiB in each variation: about 2 s alone and 5 s beside the loops, so
# that a `vmstat 1` log has intervals inside the runs, as a reporter's
# would (with 16 MiB the blind copy had none: vmstat's first row only).
scenario cpu cpu cpu 0
variation one-64M 1
variation xargs-2x32M 2
variation loop-4x16M 1 nopsi

cpu_check() {
	[ "$(nproc)" -ge 2 ] || { echo "one CPU: nowhere to pin beside"; return 1; }
	command -v taskset > /dev/null || { echo "no taskset"; return 1; }
	command -v gzip > /dev/null || { echo "no gzip"; return 1; }
}

cpu_setup() {
	mkdisk CP 320 0 0 0 0 || return 1
	mkfs_mount "$CP" "$TEST_TMP/cp" || return 1
	head -c 64M /dev/urandom > "$TEST_TMP/cp/big" &&
	head -c 32M /dev/urandom > "$TEST_TMP/cp/m1" &&
	head -c 32M /dev/urandom > "$TEST_TMP/cp/m2" &&
	for i in 1 2 3 4; do head -c 16M /dev/urandom > "$TEST_TMP/cp/s$i"; done &&
	sync || return 1
	throttle "$CP_LOWER" 209715200 209715200 0 0
}

cpu_run() {
	local var=$1 side=$2 name=$3 m=$TEST_TMP/cp cmd rc
	case $var in
	one-64M) cmd="gzip -1 -c $m/big > /dev/null" ;;
	xargs-2x32M) cmd="ls $m/m1 $m/m2 | xargs -P 2 -n 1 gzip -1 -c > /dev/null" ;;
	loop-4x16M) cmd="for f in $m/s*; do gzip -1 -c \$f > /dev/null; done" ;;
	esac
	[ "$side" = changed ] && hogs_start 1 2
	cap "$name" -d "/dev/$CP" --drop-caches --cmd "taskset -c 1 sh -c '$cmd'"
	rc=$?
	hogs_stop
	return $rc
}
