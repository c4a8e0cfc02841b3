# t_bad_input.sh: every broken input kept in tests/fixtures/bad gets a one-line
# error naming the file and byte offset (or line), a non-zero exit, and leaves
# the database as it was; a trace cut short imports with a warning; a
# database that cannot be written is named, not the trace, with why.
. "$(dirname "$0")/../lib.sh"

need_iotape "bad inputs"
B=$FIXTURES/bad t=$TEST_TMP db=$t/t.db

"$IOTAPE" import --quiet --db "$db" --run good "$FIXTURES/loop-fio-small.bin"
before=$(sqlite3 "$db" "SELECT count(*) FROM runs; SELECT count(*) FROM events;
	SELECT count(*) FROM requests" | tr '\n' ' ')

# expect_error LABEL PATTERN IOTAPE-ARGS...: exit non-zero, exactly one stderr
# line matching PATTERN, database unchanged
expect_error() {
	local label=$1 pat=$2 rc lines after; shift 2
	"$IOTAPE" "$@" > "$t/out" 2> "$t/err"; rc=$?
	lines=$(wc -l < "$t/err")
	after=$(sqlite3 "$db" "SELECT count(*) FROM runs; SELECT count(*) FROM events;
		SELECT count(*) FROM requests" | tr '\n' ' ')
	if [ $rc != 0 ] && [ "$lines" = 1 ] && grep -qE "$pat" "$t/err" &&
	   [ "$after" = "$before" ]; then
		ok "$label: $(cat "$t/err")"
	else
		not_ok "$label" "exit $rc, $lines stderr lines: $(cat "$t/err")" \
			"want /$pat/; db before '$before' after '$after'"
	fi
}

# blank lines alone were "record cut short" (a binary record under 48
# bytes); an iotape database given as an input, "neither a blktrace trace"
printf '\n \n\r\n' > "$t/blank.txt"
expect_error "blank lines alone" "blank.txt: offset 5: nothing but blank lines" \
	import --db "$db" "$t/blank.txt"
cp "$db" "$t/store.db"
expect_error "an SQLite database as the input" "store.db: offset 0: an SQLite database, not a trace \(an iotape store\? read it with --db .*store.db\)" \
	import --db "$db" "$t/store.db"
expect_error "wrong magic" "badmagic.bin: offset 984: bad magic" \
	import --db "$db" "$B/badmagic.bin"
expect_error "pdu_len past the end" "pdulen.bin: offset 1968: pdu_len 4000 runs past" \
	import --db "$db" "$B/pdulen.bin"
expect_error "pdu_len into the records after it" \
	"pdulen-garbage.bin: offset 87040: pdu_len 60000 runs to offset 147088, where no record starts" \
	import --db "$db" "$B/pdulen-garbage.bin"
expect_error "empty file" "empty.bin: offset 0: empty trace" \
	import --db "$db" "$B/empty.bin"
expect_error "version 6" "version6.bin: offset 0: unsupported blktrace version" \
	import --db "$db" "$B/version6.bin"
expect_error "text that is not blkparse output" "not-blkparse.txt: offset 0: neither" \
	import --db "$db" "$B/not-blkparse.txt"
expect_error "cut short, --strict" "truncated.bin: offset 4912: record cut short" \
	import --db "$db" --strict "$B/truncated.bin"
head -c 47 "$FIXTURES/loop-fio-small.bin" > "$t/short47.bin"
expect_error "a file shorter than one record (one line, no warning before it)" \
	"short47.bin: offset 0: no complete record \(47 bytes cut short\)" \
	import --db "$db" "$t/short47.bin"
expect_error "no such input" "cannot open '.*nonexistent'" \
	import --db "$db" "$t/nonexistent"
mkdir "$t/adir"
expect_error "a directory" "^iotape: '.*/adir' is a directory$" \
	import --db "$db" "$t/adir"
expect_error "--names a directory: nothing stored" "^iotape: cannot read '.*/adir': Is a directory$" \
	import --db "$db" --again --run x --names "$t/adir" "$FIXTURES/loop-fio-small.bin"
expect_error "second input bad: nothing stored" "badmagic.bin: offset 984" \
	import --db "$db" --again "$FIXTURES/loop-fio-small.bin" "$B/badmagic.bin"
expect_error "run name taken" "a run named 'good' exists" \
	import --db "$db" --run good "$FIXTURES/loop-fio-small.bin"
expect_error "input already imported" "loop-fio-small.bin: already imported as run 'good'" \
	import --db "$db" "$FIXTURES/loop-fio-small.bin"
expect_error "one input given twice: said so, no run named that never was" \
	"before.bin.gz \\(gzip-decompressed\\): given twice \\(the same SHA-256 as an input before it\\)" \
	import --db "$db" "$FIXTURES/quick/before.bin.gz" "$FIXTURES/quick/before.bin.gz"
expect_error "unknown run" "no run named 'nope'" report --db "$db" nope

# numbers past what the store holds: refused naming the line or offset,
# never stored wrapped (a time past 2^63 - 1 ns as a negative one, a date
# after 2262 as one in 1677, CPU 99999999999 of a set as CPU 1215752191)
printf '%s\n' '  8,0    1        1     0.000000000   100  Q   W 2056 + 8 [a]' \
	'  8,0    1        2     9300000000.000099999   100  G   W 2056 + 8 [a]' > "$t/time-ovf.txt"
expect_error "blkparse text: a time past 2^63 - 1 ns" \
	"time-ovf.txt: line 2: time 9300000000.000099999 s is past the largest time iotape stores" \
	import --db "$db" "$t/time-ovf.txt"
python3 - "$FIXTURES/loop-fio-small.bin" "$t/time-ovf.bin" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 0
for i in range(10):
    off += 48 + struct.unpack_from('<H', d, off + 46)[0]
struct.pack_into('<Q', d, off + 8, (1 << 64) - 1)
open(sys.argv[2], 'wb').write(d)
PY
expect_error "blktrace: a time past 2^63 - 1 ns" \
	"time-ovf.bin: offset 488: time 18446744073709551615 ns is past the largest time iotape stores" \
	import --db "$db" "$t/time-ovf.bin"
printf '2326-11-30T14:05:10+0100\nDevice       tps  kB_read/s\nsda         1.60      12.80\n' > "$t/y2326.log"
expect_error "iostat log: a timestamp after 2262" \
	"y2326.log: line 1: timestamp '2326-11-30T14:05:10\+0100' is outside the times iotape stores \(1677-09-21 to 2262-04-11 UTC" \
	import --db "$db" "$t/y2326.log"
printf '%s\n' 'procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----' \
	' r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 UTC' \
	' 6  0      0 22145792  50328 2371304    0    0 47938  5186 1551 28228 16 15 69  0  0 2400-11-30 06:10:27' > "$t/y2400.log"
expect_error "vmstat log: a timestamp after 2262" \
	"y2400.log: line 3: timestamp '2400-11-30 06:10:27' is outside the times iotape stores" \
	import --db "$db" "$t/y2400.log"
mkdir "$t/set"
cp "$FIXTURES/loop-fio-small.bin" "$t/set/f.blktrace.7"
cp "$FIXTURES/loop-fio-small.bin" "$t/set/f.blktrace.99999999999"
expect_error "per-CPU set: a member's CPU number that fits no CPU" \
	"set/f.blktrace.99999999999: offset 0: CPU number '99999999999' is over 65535" \
	import --db "$db" "$t/set/f"
expect_error "per-CPU set: that member named itself" \
	"set/f.blktrace.99999999999: offset 0: CPU number '99999999999' is over 65535" \
	import --db "$db" "$t/set/f.blktrace.99999999999"

# a database that is not SQLite, and one from a newer iotape: refused, unchanged
for f in not-sqlite.db newer-schema.db; do
	cp "$B/$f" "$t/$f"
	sum=$(md5sum < "$t/$f")
	"$IOTAPE" import --db "$t/$f" "$FIXTURES/loop-fio-small.bin" 2> "$t/err"; rc=$?
	if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ] && [ "$(md5sum < "$t/$f")" = "$sum" ] &&
	   grep -qE "$f: (not an iotape database|database schema version 99 is newer)" "$t/err"; then
		ok "$f refused: $(cat "$t/err")"
	else
		not_ok "$f refused" "exit $rc: $(cat "$t/err")"
	fi
done

# vacuum of a newer database: its name once, as every other command says it
# (once "newer-schema.db: newer-schema.db: ...")
cp "$B/newer-schema.db" "$t/future.db"
sum=$(md5sum < "$t/future.db")
"$IOTAPE" vacuum --db "$t/future.db" > /dev/null 2> "$t/err"
check_eq "vacuum of a newer database: refused, its name once, unchanged" \
	"1|iotape: $t/future.db: database schema version 99 is newer than this iotape's|$sum" \
	"$?|$(cut -d'(' -f1 "$t/err" | sed 's/ $//')|$(md5sum < "$t/future.db")"

# an empty file given to a command that only reads: refused, left empty
: > "$t/empty.db"
for cmd in runs "report x"; do
	"$IOTAPE" $cmd --db "$t/empty.db" > /dev/null 2> "$t/err"
	check_eq "an empty file to '$cmd': refused in one line, still empty" \
		"1|iotape: $t/empty.db: not an iotape database (an empty file)|0" \
		"$?|$(cat "$t/err")|$(stat -c %s "$t/empty.db")"
done

# a database that cannot be written: the database named first, not the trace
ro=$t/ro
mkdir "$ro"
"$IOTAPE" import --quiet --db "$ro/t.db" --run first "$FIXTURES/loop-fio-small.bin"
# ro_run CMD...: CMD with $ro read-only: a read-only bind mount in a mount
# namespace of its own as root (root writes through modes), else its modes
ro_ok=1
if [ "$(id -u)" = 0 ]; then
	ro_run() { unshare -m sh -c 'mount --bind -o ro "$0" "$0" && exec "$@"' "$ro" "$@"; }
	ro_run true 2> /dev/null || ro_ok=
else
	chmod a-w "$ro" "$ro/t.db"
	at_exit "chmod u+w '$ro' '$ro/t.db'"
	ro_run() { "$@"; }
fi
if [ -n "$ro_ok" ]; then
	ro_run "$IOTAPE" import --again --db "$ro/t.db" "$FIXTURES/loop-fio-small.bin" 2> "$t/err"; rc=$?
	if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ] &&
	   grep -q "^iotape: $ro/t.db: importing '.*loop-fio-small.bin': creating run: attempt to write a readonly database (folder '$ro' is not writable: " "$t/err"; then
		ok "read-only database: $(cat "$t/err")"
	else not_ok "read-only database: named first, with why" "exit $rc: $(cat "$t/err")"; fi
	ro_run "$IOTAPE" import --db "$ro/new.db" "$FIXTURES/loop-fio-small.bin" 2> "$t/err"; rc=$?
	if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ] &&
	   grep -q "^iotape: $ro/new.db: cannot open database: unable to open database file (folder '$ro' is not writable: " "$t/err"; then
		ok "database in a read-only folder: $(cat "$t/err")"
	else not_ok "database in a read-only folder: why" "exit $rc: $(cat "$t/err")"; fi
