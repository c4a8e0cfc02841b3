# s_swap.sh: swap under a memory limit. The commands build a string in
# memory (perl, essential in Debian: anonymous memory) and rewrite it once,
# in a memory cgroup of 1 GiB (base) or 128 MiB (changed): what passes the
# limit is swapped out, and back in for the second pass, from a swap device
# that is a disk of its own (a loop device over a loop device). (A tmpfs
# filled and read back stayed in the swap cache: 12 pages written; swap-out
# alone costs the writer little: the swap-in is what waits.) On a loaded
# machine the changed runs take 3 to 8 s. (The sizes make runs of seconds,
# so that a `vmstat 1` log has intervals inside them, as a reporter's would.) Each process first reads 8 MiB
# from a data disk (traced with the swap device), so that both runs have
# the workload's I/O in their trace, as a reporter's would. Planted: swap.
scenario swap swap swap 0
variation one-192M 1
variation xargs-2x96M 2
variation loop-2x168M 1 nopsi

swap_setup() {
	mkdisk SW 512 0 0 0 0 && mkdisk SD 128 0 0 0 0 || return 1
	dd if=/dev/urandom of="/dev/$SD" bs=1M count=64 oflag=direct status=none || return 1
	swap_script
	mkswap -q "/dev/$SW" > /dev/null || return 1
	scn_at_exit "swapoff '/dev/$SW' 2> /dev/null"
	swapon "/dev/$SW" || return 1
}

# $TEST_TMP/fill MB: 8 MiB read from the data disk, then MB MiB of
# anonymous memory written and rewritten
swap_script() {
	cat > "$TEST_TMP/fill" <<-END
	dd if=/dev/$SD of=/dev/null bs=64k count=128 iflag=direct 2> /dev/null
	exec perl -e '\$x = "a" x (\$ARGV[0] << 20); \$x =~ tr/a/b/' "\$1"
	END
}

swap_run() {
	local var=$1 side=$2 name=$3 lim=1G cmd
	[ "$side" = changed ] && lim=128M
	case $var in
	one-192M) cmd="sh $TEST_TMP/fill 192" ;;
	xargs-2x96M) cmd="printf '96\n96\n' | xargs -P 2 -n 1 sh $TEST_TMP/fill" ;;
	loop-2x168M) cmd="for i in 1 2; do sh $TEST_TMP/fill 168; done" ;;
	esac
	cap "$name" -d "/dev/$SD" -d "/dev/$SW" --mem-limit "$lim" --cmd "$cmd"
}
