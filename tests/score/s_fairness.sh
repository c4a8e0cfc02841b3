# s_fairness.sh: fairness. Two readers on one disk under bfq, both in the
# best-effort class (base) or the second in the idle class (ionice -c3,
# changed): bfq serves the idle class only when the other is idle. Planted:
# fairness; the slowed command is the idle-class reader. Skipped where the
# kernel has no bfq (mq-deadline's priorities act only on requests held back
# for want of a loop device's 128 tags).
scenario fairness fairness blkio 1
variation fio-1g-256m 1
variation xargs-2x64m 2
variation loop-8x16m 1 nopsi

fairness_check() {
	local f
	for f in /sys/block/loop*/queue/scheduler; do
		[ -e "$f" ] || continue
		grep -qw bfq "$f" && return 0
		echo "no bfq in this kernel (schedulers: $(cat "$f"))"
		return 1
	done
	echo "no loop device to read the schedulers from"
	return 1
}

fairness_setup() {
	mkdisk FA 1536 0 0 0 0 || return 1
	dd if=/dev/urandom of="/dev/$FA" bs=1M count=1400 oflag=direct status=none || return 1
	throttle "$FA_LOWER" 209715200 209715200 0 0
}

fairness_run() {
	local var=$1 side=$2 name=$3 io= r long short
	[ "$side" = changed ] && io="ionice -c3 "
	r="fio --output=/dev/null --filename=/dev/$FA --direct=1 --ioengine=libaio --iodepth=4 --rw=read --bs=64k"
	case $var in
	fio-1g-256m) long="$r --size=1g --name=long"
		short="$io$r --offset=1g --size=256m --name=short" ;;
	xargs-2x64m) long="$r --size=1g --name=long"
		short="printf '1g\n1088m\n' | ${io}xargs -P 2 -I@ $r --offset=@ --size=64m --name=short" ;;
	loop-8x16m) long="$r --size=1g --name=long"
		short="for i in \$(seq 0 7); do $io$r --offset=\$((1024 + i * 16))m --size=16m --name=short; done" ;;
	esac
	cap "$name" -d "/dev/$FA" --set "$FA:queue/scheduler=bfq" --cmd "$long" --cmd "$short"
}
