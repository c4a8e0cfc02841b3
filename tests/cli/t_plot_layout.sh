# t_plot_layout.sh: pictures of several devices and runs are not cramped (issue 15
# item 8), on the fixtures' multi-device imports (MSR: 2 disks, SYSTOR: 3 LUNs) and
# the seed captures of the corpus when it is there: the canvas grows with the
# panels (gnuplot script and PNG agree), every key sits outside the data (the
# scripts, and a pixel check: drawing the key changes no pixel of the plotted data,
# while a key put inside does), lat's tick labels have room, vm draws free memory
# on a panel of its own and a small series on the right-hand axis, and the txt
# plots keep to 80 columns with each process of procs on lines of its own.
. "$(dirname "$0")/../lib.sh"

need_iotape "plot layout"
command -v gnuplot > /dev/null || { skip "plot layout" "no gnuplot (apt-get install gnuplot-nox)"; exit 0; }

t=$TEST_TMP db=$t/t.db
"$IOTAPE" import --db "$db" --quiet --run msr "$FIXTURES/import/msr-web.csv" &&
"$IOTAPE" import --db "$db" --quiet --run systor "$FIXTURES/import/systor17.csv" ||
	{ not_ok "import the multi-device fixtures"; tap_finish; }
# a vmstat log whose free memory dwarfs cache, and swap used under a tenth of
# cache (written here: 1 s rows, kB)
{ echo 'procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----'
  echo ' r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st'
  for i in 0 1 2 3 4 5; do
	printf ' 1  0 %6d %8d  2976 %6d    0 %4d %5d %5d  376  353  5  2 90  3  0\n' \
		$((i * 900)) $((24000000 - i * 30000)) $((20000 + i * 35000)) $((i * 500)) \
		$((100000 - i * 9000)) $((i * 2000))
  done; } > "$t/vm.log"
"$IOTAPE" import --db "$db" --quiet --run msr --interval 1 --no-boot-row "$t/vm.log" &&
"$IOTAPE" import --db "$db" --quiet --run systor --interval 1 --no-boot-row "$t/vm.log" ||
	{ not_ok "import a vmstat log into each"; tap_finish; }
ok "imported msr (2 devices) and systor (3 devices), each with a vmstat log"

# gp_size FILE: "W H" of the script's png terminal
gp_size() { sed -n "s/^set terminal pngcairo size \([0-9]*\),\([0-9]*\) .*/\1 \2/p" "$1"; }
# png_size FILE: "W H" from the PNG's IHDR
png_size() {
	[ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ] || return 0
	echo "$(od -An -tu4 --endian=big -j16 -N4 "$1" | tr -d ' ') $(od -An -tu4 --endian=big -j20 -N4 "$1" | tr -d ' ')"
}

# ---- the canvas grows with the panels -----------------------------------------------
"$IOTAPE" plot --db "$db" -o "$t/one" --kind seek,vm msr > /dev/null 2> "$t/err" ||
	not_ok "plot msr" "$(cat "$t/err")"
"$IOTAPE" plot --db "$db" -o "$t/two" msr systor > /dev/null 2> "$t/err" ||
	not_ok "plot msr systor" "$(cat "$t/err")"
read -r w2 h2 <<< "$(gp_size "$t/one/msr.seek.gp")"
read -r w5 h5 <<< "$(gp_size "$t/two/msr-vs-systor.seek.gp")"
n5=$(grep -c '^set title' "$t/two/msr-vs-systor.seek.gp")
check_eq "seek of msr and systor: 5 panels (a run and device each)" 5 "$n5"
if [ "${h2:-0}" -ge 768 ] && [ "${h5:-0}" -gt "$h2" ] && [ "$h5" -ge $((5 * 200)) ] && [ "$w5" = 1024 ]; then
	ok "seek: 2 panels ${w2}x$h2, 5 panels ${w5}x$h5 (at least 200 px a panel)"
else
	not_ok "seek: the canvas grows with the panels" "2 panels: ${w2}x$h2, 5 panels: ${w5}x$h5"
fi
check_eq "the PNG has the script's size" "$w5 $h5" "$(png_size "$t/two/msr-vs-systor.seek.png")"
"$IOTAPE" plot --db "$db" -o "$t/fixed" --kind seek --height 600 msr systor > /dev/null
check_eq "--height still decides when given" "1024 600" "$(png_size "$t/fixed/msr-vs-systor.seek.png")"

