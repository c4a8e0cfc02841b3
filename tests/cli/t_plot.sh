# t_plot.sh: `iotape plot` and `iotape mail` on the committed loop capture (with a
# vmstat log attached), one run and two: every kind gives a valid PNG of the asked
# size that is not blank, and an SVG; the data files hold the expected numbers of
# points; txt plots fit 80 columns; the scripts re-run unchanged with gnuplot; the
# mail file fits 80 columns (a long command line too) and holds the compare
# table. No root needed.
. "$(dirname "$0")/../lib.sh"

need_iotape "plot"
command -v gnuplot > /dev/null || { skip "plot" "no gnuplot (apt-get install gnuplot-nox)"; exit 0; }
command -v sqlite3 > /dev/null || { skip "plot" "no sqlite3"; exit 0; }
command -v jq > /dev/null || { skip "plot" "no jq"; exit 0; }

t=$TEST_TMP db=$t/t.db W=640 H=480
KINDS1="seek tput lat qd vm procs"    # one run: compare needs two
KINDS2="seek tput lat qd vm procs compare"

# ---- the inputs: the fixture twice, each with a vmstat log; a third with a command
for r in small small2; do
	"$IOTAPE" import --db "$db" --quiet --again --run $r "$FIXTURES/loop-fio-small.bin" &&
	"$IOTAPE" import --db "$db" --quiet --run $r --interval 1 "$FIXTURES/vmstat/plain-1-3.log" ||
		{ not_ok "import the fixture and a vmstat log as $r"; tap_finish; }
done
# a vmstat log with bash's `time` report after its last row: a command that
# ends there (1 s) and starts 0.5 s after the trace
{ head -n 3 "$FIXTURES/vmstat/plain-1-3.log"
  tail -n 1 "$FIXTURES/vmstat/plain-1-3.log"
  printf 'real\t0m0.500s\nuser\t0m0.100s\nsys\t0m0.050s\n'; } > "$t/timed.log"
"$IOTAPE" import --db "$db" --quiet --again --run timed "$FIXTURES/loop-fio-small.bin" &&
"$IOTAPE" import --db "$db" --quiet --run timed --interval 1 "$t/timed.log" ||
	{ not_ok "import the fixture with a timed vmstat log"; tap_finish; }
ok "imported the fixture three times, with vmstat logs"

# q SQL: one value from the test database
q() { sqlite3 "$db" "$1"; }
RUN_SMALL=$(q "SELECT id FROM runs WHERE name = 'small'")

# ---- PNG and SVG checks -----------------------------------------------------------

# png_info FILE: "WIDTH HEIGHT COLOURS" (COLOURS: distinct pixel values, counted up to
# 16; "-" without python3), or nothing when FILE is not a PNG
png_info() {
	local sig
	sig=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
	[ "$sig" = 89504e470d0a1a0a ] || return 0
	# IHDR is the first chunk: width and height, big-endian, at bytes 16..23
	local w h
	w=$(od -An -tu4 --endian=big -j16 -N4 "$1" | tr -d ' ')
	h=$(od -An -tu4 --endian=big -j20 -N4 "$1" | tr -d ' ')
	if command -v python3 > /dev/null; then
		printf '%s %s %s\n' "$w" "$h" "$(python3 "$t/colours.py" "$1")"
	else
		printf '%s %s -\n' "$w" "$h"
	fi
}
cat > "$t/colours.py" <<'EOF'
# colours.py PNG: the number of distinct pixel values (stops counting at 16, rows
# are decoded only that far), by inflating the IDAT stream and undoing the scanline
# filters (PNG spec, section 9).
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
pos, idat, ihdr = 8, b'', None
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT': idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = ihdr
if depth != 8 or interlace: print(2); sys.exit()   # not what pngcairo writes
bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
raw, stride = zlib.decompress(idat), w * bpp
prev, seen, i = bytearray(stride), set(), 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp): seen.add(bytes(line[x:x + bpp]))
    if len(seen) >= 16: break
    prev = line
print(len(seen))
EOF

