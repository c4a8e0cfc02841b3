# t_mail.sh: `iotape mail` on the seed threads' comparisons (dd + sync, DBT-2's tps
# per kernel with repeats, one disk or two replayed on the 2006 disk from the corpus,
# writeback thresholds captured as root): a body of at most 40 lines of 80
# columns on stdout and in NAME.mail.txt, with the
# question per side, the verdict and the causes with their costs; the long form in
# NAME.full.txt. Then the pictures: a process family keeps one colour in every
# panel, and every kind and the --across picture (DBT-2's table with its marks)
# render (PNG and txt) for 1, 3 and 8 runs. Only the writeback capture needs root.
. "$(dirname "$0")/../lib.sh"

need_iotape "mail"
command -v gnuplot > /dev/null || { skip "mail" "no gnuplot (apt-get install gnuplot-nox)"; exit 0; }

t=$TEST_TMP db=$t/t.db Q=$FIXTURES/quick
export IOTAPE_DB=$db

# body DESC DIR OUT: the body printed (OUT) is DIR's NAME.mail.txt, at most 40
# lines of at most 80 columns, and NAME.full.txt is the long form beside it
body() {
	local desc=$1 dir=$2 out=$3 f lines wide
	f=$(ls "$dir"/*.mail.txt 2> /dev/null | head -n 1)
	lines=$(wc -l < "$out")
	wide=$(awk 'length > 80' "$out" | wc -l)
	if [ -n "$f" ] && cmp -s "$f" "$out" && [ "$lines" -le 40 ] && [ "$lines" -ge 10 ] &&
	   [ "$wide" = 0 ]; then
		ok "$desc: the body, $lines lines of at most 80 columns, is NAME.mail.txt"
	else
		not_ok "$desc: a body of 10 to 40 lines in 80 columns, as in NAME.mail.txt" \
			"$lines lines, $wide wider than 80, file '$f'"
	fi
	diag "$desc: $(grep -m1 '^Verdict: ' "$out")"
	diag "$desc: $(grep -m1 -E '^ +[-+][0-9]+\.[0-9]{2} +-?[0-9]+%  ' "$out" | tr -s ' ')"
	f=${f%.mail.txt}.full.txt
	if [ -s "$f" ] && grep -q '^== headline figures' "$f" && [ "$(awk 'length > 80' "$f")" = "" ]; then
		ok "$desc: the long form beside it ($(wc -l < "$f") lines)"
	else
		not_ok "$desc: the long form beside it" "$f"
	fi
}

# golden DESC EXPECTED GOT: GOT is the committed text EXPECTED (a layout change is
# a visible diff: make the fixture again, as tests/fixtures/README.md says)
golden() {
	if diff -u "$2" "$3" > "$t/golden.diff"; then
		ok "$1: as tests/fixtures/mail/$(basename "$2")"
	else
		not_ok "$1: as tests/fixtures/mail/$(basename "$2")" "$(head -n 30 "$t/golden.diff")"
	fi
}
GOLD=$FIXTURES/mail

# ---- dd + sync: the commands' total time, no trace ------------------------------
"$IOTAPE" import --quiet --run kernel-6.1 "$Q/dd-sync-6.1.txt" &&
"$IOTAPE" import --quiet --run kernel-6.18 "$Q/dd-sync-6.18.txt" ||
	{ not_ok "import the dd + sync timings"; tap_finish; }
if "$IOTAPE" mail -o "$t/dd" kernel-6.1 kernel-6.18 > "$t/dd.out" 2> "$t/err"; then
	body "dd + sync" "$t/dd" "$t/dd.out"
	check_eq "dd + sync: the total per kernel, the difference not explained" \
		"  A kernel-6.1 7.731 s|  B kernel-6.18 8.329 s +7.7%|+0.60 100% not explained|+0.60 100% the difference" \
		"$(grep -E '^  [AB] [^ :]+ +[0-9]|^ +[-+][0-9.]+ +[0-9]+%  ' "$t/dd.out" | tr -s ' ' | sed 's/^ //; s/^\([AB]\)/  \1/; s/ (.*//' | paste -sd'|')"
else
	not_ok "mail kernel-6.1 kernel-6.18" "$(cat "$t/err")"
fi

# ---- DBT-2: tps of three runs a side, grouped by kernel, as globs -----------------
grep -v '^#' "$Q/dbt2-tps.txt" | while read -r fs k rep tps; do
	"$IOTAPE" import --quiet --again --run "dbt2-$fs-$k.$rep" "$Q/dd-sync-$k.txt" &&
	"$IOTAPE" label "dbt2-$fs-$k.$rep" fs="$fs" kernel="$k" > /dev/null &&
	"$IOTAPE" metric "dbt2-$fs-$k.$rep" tps="$tps" > /dev/null || echo fail
done > "$t/dbt2.err"
[ -s "$t/dbt2.err" ] && not_ok "import the DBT-2 runs"
if "$IOTAPE" mail --group-by kernel --metric tps -o "$t/dbt2" 'dbt2-ext2-*' > "$t/dbt2.out" 2> "$t/err"; then
	body "DBT-2 on ext2" "$t/dbt2" "$t/dbt2.out"
	check_eq "DBT-2: tps per kernel with the repeats' range, the verdict" \
		"kernel: A 6.1, B 6.18|A kernel=6.1 2342.0 [2310-2365, 3 runs]|B kernel=6.18 2201.0 [2188-2230, 3 runs] -6.0%|(the ranges of 3 and 3 repeats do not overlap)" \
		"$(grep -E '^  [AB] kernel=[^ :]+ +[0-9]|^  kernel:|repeats' "$t/dbt2.out" | tr -s ' ' | sed 's/^ //' | paste -sd'|')"
	tail -n +2 "$t/dbt2.out" > "$t/dbt2.body"
	golden "DBT-2: the body but its first line (the version)" "$GOLD/dbt2-ext2.mail.txt" "$t/dbt2.body"
	check "DBT-2: the commands that reproduce it" \
		grep -qx "Reproduce: iotape compare --group-by kernel --metric tps 'dbt2-ext2-\*'" "$t/dbt2.out"
else
	not_ok "mail --group-by kernel --metric tps 'dbt2-ext2-*'" "$(cat "$t/err")"
fi

# ---- the --across picture of DBT-2's table: PNG and txt, with its marks -----------
if "$IOTAPE" plot -o "$t/across" --group-by fs --across kernel --metric tps 'dbt2-*' > "$t/out" 2> "$t/err" &&
   "$IOTAPE" plot -o "$t/across" --format txt --group-by fs --across kernel --metric tps 'dbt2-*' >> "$t/out" 2>> "$t/err"; then
	f=$t/across/tps-by-fs-across-kernel.across
	check_eq "across: prints the pictures' paths" "$f.png|$f.txt" "$(paste -sd'|' "$t/out")"
	check_eq "across: a PNG" 89504e470d0a1a0a "$(od -An -tx1 -N8 "$f.png" | tr -d ' \n')"
	# the data: a row per filesystem, median min max and the bar's text per kernel
	check_eq "across: the data, a row per fs" \
		'"ext2" 2342 2310 2365 "base" 2201 2188 2230 "-6.0%"|"xfs" 2512 2498 2530 "base" 2505 2490 2521 "-0.3%~"' \
		"$(grep -v '^#' "$f.dat" | grep . | paste -sd'|')"
	golden "across txt: the dumb terminal's picture" "$GOLD/dbt2.across.txt" "$f.txt"
	check_eq "across txt: the changes over the bars, the key, the footnote, 80 columns" \
		"1 1 1 1 0" \
		"$(grep -c -- '-6\.0%' "$f.txt") $(grep -c -- '-0\.3%~' "$f.txt") $(grep -cF '6.1 (*)' "$f.txt") $(grep -c '^ *~ within the spread' "$f.txt") $(awk 'length > 80' "$f.txt" | wc -l)"
else
	not_ok "plot --across kernel" "$(cat "$t/err")"
fi
check "plot --group-by without --across: an error" \
	bash -c "! '$IOTAPE' plot --group-by fs kernel-6.1 2> /dev/null"

# ---- one disk or two, on the reporter's 2006 disk (the corpus's captures) ----------
if CORPUS=$(corpus_dir) && [ -d "$CORPUS/seed-debsums-patch" ]; then
	S=$CORPUS/seed-debsums-patch
	for r in one-disk two-disks; do
		"$IOTAPE" import --quiet --run $r --names "$S/$r/cmdlines.txt" "$S/$r/trace.bin" &&
		"$IOTAPE" replay --quiet $r --target model:desktop-2006 --run $r-2006 > /dev/null ||
			not_ok "import and replay $r"
	done
	if "$IOTAPE" mail -o "$t/disks" one-disk-2006 two-disks-2006 > "$t/disks.out" 2> "$t/err"; then
		body "one disk or two" "$t/disks" "$t/disks.out"
		# from the question to the causes: what was compared names the
		# settings that differed when the replays ran (a shared machine's
		# sysctls), and the plot's height follows from the lines above it
		sed -n '/^The question: /,/^Picture /p' "$t/disks.out" | sed '$d' > "$t/disks.body"
		golden "one disk or two: the question, the verdict, the causes" \
			"$GOLD/one-disk-2006.mail.txt" "$t/disks.body"
		# the first cause, its cost in seconds and share, and its picture
		cause=$(grep -m1 -E '^ +\+[0-9]+\.[0-9]{2} +[0-9]+%  [a-z]' "$t/disks.out")
		check "one disk or two: the first cause with its cost ($cause)" \
			test -n "$cause"
		check "one disk or two: a text plot for the first cause" \
			grep -qE '^Picture \((seek|tput|lat|qd|vm), for the first cause: [a-z]+\):$' "$t/disks.out"
		check "one disk or two: the costs add up to the difference" \
			awk '/^ +[-+][0-9.]+ +-?[0-9]+%  / { if ($0 ~ /the difference$/) d = $1; else s += $1 }
			     END { exit !(d != 0 && s - d < 0.015 && d - s < 0.015) }' "$t/disks.out"
	else
		not_ok "mail one-disk-2006 two-disks-2006" "$(cat "$t/err")"
	fi
else
	skip "mail of one disk or two" "corpus absent"
fi

# ---- writeback thresholds: 64 MB written and synced at 1% and 30% (as root) ------
if [ "$(id -u)" != 0 ]; then
	skip "mail of the writeback thresholds" "needs root"
elif ! tracefs_check; then
	skip "mail of the writeback thresholds" "$TRACEFS_WHY"
elif ! command -v mkfs.ext4 > /dev/null; then
	skip "mail of the writeback thresholds" "no mkfs.ext4"
else
	truncate -s 256M "$t/wb.img"
	if loop_attach "$t/wb.img" && mkfs.ext4 -q "/dev/$LOOPDEV" && mkdir -p "$t/mnt" &&
	   at_exit "umount '$t/mnt' 2> /dev/null" && mount "/dev/$LOOPDEV" "$t/mnt" &&
	   "$IOTAPE" capture --quiet --run wb -d "/dev/$LOOPDEV" --set vm.dirty_background_ratio=1,30 \
		--cmd "dd if=/dev/zero of=$t/mnt/f bs=1M count=64 2> /dev/null && sync" 2> "$t/err"; then
		if "$IOTAPE" mail -o "$t/wb" 'wb*' > "$t/wb.out" 2> "$t/err"; then
			body "writeback thresholds" "$t/wb" "$t/wb.out"
			check "writeback thresholds: the setting that differs" \
				grep -qE '^  vm.dirty_background_ratio: A 1, B 30$' "$t/wb.out"
			# (on a loop device the two take alike, a few ms apart, and
			# now and then under the 0.5 ms that counts as the same time:
			# then no side is worse and there is no difference to total)
			if grep -q '^Verdict: ' "$t/wb.out" &&
			   grep -qE '^ +[-+][0-9.]+ +100%  the difference$|^Causes: none to explain \(no difference\)\.$' "$t/wb.out"; then
				ok "writeback thresholds: the verdict and the difference's total (or none to explain)"
			else
				not_ok "writeback thresholds: the verdict and the difference's total (or none to explain)" \
					"$(grep -E '^(The question|  [AB] |Verdict|Causes|Why| +[-+][0-9])' "$t/wb.out")"
			fi
		else
			not_ok "mail 'wb*'" "$(cat "$t/err")"
		fi
	else
		not_ok "capture the writeback thresholds" "$(tail -n 3 "$t/err" 2> /dev/null)"
	fi
	umount "$t/mnt" 2> /dev/null
fi

# ---- the pictures: 1, 3 and 8 runs of the quick captures ---------------------------
for i in 1 2 3 4 5 6 7 8; do
	[ $((i % 2)) = 1 ] && f=before || f=after
	"$IOTAPE" import --quiet --again --run "q$i" "$Q/$f.bin.gz" ||
		not_ok "import $f as q$i"
	"$IOTAPE" label "q$i" "writer=$f" > /dev/null
	"$IOTAPE" metric "q$i" "tps=$((1000 + i))" > /dev/null
done
KINDS="seek tput lat qd procs compare"
for n in 1 3 8; do
	runs=$(seq -f 'q%g' 1 $n)
	for fmt in png txt; do
		d=$t/p$n-$fmt
		# shellcheck disable=SC2086
		if "$IOTAPE" plot --format $fmt -o "$d" $runs > /dev/null 2> "$t/err"; then
			bad=
			for k in $KINDS; do
				[ "$n" = 1 ] && [ "$k" = compare ] && continue
				f=$(ls "$d"/*."$k.$fmt" 2> /dev/null)
				if [ "$fmt" = png ]; then
					[ "$(od -An -tx1 -N8 "$f" 2> /dev/null | tr -d ' \n')" = 89504e470d0a1a0a ] ||
						bad="$bad $k"
				else
					[ -s "$f" ] && [ "$(awk 'length > 80' "$f")" = "" ] || bad="$bad $k"
				fi
			done
			check_eq "plot $n run(s), $fmt: every kind drawn$([ $fmt = txt ] && echo ' in 80 columns')" "" "$bad"
		else
			not_ok "plot $n run(s) --format $fmt" "$(cat "$t/err")"
		fi
	done
done
# past 2 runs, small multiples: a row of panels per run on shared axes, reads
# and writes in the same two colours in every panel
for n in 3 8; do
	for k in tput lat; do
		gp=$(ls "$t/p$n-png/"*.$k.gp)
		check_eq "$k of $n runs: a row of panels per run, two colours in all" \
			"set multiplot layout $n,2|2" \
			"$(grep -o '^set multiplot layout [0-9]*,[0-9]*' "$gp")|$(grep -o "lc rgb '#[0-9a-f]*'" "$gp" | grep -v dddddd | sort -u | wc -l)"
	done
done
check "compare of 8 runs: the changes over the bars upright, the key beside them" \
	grep -q 'rotate by 90' "$t"/p8-png/*.compare.gp

# vm: a command's end, the next one's start and its end (0.02 s later:
# two reports with no row between them ran one after the other) share one
# label
L=$FIXTURES/vmstat/plain-1-3.log
{ head -n 3 "$L"; printf 'real\t0m1.000s\nuser\t0m0.100s\nsys\t0m0.050s\n'
  printf 'real\t0m0.020s\nuser\t0m0.000s\nsys\t0m0.010s\n'; tail -n 1 "$L"; } > "$t/two.log"
if "$IOTAPE" import --quiet --again --run v "$FIXTURES/loop-fio-small.bin" &&
   "$IOTAPE" import --quiet --run v --interval 1 "$t/two.log" &&
   "$IOTAPE" plot --kind vm -o "$t/vm" v > /dev/null 2> "$t/err"; then
	check_eq "vm: marks closer than 2% of the axis share a label" "start 0|end 0, start 1, end 1" \
		"$(sed -n "s/^set label '\([^']*\)' at .*/\1/p" "$t/vm/v.vm.gp" | paste -sd'|')"
else
	not_ok "plot --kind vm of two timed commands" "$(cat "$t/err")"
fi

# the --across picture of 1, 3 and 8 runs (a bar each, one group; one-run
# cells marked *)
for n in 1 3 8; do
	# shellcheck disable=SC2046
	if "$IOTAPE" plot -o "$t/ax$n" --across writer --metric tps $(seq -f 'q%g' 1 $n) > /dev/null 2> "$t/err" &&
	   "$IOTAPE" plot -o "$t/ax$n" --format txt --across writer --metric tps $(seq -f 'q%g' 1 $n) > /dev/null 2> "$t/err"; then
		f=$t/ax$n/tps-across-writer.across
		check_eq "plot --across of $n run(s): a PNG, txt in 80 columns" "89504e470d0a1a0a 0" \
			"$(od -An -tx1 -N8 "$f.png" | tr -d ' \n') $(awk 'length > 80' "$f.txt" | wc -l)"
	else
		not_ok "plot --across of $n run(s)" "$(cat "$t/err")"
	fi
done
# a family's colour is the same in every panel of the 8 runs' seek picture, and
# a colour stands for one family
pairs=$(grep -o "keyentry with points pt 5 ps 0.9 lc rgb '#[0-9a-f]*' title '[^']*'" \
	"$t"/p8-png/*.seek.gp | awk '{ print $8, $10 }' | sort -u)
check_eq "seek of 8 runs: one colour per family, one family per colour" \
	"$(printf '%s\n' "$pairs" | awk '{ print $2 }' | sort -u | wc -l) $(printf '%s\n' "$pairs" | awk '{ print $1 }' | sort -u | wc -l)" \
	"$(printf '%s\n' "$pairs" | wc -l) $(printf '%s\n' "$pairs" | wc -l)"
check "seek of 8 runs: the families are keyed in more than one panel" \
	test "$(grep -c "keyentry with points pt 5" "$t"/p8-png/*.seek.gp)" -gt "$(printf '%s\n' "$pairs" | wc -l)"
# runs labelled by the setting that sets them apart, not their names
check "plot: runs labelled by their differing setting (writer=before #1)" \
	grep -q "writer=before #1" "$t"/p3-png/*.tput.gp

tap_finish
