# s_healthy.sh: healthy runs and null pairs: workloads nothing slowed, each
# captured twice (the same setup): two random readers held to 300 IOPS each,
# one sequential reader at the disk's speed, fio's demo mix held to its
# rates. No cause may be claimed in the report of any of them, nor in
# compare of a pair.
scenario healthy - none 0
variation rr-2x300iops 2
variation seq-32M 2
variation mix-rate 2

healthy_setup() {
	mkdisk HL 512 0 0 0 0 || return 1
	dd if=/dev/urandom of="/dev/$HL" bs=1M count=256 oflag=direct status=none || return 1
	throttle "$HL_LOWER" 104857600 104857600 4000 4000
}

healthy_run() {
	local var=$1 name=$3 f="fio --output=/dev/null --filename=/dev/$HL --direct=1"
	case $var in
	rr-2x300iops)
		cap "$name" -d "/dev/$HL" --cmd "$f --ioengine=psync --rw=randread --bs=4k \
--size=256m --runtime=1.5 --time_based --rate_iops=300 --name=r1 --name=r2" ;;
	seq-32M)
		cap "$name" -d "/dev/$HL" --cmd "dd if=/dev/$HL of=/dev/null bs=256k count=128 iflag=direct" ;;
	mix-rate)
		cap "$name" -d "/dev/$HL" --cmd "$f --runtime=1.5 --time_based --ioengine=psync \
--name=reader --rw=randread --bs=4k --rate_iops=300 --size=128m \
--name=writer --rw=write --bs=64k --fsync=8 --rate_iops=50 --offset=160m --size=64m" ;;
	esac
}
