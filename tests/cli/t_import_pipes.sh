# t_import_pipes.sh: `iotape import` of stdin, pipes and compressed inputs: the
# committed capture gzip'd, xz'd, zstd'd and bzip2'd here (told from magic
# bytes, under names that do not say so), piped (`cat f | import -`, `import
# <(zcat f.gz)`, a gzip'd stream on stdin) gives the plain import's report
# numbers and a source naming what was read; blkparse text, a vmstat log and
# an iostat log on stdin; a truncated .gz, a .gz of garbage bytes and a gzip
# of a non-trace give one error line naming the input and offset and store
# nothing; so does a long stream of zeros, from its first bytes, and a
# compressed empty file says it is one.
. "$(dirname "$0")/../lib.sh"

need_iotape "import of pipes and compressed traces"
command -v jq > /dev/null || { skip "import of pipes" "no jq"; exit 0; }
command -v sqlite3 > /dev/null || { skip "import of pipes" "no sqlite3"; exit 0; }
t=$TEST_TMP db=$t/t.db bin=$FIXTURES/loop-fio-small.bin
q() { sqlite3 "$db" "$@"; }

# numbers RUN: the report's devices and latency figures, one JSON line
numbers() {
	"$IOTAPE" report --db "$db" --json "$1" 2> /dev/null |
		jq -c '{devices: .devices, all: .all}'
}

