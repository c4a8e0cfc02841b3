# s_queue.sh: device sharing. Two readers, each on a disk of its own (base)
# or both on one of the two disks (changed); each disk serves 40 MB/s
# (blk-throttle on the loop device under it), so sharing one halves each
# reader's share. Planted: queue. The slowed command is the first reader
# (both are).
scenario queue queue blkio 0
variation dd-2x32M 1
variation xargs-2x16M 2
variation loop-8x4M 1 nopsi

queue_setup() {
	mkdisk QA 256 0 0 0 0 && mkdisk QB 256 0 0 0 0 || return 1
	dd if=/dev/urandom of="/dev/$QA" bs=1M count=128 oflag=direct status=none &&
	dd if=/dev/urandom of="/dev/$QB" bs=1M count=128 oflag=direct status=none || return 1
	throttle "$QA_LOWER" 41943040 41943040 0 0
	throttle "$QB_LOWER" 41943040 41943040 0 0
}

# queue_reader VAR DEV OFF_MB: one reader of the variation's structure on
# /dev/DEV from OFF_MB on
queue_reader() {
	local r="dd if=/dev/$2 of=/dev/null iflag=direct bs=64k"
	case $1 in
	dd-2x32M) echo "$r count=512 skip=$(($3 * 16)) 2> /dev/null" ;;
	xargs-2x16M) echo "printf '$(($3 * 16))\n$(($3 * 16 + 256))\n' | xargs -P 2 -I@ $r count=256 skip=@ 2> /dev/null" ;;
	loop-8x4M) echo "for i in \$(seq 0 7); do $r count=64 skip=\$(($3 * 16 + i * 64)) 2> /dev/null; done" ;;
	esac
}

queue_run() {
	local var=$1 side=$2 name=$3 second=$QB off=0
	# changed: the second reader on the first disk, 64 MB further on
	[ "$side" = changed ] && second=$QA off=64
	cap "$name" -d "/dev/$QA" -d "/dev/$QB" --cmd "$(queue_reader "$var" "$QA" 0)" \
		--cmd "$(queue_reader "$var" "$second" "$off")"
}