else
	skip "read-only database" "no mount namespace"
fi
"$IOTAPE" import --db "$t/nope/new.db" "$FIXTURES/loop-fio-small.bin" 2> "$t/err"; rc=$?
check_eq "database in a folder that does not exist: why" \
	"1 iotape: $t/nope/new.db: folder '$t/nope' does not exist" "$rc $(cat "$t/err")"

# a capture cut short: complete records imported, warning names file and offset
if "$IOTAPE" import --db "$db" --run cut "$B/truncated.bin" 2> "$t/err" &&
   grep -q "truncated.bin: offset 4912: trace ends inside a record (30 bytes" "$t/err"; then
	ok "cut-short trace imports with a warning"
else
	not_ok "cut-short trace imports with a warning" "$(cat "$t/err")"
fi
check_eq "cut-short trace: its 100 whole records" 100 \
	"$(sqlite3 "$db" "SELECT last_event - first_event + 1 FROM runs WHERE name = 'cut'")"
check_eq "cut-short trace: truncated bytes recorded" 30 \
	"$(sqlite3 "$db" "SELECT value FROM run_stats s JOIN runs r ON r.id = s.run
		WHERE r.name = 'cut' AND key = 'truncated_bytes'")"
check_eq "integrity after all that" ok "$(sqlite3 "$db" 'PRAGMA integrity_check')"