# check_png LABEL FILE: valid PNG, W x H, more than one colour
check_png() {
	local info w h n
	info=$(png_info "$2")
	if [ -z "$info" ]; then not_ok "$1: a PNG" "$(head -c 64 "$2" 2>&1 | od -c | head -n 2)"; return; fi
	read -r w h n <<< "$info"
	check_eq "$1: PNG is ${W}x$H" "$W $H" "$w $h"
	if [ "$n" = - ]; then
		# no python3: a blank pngcairo picture of this size compresses to ~2 kB
		local size; size=$(stat -c %s "$2")
		[ "$size" -gt 4000 ] && ok "$1: not blank ($size bytes)" || not_ok "$1: not blank" "$size bytes"
	elif [ "$n" -gt 1 ]; then ok "$1: not blank ($n colours)"
	else not_ok "$1: not blank" "$n colour"; fi
}

# check_svg LABEL FILE: starts with <?xml or <svg, ends with </svg>, parses as XML
check_svg() {
	local head tail
	head=$(head -c 5 "$2" 2>/dev/null)
	tail=$(tail -c 16 "$2" 2>/dev/null | tr -d '\n ' | grep -o '</svg>$')
	if [ "$head" != "<?xml" ] && [ "$head" != "<svg " ]; then not_ok "$1: SVG start" "$head"; return; fi
	if [ "$tail" != "</svg>" ]; then not_ok "$1: SVG end" "$tail"; return; fi
	if command -v python3 > /dev/null &&
	   ! python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$2" 2> "$t/xml.err"; then
		not_ok "$1: SVG well-formed" "$(tail -n 2 "$t/xml.err")"; return
	fi
	ok "$1: well-formed SVG"
}

# rows FILE [BLOCK-PATTERN]: data rows in a .dat file (of the blocks whose "# block:"
# line matches the pattern)
rows() {
	awk -v pat="${2:-}" '/^# block:/ { on = (pat == "" || $0 ~ pat); next }
		/^#/ || !NF { next } on || pat == "" { n++ } END { print n + 0 }' "$1"
}

# colsum FILE COLUMN [BLOCK-PATTERN]: the sum of a column over data rows
colsum() {
	awk -v c="$2" -v pat="${3:-}" '/^# block:/ { on = (pat == "" || $0 ~ pat); next }
		/^#/ || !NF { next } on || pat == "" { s += $c } END { printf "%.6f\n", s }' "$1"
}

# binw FILE: the bin width in seconds a tput/qd data file states: "(0.005 s)"
binw() { sed -n 's/.*bins of [^(]*(\([0-9.e+-]*\) s).*/\1/p' "$1" | head -n 1; }

# ---- one run, png ---------------------------------------------------------------
d=$t/png
if "$IOTAPE" plot --db "$db" -o "$d" --width $W --height $H small > "$t/out" 2> "$t/err"; then
	ok "plot small (all kinds)"
else
	not_ok "plot small (all kinds)" "$(cat "$t/err")"
fi
check_eq "one run: compare skipped, said why; nothing else on stderr" \
	"iotape: compare: skipped: needs two or more runs" "$(cat "$t/err")"
check_eq "paths of the pictures on stdout" \
	"$(for k in $KINDS1; do echo "$d/small.$k.png"; done)" "$(cat "$t/out")"
for k in $KINDS1; do
	check_png "small $k" "$d/small.$k.png"
	[ -s "$d/small.$k.dat" ] && [ -s "$d/small.$k.gp" ] || not_ok "small $k: .dat and .gp beside the PNG"
done

# data: known numbers from the store
check_eq "seek: one point per dispatch with data" \
	"$(q "SELECT count(*) FROM requests WHERE run = $RUN_SMALL AND d_head = 1 AND d_bytes > 0")" \
	"$(rows "$d/small.seek.dat")"
check_eq "seek: the flushes (dispatches without data) left out" \
	"$(q "SELECT count(*) FROM requests WHERE run = $RUN_SMALL AND d_head = 1 AND d_bytes = 0") flushes, 0 in the data" \
	"$(q "SELECT count(*) FROM requests WHERE run = $RUN_SMALL AND d_head = 1 AND d_bytes = 0") flushes, $(awk '!/^#/ && NF && $3 == 0' "$d/small.seek.dat" | wc -l) in the data"