# same_as_plain DESC RUN [SOURCE]: RUN's numbers equal the plain import's; the
# run's source is SOURCE when given
same_as_plain() {
	local got
	got=$(numbers "$2")
	if [ -n "$got" ] && [ "$got" = "$plain" ]; then ok "$1: report devices and latencies = the plain import's"
	else not_ok "$1: report devices and latencies = the plain import's" \
		"plain: ${plain:0:200}" "got:   ${got:0:200}"; fi
	[ $# -ge 3 ] && check_eq "$1: source" "$3" \
		"$(q "SELECT source FROM runs WHERE name = '$2'")"
}

# imp DESC RUN CMD...: CMD (an iotape import writing into $db), or not ok
imp() {
	local d=$1; shift 2
	"$@" 2> "$t/err" || { not_ok "$d: import" "$(cat "$t/err")"; return 1; }
}

"$IOTAPE" import --quiet --db "$db" --run plain "$bin" 2> "$t/err" ||
	{ not_ok "plain import" "$(cat "$t/err")"; tap_finish; }
plain=$(numbers plain)
[ -n "$plain" ] && [ "$(jq '.all.q2c.n' <<< "$plain")" -gt 0 ] &&
	ok "plain import: $(jq '.all.q2c.n' <<< "$plain") Q2C pairs" ||
	not_ok "plain import has latencies" "$plain"

# ---- compressed files, named so that the name says nothing ----
for tool in gzip xz zstd bzip2; do
	if ! command -v $tool > /dev/null; then skip "$tool file" "no $tool"; continue; fi
	$tool -c < "$bin" > "$t/$tool.trace" 2> /dev/null ||
		{ not_ok "$tool compresses the fixture"; continue; }
	imp "$tool file" z-$tool "$IOTAPE" import --again --db "$db" --run z-$tool "$t/$tool.trace" &&
		same_as_plain "$tool file" z-$tool "$(realpath "$t/$tool.trace") ($tool)"
done

# a default run name drops the compression's suffix, then the trace's (.bin)
gzip -c < "$bin" > "$t/small.bin.gz"
imp "default name" x "$IOTAPE" import --again --quiet --db "$db" "$t/small.bin.gz" &&
	check_eq "default run name of small.bin.gz" "1" \
		"$(q "SELECT count(*) FROM runs WHERE name = 'small'")"

# ---- pipes ----
cat "$bin" | imp "cat | import -" p-cat "$IOTAPE" import --again --quiet --db "$db" --run p-cat - &&
	same_as_plain "cat | import -" p-cat "stdin"
imp "import <(zcat f.gz)" p-subst "$IOTAPE" import --again --quiet --db "$db" --run p-subst \
	<(zcat "$t/small.bin.gz") &&
	same_as_plain "import <(zcat f.gz)" p-subst
check_eq "<(...) source says pipe" "1" \
	"$(q "SELECT count(*) FROM runs WHERE name = 'p-subst' AND source LIKE '/dev/fd/% (pipe)'")"
# a named FIFO names its run as a file does (it was "pipe"); <(...) is pipe
mkfifo "$t/fifo-trace"
cat "$FIXTURES/import/cloudphysics.csv" > "$t/fifo-trace" &
"$IOTAPE" import --again --quiet --db "$db" "$t/fifo-trace"
wait
"$IOTAPE" import --again --quiet --db "$db" <(cat "$FIXTURES/import/systor17.csv")
check_eq "a named FIFO's run is named after it; <(...)'s is pipe" "1 1" \
	"$(q "SELECT count(*) FROM runs WHERE name = 'fifo-trace'") $(q "SELECT count(*) FROM runs WHERE name = 'pipe'")"
cat "$t/small.bin.gz" | imp "gzip'd stream on stdin" p-gz \
	"$IOTAPE" import --again --quiet --db "$db" --run p-gz - &&
	same_as_plain "gzip'd stream on stdin" p-gz "stdin (gzip)"
imp "import - < file" p-redir "$IOTAPE" import --again --quiet --db "$db" --run p-redir - < "$bin" &&
	same_as_plain "import - < file" p-redir "stdin"
cat "$bin" | imp "import /dev/stdin" p-dev "$IOTAPE" import --again --quiet --db "$db" \
	--run p-dev /dev/stdin && same_as_plain "import /dev/stdin" p-dev "stdin"
cat "$bin" | "$IOTAPE" import --again --db "$db" - 2> "$t/err" > /dev/null
check_eq "summary names stdin, default run name stdin" \
	"iotape: imported 'stdin' as run 'stdin': 3570 events, 733 bios, 426 dispatches" \
	"$(cat "$t/err")"

# ---- other formats on stdin ----
if command -v blkparse > /dev/null; then
	blkparse -i - < "$bin" > "$t/text.txt" 2> /dev/null
	imp "blkparse text file" text-file "$IOTAPE" import --again --quiet --db "$db" --run text-file "$t/text.txt"
	gzip -c < "$t/text.txt" | imp "blkparse text, gzip'd, on stdin" text-pipe \
		"$IOTAPE" import --again --quiet --db "$db" --run text-pipe -
	check_eq "blkparse text on stdin: format, events, report = the file's" \
		"blkparse-text $(q "SELECT last_event - first_event + 1 FROM runs WHERE name = 'text-file'") $(numbers text-file)" \
		"$(q "SELECT format, last_event - first_event + 1 FROM runs WHERE name = 'text-pipe'" | tr '|' ' ') $(numbers text-pipe)"
	# quoted in an e-mail reply ("> " each line, some "> > "): the same
	# run as the file's, from a file, gzip'd and on stdin
	sed -e 's/^/> /' -e '5,9s/^/> /' "$t/text.txt" > "$t/quoted.txt"
	for how in file gzip stdin; do
		case $how in
		file) "$IOTAPE" import --again --db "$db" --run q-$how "$t/quoted.txt" ;;
		gzip) gzip -c "$t/quoted.txt" > "$t/quoted.txt.gz"
		      "$IOTAPE" import --again --db "$db" --run q-$how "$t/quoted.txt.gz" ;;
		stdin) "$IOTAPE" import --again --db "$db" --run q-$how - < "$t/quoted.txt" ;;
		esac 2> "$t/err"
		check_eq "blkparse text quoted in a reply ($how): said so, events and report = the file's" \
			"1 $(q "SELECT last_event - first_event + 1 FROM runs WHERE name = 'text-file'") $(numbers text-file)" \
			"$(grep -c "(quoted text, '>' removed)" "$t/err") $(q "SELECT last_event - first_event + 1 FROM runs WHERE name = 'q-$how'") $(numbers q-$how)"
	done
else
	skip "blkparse text on stdin" "no blkparse"
fi
V=$FIXTURES/vmstat/timestamped-1-3.log
sed 's/^/> /' "$V" > "$t/quoted.vmstat"
imp "vmstat log quoted in a reply" vmq "$IOTAPE" import --again --quiet --db "$db" --run vmq "$t/quoted.vmstat"
check_eq "vmstat log quoted in a reply: rows and the first free_kb as in the file" \
	"vmstat-text 3 $(awk 'NR == 3 { print $4 }' "$V")" \
	"$(q "SELECT format FROM runs WHERE name = 'vmq'") $("$IOTAPE" vmstat --db "$db" --json vmq |
		jq -r '"\(.rows | length) \(.rows[0].free_kb)"')"