# a record with an action no blktrace version defines (all bits set, so it
# reads as a notify of code 0xff): skipped, and said with its offset
python3 - "$FIXTURES/loop-fio-small.bin" "$t/badact.bin" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 0
for i in range(10):
    off += 48 + struct.unpack_from('<H', d, off + 46)[0]
struct.pack_into('<I', d, off + 28, 0xffffffff)
open(sys.argv[2], 'wb').write(d)
PY
"$IOTAPE" import --db "$db" --run badact "$t/badact.bin" 2> "$t/err"
check_eq "a record with no defined action: imported, the record skipped and named by offset" \
	"0|iotape: warning: $t/badact.bin: offset 488: 1 record(s) with an action no blktrace version defines were skipped (a damaged trace?)" \
	"$?|$(head -n 1 "$t/err")"

# a record whose sector no device reaches (2^63): kept, as blkparse keeps
# it, and said with its offset
python3 - "$FIXTURES/loop-fio-small.bin" "$t/badsec.bin" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 0
for i in range(10):
    off += 48 + struct.unpack_from('<H', d, off + 46)[0]
struct.pack_into('<Q', d, off + 16, 1 << 63)
open(sys.argv[2], 'wb').write(d)
PY
"$IOTAPE" import --db "$db" --run badsec "$t/badsec.bin" 2> "$t/err"
check_eq "a record with a sector past any device's end: imported, said with its offset" \
	"0|iotape: warning: $t/badsec.bin: offset 488: 1 record(s) with a sector past any device's end (2^55 sectors; a damaged trace?)" \
	"$?|$(head -n 1 "$t/err")"

