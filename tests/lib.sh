# tests/lib.sh: sourced by tests/cli/t_*.sh and bench/bench.sh. TAP lines, a temp
# dir and a cleanup stack run on exit (also on failure and signals), root and corpus
# checks, loop devices, tracefs blk capture, and btt-vs-iotape comparison.
#
# Sourcing sets EXIT/INT/TERM/HUP traps; add cleanup with at_exit, not with trap.

REPO_ROOT=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel 2>/dev/null) ||
	REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IOTAPE=${IOTAPE:-$REPO_ROOT/iotape}
# SAN: 1 when IOTAPE is the sanitizer build (make SANITIZE=... names it iotape-san):
# checks of time and memory that its shadow memory and slowness move allow for it
SAN=; case $IOTAPE in *-san) SAN=1 ;; esac
FIXTURES=$REPO_ROOT/tests/fixtures
TRACEFS=/sys/kernel/tracing
TRACER_LOCK=/run/iotape/capture.lock   # the lock iotape capture takes too

# ---- TAP lines ------------------------------------------------------------------
TAP_FAILS=0

# ok DESC
ok() { printf 'ok - %s\n' "$*"; }

# not_ok DESC [DETAIL...]: details are printed as "# " lines under the result
not_ok() {
	local d=$1; shift
	printf 'not ok - %s\n' "$d"
	TAP_FAILS=$((TAP_FAILS + 1))
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
	return 0
}

# skip DESC REASON: REASON gets what would run the test when it does not say
# (skip_hint); tests/run.sh folds the corpus's skips into one line
skip() {
	local why=$2 hint
	hint=$(skip_hint "$why")
	case $why in
	"corpus absent"* | "no corpus"* | "no ../shared/corpus"*) why="corpus absent" ;;
	esac
	printf 'ok - %s # SKIP %s%s\n' "$1" "$why" "${hint:+ ($hint)}"
}

# skip_hint REASON: what would run a test skipped for REASON: the make target
# that installs a missing tool (Makefile: deps, deps-fleet, deps-man,
# deps-deb), root, the corpus's variable; nothing when REASON says already
skip_hint() {
	case $1 in
	*"make deps"* | *"apt-get install"* | *IOTAPE_*=* | *"run as root"*) ;;
	"corpus absent"* | "no corpus"* | "no ../shared/corpus"*)
		echo "IOTAPE_CORPUS=DIR holding the public traces of tests/fixtures/README.md" ;;
	*PostgreSQL* | *libpq*) echo "make deps-fleet installs the server" ;;
	"no pandoc"* | "no man"* | "no groff"* | "no lexgrog"*) echo "make deps-man installs it" ;;
	*dpkg-buildpackage* | *debhelper*) echo "make deps-deb installs them" ;;
	*IOTAPE_INTEROP_DIR*) echo "IOTAPE_INTEROP_DIR=DIR holding the published traces of tests/fixtures/README.md" ;;
	"no "*)   # a tool make deps installs (Makefile TEST_PACKAGES)
		local w=${1#no }; w=${w%%[ ,:;(]*}
		case $w in
		jq | sqlite3 | zsh | blkparse | btt | fio | python3 | /usr/bin/time | mkfs.ext4 | \
		gnuplot | iostat | gzip | xz | zstd | bzip2 | blktrace)
			echo "make deps installs it" ;;
		esac ;;
	"fio absent"* | "sysstat absent"*) echo "make deps installs it" ;;
	"needs root"* | *"not root"*) echo "run as root" ;;
	esac
}

# diag TEXT: a comment line the runner ignores
diag() { printf '# %s\n' "$*"; }

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"
	else not_ok "$1" "expected: $2" "got:      $3"; fi
}

# check DESC CMD...: ok when CMD exits 0; otherwise not ok with its output's tail
check() {
	local d=$1 out rc; shift
	out=$("$@" 2>&1); rc=$?
	if [ $rc = 0 ]; then ok "$d"
	else not_ok "$d" "command: $*" "exit $rc" "$(printf '%s\n' "$out" | tail -n 10)"; fi
}

# within_pct A B PCT [ABS]: true when |A-B| <= max(PCT% of |B|, ABS)
within_pct() {
	awk -v a="$1" -v b="$2" -v p="$3" -v e="${4:-0}" 'BEGIN {
		d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
		t = m * p / 100; if (t < e) t = e
		exit !(a != "" && b != "" && d <= t) }'
}

