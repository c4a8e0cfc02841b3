# s_swap.sh: swap under a memory limit. The commands build a string in
# memory (perl, essential in Debian: anonymous memory) and rewrite it once,
# in a memory cgroup of 1 GiB (base) or 64 MiB (changed): what passes the
# limit is swapped out, and back in for the second pass, from a swap device
# that is a disk of its own at 96 MB/s. (A tmpfs filled and read back
# stayed in the swap cache: 12 pages written.) Planted: swap.
scenario swap swap swap 0
variation one-80M 1
variation xargs-2x40M 2
variation loop-2x72M 1 nopsi

swap_setup() {
	mkdisk SW 512 0 0 0 0 || return 1
	mkswap -q "/dev/$SW" > /dev/null || return 1
	scn_at_exit "swapoff '/dev/$SW' 2> /dev/null"
	swapon "/dev/$SW" || return 1
	throttle "$SW_LOWER" 100663296 100663296 0 0
}

# swap_fill MB: MB MiB of anonymous memory written, then rewritten
swap_fill() { echo "perl -e '\$x = \"a\" x ($1 << 20); \$x =~ tr/a/b/'"; }

swap_run() {
	local var=$1 side=$2 name=$3 lim=1G cmd
	[ "$side" = changed ] && lim=64M
	case $var in
	one-80M) cmd=$(swap_fill 80) ;;
	xargs-2x40M) cmd="printf '40\n40\n' | xargs -P 2 -I@ $(swap_fill @)" ;;
	loop-2x72M) cmd="for i in 1 2; do $(swap_fill 72); done" ;;
	esac
	cap "$name" -d "/dev/$SW" --mem-limit "$lim" --cmd "$cmd"
}
