# tests/score/score.sh: the blind explanation scoreboard (`make explain-score`,
# issue 26 "How we know it works"). Each scenario (tests/score/s_*.sh, one
# file each) plants one cause on loop devices and captures each of its
# variations with `iotape capture` (timed commands, PSI, per-task delay
# accounting) while a real `vmstat 1` writes the text log a reporter would
# paste. Each run is then copied blind: `iotape export --format blktrace` and
# the vmstat log, imported into a database of their own with nothing else.
# Both copies are scored: the planted analyzer first among the causes of
# `report` of the worse run and of `compare`, its cost against the slowdown
# measured apart (the slowed command's real time, changed less base, from the
# full capture's commands), causes claimed on null pairs and healthy runs,
# and for the blind copy the full capture's kernel-measured delay of the
# planted kind beside the cost. Prints an 80-column row per scenario,
# variation and copy and the totals, writes every row to $SCORE_DIR/score.json,
# and exits 1 when a target is missed (planted first >= 90% in report and in
# compare, in both copies; median cost error <= 25%; no cause on a null pair
# or healthy run), 2 when it could not run.
#
# Usage (as root): bash tests/score/score.sh [--rescore] [--only PATTERN]
#   [--quick] [--dir DIR]; or the environment: SCORE_DIR (default
#   build/score), RESCORE=1 (no capture: re-export, re-import and re-score the
#   runs in SCORE_DIR), SCORE_ONLY (patterns on scenario names, separated by
#   , or |: only those are captured, replacing their runs in SCORE_DIR, and
#   scored), SCORE_QUICK=1 (the first variation of readahead and healthy,
#   one run a side: a check of the scorer, not a score), IOTAPE (the binary).
#
# Adding a scenario is one file, tests/score/s_NAME.sh, that calls
# `scenario NAME PLANT KIND IDX` and `variation VAR REPS [nopsi]` and defines
# NAME_setup (devices, files; cleanups with scn_at_exit), NAME_run VAR SIDE
# RUN (SIDE base or changed, a for healthy: one `cap RUN ...`) and, when it
# may not run here, NAME_check (prints why and returns 1).
. "$(dirname "$0")/../lib.sh"

SCORE_DIR=${SCORE_DIR:-$REPO_ROOT/build/score}
RESCORE=${RESCORE:-}
SCORE_ONLY=${SCORE_ONLY:-}
SCORE_QUICK=${SCORE_QUICK:-}
while [ $# -gt 0 ]; do
	case $1 in
	--rescore) RESCORE=1 ;;
	--only) SCORE_ONLY=$2; shift ;;
	--quick) SCORE_QUICK=1 ;;
	--dir) SCORE_DIR=$2; shift ;;
	*) echo "usage: score.sh [--rescore] [--only PATTERN] [--quick] [--dir DIR]" >&2
	   exit 2 ;;
	esac
	shift
done
mkdir -p "$SCORE_DIR" || exit 2
SCORE_DIR=$(cd "$SCORE_DIR" && pwd)
FULL=$SCORE_DIR/full.db BLIND=$SCORE_DIR/blind.db RUNS=$SCORE_DIR/runs
MANIFEST=$SCORE_DIR/manifest.tsv
INTERVAL=0.25                 # the capture's sample interval, seconds
say() { printf '%s\n' "$*" >&2; }
die() { say "explain-score: $*"; exit 2; }

for tool in jq sqlite3 vmstat; do
	command -v $tool > /dev/null || die "needs $tool"
done
[ -x "$IOTAPE" ] || die "no iotape binary at $IOTAPE (run make)"

# ---- scenarios: registration ---------------------------------------------------
# scenario NAME PLANT KIND IDX [compare-only]: a scenario planting PLANT (the
# analyzer expected first; - for healthy runs), whose kernel-measured delay is
# KIND (blkio, swap, cpu, none), and whose slowed command is command IDX (from
# 0); compare-only: a cause a report of one run cannot name (a slower device:
# one run has no speed to hold its own against), scored in compare only
# variation NAME REPS [nopsi]: one of its variations, REPS runs a side; nopsi:
# the full copy's PSI samples are dropped after the capture (a kernel without
# PSI)
SCN=()
declare -A S_PLANT S_KIND S_IDX S_VARS S_CMPONLY
scenario() {
	SCN+=("$1")
	S_PLANT[$1]=$2 S_KIND[$1]=$3 S_IDX[$1]=$4 S_VARS[$1]= S_CMPONLY[$1]=${5:-}
	CUR=$1
}
variation() { S_VARS[$CUR]+="$1:$2:${3:-psi} "; }
for f in "$(dirname "$0")"/s_*.sh; do
	. "$f"
