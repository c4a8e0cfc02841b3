# t_capture_full.sh: a capture whose database is on a full disk (a 1 MiB tmpfs)
# loses nothing (issue 25): the store fails with the database's message, the raw
# trace and its rows file (samples, commands, settings) are kept, their paths and
# the `iotape import` command that stores them are printed, the database's earlier
# run is intact, and once there is room that command stores the run the capture
# would have: every traced event, its samples, commands and settings. Needs root.
. "$(dirname "$0")/../lib.sh"

need_iotape "capture onto a full disk"
need_root "capture onto a full disk"
tracefs_check || { skip "capture onto a full disk" "$TRACEFS_WHY"; exit 0; }

t=$TEST_TMP
mkdir -p "$t/full" "$t/tmp"
mount -t tmpfs -o size=1m none "$t/full" ||
	{ skip "capture onto a full disk" "cannot mount a tmpfs"; exit 0; }
at_exit "umount '$t/full' 2> /dev/null"
db=$t/full/t.db
q() { sqlite3 "$db" "$@"; }
truncate -s 64M "$t/d.img"
loop_attach "$t/d.img" || { not_ok "attach loop"; tap_finish; }
d=$LOOPDEV
printf '  8,0    0        1     0.000000000  4242  Q   R 2048 + 8 [rd]\n' > "$t/one.txt"
"$IOTAPE" import --quiet --db "$db" --run earlier "$t/one.txt"

# some 100,000 events (5 MB of trace) for a database with 0.6 MB of room (a
# new store is 384 KiB: 24 pages of 16 KiB)
TMPDIR=$t/tmp "$IOTAPE" capture --db "$db" --run big -d "/dev/$d" --interval 0.1 \
	--cmd "dd if=/dev/$d of=/dev/null bs=4k count=14000 iflag=direct 2>/dev/null" \
	> /dev/null 2> "$t/err"
rc=$?
check_eq "full disk: exit 1, the database's own message" "1 1" \
	"$rc $(grep -c "^iotape: $db: database or disk is full" "$t/err")"
raw=$(ls "$t/tmp"/iotape-capture.* 2> /dev/null | grep -v '\.rows$')
check_eq "full disk: the raw trace and its rows file kept" "yes yes" \
	"$([ -s "$raw" ] && echo yes || echo no) $([ -s "$raw.rows" ] && echo yes || echo no)"
cmd=$(grep -A1 "run 'big' was not stored; kept: its trace '$raw'" "$t/err" | tail -n 1)
check_eq "full disk: the import command that stores them is printed" \
	"  iotape import --db $db $raw.rows" "$cmd"
check_eq "full disk: the earlier run intact, no half run" "earlier" "$(q "SELECT group_concat(name) FROM runs")"

mount -o remount,size=64m "$t/full"
# the command as printed, with this tree's iotape for the one on PATH
eval "\"\$IOTAPE\" ${cmd#  iotape }" > /dev/null 2> "$t/err2"
rc=$?; cat "$t/err2" >&2
check_eq "with room: the printed command stores the run" "0 capture complete" \
	"$rc $(q "SELECT kind, status FROM runs WHERE name = 'big'" | tr '|' ' ')"
check_eq "with room: every traced event stored" \
	"$(blkparse -i - < "$raw" 2> /dev/null | grep -cE "$EVENT_RE")" \
	"$(q "SELECT last_event - first_event + 1 FROM runs WHERE name = 'big'")"
check_eq "with room: the samples, the command, the settings at start and end" "1 1 1 1" \
	"$(q "SELECT (SELECT count(*) > 10 FROM samples s JOIN runs r ON r.id = s.run WHERE r.name = 'big'),
		(SELECT count(*) FROM commands c JOIN runs r ON r.id = c.run WHERE r.name = 'big'),
		(SELECT count(*) > 0 FROM settings s JOIN runs r ON r.id = s.run WHERE r.name = 'big' AND at = 'start'),
		(SELECT count(*) > 0 FROM settings s JOIN runs r ON r.id = s.run WHERE r.name = 'big' AND at = 'end')" | tr '|' ' ')"
check "with room: report reads the run" "$IOTAPE" report --db "$db" big
tap_finish