# tap_finish: exit 1 if any not ok was printed, else 0
tap_finish() { exit $((TAP_FAILS > 0)); }

# ---- cleanup stack and temp dir ---------------------------------------------------
_CLEANUP=()

# at_exit CMD: CMD (a string, eval'd) runs at exit; later registrations run first
at_exit() { _CLEANUP+=("$*"); }

_run_cleanup() {
	local rc=$? i
	for ((i = ${#_CLEANUP[@]} - 1; i >= 0; i--)); do
		eval "${_CLEANUP[$i]}" || true
	done
	_CLEANUP=()
	return $rc
}
trap _run_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# TEST_TMP: a fresh directory, removed at exit
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/iotape-test.XXXXXX") || exit 1
at_exit "rm -rf '$TEST_TMP'"

# ---- preconditions -----------------------------------------------------------------

# need_root DESC: print DESC as skipped and exit unless running as root
need_root() {
	[ "$(id -u)" = 0 ] && return 0
	skip "$1" "needs root"
	exit 0
}

# corpus_dir: print the absolute path of ../shared/corpus (seen from the repo root;
# $IOTAPE_CORPUS overrides); returns 1 when it is absent
corpus_dir() {
	local d=${IOTAPE_CORPUS:-$REPO_ROOT/../shared/corpus}
	[ -d "$d" ] || return 1
	(cd "$d" && pwd)
}

# need_corpus DESC: set CORPUS, or print DESC as skipped and exit
need_corpus() {
	CORPUS=$(corpus_dir) && return 0
	skip "$1" "corpus absent"
	exit 0
}

# need_iotape DESC: print DESC as failed and exit unless $IOTAPE is executable
need_iotape() {
	[ -x "$IOTAPE" ] && return 0
	not_ok "$1" "no iotape binary at $IOTAPE (run make)"
	exit 1
}

# ---- loop devices ------------------------------------------------------------------

# loop_attach FILE [LOSETUP-OPTION...]: attach FILE to a free loop device and set
# LOOPDEV to its name (e.g. loop3). Call it in the test's shell, not in $( ).
# Detaching is registered before attaching, so it happens whatever fails later.
loop_attach() {
	local file=$1 dev; shift
	at_exit "loop_detach_file '$file'"
	dev=$(losetup -f --show "$@" "$file") || return 1
	LOOPDEV=${dev#/dev/}
}

# loop_detach_file FILE: detach every loop device backed by FILE and wait until gone
loop_detach_file() {
	local file=$1 dev devs i
	[ -e "$file" ] || return 0
	for i in $(seq 50); do
		devs=$(losetup -j "$file" -n -O NAME 2>/dev/null)
		[ -z "$devs" ] && return 0
		for dev in $devs; do losetup -d "$dev" 2>/dev/null; done
		sleep 0.1
	done
	echo "warning: could not detach $(losetup -j "$file")" >&2
	return 1
}

# sysfs_set FILE VALUE: write VALUE to a sysfs FILE and restore the old value at exit
# (for choices such as "[none] mq-deadline", the bracketed one)
sysfs_set() {
	local f=$1 v=$2 old
	old=$(cat "$f") || return 1
	case $old in *"["*"]"*) old=${old#*[}; old=${old%%]*} ;; esac
	at_exit "echo '$old' > '$f'"
	echo "$v" > "$f"
}

# keep_vm_dirty: put the vm.dirty_* sysctls back at exit as they are now, also when the
# test fails. They come in pairs (dirty_bytes/dirty_ratio, dirty_background_bytes/
# _ratio): writing one zeroes the other and 0 is refused, so the one of each pair that
# is not 0 is written, where it differs. Both under the capture lock: never in the
# middle of another job's capture, whose own changes it puts back itself.
keep_vm_dirty() {
	local k v cmd=
	for k in dirty_ratio dirty_bytes dirty_background_ratio dirty_background_bytes; do
		v=$(locked cat /proc/sys/vm/$k) || return 1
		[ "$v" != 0 ] && cmd="$cmd [ \"\$(cat /proc/sys/vm/$k)\" = $v ] || echo $v > /proc/sys/vm/$k;"
	done
	at_exit "locked sh -c '$cmd'"
}

# vm_dirty: "dirty_bytes dirty_ratio dirty_background_bytes dirty_background_ratio" now
vm_dirty() {
	echo "$(cat /proc/sys/vm/dirty_bytes) $(cat /proc/sys/vm/dirty_ratio)" \
		"$(cat /proc/sys/vm/dirty_background_bytes) $(cat /proc/sys/vm/dirty_background_ratio)"
}

# ---- tracefs blk tracer capture ----------------------------------------------------

# tracefs_state: one line saying how tracefs is left, for "back as it was" checks:
# "unmounted", or "tracer=T bin=B context-info=C" (a capture mounts tracefs when it is
# absent and unmounts it after, so a fresh machine's state is "unmounted")
tracefs_state() {
	if [ ! -e "$TRACEFS/current_tracer" ]; then echo unmounted; return; fi
	echo "tracer=$(cat "$TRACEFS/current_tracer") bin=$(cat "$TRACEFS/options/bin")" \
		"context-info=$(cat "$TRACEFS/options/context-info")"
}

# tracer_fd: opens fd 8 on tracefs's current_tracer, through a tracefs mount of a
# mount namespace of its own (unshare(1)), so that holding it keeps no mount of this
# one busy; 1, and no fd 8, when that cannot be done (no tracefs in the kernel). A
# flock on it is the machine-wide half of the capture lock, as iotape takes it
# (capture/lab.c): the kernel has one tracefs, seen by a capture in another
# container, where $TRACER_LOCK is that container's own file.
tracer_fd() {
	local p i
	command -v unshare > /dev/null || return 1
	unshare -m --propagation private sh -c \
		'mount -t tracefs none "$1" 2> /dev/null && exec 8< "$1/current_tracer" &&
		 exec sleep 30' sh "$TRACEFS" 8>&- 9>&- &
	p=$!
	for i in $(seq 200); do
		[ -e "/proc/$p/fd/8" ] && break
		kill -0 $p 2> /dev/null || break
		sleep 0.01
	done
	exec 8< "/proc/$p/fd/8" 2> /dev/null
	i=$?
	kill $p 2> /dev/null; wait $p 2> /dev/null
	return $i
}

# capture_lock: in the calling (sub)shell, takes the capture lock as iotape does:
# $TRACER_LOCK on fd 9, then the machine's on fd 8 (tracer_fd); held until the shell
# ends or closes them (a command started in the background must get 8>&- 9>&-). 1
# when either was not had within $TRACEFS_LOCK_WAIT seconds (900).
capture_lock() {
	mkdir -p "$(dirname "$TRACER_LOCK")"
	exec 9>> "$TRACER_LOCK" || return 1
	flock -w "${TRACEFS_LOCK_WAIT:-900}" 9 || return 1
	if tracer_fd; then flock -w "${TRACEFS_LOCK_WAIT:-900}" 8 || return 1; fi
	return 0
}

# tracefs_state_locked: tracefs_state read under the capture lock, so never in the
# middle of another capture
tracefs_state_locked() { locked tracefs_state; }

# lab_state_left: the lab's state file (/run/iotape/capture.state) as it is once no
# capture or replay holds the capture lock (read under the lock), or nothing: one a
# capture running beside the test holds is its own, not something the test left
lab_state_left() { locked cat "$(dirname "$TRACER_LOCK")/capture.state" 2> /dev/null; }

# locked CMD...: CMD run under the capture lock, so never in the middle of a capture
# (this test's or another job's on the machine): for reading what captures change
# (sysctls, tracefs) before and after a test's own. `locked true` waits for the
# captures running now to end.
locked() {
	( capture_lock || { echo "locked: no capture lock in ${TRACEFS_LOCK_WAIT:-900} s" >&2
		exit 125; }
	  "$@" 8<&- 9>&- )
}

# dead_pid: a pid no process has now (a background true, waited for)
dead_pid() { local p; true & p=$!; wait $p; echo $p; }

# rec_start ERRFILE ARGS...: `iotape record --interval 0.25 REC_ARGS... ARGS...` in the
# background (under $REC_WRAP when set; REC = its pid, stopped at exit), waiting until
# it says it records (it takes the capture lock first); 1 when it exits before
rec_start() {
	local err=$1 i; shift
	$REC_WRAP "$IOTAPE" record "${REC_ARGS[@]}" --interval 0.25 "$@" > /dev/null 2> "$err" &
	REC=$!
	at_exit "kill -TERM $REC 2> /dev/null; wait $REC 2> /dev/null"
	for i in $(seq 9000); do
		grep -q "iotape: recording" "$err" && return 0
		kill -0 $REC 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}

# rec_stop LABEL [DEV]: SIGTERM to the recorder REC; checks that it exits 0, that
# tracefs is back as TFS0 (tracefs_state_locked before it started) and, with DEV,
# that DEV's trace/enable is back to 0
rec_stop() {
	kill -TERM $REC; wait $REC
	check_eq "$1: the recorder exits 0 on SIGTERM" 0 $?
	check_eq "$1: SIGTERM leaves tracefs as it was" "$TFS0" "$(tracefs_state_locked)"
	[ -z "${2:-}" ] || check_eq "$1: trace/enable back to 0" 0 "$(cat "/sys/block/$2/trace/enable")"
}

# tracefs_check DEV...: true when the tracefs blk tracer can trace these devices; else
# sets TRACEFS_WHY to the reason (for a skip line)
tracefs_check() {
	local d tracers
	TRACEFS_WHY=
	if [ "$(id -u)" != 0 ]; then TRACEFS_WHY="needs root"; return 1; fi
	if [ -e "$TRACEFS/available_tracers" ]; then
		tracers=$(cat "$TRACEFS/available_tracers")
	else
		# not mounted: looked at through a mount of a namespace of its
		# own, so that the machine's stays unmounted (a mount and umount
		# here made another job's "tracefs as it was" see it mounted)
		if ! tracers=$(unshare -m --propagation private sh -c \
			'mount -t tracefs none "$1" 2> /dev/null && cat "$1/available_tracers"' \
			sh "$TRACEFS" 8>&- 9>&-); then
			TRACEFS_WHY="cannot mount tracefs"; return 1
		fi
	fi
	if ! grep -qw blk <<< "$tracers"; then
		TRACEFS_WHY="no blk tracer in $TRACEFS/available_tracers"
		return 1
	fi
	for d in "$@"; do
		if [ ! -w "/sys/block/$d/trace/enable" ]; then
			TRACEFS_WHY="no /sys/block/$d/trace/enable"; return 1
		fi
	done
	command -v flock >/dev/null || { TRACEFS_WHY="no flock"; return 1; }
	return 0
}

# tracefs_capture OUTFILE DEV... -- CMD...: trace the block events of /dev/DEV... with
# the tracefs blk tracer in binary mode while CMD runs; OUTFILE is the binary stream
# (blkparse -i - < OUTFILE). Captures are serialised by flock on $TRACER_LOCK. Every
# tracefs and sysfs setting changed is restored on exit, failure or signal. Warns on
# stderr if the kernel lost events. Returns CMD's exit status, or 125 if the capture
# could not be set up. $TRACEFS_BUFFER_KB sets the per-CPU buffer (default 16384).
tracefs_capture() {
	local out=$1; shift
	local devs=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do devs+=("$1"); shift; done
	if [ "${1:-}" != "--" ] || [ $# -lt 2 ] || [ ${#devs[@]} = 0 ]; then
		echo "usage: tracefs_capture OUTFILE DEV... -- CMD..." >&2
		return 125
	fi
	shift
	( _tracefs_capture_sub "$out" "${devs[@]}" -- "$@" )
}

# Runs in a subshell, so its traps and the lock's fd end with the capture.
_tracefs_capture_sub() {
	local out=$1; shift
	local devs=() d T=$TRACEFS
	while [ "$1" != "--" ]; do devs+=("$1"); shift; done
	shift
	trap - EXIT HUP INT TERM
	_CLEANUP=()

	if ! capture_lock; then
		echo "tracefs_capture: timed out waiting for the capture lock" >&2; exit 125
	fi

	# From here on every change is undone by _tracefs_restore, in reverse order.
	_TR_UMOUNT=0 _TR_CATPID= _TR_SAVED=()
	trap '_tracefs_restore' EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM

	if [ ! -e "$T/current_tracer" ]; then
		mount -t tracefs none "$T" || { echo "tracefs_capture: cannot mount tracefs" >&2; exit 125; }
		_TR_UMOUNT=1
	fi
	local cur; cur=$(cat "$T/current_tracer")
	if [ "$cur" != nop ]; then
		echo "tracefs_capture: tracefs is in use (current_tracer is '$cur')" >&2; exit 125
	fi
	for d in "${devs[@]}"; do
		if [ "$(cat "/sys/block/$d/trace/enable" 2>/dev/null)" != 0 ]; then
			echo "tracefs_capture: block tracing of $d is in use or unavailable" >&2; exit 125
		fi
	done

	_tracefs_set "$T/tracing_on" 0 &&
	_tracefs_set "$T/options/context-info" 0 &&   # else a 16-byte header per record
	_tracefs_set "$T/current_tracer" blk &&
	_tracefs_set "$T/options/bin" 1 &&
	_tracefs_set "$T/buffer_size_kb" "${TRACEFS_BUFFER_KB:-16384}" || exit 125
	: > "$T/trace"                                # drop anything already buffered
	_tracefs_set "$T/tracing_on" 1 || exit 125

	cat "$T/trace_pipe" > "$out" 8<&- 9>&- &
	_TR_CATPID=$!
	for d in "${devs[@]}"; do
		_tracefs_set "/sys/block/$d/trace/enable" 1 || exit 125
	done

	local rc=0
	"$@" 8<&- 9>&- || rc=$?
	sync

	# Stop tracing the devices, then let the reader drain the ring buffer.
	for d in "${devs[@]}"; do echo 0 > "/sys/block/$d/trace/enable"; done
	_tracefs_drain "$out"

	local lost
	lost=$(awk '/^overrun:/ { n += $2 } /^dropped events:/ { n += $3 } END { print n + 0 }' \
		"$T"/per_cpu/cpu*/stats)
	if [ "$lost" != 0 ]; then
		echo "warning: tracefs lost $lost events (overrun); raise TRACEFS_BUFFER_KB" >&2
	fi
	if grep -aqE 'CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]' "$out"; then
		echo "warning: $out contains tracefs LOST EVENTS markers (not blktrace records)" >&2
	fi
	exit $rc
}

# _tracefs_set FILE VALUE: remember FILE's value, then write VALUE
_tracefs_set() {
	local f=$1 v=$2 old
	old=$(cat "$f") || return 1
	case $old in
	*"(expanded: "*) old=${old#*expanded: }; old=${old%)} ;;  # buffer never allocated
	esac
	_TR_SAVED+=("$f=$old")
	echo "$v" > "$f" || { echo "tracefs_capture: cannot write '$v' to $f" >&2; return 1; }
}

# _tracefs_drain OUTFILE: wait (at most ~30 s) until every per-CPU buffer is empty and
# OUTFILE has stopped growing
_tracefs_drain() {
	local out=$1 s1=-1 s2 i entries
	for i in $(seq 100); do
		sleep 0.3
		s2=$(stat -c %s "$out" 2>/dev/null || echo 0)
		entries=$(awk '/^entries:/ { n += $2 } END { print n + 0 }' "$TRACEFS"/per_cpu/cpu*/stats)
		[ "$entries" = 0 ] && [ "$s1" = "$s2" ] && return 0
		s1=$s2
	done
	echo "warning: tracefs reader did not drain ($entries entries left)" >&2
}

_tracefs_restore() {
	local rc=$? i kv
	if [ -n "$_TR_CATPID" ]; then
		kill "$_TR_CATPID" 2>/dev/null
		wait "$_TR_CATPID" 2>/dev/null
	fi
	for ((i = ${#_TR_SAVED[@]} - 1; i >= 0; i--)); do
		kv=${_TR_SAVED[$i]}
		[ "$(cat "${kv%%=*}" 2>/dev/null)" = "${kv#*=}" ] && continue
		echo "${kv#*=}" > "${kv%%=*}" 2>/dev/null ||
			echo "warning: could not restore ${kv%%=*} to '${kv#*=}'" >&2
	done
	[ "$_TR_UMOUNT" = 1 ] && umount "$TRACEFS"
	exit $rc
}

# ---- trace helpers -----------------------------------------------------------------

# EVENT_RE: blkparse's per-event lines ("  7,0    1   12   0.000123456  ..."); the
# summary after them is dropped (it has locale-dependent thousands separators)
EVENT_RE='^ *[0-9]+,[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{9} '

# blkparse_events TRACE: blkparse's per-event lines for a single-stream binary trace
blkparse_events() { blkparse -i - < "$1" | grep -aE "$EVENT_RE"; }

# blkparse_batch TRACE: blkparse's -b (stdin read batching) holding all of TRACE's
# records at once. From a pipe blkparse sorts each batch of 512 records by itself
# (blkparse.c do_stdin, rb_batch): records of one tracefs stream stamped the same
# nanosecond on two CPUs (a few per capture, many with a coarse clock), or a little
# out of order, print in an order that depends on where a batch ends; iotape sorts
# across them (trace/trace_input.c), as blkparse does in one batch. 48 bytes is
# the smallest record, so this is at least the record count.
blkparse_batch() { echo $(( $(stat -c %s "$1") / 48 + 1 )); }

# blkparse_events_sorted TRACE: blkparse_events with the whole stream one batch
blkparse_events_sorted() { blkparse -b "$(blkparse_batch "$1")" -i - < "$1" | grep -aE "$EVENT_RE"; }

# compare_dump DB RUN EXPECTED LABEL: check that `iotape dump RUN` prints exactly the
# lines of EXPECTED (blkparse_events output); on a difference, show the first lines of diff
compare_dump() {
	local db=$1 run=$2 expected=$3 label=$4 out n d
	out=$(mktemp "$TEST_TMP/dump.XXXXXX")
	n=$(wc -l < "$expected")
	if ! "$IOTAPE" dump --db "$db" "$run" > "$out" 2> "$out.err"; then
		not_ok "$label: dump matches blkparse" "iotape dump failed: $(tail -n 3 "$out.err")"
	elif cmp -s "$expected" "$out"; then
		ok "$label: dump matches blkparse's $n per-event lines"
	else
		mapfile -t d < <(diff "$expected" "$out" | head -n 12)
		not_ok "$label: dump matches blkparse" "blkparse $n lines, iotape $(wc -l < "$out") lines" \
			"diff blkparse iotape:" "${d[@]}"
	fi
}

# ---- btt vs iotape report ----------------------------------------------------------

# btt_all_row BTTOUT NAME: "N AVG" of row NAME (Q2C, D2C...) in btt's All Devices table
btt_all_row() {
	awk -v name="$2" '
		/^=+ All Devices =+$/ { in_all = 1; next }
		/^=+ / { in_all = 0 }
		in_all && $1 == name { print $5, $3; exit }' "$1"
}

# btt_seeks BTTOUT: "maj,min NSEEKS MEAN" per device from "Device D2D Seek Information",
# whose rows read " (  7,  0) |          142430        174543.6               0 | 0(189)"
btt_seeks() {
	awk '
		/^=+ Device D2D Seek Information =+$/ { on = 1; next }
		/^=+ / { on = 0 }
		on && /^ *\( *[0-9]+, *[0-9]+\) *\|/ {
			dev = $0; sub(/^ *\(/, "", dev); sub(/\).*/, "", dev); gsub(/ /, "", dev)
			rest = $0; sub(/^[^|]*\|/, "", rest); split(rest, f, " ")
			print dev, f[1], f[2] }' "$1"
}

# btt_merge_q BTTOUT: "maj,min #Q #D" per device from "Device Merge Information",
# whose rows read " (  8, 16) |     2589     2589     1.0 |        0 ..."
btt_merge_q() {
	awk '
		/^=+ Device Merge Information =+$/ { on = 1; next }
		/^=+ / { on = 0 }
		on && /^ *\( *[0-9]+, *[0-9]+\) *\|/ {
			dev = $0; sub(/^ *\(/, "", dev); sub(/\).*/, "", dev); gsub(/ /, "", dev)
			rest = $0; sub(/^[^|]*\|/, "", rest); split(rest, f, " ")
			print dev, f[1], f[2] }' "$1"
}

# compare_btt DB RUN BTT_DUMPFILE LABEL: run btt on BTT_DUMPFILE (a blkparse -d dump of
# the trace imported as RUN) and check that `iotape report --json` agrees with it: ALL
# Q2C, D2C and the stages (Q2G G2I Q2M I2D M2D) count and mean, and each device's D2D
# seek count and mean, within 1%;
# each device's #Q (report's btt_q: Q with data, a split bio once) exactly.
# Prints one TAP line per figure.
compare_btt() {
	local db=$1 run=$2 dump=$3 label=$4
	local dir json bttout row n avg jn jmean dev ns mean jns jm
	dir=$(mktemp -d "$TEST_TMP/btt.XXXXXX")
	bttout=$dir/btt.out
	# btt writes its *_fp.dat files into the working directory
	if ! (cd "$dir" && btt -i "$(readlink -f "$dump")" > "$bttout" 2> "$dir/btt.err"); then
		not_ok "$label: btt runs" "$(tail -n 5 "$dir/btt.err")"; return
	fi
	json=$dir/report.json
	if ! "$IOTAPE" report --db "$db" "$run" --json > "$json" 2> "$dir/report.err" ||
	   ! jq -e . "$json" > /dev/null 2>&1; then
		not_ok "$label: iotape report --json" "$(tail -n 5 "$dir/report.err")"; return
	fi
	# requeues (R): btt counts one more Q and one more I2D for each (the
	# request inserted and dispatched again); iotape's rows keep one
	local nr rq
	rq=$("$IOTAPE" dump --db "$db" "$run" 2> /dev/null |
		awk '$6 == "R" { n[$1]++ } END { for (d in n) print d, n[d] }')
	nr=$(awk '{ t += $2 } END { print t + 0 }' <<< "$rq")
	for row in Q2C D2C Q2G G2I Q2M I2D M2D; do
		read -r n avg <<< "$(btt_all_row "$bttout" "$row")"
		local key; key=$(echo "$row" | tr 'A-Z' 'a-z')
		jn=$(jq -r ".all.$key.n // empty" "$json")
		jmean=$(jq -r ".all.$key.mean_us // empty" "$json")
		if [ -z "$n" ]; then
			# btt prints no row when there is nothing to measure
			if [ "${jn:-0}" = 0 ]; then ok "$label: $row none, as btt"
			else not_ok "$label: $row count" "btt has no $row row; iotape n=$jn"; fi
			continue
		fi
		local btt_us; btt_us=$(awk -v s="$avg" 'BEGIN { printf "%.3f", s * 1e6 }')
		if [ "$row" = I2D ] && [ "$nr" -gt 0 ]; then
			if [ $((jn + nr)) = "$n" ]; then ok "$label: I2D N $jn + $nr requeues (btt $n)"
			else not_ok "$label: I2D N" "btt N=$n, iotape n=$jn + $nr requeues"; fi
			diag "$label: I2D mean $(printf '%.3f' "$jmean") us (btt $btt_us), not compared: requeues"
			continue
		fi
		if within_pct "$jn" "$n" 1; then ok "$label: $row N $jn (btt $n)"
		else not_ok "$label: $row N" "btt N=$n, iotape n=$jn"; fi
		# G2I of the halves an X split off: btt pairs some with another I
		# (hadoop: 7.76 us against our 7.92, N equal); not compared there
		if [ "$row" = G2I ] && [ "$(jq '[.devices[].x_splits] | add' "$json")" != 0 ]; then
			diag "$label: G2I mean $(printf '%.3f' "$jmean") us (btt $btt_us), not compared: X splits"
			continue
		fi
		# btt rounds AVG to 1 ns
		if within_pct "$jmean" "$btt_us" 1 0.002; then
			ok "$label: $row mean $(printf '%.3f' "$jmean") us (btt $btt_us)"
		else not_ok "$label: $row mean" "btt AVG=$avg s ($btt_us us), iotape mean_us=$jmean"; fi
	done
	local seen=0
	while read -r dev ns mean; do
		[ -n "$dev" ] || continue
		seen=1
		jns=$(jq -r --arg d "$dev" '.devices[] | select(.dev == $d) | .seeks.n // empty' "$json")
		jm=$(jq -r --arg d "$dev" '.devices[] | select(.dev == $d) | .seeks.mean_sectors // empty' "$json")
		if within_pct "$jns" "$ns" 1; then ok "$label: $dev seeks N $jns (btt $ns)"
		else not_ok "$label: $dev seeks N" "btt NSEEKS=$ns, iotape seeks.n=${jns:-missing}"; fi
		# btt prints MEAN with one decimal
		if within_pct "$jm" "$mean" 1 0.1; then
			ok "$label: $dev seek mean $(printf '%.1f' "$jm") sectors (btt $mean)"
		else not_ok "$label: $dev seek mean" "btt MEAN=$mean, iotape seeks.mean_sectors=${jm:-missing}"; fi
	done <<< "$(btt_seeks "$bttout")"
	[ $seen = 1 ] || diag "$label: btt printed no D2D seek rows"
	local nq nd jq_
	while read -r dev nq nd; do
		[ -n "$dev" ] || continue
		jq_=$(jq -r --arg d "$dev" '.devices[] | select(.dev == $d) | .btt_q // empty' "$json")
		local rd
		rd=$(awk -v d="$dev" '$1 == d { print $2 }' <<< "$rq")
		rd=${rd:-0}
		if [ $((${jq_:-0} + rd)) = "$nq" ]; then ok "$label: $dev #Q $jq_ + $rd requeues (btt $nq)"
		else not_ok "$label: $dev #Q" "btt #Q=$nq, iotape btt_q=${jq_:-missing} + $rd requeues"; fi
	done <<< "$(btt_merge_q "$bttout")"
}

# ---- a private PostgreSQL server ---------------------------------------------------
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

# need_pg DESC: print DESC as skipped and exit unless the PostgreSQL 15 server
# binaries (Debian's postgresql-15: initdb, pg_ctl) and psql are here
need_pg() {
	if [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] && [ -x "$PG_BIN/psql" ]; then
		return 0
	fi
	skip "$1" "no PostgreSQL server binaries in $PG_BIN: make deps-fleet installs them"
	exit 0
}

# pg_as CMD...: CMD as the private server's user (nobody when run as root:
# the server refuses root), else as this user
pg_as() {
	if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

# pg_start: initdb and start a private server in a new directory (as `nobody` when
# run as root: the server refuses root), listening only on a Unix socket in that
# directory, trusting local connections; sets PG_DIR and PG_URL (a libpq URI for
# database iotape as user postgres). Stopped (immediate) and removed at exit, also
# on failure and signals. Returns 1 (with the server's log on stderr) when it fails.
# PG_OPTS: more server options (-c name=value ...).
pg_start() {
	local log
	PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/iotape-pg.XXXXXX") || return 1
	at_exit "pg_stop '$PG_DIR'"
	if [ "$(id -u)" = 0 ]; then
		chown nobody: "$PG_DIR" || return 1
	fi
	log=$PG_DIR/log
	pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust \
		--encoding=UTF8 --locale=C.UTF-8 > "$PG_DIR/initdb.out" 2>&1 ||
		{ cat "$PG_DIR/initdb.out" >&2; return 1; }
	PG_SERVER_OPTS="-k $PG_DIR -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40 ${PG_OPTS:-}"
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$log" -w -t 60 \
		-o "$PG_SERVER_OPTS" start > /dev/null 2>&1 || { cat "$log" >&2; return 1; }
	"$PG_BIN/psql" -q -X -h "$PG_DIR" -U postgres -d postgres \
		-c "CREATE DATABASE iotape" > /dev/null || return 1
	PG_URL="postgresql:///iotape?host=$PG_DIR&user=postgres"
}

# pg_restart OPTS: restart pg_start's server with its options and OPTS (-c
# name=value ...; a setting read only at start, such as huge_pages). Returns 1
# (with the server's log on stderr) when it does not come back.
pg_restart() {
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -t 60 -m fast \
		-o "$PG_SERVER_OPTS $1" restart > /dev/null 2>&1 || { tail -5 "$PG_DIR/log" >&2; return 1; }
}

# pg_psql SQL: run SQL in the private server's database iotape; prints rows
# unaligned, tab-separated, without headers
pg_psql() {
	"$PG_BIN/psql" -X -q -A -t -F $'\t' -v ON_ERROR_STOP=1 -h "$PG_DIR" \
		-U postgres -d iotape -c "$1"
}

# pg_stop DIR: stop the server of DIR (when running) and remove DIR
pg_stop() {
	local d=$1
	[ -d "$d" ] || return 0
	if [ -f "$d/data/postmaster.pid" ]; then
		pg_as "$PG_BIN/pg_ctl" -D "$d/data" -m immediate -w -t 30 stop \
			> /dev/null 2>&1
	fi
	rm -rf "$d"
}