printf '> $ time sync\n> \n> real\t0m1.700s\n> user\t0m0.000s\n> sys\t0m0.002s\n' > "$t/quoted.time"
imp "time report quoted in a reply" tq "$IOTAPE" import --again --quiet --db "$db" --run tq "$t/quoted.time"
printf '>\n>\n' > "$t/quoted.empty"
"$IOTAPE" import --quiet --db "$db" --run qe "$t/quoted.empty" > /dev/null 2> "$t/err"
check_eq "only '>' lines: no format, one line (not a blktrace record cut short)" \
	"1|iotape: $t/quoted.empty: offset 0: neither a blktrace trace (no magic) nor blkparse text, nor another format iotape imports (iotape import --help lists them)" \
	"$?|$(cat "$t/err")"
printf '> > sync  0.00s user 0.01s system 1%% cpu 0.512 total\n' > "$t/quoted.zsh"
imp "zsh's one line quoted twice" tz "$IOTAPE" import --again --quiet --db "$db" --run tz "$t/quoted.zsh"
check_eq "zsh's one line quoted twice: the command 'sync', 0.512 s" "sync|0.512" \
	"$(q "SELECT argv, real_s FROM commands WHERE run = (SELECT id FROM runs WHERE name = 'tz')")"
check_eq "time report quoted in a reply: sync, 1.7 s" "sync|1.7" \
	"$(q "SELECT argv, real_s FROM commands WHERE run = (SELECT id FROM runs WHERE name = 'tq')")"
cat "$V" | imp "vmstat log on stdin" vm "$IOTAPE" import --again --quiet --db "$db" --run vm -
check_eq "vmstat log on stdin: format, rows and the first free_kb as in the file" \
	"vmstat-text 3 $(awk 'NR == 3 { print $4 }' "$V")" \
	"$(q "SELECT format FROM runs WHERE name = 'vm'") $("$IOTAPE" vmstat --db "$db" --json vm |
		jq -r '"\(.rows | length) \(.rows[0].free_kb)"')"
S=$FIXTURES/import/iostat-x-12.log
xz -c < "$S" | imp "iostat log, xz'd, on stdin" io "$IOTAPE" import --again --quiet --db "$db" --run io -
check_eq "iostat log on stdin: told from content" "iostat-text" \
	"$(q "SELECT format FROM runs WHERE name = 'io'")"

# ---- blktrace -o -: each CPU's relay buffer in turn on one stream ----
# (blktrace cannot trace here: debugfs relay files are refused; so its
# stdout layout is rebuilt from a real per-CPU set of the corpus: record-
# aligned chunks of each CPU file in turn, as blktrace.c's piped output
# writes them)
if ! CORPUS=$(corpus_dir); then
	skip "blktrace -o - layout" "corpus absent"
elif ! command -v python3 > /dev/null; then
	skip "blktrace -o - layout" "no python3"
else
	Z=$CORPUS/zzunny97-hadoop-40cpu-partial
	"$IOTAPE" import --again --quiet --db "$db" --run bt-set "$Z/sdb" 2> /dev/null
	want=$("$IOTAPE" dump --db "$db" bt-set | md5sum)
	for chunk in 4096 524288; do
		python3 - "$chunk" "$Z/sdb.blktrace.0" "$Z/sdb.blktrace.29" <<'PY' |
import struct, sys
chunk, files = int(sys.argv[1]), sys.argv[2:]
data = [open(f, 'rb').read() for f in files]
pos = [0] * len(data)
def end(d, p):  # the end of the records from p filling up to chunk bytes
    q = p
    while q < len(d) and q - p < chunk:
        le = struct.unpack('<I', d[q:q + 4])[0] >> 8 == 0x656174
        q += 48 + struct.unpack('<H' if le else '>H', d[q + 46:q + 48])[0]
    return q
while any(p < len(d) for p, d in zip(pos, data)):
    for i, d in enumerate(data):
        if pos[i] < len(d):
            q = end(d, pos[i])
            sys.stdout.buffer.write(d[pos[i]:q])
            pos[i] = q