w=$(binw "$d/small.tput.dat")
nb=$(rows "$d/small.tput.dat")
if [ "$nb" -ge 50 ] && [ "$nb" -le 250 ]; then ok "tput: $nb bins of $w s (~200 over the span)"
else not_ok "tput: ~200 bins" "$nb bins of $w s"; fi
for dir in read:4:0 write:5:1; do
	IFS=: read -r name col wr <<< "$dir"
	want=$(q "SELECT count(*) FROM requests WHERE run = $RUN_SMALL AND d_head = 1 AND c_ns IS NOT NULL
		AND ((cats & 8194) != 0) = $wr")
	got=$(awk -v s="$(colsum "$d/small.tput.dat" "$col")" -v w="$w" 'BEGIN { printf "%.0f", s * w }')
	check_eq "tput: $name IOPS x bin width = completed $name dispatches" "$want" "$got"
done
want=$(q "SELECT sum(d_bytes) FROM requests WHERE run = $RUN_SMALL AND d_head = 1 AND c_ns IS NOT NULL")
got=$(awk -v r="$(colsum "$d/small.tput.dat" 2)" -v wr="$(colsum "$d/small.tput.dat" 3)" -v w="$w" \
	'BEGIN { printf "%.0f", (r + wr) * w * 1e6 }')
within_pct "$got" "$want" 0.01 && ok "tput: MB/s x bin width = bytes completed ($want)" ||
	not_ok "tput: MB/s x bin width = bytes completed" "want $want, got $got"
json=$("$IOTAPE" report --db "$db" --json small)
for m in q2c d2c; do
	M=$(echo $m | tr a-z A-Z)
	check_eq "lat: $M counts = report's n" "$(jq ".all.$m.n" <<< "$json")" \
		"$(colsum "$d/small.lat.dat" 4 " $M " | cut -d. -f1)"
	check_eq "lat: $M CDF ends at 100% for reads and writes" "100 100" \
		"$(awk -v pat=" $M " '/^# block:/ { if (last != "") printf "%s ", last; on = ($0 ~ pat); last = ""; next }
			/^#/ || !NF { next } on { last = $6 } END { if (last != "") printf "%s", last }' "$d/small.lat.dat" |
			sed 's/ $//')"
done
w=$(binw "$d/small.qd.dat")
want=$(q "SELECT sum(c_ns - d_ns) / 1e9 FROM requests WHERE run = $RUN_SMALL AND d_head = 1 AND c_ns >= d_ns")
got=$(awk -v s="$(colsum "$d/small.qd.dat" 2)" -v w="$w" 'BEGIN { printf "%.9f", s * w }')
within_pct "$got" "$want" 0.1 && ok "qd: in flight x bin width = sum of D2C ($want s)" ||
	not_ok "qd: in flight x bin width = sum of D2C" "want $want, got $got"
check_eq "vm: one row per vmstat log row" 3 "$(rows "$d/small.vm.dat")"
check_eq "vm: free as logged (22145792 kB = 22677.3 MB)" 22677.3 \
	"$(awk '!/^#/ && NF { print $2; exit }' "$d/small.vm.dat")"
check_eq "procs: shares of bytes add up to 100%" 100 \
	"$(colsum "$d/small.procs.dat" "$(awk '!/^#/ && NF { print NF - 3; exit }' "$d/small.procs.dat")" |
		awk '{ printf "%.0f", $1 }')"

# the scripts re-run unchanged, beside their data
for k in $KINDS1; do
	rm -f "$d/small.$k.png"
	if (cd "$d" && gnuplot "small.$k.gp") 2> "$t/gp.err" && [ -s "$d/small.$k.png" ]; then
		read -r pw ph _ <<< "$(png_info "$d/small.$k.png")"
		check_eq "small.$k.gp re-runs with gnuplot: same picture size" "$W $H" "$pw $ph"
	else
		not_ok "small.$k.gp re-runs with gnuplot" "$(tail -n 3 "$t/gp.err")"
	fi
done

# ---- svg and txt -------------------------------------------------------------------
if "$IOTAPE" plot --db "$db" -o "$t/svg" --format svg --width $W --height $H small > /dev/null 2> "$t/err"; then
	for k in $KINDS1; do check_svg "small $k svg" "$t/svg/small.$k.svg"; done
	check_eq "svg: the requested size" "width=\"$W\" height=\"$H\"" \
		"$(grep -o "width=\"$W\" height=\"$H\"" "$t/svg/small.seek.svg" | head -n 1)"
else
	not_ok "plot --format svg" "$(cat "$t/err")"