# blkparse text with such a sector (2^64 - 1): kept and said, with its line
printf '%s\n' '  8,0    1        1     0.000000000   100  Q   W 2056 + 8 [a]' \
	'  8,0    1        2     0.000001000   100  Q   W 18446744073709551615 + 8 [a]' > "$t/badsec.txt"
"$IOTAPE" import --db "$db" --run badsectxt "$t/badsec.txt" 2> "$t/err"
check_eq "blkparse text with a sector past any device's end: imported, said with its line" \
	"0|iotape: warning: $t/badsec.txt: line 2: 1 record(s) with a sector past any device's end (2^55 sectors; a damaged trace?)" \
	"$?|$(head -n 1 "$t/err")"

# an input's control bytes quoted in a message never reach the terminal raw
printf 'procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n 1  0 0 100 1 1 0 0 0 0 1 1 1\033[31m 1 98 0 0\n' > "$t/esc.log"
"$IOTAPE" import --db "$db" --run esc "$t/esc.log" 2> "$t/err"
check_eq "an ESC byte in a log's bad number: shown as <0x1b>, not sent raw" \
	"1|iotape: $t/esc.log: line 3: '1<0x1b>[31m' is not a number|0" \
	"$?|$(cat "$t/err")|$(tr -cd '\033' < "$t/err" | wc -c)"

# run names made from a file's name or contents get no control characters
# (--run refuses them): '_' for each, and the file still imports
cp "$FIXTURES/loop-fio-small.bin" "$t/new
line.bin"
"$IOTAPE" import --db "$db" --again "$t/new
line.bin" 2> /dev/null
check_eq "a file named 'new<newline>line.bin': run 'new_line'" "1" \
	"$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE name = 'new_line'")"
"$IOTAPE" import --db "$db" --again --run nl2 "$t/new
line.bin" 2> "$t/err"
check_eq "its summary quotes the path on one line, the newline as <0x0a>" \
	"0|1|iotape: imported '$t/new<0x0a>line.bin' as run 'nl2'" \
	"$?|$(wc -l < "$t/err")|$(cut -d: -f1-2 "$t/err")"
printf '128166372001234567,ho\033[31mst\a,0,Write,8599642112,4096,12034\n128166372001240311,a\tb,1,Read,1073741824,65536,4470\n' > "$t/ctrlhost.csv"
"$IOTAPE" import --db "$db" "$t/ctrlhost.csv" 2> /dev/null
check_eq "MSR Hostnames with ESC, BEL and TAB: runs and devices named with '_'" \
	"ctrlhost-a_b|ctrlhost-ho_[31mst_|a_b disk 1|ho_[31mst_ disk 0|0" \
	"$(sqlite3 "$db" "SELECT name FROM runs WHERE name LIKE 'ctrlhost-%' ORDER BY name" | paste -sd'|')|$(sqlite3 "$db" "SELECT d.name FROM devices d JOIN runs r ON r.id = d.run
		WHERE r.name LIKE 'ctrlhost-%' ORDER BY d.name" | paste -sd'|')|$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE name GLOB '*[^ -~]*'")"
printf 'iotape capture rows 1\nrun\t\\n\033[31mred\ntrace\t%s\n' "$FIXTURES/loop-fio-small.bin" > "$t/ctrl.rows"
"$IOTAPE" import --db "$db" --again "$t/ctrl.rows" 2> /dev/null
check_eq "a capture's rows naming its run with control characters: '_' for each" "1" \
	"$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE name = '__[31mred'")"
"$IOTAPE" import --db "$db" --again --run "$(printf 'x\ny')" "$FIXTURES/loop-fio-small.bin" 2> "$t/err"
check_eq "--run with a newline: still refused" \
	"2|iotape: invalid run name: control character 0x0a at byte 1" "$?|$(cat "$t/err")"

