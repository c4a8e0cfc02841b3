# t_lab.sh: the lab's state file (capture/lab.c) in a --state-dir of its own, so
# nothing of the machine's is touched: --reset puts back in reverse order of change
# and unmounts last (whatever the file's order), names what it cannot put back with
# the command that does it by hand, keeps only that in the file and can be run again
# until it is clean; a replay that changes nothing runs beside a capture or replay
# holding the lock, while a state file nobody holds is named as left by a killed
# (pid gone) or failed run, never "killed" for a live one, and a replay on a
# modelled disk runs anyway (no setting moves it); --reset leaves a running one's
# file alone, naming its pid.
. "$(dirname "$0")/../lib.sh"

need_iotape "the lab's state file"
t=$TEST_TMP sd=$TEST_TMP/sd db=$TEST_TMP/t.db
mkdir -p "$sd" "$t/src" "$t/m"
q() { sqlite3 "$db" "$@"; }
reset() { "$IOTAPE" capture --reset --state-dir "$sd" > "$t/out" 2> "$t/err"; }
"$IOTAPE" import --quiet --db "$db" --run src "$FIXTURES/loop-fio-small.bin"

# ---- --reset: order, what it cannot put back, again until clean ----------------
echo new > "$t/a"
if [ "$(id -u)" = 0 ] && mount --bind "$t/src" "$t/m" 2> /dev/null; then
	at_exit "umount '$t/m' 2> /dev/null"
	bound=1
else
	bound=0
fi
echo xxxx > "$t/src/f"
# the mount recorded after the setting under it: unmounted last all the same
printf 'pid\t%s\nset\t%s\tfirst\nset\t%s\tlater\nset\t%s/m/f\tback\nmount\t%s/m\nset\t%s/none/x\tval\n' \
	"$(dead_pid)" "$t/a" "$t/a" "$t" "$t" "$t" > "$sd/capture.state"
reset
check_eq "--reset: exit 1, one line naming what failed and how to put it back by hand" \
	"1|iotape: warning: could not restore set $t/none/x to val: No such file or directory; by hand: echo 'val' > $t/none/x" \
	"$?|$(grep 'could not restore' "$t/err")"
check_eq "--reset: in reverse order of change (the first change's value wins)" "first" "$(cat "$t/a")"
if [ $bound = 1 ]; then
	check_eq "--reset: the setting under the mount put back, then unmounted" "back|no" \
		"$(cat "$t/src/f")|$(mountpoint -q "$t/m" && echo yes || echo no)"
else
	skip "--reset: unmounted last" "needs root (mount --bind)"
fi
check_eq "--reset: the state file keeps only what failed, marked" \
	"left	1|set	$t/none/x	val" "$(grep -v '^pid' "$sd/capture.state" | paste -sd'|')"
"$IOTAPE" replay --db "$db" src --engine null --target "$t/x.img" --timing afap --state-dir "$sd" \
	> /dev/null 2> "$t/err2"
grep -q "could not put back what it changed ($sd/capture.state: set $t/none/x (was 'val'))" "$t/err2" &&
	ok "a replay after a failed restore names it (not 'killed')" ||
	not_ok "a replay after a failed restore names it" "$(cat "$t/err2")"
reset
check_eq "--reset again: still fails, still kept" "1 1" \
	"$? $(grep -c "$t/none/x" "$sd/capture.state")"
mkdir -p "$t/none"; : > "$t/none/x"
reset
check_eq "--reset once it can: exit 0, put back, the state file gone" "0 val absent" \
	"$? $(cat "$t/none/x") $([ -e "$sd/capture.state" ] && echo left || echo absent)"

# ---- --reset after a disk was replaced: its settings left alone -----------------
# (each disk's diskseq is recorded before its settings: a loop device detached
# and attached again over another image has a new one; a disk gone has none)
for d in same other gone; do mkdir -p "$t/sys/block/$d/queue"; echo now > "$t/sys/block/$d/queue/x"; done
echo 7 > "$t/sys/block/same/diskseq"
echo 9 > "$t/sys/block/other/diskseq"
printf 'pid\t%s\nseq\t%s\t7\nset\t%s\told\nseq\t%s\t8\nset\t%s\told\nseq\t%s\t3\nset\t%s\told\n' \
	"$(dead_pid)" "$t/sys/block/same" "$t/sys/block/same/queue/x" \
	"$t/sys/block/other" "$t/sys/block/other/queue/x" \
	"$t/sys/block/gone" "$t/sys/block/gone/queue/x" > "$sd/capture.state"
reset
check_eq "--reset: a disk still the same put back, another (new diskseq) or gone left alone, said so; the state file gone" \
	"0|old now now|2|absent" \
	"$?|$(cat "$t/sys/block/same/queue/x" "$t/sys/block/other/queue/x" "$t/sys/block/gone/queue/x" | paste -sd' ')|$(grep -c "is another disk now" "$t/out")|$([ -e "$sd/capture.state" ] && echo kept || echo absent)"

# ---- who left a state file, and who holds the lock ------------------------------
printf 'pid\t%s\nset\t%s\tx\n' "$(dead_pid)" "$t/a" > "$sd/capture.state"
"$IOTAPE" replay --db "$db" src --engine null --target "$t/x.img" --timing afap \
	--state-dir "$sd" --run r-killed > /dev/null 2> "$t/err"
check_eq "its pid gone, the lock free: 'killed', the replay refused" "1 1" \
	"$? $(grep -c "was killed and left the machine changed ($sd/capture.state" "$t/err")"
# a modelled disk's replay: no setting of the machine moves it, so it runs
"$IOTAPE" replay --db "$db" src --target model:desktop-2006 --timing afap --wrap \
	--state-dir "$sd" --run r-model --quiet > /dev/null 2> "$t/err"
check_eq "a killed run's state file left: a replay on a modelled disk still runs" \
	"0 complete" "$? $(sqlite3 "$db" "SELECT status FROM runs WHERE name = 'r-model'")"
printf 'pid\t%s\nset\t%s\tx\n' "$$" "$t/a" > "$sd/capture.state"
"$IOTAPE" replay --db "$db" src --engine null --target "$t/x.img" --timing afap \
	--state-dir "$sd" --run r-alive > /dev/null 2> "$t/err"
check_eq "its pid alive, the lock free: left changed, not 'killed'" "1 0 1" \
	"$? $(grep -c "killed" "$t/err") $(grep -c "(pid $$, running but no longer holding" "$t/err")"
# a running capture or replay holds the lock: its state file is its own
( exec 9>> "$sd/capture.lock"; flock 9; sleep 30 ) &
holder=$!
at_exit "kill $holder 2> /dev/null"
for i in $(seq 50); do flock -n "$sd/capture.lock" true || break; sleep 0.1; done
printf 'pid\t%s\nset\t%s\tx\n' "$holder" "$t/a" > "$sd/capture.state"
"$IOTAPE" replay --db "$db" src --engine null --target "$t/x.img" --timing afap \
	--state-dir "$sd" --run beside --quiet > /dev/null 2> "$t/err"
check_eq "lock held: a replay that changes nothing runs beside it" \
	"0 complete" "$? $(q "SELECT status FROM runs WHERE name = 'beside'")"
reset
check_eq "lock held: --reset refuses naming the pid, its file untouched" "1 1 x" \
	"$? $(grep -c "is running (pid $holder holds '$sd/capture.lock')" "$t/err") $(cut -f3 "$sd/capture.state" | tail -n 1)"
kill $holder; wait $holder 2> /dev/null
tap_finish