fi
if "$IOTAPE" plot --db "$db" -o "$t/txt" --format txt small > /dev/null 2> "$t/err"; then
	for k in $KINDS1; do
		f=$t/txt/small.$k.txt
		wmax=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$f")
		lines=$(grep -c '[^ ]' "$f")
		if [ "$lines" -gt 10 ] && [ "$wmax" -le 80 ] && ! grep -q $'[\f\033]' "$f"; then
			ok "small $k txt: $lines lines, at most $wmax columns, no control codes"
		else
			not_ok "small $k txt: non-empty, 80 columns" "$lines lines, widest $wmax"
		fi
	done
else
	not_ok "plot --format txt" "$(cat "$t/err")"
fi

# ---- two runs ------------------------------------------------------------------------
d=$t/two
if "$IOTAPE" plot --db "$db" -o "$d" --width $W --height $H small small2 > /dev/null 2> "$t/err"; then
	check_eq "plot small small2 (all kinds), nothing on stderr" "" "$(cat "$t/err")"
	for k in $KINDS2; do check_png "two runs $k" "$d/small-vs-small2.$k.png"; done
	check_eq "two runs: seek holds both runs' points" \
		"$(( 2 * $(q "SELECT count(*) FROM requests WHERE run = $RUN_SMALL AND d_head = 1 AND d_bytes > 0") ))" \
		"$(rows "$d/small-vs-small2.seek.dat")"
	check_eq "two runs: tput has a block per run, on one axis" "$nb $nb" \
		"$(rows "$d/small-vs-small2.tput.dat" 'run small$') $(rows "$d/small-vs-small2.tput.dat" 'run small2$')"
	check_eq "compare: read MB/s = report's" \
		"$(jq '.devices[0].read.mb_s * 1000 | round' <<< "$json")" \
		"$(awk '$1 == "\"read" { printf "%.0f", $3 * 1000 }' "$d/small-vs-small2.compare.dat")"
	check_eq "compare: the same trace twice changes nothing" "0 0 0 0 0 0 0 0" \
		"$(awk '!/^#/ && NF { printf "%s%s", n++ ? " " : "", $(NF - 1) }' "$d/small-vs-small2.compare.dat")"
	failed=
	for k in $KINDS2; do
		rm -f "$d/small-vs-small2.$k.png"
		(cd "$d" && gnuplot "small-vs-small2.$k.gp") 2> "$t/gp.err" &&
			[ -s "$d/small-vs-small2.$k.png" ] || failed="$failed $k"
	done
	check_eq "two runs: every script re-runs with gnuplot" "" "$failed"
else
	not_ok "plot small small2" "$(cat "$t/err")"
fi
if "$IOTAPE" plot --db "$db" -o "$t/two-svg" --format svg small small2 > /dev/null 2> "$t/err"; then
	for k in $KINDS2; do check_svg "two runs $k svg" "$t/two-svg/small-vs-small2.$k.svg"; done
else
	not_ok "plot --format svg small small2" "$(cat "$t/err")"
fi

# ---- --align cmd:N, --kind, errors -------------------------------------------------------
if "$IOTAPE" plot --db "$db" -o "$t/al" --kind vm,tput --align cmd:0 timed > /dev/null 2> "$t/err"; then
	check_eq "--align cmd:0: the command (0.5 s in) is time 0" "-0.5 0.5" \
		"$(awk '!/^#/ && NF { printf "%s%s", n++ ? " " : "", $1 }' "$t/al/timed.vm.dat")"
	check_eq "--kind vm,tput: only those" "timed.tput.png timed.vm.png" \
		"$(cd "$t/al" && ls *.png | tr '\n' ' ' | sed 's/ $//')"
else
	not_ok "plot --align cmd:0" "$(cat "$t/err")"
fi
"$IOTAPE" plot --db "$db" -o "$t/al" --align cmd:3 timed > /dev/null 2> "$t/err"; rc=$?
check_eq "--align cmd:3 of a run with one command: one error line" \
	"1: iotape: run 'timed' has no command 3 with a start time (--align cmd:N counts from 0)" \
	"$rc: $(cat "$t/err")"
"$IOTAPE" plot --db "$db" --kind seek,bogus small > /dev/null 2> "$t/err"; rc=$?
check_eq "unknown kind: usage error naming it" \
	"2: iotape: unknown plot kind 'bogus' (seek, tput, lat, qd, vm, procs, compare, all)" "$rc: $(cat "$t/err")"