# --names: a name of any length (`ps -eo pid,args`) is one line, not two,
# and a last line without its newline is read whole
{ printf '4242 %s\n' "$(head -c 1000 /dev/zero | tr '\0' x)"; printf '4343 short'; } > "$t/names.txt"
"$IOTAPE" import --db "$db" --again --run names1000 --names "$t/names.txt" "$FIXTURES/loop-fio-small.bin" 2> "$t/err"
check_eq "--names: a 1000-byte name, a last line with no newline" "0|4242 1000|4343 short" \
	"$?|$(sqlite3 "$db" "SELECT p.pid, length(p.comm) FROM processes p JOIN runs r ON r.id = p.run
		WHERE r.name = 'names1000' AND p.pid = 4242" | tr '|' ' ')|$(sqlite3 "$db" "SELECT p.pid, p.comm FROM processes p
		JOIN runs r ON r.id = p.run WHERE r.name = 'names1000' AND p.pid = 4343" | tr '|' ' ')"

# usage errors exit 2
"$IOTAPE" import > /dev/null 2>&1; check_eq "import without input exits 2" 2 $?
"$IOTAPE" frobnicate > /dev/null 2>&1; check_eq "unknown command exits 2" 2 $?
# help on a command there is not: what 'iotape nosuch' says, not the usage
"$IOTAPE" nosuch > /dev/null 2> "$t/err1"; rc1=$?
"$IOTAPE" help nosuch > "$t/out" 2> "$t/err"; rc=$?
check_eq "help nosuch: exit 2, what 'iotape nosuch' says, nothing on stdout" \
	"2 2|iotape: 'nosuch' is not an iotape command; see 'iotape --help'|$(cat "$t/err1")|0" \
	"$rc $rc1|$(cat "$t/err")|$(cat "$t/err")|$(wc -c < "$t/out")"
"$IOTAPE" --help improt > /dev/null 2> "$t/err"
check_eq "--help improt: exit 2, did you mean 'import'" \
	"2|iotape: 'improt' is not an iotape command; did you mean 'import'?" "$?|$(cat "$t/err")"
# a number out of its range: one line, the range in it (once two lines)
"$IOTAPE" replay --db "$db" cut --target "$t/x.img" --depth -1 > /dev/null 2> "$t/err"
check_eq "replay --depth -1: one line with the range" \
	"2|iotape: invalid value '-1' for --depth (1 to 65536)" "$?|$(cat "$t/err")"
# an engine there is none of: a usage error, naming the ones there are,
# before anything is opened (it exited 1, after the source was read)
"$IOTAPE" replay --db "$db" cut --target "$t/x.img" --engine bogus > /dev/null 2> "$t/err"
check_eq "replay --engine bogus: exit 2, one line naming the engines" \
	"2|iotape: unknown --engine 'bogus' (io_uring, sync, null, model)" "$?|$(cat "$t/err")"
# a newline in what the user gave (a label's key, an option's value) is
# shown, not written: the message stays one line (it was two)
"$IOTAPE" label --db "$db" cut "$(printf 'k\nz=1')" > /dev/null 2> "$t/err"
check_eq "label with a newline in its key: exit 2, one line" \
	"2|iotape: invalid label key 'k<0x0a>z' (letters, digits, _ . : / -)" "$?|$(cat "$t/err")"
"$IOTAPE" plot --db "$db" --align "$(printf 'cmd:1\nx')" cut > /dev/null 2> "$t/err"
check_eq "plot --align with a newline: exit 2, one line" \
	"2|iotape: invalid value 'cmd:1<0x0a>x' for --align (start or cmd:N)" "$?|$(cat "$t/err")"
# ... and in any message: a run's name, an option's value (error() keeps a
# newline only when its own text has one)
"$IOTAPE" report --db "$db" "$(printf 'no\nsuch')" > /dev/null 2> "$t/err"
check_eq "report of a run name with a newline: exit 1, one line, the newline shown" \
	"1|1|1" "$?|$(wc -l < "$t/err")|$(grep -c "'no<0x0a>such'" "$t/err")"
"$IOTAPE" report --db "$db" --dev "$(printf '1\nx')" cut > /dev/null 2> "$t/err"
check_eq "report --dev with a newline: exit 2, one line" "2|1" "$?|$(wc -l < "$t/err")"
# a bad --interval: the duration's message alone (the range's followed it)
for c in capture record; do
	"$IOTAPE" $c --db "$db" --interval 5x -- true > /dev/null 2> "$t/err"
	check_eq "$c --interval 5x: exit 2, one message" "2|1" "$?|$(wc -l < "$t/err")"