PY
		"$IOTAPE" import --again --db "$db" --run bt-pipe$chunk - 2> "$t/err"
		check_eq "blktrace -o - layout ($chunk-byte chunks) on stdin: dump = the per-CPU set's, no warning" \
			"$want" "$("$IOTAPE" dump --db "$db" bt-pipe$chunk | md5sum)$(grep warning "$t/err")"
	done
fi

# ---- broken inputs: one line naming the input and offset, nothing stored ----
before=$(q "SELECT count(*) FROM runs; SELECT count(*) FROM events" | paste -sd' ')
# bad INPUT_DESC PATTERN CMD...: CMD fails with one line matching PATTERN
bad() {
	local d=$1 pat=$2 rc; shift 2
	"$@" > /dev/null 2> "$t/err"; rc=$?
	if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ] && grep -qE "$pat" "$t/err"; then
		ok "$d: one line, exit $rc ($(cat "$t/err"))"
	else
		not_ok "$d: one error line matching '$pat'" "exit $rc" "$(cat "$t/err")"
	fi
}
# a 1 MB trace, so the cut lands past the first decompressed block
for i in $(seq 6); do cat "$bin"; done | gzip -c > "$t/big.gz"
head -c $(( $(stat -c %s "$t/big.gz") * 2 / 3 )) "$t/big.gz" > "$t/cut.gz"
bad "truncated .gz" "^iotape: .*/cut\.gz: offset [1-9][0-9]* of the decompressed gzip stream \(after $(stat -c %s "$t/cut.gz") bytes of input\): " \
	"$IOTAPE" import --again --db "$db" "$t/cut.gz"
# every filter's message in one style, lowercase (libarchive writes "Truncated
# zstd input" but "truncated gzip input")
for tool in zstd xz bzip2; do
	command -v $tool > /dev/null || continue
	for i in $(seq 6); do cat "$bin"; done | $tool -c > "$t/big.$tool"
	head -c $(( $(stat -c %s "$t/big.$tool") * 2 / 3 )) "$t/big.$tool" > "$t/cut.$tool"
	bad "truncated $tool" "^iotape: .*/cut\.$tool: (offset [0-9]+ of the decompressed $tool stream \(after [0-9]+ bytes of input\)|the $tool stream breaks in its first block, after [0-9]+ bytes of input): [a-z][^A-Z]*$" \
		"$IOTAPE" import --again --db "$db" "$t/cut.$tool"
done
# a small file cut in its trailer or its middle: libarchive says "read
# error" (gzip) and "lzma library error: no progress is possible" (xz); the
# input's end inside the stream is what happened
gzip -c "$FIXTURES/import/systor17.csv" > "$t/s.gz"
head -c $(( $(stat -c %s "$t/s.gz") - 4 )) "$t/s.gz" > "$t/trail.gz"
bad "a .gz cut in its trailer" "^iotape: .*/trail\.gz: .*: truncated gzip input \(the file ends inside the compressed stream\)$" \
	"$IOTAPE" import --again --db "$db" "$t/trail.gz"
if command -v xz > /dev/null; then
	xz -c "$FIXTURES/import/systor17.csv" > "$t/s.xz"
	head -c $(( $(stat -c %s "$t/s.xz") / 2 )) "$t/s.xz" > "$t/half.xz"
	bad "an .xz cut in half" "^iotape: .*/half\.xz: .*: truncated xz input \(the file ends inside the compressed stream\)$" \
		"$IOTAPE" import --again --db "$db" "$t/half.xz"
fi
# (cut in its first 64 KiB block: no offset in the decompressed stream, the
# input's is the one there is; once "offset 0")
head -c 5000 "$t/small.bin.gz" | bad "truncated .gz on stdin" \
	"^iotape: stdin: the gzip stream breaks in its first block, after 5000 bytes of input: truncated gzip input$" \
	"$IOTAPE" import --again --db "$db" -
# cut inside the 10-byte gzip header: too short for libarchive to take as
# gzip, so it came raw, and was once called "neither a blktrace trace"
for n in 2 3 5; do
	head -c $n "$t/small.bin.gz" > "$t/head$n.gz"
	# (2 and 3 bytes, the magic alone, were read raw: "record cut short")
	bad "gzip cut inside its header, $n bytes" \
		"^iotape: .*/head$n\.gz: offset $n: truncated gzip input \(the file ends inside its header\)$" \
		"$IOTAPE" import --again --db "$db" "$t/head$n.gz"