"$IOTAPE" plot --db "$db" -o "$t/x" --kind compare small > /dev/null 2> "$t/err"; rc=$?
check_eq "a named kind without data is an error" 1 "$rc"
"$IOTAPE" plot --db "$db" -o "$t/x" nosuchrun > /dev/null 2> "$t/err"; rc=$?
check_eq "no such run: exit 1, one line" "1 1" "$rc $(wc -l < "$t/err")"
IOTAPE_GNUPLOT=$t/no-gnuplot "$IOTAPE" plot --db "$db" -o "$t/nognu" --kind qd small > /dev/null 2> "$t/err"; rc=$?
if [ $rc = 1 ] && grep -q "install gnuplot-nox" "$t/err" && [ -s "$t/nognu/small.qd.gp" ]; then
	ok "without gnuplot: one error naming the package; data and script are written"
else
	not_ok "without gnuplot: an error naming the package" "exit $rc: $(cat "$t/err")"
fi

# ---- mail ------------------------------------------------------------------------------
m=$t/mail
if "$IOTAPE" mail --full --db "$db" -o "$m" small small2 > "$t/out" 2> "$t/err"; then
	f=$m/small-vs-small2.mail.txt
	check_eq "mail: prints the file's path" "$f" "$(cat "$t/out")"
	wmax=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$f")
	[ "$wmax" -le 80 ] && ok "mail: at most 80 columns ($wmax)" || not_ok "mail: at most 80 columns" "$wmax"
	grep -q $'[\f\033]' "$f" && not_ok "mail: no control codes" || ok "mail: no control codes"
	if grep -q '^  read MB/s .*+0.0%$' "$f" && grep -q '^  D2C p99 us ' "$f"; then
		ok "mail: holds the compare table"
	else
		not_ok "mail: holds the compare table" "$(grep -A9 'headline figures' "$f")"
	fi
	missing=
	for s in "what was run" "settings that differ" "headline figures" "the question" \
		"vmstat excerpts" "text plots" "attached"; do
		grep -q "^== $s[ ,]" "$f" || missing="$missing '$s'"
	done
	check_eq "mail: every section" "" "$missing"
	missing=
	for k in $KINDS2; do [ -s "$m/small-vs-small2.$k.png" ] || missing="$missing $k"; done
	check_eq "mail: the PNGs beside it" "" "$missing"
else
	not_ok "mail small small2" "$(cat "$t/err")"
fi

# a command line longer than a line (dd of a disk by its id): wrapped under
# its "command N:", every line in 80 columns, no word lost (the dd's output
# before the report is its own: a command line that runs no dd would have
# made it a command timed by dd)
long="dd if=/dev/disk/by-id/nvme-SAMSUNG_MZVL21T0HCLR-00BL2_S64NNF0R123456"
long="$long of=/dev/null bs=4k count=262144 iflag=direct status=none"
# the fixture's GNU time -v report of dd, the command made long
sed "s|Command being timed: \"dd if=/dev/nvme0n1 [^\"]*\"|Command being timed: \"$long\"|" \
	"$FIXTURES/import/time-gnu-zsh-dd.txt" > "$t/long.txt"
if "$IOTAPE" import --db "$db" --quiet --again --run long "$FIXTURES/loop-fio-small.bin" &&
   "$IOTAPE" import --db "$db" --quiet --run long "$t/long.txt" &&
   "$IOTAPE" mail --db "$db" -o "$t/mail-long" small long > /dev/null 2> "$t/err"; then
	f=$t/mail-long/small-vs-long.full.txt
	got=$(awk '/^   command 1: / { on = 1; sub(/^   command 1: /, ""); printf "%s", $0; next }
		on && /^      [^ ]/ && !/^      real / { sub(/^ +/, " "); printf "%s", $0; next }
		{ on = 0 }' "$f")
	wmax=$(awk '{ if (length > m) m = length } END { print m + 0 }' "$f")
	if [ "$wmax" -le 80 ] && [ "$got" = "$long" ]; then
		ok "mail: a long command line wrapped in 80 columns ($wmax)"
	else
		not_ok "mail: a long command line wrapped in 80 columns" "widest $wmax" \
			"$(grep -A3 'command 1:' "$f")"
	fi
else
	not_ok "mail small long" "$(cat "$t/err")"
fi
tap_finish