done
# a label's value: UTF-8 without controls, as a run's name (a Latin-1 byte
# was stored and printed raw; U+009B is CSI to an 8-bit terminal)
"$IOTAPE" label --db "$db" cut "$(printf 'fs=caf\351')" > /dev/null 2> "$t/err"
check_eq "label with a Latin-1 value: exit 2, the byte shown" \
	"2|iotape: invalid label 'fs=caf<0xe9>': byte 0xe9 at byte 6 is not UTF-8" "$?|$(cat "$t/err")"
"$IOTAPE" label --db "$db" cut "$(printf 'fs=a\302\233b')" > /dev/null 2> "$t/err"
check_eq "label with a C1 control (U+009B): exit 2, shown, not sent" \
	"2|iotape: invalid label 'fs=a<0xc2><0x9b>b': control character 0x9b at byte 4" "$?|$(cat "$t/err")"
# a run named after a file whose name is longer than a run name may be:
# cut to fit (it was stored with 219 bytes, which mv then refused)
long=$(head -c 240 /dev/zero | tr '\0' L)
cp "$FIXTURES/loop-fio-small.bin" "$t/$long.bin"
"$IOTAPE" import --quiet --again --db "$db" "$t/$long.bin" 2> "$t/err"
n=$(sqlite3 "$db" "SELECT length(name) FROM runs WHERE name LIKE 'LLLL%'")
check_eq "a 240-byte file name: the run's name cut to 194 bytes, a name mv takes" \
	"194|0" "$n|$("$IOTAPE" mv --db "$db" "${long:0:194}" "${long:0:193}y" > /dev/null 2>&1; echo $?)"
rm -f "$t/$long.bin"
# compare keeps a run's whole name (it cut it at 127 bytes, inside a
# character)
nm="$(head -c 126 /dev/zero | tr '\0' a)é"
"$IOTAPE" import --quiet --again --db "$db" --run "$nm" "$FIXTURES/loop-fio-small.bin"
check_eq "compare --json: a 128-byte name whole" "$nm" \
	"$("$IOTAPE" compare --db "$db" --json "$nm" cut | jq -r '.runs[0].name')"
# an option's value forgotten, so the next option would be taken as it (a
# replay once made a file named --allow-write): refused, nothing made
(cd "$t" && "$IOTAPE" replay --db "$db" cut --target --allow-write > /dev/null 2> "$t/err")
check_eq "replay --target --allow-write: refused, naming both, no file made" \
	"2|iotape replay: option '--target' takes a value, not the option '--allow-write'|absent" \
	"$?|$(head -n 1 "$t/err")|$([ -e "$t/--allow-write" ] && echo made || echo absent)"
(cd "$t" && "$IOTAPE" export --db "$db" cut --format csv -o --quiet > /dev/null 2> "$t/err")
check_eq "export -o --quiet: refused, no file made" \
	"2|iotape export: option '--output' takes a value, not the option '--quiet'|absent" \
	"$?|$(head -n 1 "$t/err")|$([ -e "$t/--quiet" ] && echo made || echo absent)"
# a bad value of an option is a usage error too, in every command that
# takes one (the duration's and the window's options once exited 1)
for a in "iostat --interval 5x" "iostat --interval 0" "iostat --source bogus" \
	"report --from 5x" \
	"dump --to 1y" "export --dev 9x" "plot --from 5x" "runs --since 5x" \
	"fleet --since 3x" "record --window 5x" "replay --depth -1" \
	"replay --repeat 0" "replay --engine bogus" "capture --buffer-kb 1" \
	"record --buffer-kb 1" "capture --metric bad" "capture --metric x=("; do
	"$IOTAPE" $a --db "$db" cut > /dev/null 2> "$t/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$t/err")" -le 2 ] &&
		ok "$a: exits 2 with its message" ||
		not_ok "$a: exits 2 with its message" "exit $rc: $(head -n 2 "$t/err")"
done
# an option's name or value holding a newline: getopt's cases said by iotape,
# each one line and the pointer at --help (getopt's own printed the newline)
for a in $'--no\nsuch' $'--db\n=x' $'--help=a\nb' $'-\n'; do
	"$IOTAPE" report "$a" > /dev/null 2> "$t/err"
	rc=$?
	check_eq "report $(printf %q "$a"): exit 2, two lines" "2 2" "$rc $(wc -l < "$t/err")"
done
"$IOTAPE" report --d > /dev/null 2> "$t/err"
check_eq "report --d: ambiguous, said so" "1" "$(grep -c "ambiguous option: '--d'" "$t/err")"
# a run name with a leading '-' reads as an option: refused when given,
# '_' when made from a file's name
"$IOTAPE" import --db "$t/dash.db" --run -x "$FIXTURES/quick/before.bin.gz" > /dev/null 2> "$t/err"
check_eq "import --run -x: refused (exit 2), saying why" "2 1" \
	"$? $(grep -c "a leading '-' would read as an option" "$t/err")"