done
# (not random bytes: those decode as deflate blocks now and then, and the
# output is then refused as no trace before the stream breaks; 0xff bytes
# open a block of the reserved type 3, which no decoder reads)
{ head -c 10 "$t/small.bin.gz"; head -c 4096 /dev/zero | tr '\0' '\377'; } > "$t/garbage.gz"
bad ".gz of garbage" "^iotape: .*/garbage\.gz: the gzip stream breaks in its first block, after [0-9]+ bytes of input: " \
	"$IOTAPE" import --again --db "$db" "$t/garbage.gz"
head -c 65536 /dev/urandom | gzip -c > "$t/noise.gz"
bad "gzip of no trace" "^iotape: .*/noise\.gz \(gzip-decompressed\): offset 0: neither a blktrace" \
	"$IOTAPE" import --again --db "$db" "$t/noise.gz"
# a compressed empty file: said so, not libarchive's "Unrecognized archive format"
for tool in gzip xz zstd bzip2; do
	command -v $tool > /dev/null || continue
	$tool -c < /dev/null > "$t/empty.$tool"
	bad "$tool of an empty file" \
		"^iotape: .*/empty\.$tool: offset 0 of the decompressed $tool stream: the compressed input is empty$" \
		"$IOTAPE" import --again --db "$db" "$t/empty.$tool"
done
gzip -c < /dev/null | bad "gzip of nothing on stdin" \
	"^iotape: stdin: offset 0 of the decompressed gzip stream: the compressed input is empty$" \
	"$IOTAPE" import --again --db "$db" -
bad "empty stdin" "^iotape: stdin: offset 0: empty trace$" \
	"$IOTAPE" import --again --db "$db" - < /dev/null
# a long stream that is no trace: refused from its first bytes, not spooled
# whole first (head is killed by SIGPIPE, 141, when import stops reading)
mkdir "$t/zspool"
{ head -c 64M /dev/zero; echo $? > "$t/head.rc"; } | TMPDIR=$t/zspool bad "64 MB of zeros on stdin" \
	"^iotape: stdin: offset 0: neither a blktrace" timeout 10 "$IOTAPE" import --again --db "$db" -
check_eq "64 MB of zeros: refused before the stream's end, nothing left in TMPDIR" "141 " \
	"$(cat "$t/head.rc") $(ls -A "$t/zspool")"
head -c 64M /dev/zero | gzip -1 | bad "64 MB of zeros gzip'd on stdin" \
	"^iotape: stdin \(gzip-decompressed\): offset 0: neither a blktrace" \
	timeout 10 "$IOTAPE" import --again --db "$db" -
# a good input before a bad one: the whole import is rolled back
bad "good then truncated" "cut\.gz: offset" \
	"$IOTAPE" import --again --db "$db" "$bin" "$t/cut.gz"
check_eq "nothing stored by the failed imports" "$before" \
	"$(q "SELECT count(*) FROM runs; SELECT count(*) FROM events" | paste -sd' ')"

# ---- where the spool goes ----
mkdir "$t/spool"
cat "$t/small.bin.gz" | TMPDIR=$t/spool "$IOTAPE" import --again --quiet --db "$db" --run p-spool - 2> "$t/err" &&
	check_eq "TMPDIR spool left empty" "" "$(ls -A "$t/spool")" ||
	not_ok "import with TMPDIR set" "$(cat "$t/err")"
cat "$bin" | TMPDIR=$t/missing bad "TMPDIR missing" "spool file in '.*/missing' \(\\\$TMPDIR\)" \
	"$IOTAPE" import --again --db "$db" -
# the content hash is the decompressed trace's: a gzip'd copy of an imported
# trace is the same input
gzip -c < "$bin" > "$t/again.bin.gz"
"$IOTAPE" import --db "$db" "$t/again.bin.gz" > /dev/null 2> "$t/err"
check_eq "a gzip'd copy of an imported trace: refused without --again, named as given" \
	"1 already imported as run 'plain'" \
	"$? $(grep -o "already imported as run 'plain'" "$t/err")"
grep -q "^iotape: $t/again.bin.gz" "$t/err" && ok "the refusal names the file as given" ||
	not_ok "the refusal names the file as given" "$(cat "$t/err")"
tap_finish