done

# ---- helpers the scenarios use -----------------------------------------------------
TG=/sys/fs/cgroup/blkio
# throttle DEV RBPS WBPS [RIOPS WIOPS]: blk-throttle limits (0: none) of
# /dev/DEV in the root blkio cgroup, for every task there: the device's speed
throttle() {
	local mm; mm=$(cat "/sys/block/$1/dev")
	echo "$mm ${2:-0}" > $TG/blkio.throttle.read_bps_device
	echo "$mm ${3:-0}" > $TG/blkio.throttle.write_bps_device
	echo "$mm ${4:-0}" > $TG/blkio.throttle.read_iops_device
	echo "$mm ${5:-0}" > $TG/blkio.throttle.write_iops_device
}

# unthrottle MAJ:MIN: no blk-throttle limit left on the device, by its
# number (its name may be gone), tried again while a rule stays (a run of
# CI once left one behind, seen by t_score)
unthrottle() {
	local f i
	for i in 1 2 3 4 5; do
		for f in $TG/blkio.throttle.{read,write}_{bps,iops}_device; do
			echo "$1 0" > "$f" 2> /dev/null
		done
		grep -q "^$1 " $TG/blkio.throttle.*_device || return 0
		sleep 0.1
	done
	echo "score: blk-throttle limits of $1 left: $(grep -h "^$1 " $TG/blkio.throttle.*_device)" >&2
}

# mkdisk VAR MB RBPS WBPS [RIOPS WIOPS]: a disk of MB MiB whose speed is set:
# a loop device (direct I/O) over a loop device (direct I/O, over a file in
# $TEST_TMP) throttled with blk-throttle. Reads and writes of the upper
# device wait on the lower one's throttle, so its D2C is the disk's service
# time. VAR gets the upper device's name, VAR_LOWER the lower one's.
mkdisk() {
	local var=$1 mb=$2 f lower upper; shift 2
	f=$TEST_TMP/$var.img
	truncate -s "${mb}M" "$f" || return 1
	loop_attach "$f" --direct-io=on || return 1
	lower=$LOOPDEV
	scn_at_exit "unthrottle $(cat "/sys/block/$lower/dev")"
	loop_attach "/dev/$lower" --direct-io=on || return 1
	upper=$LOOPDEV
	throttle "$lower" "$@"
	printf -v "$var" %s "$upper"
	printf -v "${var}_LOWER" %s "$lower"
}

# mkfs_mount DEV DIR: a fresh ext4 (no lazy init: its writes are no plant's)
# mounted at DIR, unmounted at the scenario's end
mkfs_mount() {
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$1" || return 1
	mkdir -p "$2"
	scn_at_exit "umount '$2' 2> /dev/null"
	mount "/dev/$1" "$2"
}

# hogs_start CPU N: N busy loops pinned to CPU (stopped at the scenario's end
# and by hogs_stop); not part of any capture's workload
HOGS=()
hogs_start() {
	local i
	for ((i = 0; i < $2; i++)); do
		taskset -c "$1" sh -c 'while :; do :; done' &
		HOGS+=($!)
		scn_at_exit "kill ${HOGS[-1]} 2> /dev/null"
	done
}
hogs_stop() {
	local p
	for p in "${HOGS[@]}"; do kill "$p" 2> /dev/null; wait "$p" 2> /dev/null; done
	HOGS=()
}

# scn_at_exit CMD: CMD runs at the end of the scenario (and at exit if the
# scoreboard dies first)
scn_at_exit() { at_exit "$*"; }