cp "$FIXTURES/quick/before.bin.gz" "$t/-dash.bin.gz"
(cd "$t" && "$IOTAPE" import --quiet --db dash.db -- -dash.bin.gz)
check_eq "a file named -dash.bin.gz imports as _dash" "_dash" \
	"$(sqlite3 "$t/dash.db" "SELECT name FROM runs")"
# a database whose schema version someone set below 0: not taken for a
# fresh one ("table runs already exists")
"$IOTAPE" import --quiet --db "$t/neg.db" --run n "$FIXTURES/quick/before.bin.gz"
sqlite3 "$t/neg.db" "PRAGMA user_version = -1"
"$IOTAPE" runs --db "$t/neg.db" > /dev/null 2> "$t/err"
check_eq "a database with schema version -1: refused, saying so" \
	"1|iotape: $t/neg.db: not an iotape database (schema version -1)" "$?|$(cat "$t/err")"

# dump to a full device: the reason said, not only "failed"
if [ -w /dev/full ]; then
	"$IOTAPE" import --quiet --db "$t/full.db" --run f "$FIXTURES/quick/before.bin.gz"
	"$IOTAPE" dump --db "$t/full.db" f > /dev/full 2> "$t/err"
	check_eq "dump > /dev/full: exit 1, the reason said" \
		"1|iotape: dump of 'f': cannot write to standard output: No space left on device" \
		"$?|$(cat "$t/err")"
fi

# a failed import into a database it would make leaves none behind (`runs`
# after a typo said "0 runs", not "no such file"); one that was there stays
mkdir -p "$t/fresh"
(cd "$t/fresh" && IOTAPE_DB= "$IOTAPE" import typo.bin > /dev/null 2>&1)
"$IOTAPE" import --db "$t/fresh/new.db" "$t/fresh/typo.bin" > /dev/null 2>&1
check_eq "a failed import makes no database (default name, --db)" "1|" \
	"$?|$(ls "$t/fresh")"