# ---- keys outside the data --------------------------------------------------------------
bad=
for f in "$t"/two/*.gp; do
	grep -qE '^set key.*(inside|opaque)' "$f" && bad="$bad $(basename "$f")"
	k=$(grep -E '^set key' "$f" | grep -vE 'outside|below|off' | head -n 1)
	[ -n "$k" ] && bad="$bad $(basename "$f"):'$k'"
done
check_eq "every script puts its keys outside or below the data" "" "$bad"

# pixels: keys_hit GP: the plotted pixels (not white) of the picture drawn without
# its key that the key changes when drawn (0: the key covers no data)
cat > "$t/pixels.py" <<'EOF'
# pixels.py A.png B.png: the number of pixels not white in B that differ in A. To read
# a PNG: inflate, then undo the five scanline filters (PNG spec, section 9); 8-bit RGB(A).
import struct, sys, zlib
def rows(path):
    data, pos, idat = open(path, 'rb').read(), 8, []
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        if kind == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', data[pos + 8:pos + 18])
        elif kind == b'IDAT': idat.append(data[pos + 8:pos + 8 + n])
        pos += 12 + n
    bpp = {2: 3, 6: 4}[ctype]
    raw, stride, i = zlib.decompress(b''.join(idat)), w * bpp, 0
    prev = bytearray(stride)
    for y in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        if f == 1:
            for x in range(bpp, stride): line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for x in range(stride): line[x] = (line[x] + ((line[x - bpp] if x >= bpp else 0) + prev[x]) // 2) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        yield bytes(line), bpp
        prev = line
hit = 0
for (a, bpp), (b, _) in zip(rows(sys.argv[1]), rows(sys.argv[2])):
    if a == b: continue
    for x in range(0, len(a), bpp):
        pb = b[x:x + 3]
        if pb != b'\xff\xff\xff' and a[x:x + 3] != pb: hit += 1
print(hit)
EOF
# keys_hit DIR STEM KIND [SED]: draws STEM.KIND.gp as is (after the sed edit) and with
# "set key off", and counts the data pixels the key changed
keys_hit() {
	local d=$1 s=$2 k=$3 edit=${4:-}
	sed -e "$edit" -e "s/^set output .*'$s.$k.png')$/set output 'a.png'/" "$d/$s.$k.gp" > "$d/a.gp"
	sed -e "$edit" -e "s/^set output .*'$s.$k.png')$/set output 'b.png'/" \
		-e '0,/^set key/s/^\(set key.*\)$/\1\nset key off/' "$d/$s.$k.gp" > "$d/b.gp"
	(cd "$d" && gnuplot a.gp && gnuplot b.gp) 2> /dev/null || { echo gnuplot-failed; return; }
	python3 "$t/pixels.py" "$d/a.png" "$d/b.png"
}
if command -v python3 > /dev/null; then
	for k in seek vm; do
		check_eq "$k: drawing the keys changes no plotted pixel" 0 \
			"$(keys_hit "$t/two" msr-vs-systor $k)"
	done
	n=$(keys_hit "$t/two" msr-vs-systor seek 's/^set key outside right top$/set key inside center center opaque/')
	if [ "$n" -gt 0 ] 2> /dev/null; then ok "the pixel check sees a key put inside ($n pixels)"
	else not_ok "the pixel check sees a key put inside" "$n"; fi
else
	skip "pixel check" "no python3"
fi

# ---- lat: tick labels with room ------------------------------------------------------------
gp=$t/two/msr-vs-systor.lat.gp
gap=$(awk '/^set xrange/ { gsub(/[][]/, "", $3); split($3, r, ":"); lo = r[1]; hi = r[2] }
	/^set xtics \(/ { s = $0; sub(/^set xtics \(/, "", s); sub(/\)$/, "", s)
		n = split(s, a, ", "); for (i = 1; i <= n; i++) { split(a[i], p, " "); lab[i] = p[1]; at[i] = p[2] } }
	END { px = (1024 / 2 - 90) / (log(hi / lo) / log(10)); min = 1e9
		for (i = 2; i <= n; i++) { g = (log(at[i] / at[i - 1]) / log(10)) * px
			w = 7 * (length(lab[i]) > length(lab[i - 1]) ? length(lab[i]) : length(lab[i - 1])) - 14
			if (g - w < min) min = g - w }
		print (n >= 2 && min >= 0) ? "room" : "crowded: " min " px short" }' "$gp")
check_eq "lat: neighbouring tick labels do not run together" room "$gap"
check_eq "lat: the keys below the panels (one a panel)" "$(grep -c '^set title' "$gp")" \
	"$(grep -c '^set key below' "$gp")"
check_eq "lat: key titles give their units" 1 "$(grep -q 'mean [0-9]* us, p99 [0-9]* us' "$gp" && echo 1)"

# ---- vm: free memory alone, a small series on the right axis -------------------------------
gp=$t/two/msr-vs-systor.vm.gp
check_eq "vm: the free memory panel draws free (column 2) only" "2" \
	"$(awk "/^set title 'free memory/ { on = 1; next } on && /^set title/ { exit }
		on { while (match(\$0, /using 1:[0-9]+/)) { print substr(\$0, RSTART + 8, RLENGTH - 8); \$0 = substr(\$0, RSTART + RLENGTH) } }" "$gp" | sort -u | paste -sd' ')"
check_eq "vm: swap used (a tenth of cache or less) on the right-hand axis" 2 \
	"$(grep -c "using 1:6 axes x1y2 .*swap used (right)" "$gp")"
check_eq "vm: cache on the left" 2 "$(grep -c "using 1:3 axes x1y1 .*cache'" "$gp")"

# ---- txt: 80 columns; procs a process to its own lines --------------------------------------
"$IOTAPE" plot --db "$db" -o "$t/txt" --format txt msr systor > /dev/null 2> "$t/err" ||
	not_ok "plot --format txt msr systor" "$(cat "$t/err")"
wmax=$(cat "$t"/txt/*.txt | awk '{ if (length > m) m = length } END { print m + 0 }')
[ "$wmax" -le 80 ] && ok "txt: at most 80 columns ($wmax)" || not_ok "txt: at most 80 columns" "$wmax"
labels=$(awk -F'"' '!/^#/ && NF > 1 { print $2 }' "$t/txt/msr-vs-systor.procs.dat")
bad=
while IFS= read -r l; do
	[ "$(grep -cF -- "$l |" "$t/txt/msr-vs-systor.procs.txt")" = 1 ] || bad="$bad '$l'"
done <<< "$labels"
check_eq "procs txt: each process label once, on a line of its own" "" "$bad"
check_eq "procs txt: two lines a process" \
	"$(( 2 * $(wc -l <<< "$labels") ))" \
	"$(awk '/^ *[^ ].* \|/ || /^ +\|/' "$t/txt/msr-vs-systor.procs.txt" | wc -l)"

# ---- the seed captures (corpus): the pictures issue 15 was about -----------------------------
if CORPUS=$(corpus_dir) && [ -r "$CORPUS/seed-debsums-patch/one-disk/trace.bin" ]; then
	for v in one-disk two-disks; do
		"$IOTAPE" import --db "$db" --quiet --run "$v" "$CORPUS/seed-debsums-patch/$v/trace.bin" &&
		"$IOTAPE" import --db "$db" --quiet --run "$v" "$CORPUS/seed-debsums-patch/$v/vmstat.log" ||
			not_ok "import seed $v"
	done
	"$IOTAPE" plot --db "$db" -o "$t/seed" --kind seek,vm one-disk two-disks > /dev/null 2> "$t/err" ||
		not_ok "plot the seed captures" "$(cat "$t/err")"
	read -r w h <<< "$(png_size "$t/seed/one-disk-vs-two-disks.seek.png")"
	[ "${h:-0}" -ge 1200 ] && ok "seed seek: 5 panels on ${w}x$h" || not_ok "seed seek: a taller canvas" "${w}x$h"
	if command -v python3 > /dev/null; then
		check_eq "seed seek: drawing the keys changes no plotted pixel" 0 \
			"$(keys_hit "$t/seed" one-disk-vs-two-disks seek)"
	fi
	check_eq "seed vm: swap used on the right-hand axis, beside cache" 2 \
		"$(grep -c "using 1:6 axes x1y2 .*swap used (right)" "$t/seed/one-disk-vs-two-disks.vm.gp")"
else
	skip "seed captures" "no ../shared/corpus"
fi
tap_finish