# scn_cleanup N: runs the cleanups registered after the first N, newest first
scn_cleanup() {
	local i
	for ((i = ${#_CLEANUP[@]} - 1; i >= $1; i--)); do
		eval "${_CLEANUP[$i]}" || true
		unset "_CLEANUP[$i]"
	done
	_CLEANUP=("${_CLEANUP[@]}")
}

# cap NAME CAPTURE-ARGS...: `iotape capture --run NAME` into the full
# database, with a `vmstat 1` log started when the capture starts its
# commands ($RUNS/NAME.vmstat); 1 when the capture fails
cap() {
	local name=$1 err=$RUNS/$1.err pid vpid= i rc try; shift
	for try in 1 2 3 4 5 6; do
		cap_once "$name" "$@" && return 0
		# another job's capture, killed, left its state file: its
		# --reset is on the way
		grep -q "was killed and left the machine changed" "$err" || return 1
		sleep 10
	done
	return 1
}

# cap_once NAME CAPTURE-ARGS...: one try of cap
cap_once() {
	local name=$1 err=$RUNS/$1.err pid vpid= i rc; shift
	"$IOTAPE" capture --db "$FULL" --run "$name" --interval $INTERVAL "$@" \
		> "$RUNS/$name.out" 2> "$err" &
	pid=$!
	for i in $(seq 90000); do
		if grep -q "^iotape: capturing" "$err" 2> /dev/null; then
			vmstat 1 > "$RUNS/$name.vmstat" &
			vpid=$!
			break
		fi
		kill -0 $pid 2> /dev/null || break
		sleep 0.01
	done
	wait $pid
	rc=$?
	[ -n "$vpid" ] && { kill $vpid 2> /dev/null; wait $vpid 2> /dev/null; }
	if [ $rc != 0 ]; then
		say "explain-score: capture of $name failed: $(tail -n 3 "$err")"
		return 1
	fi
	echo "$name" >> "$RUNS/captured"
	[ "$CAP_NOPSI" = 1 ] && sqlite3 "$FULL" "DELETE FROM samples WHERE source = 'psi'
		AND run = (SELECT id FROM runs WHERE name = '$name')"
	return 0
}

# ---- capturing ---------------------------------------------------------------
# selected S: S matches SCORE_ONLY (glob patterns separated by , or |)
selected() {
	local p
	[ -z "$SCORE_ONLY" ] && return 0
	for p in ${SCORE_ONLY//[,|]/ }; do
		case $1 in $p) return 0 ;; esac
	done
	return 1
}

# null_pair_alike PREFIX: 0 when the captures PREFIX.* of one setup (a null
# pair) took alike: their commands' real time within 25% of each other. A
# pair that differs more is not null (the setup did not hold: a throttle
# seen to let a run through at 2.7x its rate), so it is captured again, at
# most twice, and the log says so; the pair is scored either way.
null_pair_alike() {
	local lo hi
	read -r lo hi < <(sqlite3 -separator ' ' "$FULL" "SELECT min(t), max(t)
		FROM (SELECT sum(c.real_s) AS t FROM commands c JOIN runs r
		ON r.id = c.run WHERE r.name GLOB '$1.*' GROUP BY c.run)")
	[ -n "$lo" ] && [ -n "$hi" ] || return 0
	if awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(b > 1.25 * a) }'; then
		say "explain-score: $1: the null pair took ${lo} s and ${hi} s" \
			"(not one setup's twice): captured again"
		return 1
	fi
	return 0
}

# capture_scenario S: its setup, then each variation's runs (base and
# changed interleaved per repeat; healthy runs twice), then its cleanup
capture_scenario() {
	local s=$1 n0=${#_CLEANUP[@]} why v var reps psi i side sides
	if declare -F "${s}_check" > /dev/null && ! why=$("${s}_check"); then
		say "explain-score: $s skipped: $why"
		printf 'skip\t%s\t%s\n' "$s" "$why" >> "$MANIFEST"
		return 0
	fi
	say "explain-score: $s: setting up"
	if ! "${s}_setup"; then
		say "explain-score: $s: setup failed"
		printf 'skip\t%s\t%s\n' "$s" "setup failed" >> "$MANIFEST"
		scn_cleanup "$n0"
		return 0
	fi
	sides="base changed"
	[ "${S_PLANT[$s]}" = - ] && sides=a
	for v in ${S_VARS[$s]}; do
		IFS=: read -r var reps psi <<< "$v"
		[ -n "$SCORE_QUICK" ] && reps=1
		CAP_NOPSI=0
		[ "$psi" = nopsi ] && CAP_NOPSI=1
		[ "${S_PLANT[$s]}" = - ] && [ "$reps" -lt 2 ] && reps=2
		say "explain-score: $s: $var ($reps a side)"
		local try
		for try in 1 2 3; do
			for ((i = 1; i <= reps; i++)); do
				for side in $sides; do
					local name=$s-$var-$side.$i
					[ "$side" = a ] && name=$s-$var.$i
					"${s}_run" "$var" "$side" "$name" || break 3
				done
			done
			[ "$sides" = a ] && [ $try -lt 3 ] || break
			null_pair_alike "$s-$var" && break
			"$IOTAPE" rm --db "$FULL" --force "$s-$var.*" > /dev/null 2>&1
			sed -i "/^$s-$var\./d" "$RUNS/captured"
		done
		printf 'var\t%s\t%s\t%s\t%s\n' "$s" "$var" "$reps" "$psi" >> "$MANIFEST"
		[ -n "$SCORE_QUICK" ] && break
	done
	scn_cleanup "$n0"
}

capture_all() {
	[ "$(id -u)" = 0 ] || die "capturing needs root (RESCORE=1 re-scores)"
	tracefs_check || die "$TRACEFS_WHY"
	[ -w $TG/blkio.throttle.read_bps_device ] ||
		die "needs cgroup v1 blk-throttle ($TG/blkio.throttle.read_bps_device)"
	local s t0=$SECONDS
	if [ -n "$SCORE_ONLY" ] && [ -s "$MANIFEST" ] && [ -z "$SCORE_QUICK" ]; then
		# a subset captured again: only its runs are replaced
		for s in "${SCN[@]}"; do
			selected "$s" || continue
			"$IOTAPE" rm --db "$FULL" --force "$s-*" > /dev/null 2>&1
			rm -f "$RUNS/$s"-*
			sed -i "/^$s-/d" "$RUNS/captured"
			awk -F'\t' -v s="$s" '$2 != s' "$MANIFEST" > "$MANIFEST.new" &&
				mv "$MANIFEST.new" "$MANIFEST"
		done
	else
		rm -rf "$FULL" "$BLIND" "$RUNS" "$MANIFEST"
		mkdir -p "$RUNS"
		: > "$RUNS/captured"
	fi
	for s in "${SCN[@]}"; do
		if [ -n "$SCORE_QUICK" ]; then
			case $s in readahead|healthy) ;; *) continue ;; esac
		fi
		selected "$s" || continue
		capture_scenario "$s"
	done
	say "explain-score: captured $(wc -l < "$RUNS/captured") runs in $((SECONDS - t0)) s"
}

# ---- the blind copy ------------------------------------------------------------
blind_copy() {
	local name n=0
	rm -f "$BLIND"
	while read -r name; do
		[ -n "$name" ] || continue
		if ! "$IOTAPE" export --db "$FULL" "$name" --format blktrace \
			-o "$RUNS/$name.bin" 2> "$RUNS/$name.export.err"; then
			say "explain-score: export of $name failed: $(tail -n 2 "$RUNS/$name.export.err")"
			continue
		fi
		"$IOTAPE" import --quiet --db "$BLIND" --run "$name" "$RUNS/$name.bin" \
			2> "$RUNS/$name.import.err" &&
		"$IOTAPE" import --quiet --db "$BLIND" --run "$name" "$RUNS/$name.vmstat" \
			2>> "$RUNS/$name.import.err" && n=$((n + 1)) ||
			say "explain-score: blind import of $name failed: $(tail -n 2 "$RUNS/$name.import.err")"
	done < "$RUNS/captured"
	say "explain-score: $n runs copied blind (trace and vmstat log)"
}

# ---- scoring ---------------------------------------------------------------------
. "$(dirname "$0")/score_lib.sh"

if [ -z "$RESCORE" ]; then
	capture_all
else
	[ -s "$MANIFEST" ] || die "nothing captured in $SCORE_DIR (run without RESCORE first)"
fi
blind_copy
score_all