# gzip's own check (RFC 1952: CRC-32 and length in each member's trailer),
# which libarchive does not make: a flipped bit in the data, a damaged CRC or
# length, refused naming the offset; two members, and zeros after the last,
# read as gzip reads them
gz=$FIXTURES/quick/before.bin.gz
n=$(stat -c %s "$gz")
for what in data crc length; do
	cp "$gz" "$t/bad-$what.gz"
	case $what in
	data) off=$((n / 2)) ;;
	crc) off=$((n - 8)) ;;
	length) off=$((n - 4)) ;;
	esac
	printf "\\x$(printf %02x $(( ($(od -An -tu1 -j $off -N1 "$gz") ^ 1) )))" |
		dd of="$t/bad-$what.gz" bs=1 seek=$off conv=notrunc status=none
	"$IOTAPE" import --db "$t/gz.db" --quiet "$t/bad-$what.gz" 2> "$t/err"
	check_eq "a gzip input with its $what damaged: refused, naming the check, no run" \
		"1|1|0" "$?|$(grep -c "the gzip stream is corrupt (incorrect .* check" "$t/err")|$(sqlite3 "$t/gz.db" 'SELECT count(*) FROM runs' 2> /dev/null || echo 0)"
done
cat "$gz" "$gz" > "$t/two.gz"
{ cat "$gz"; head -c 64 /dev/zero; } > "$t/zeros.gz"
for f in two zeros; do
	"$IOTAPE" import --db "$t/gz.db" --quiet --again "$t/$f.gz" 2> "$t/err"
	check_eq "a gzip input of $([ $f = two ] && echo "two members" || echo "one member and zeros after it"): imported" \
		"0|" "$?|$(cat "$t/err")"
done

# a capture-rows file whose trace row names itself, or two naming each other:
# refused in one line (each read the other without end: a stack overflow)
printf 'iotape capture rows 1\nrun\tloop\ntrace\t%s\n' "$t/self.rows" > "$t/self.rows"
printf 'iotape capture rows 1\nrun\tra\ntrace\t%s\n' "$t/b.rows" > "$t/a.rows"
printf 'iotape capture rows 1\nrun\trb\ntrace\t%s\n' "$t/a.rows" > "$t/b.rows"
for f in self a; do
	"$IOTAPE" import --db "$t/rows.db" "$t/$f.rows" > /dev/null 2> "$t/err"
	check_eq "a capture-rows file whose trace leads back to a rows file ($f): refused, no run" \
		"1|1|0" "$?|$(grep -c "a capture-rows file named as the trace of another" "$t/err")|$(sqlite3 "$t/rows.db" 'SELECT count(*) FROM runs' 2> /dev/null || echo 0)"
done

# control characters from the input (a process name, a file name, a pasted
# command, a skipped line) never reach the terminal raw: report's and
# compare's text, runs' src and the skip warning show them as <0xNN> or ?
cc=$t/cc.db
"$IOTAPE" import --quiet --db "$cc" --run ccsrc "$FIXTURES/quick/after.bin.gz" &&
"$IOTAPE" dump --db "$cc" ccsrc | head -n 30 | sed '1s/\[[^]]*\]$/[f\x1b[2Jio]/; 10s/^/garbage \x1b[2J\x07 here\n/' > "$t/cc.txt"
cp "$t/cc.txt" "$(printf '%s/cc\033[31m\nname.txt' "$t")"
printf '$ time dd if=/dev/zero of=/tmp/\033[2Jx\n\nreal\t0m1.5s\nuser\t0m0s\nsys\t0m0s\n' > "$t/cc-time.txt"
"$IOTAPE" import --db "$cc" --run ccname "$t"/cc*name.txt > /dev/null 2> "$t/cc.err"
"$IOTAPE" import --quiet --db "$cc" --run cctime "$t/cc-time.txt"
{ cat "$t/cc.err"; "$IOTAPE" report --db "$cc" ccname; "$IOTAPE" compare --db "$cc" cctime cctime
  "$IOTAPE" runs --db "$cc"; } > "$t/cc.out" 2>&1
check_eq "control characters of the input: no raw ESC, BEL or CR in report, compare, runs or the skip warning; shown as <0x1b>" \
	"0 1 1 1 1" "$(tr -cd '\033\007\015' < "$t/cc.out" | wc -c) $(grep -c "skipped: 'garbage <0x1b>\[2J<0x07> here'" "$t/cc.out") $(grep -c "f<0x1b>\[2Jio" "$t/cc.out" | awk '{ print ($1 > 0) }') $(grep -c "of=/tmp/<0x1b>\[2Jx" "$t/cc.out" | awk '{ print ($1 > 0) }') $(grep -c "src .*cc?\[31m?name.txt" "$t/cc.out")"

# --db '' (`--db "$DB"` with DB unset): SQLite took "" as a temporary
# database deleted at close, and import said it stored a run; refused by
# every command that opens a store, in one line, no file made
( cd "$t" && mkdir -p emptydb && cd emptydb &&
  for c in "import $FIXTURES/loop-fio-small.bin" "report r" "compare a b" "dump r" "rm r" "runs"; do
	"$IOTAPE" $c --db '' > /dev/null 2> err; echo "$? $(wc -l < err) $(grep -c "the database path is empty" err)"
  done | sort -u | tr '\n' ' '; ls | grep -v '^err$' | wc -l ) > "$t/emptydb.out"
check_eq "--db '': refused by import, report, compare, dump, rm and runs, one line each, nothing made" \
	"1 1 1 0" "$(sed 's/ $//' "$t/emptydb.out")"

# --db naming a device: SQLite would write its header over it (a block device
# stats as size 0, as a new file does); refused by every command, unwritten
mkfifo "$t/fifo"
"$IOTAPE" runs --db "$t/fifo" > /dev/null 2> "$t/err"
check_eq "--db a FIFO: refused, naming what it is" \
	"1|iotape: cannot open database '$t/fifo': it is a FIFO, not a database file" \
	"$?|$(cat "$t/err")"
if [ "$(id -u)" = 0 ] && command -v mkfs.ext4 > /dev/null && truncate -s 8M "$t/dev.img" &&
	mkfs.ext4 -q "$t/dev.img" && loop_attach "$t/dev.img"; then
	sum=$(sha256sum < "/dev/$LOOPDEV")
	"$IOTAPE" import --db "/dev/$LOOPDEV" --quiet "$FIXTURES/quick/before.bin.gz" 2> "$t/err"
	rc1=$?
	IOTAPE_DB=/dev/$LOOPDEV "$IOTAPE" runs > /dev/null 2>> "$t/err"
	check_eq "--db and \$IOTAPE_DB a block device holding ext4: refused, the device unwritten" \
		"1 1|2|$sum" "$rc1 $?|$(grep -c "it is a block device, not a database file" "$t/err")|$(sha256sum < "/dev/$LOOPDEV")"
else
	skip "--db a block device" "needs root, mkfs.ext4 and a loop device"
fi
tap_finish
