# bench/seed_disk.sh: the seed reports, for real, on modelled disks of 2006 (`iotape
# disk`). Not part of `make test` (minutes); `make validate-disk` runs it.
#
#  seed000: "debsums + bzcat | patch, /usr and /usr/src on one disk against two"
#    (../shared/corpus/seed-debsums-patch: the report's patch took 6m8s with one disk
#    and 38 s with two, and swapped 32 MB against 244 kB). Scaled by SEED_SCALE (4: a
#    quarter): a usr tree of files copied from this machine's /usr (496/4 MB), a
#    source tree of generated Pascal files (216/4 MB) and its patch (every second
#    .pp/.pas/.inc file of 2 to 512 KiB edited on line 1 and every 50th line, as
#    the corpus's how-made/make-data.sh does), a memory cgroup of 512/4 MiB with an
#    idle holder of 350/4 MiB of anonymous memory (written once, made cold with
#    MADV_COLD, a page written a second, as the captures' anonhold), a swap file of
#    1024/4 MiB on the
#    usr disk, dirty limits of 24/4 and 48/4 MiB; debsums starts 1 s into the run,
#    patch 1.5 s (in the corpus's captures, when swap use first rose: 1.5 to 1.8 s;
#    here a fixed time, the same in both variants, and not moved by other jobs'
#    swapping on a shared machine). two-disks: usr and the swap file on disk A, src
#    on disk B; one-disk: all three on disk A. Every disk a desktop-2006 of
#    4096/SCALE MiB. Each variant captured (iotape capture -d NAME) as its own run;
#    then iotape compare explains patch's time in one against the other.
#  seed004: a writer (dd, 1 MiB blocks) on a disk of 13 MB/s, with
#    dirty_background_ratio 10 against 30 of a box of SEED004_MB (256) MiB (as
#    dirty_background_bytes; dirty_bytes 40% of it): the bo oscillation and idle
#    gaps, from the run's samples and trace.
#
# Usage: bash bench/seed_disk.sh [seed000] [seed004]   (default: both)
# Environment: IOTAPE, SEED_DIR (/var/tmp/iotape-seed: data, images, kept between
# runs), SEED_DB (SEED_DIR/seed.db), SEED_SCALE (4), SEED_REPEAT (1 run a variant).
# Needs root, /dev/fuse, cgroup v1 memory, mke2fs, bzip2, patch, diff.

. "$(dirname "$0")/../tests/lib.sh"

S=${SEED_DIR:-/var/tmp/iotape-seed}
SCALE=${SEED_SCALE:-4}
DB=${SEED_DB:-$S/seed.db}
REPEAT=${SEED_REPEAT:-1}
die() { echo "seed_disk: $*" >&2; exit 1; }
say() { echo "seed_disk: $*" >&2; }

[ -x "$IOTAPE" ] || die "no iotape binary at $IOTAPE (run make)"
[ "$(id -u)" = 0 ] || die "needs root"
for tool in mke2fs bzip2 bzcat patch diff md5sum jq fio python3; do
	command -v $tool > /dev/null || die "needs $tool"
done
mkdir -p "$S" || die "cannot make $S"
parts=${*:-seed000 seed004}

# ---- seed000: data ------------------------------------------------------------------
# usr: files of this machine's /usr/share and /usr/lib of 4 KiB to 2 MiB (the
# seed's average 53 KB), in an order shuffled from a fixed seed, until 496/SCALE MB
make_usr() {
	local want=$((496000000 / SCALE))
	mkdir -p "$S/stage/usr"
	find /usr/share /usr/lib -xdev -type f -size +4k -size -2048k -readable -printf '%s\t%p\n' \
		2> /dev/null | sort -t "$(printf '\t')" -k2,2 |
		sort -R --random-source=<(yes 29 | head -c 1048576) |
		awk -F'\t' -v want="$want" '{ if (t >= want) exit; t += $1; print $2 }' > "$S/usr.lst"
	tar -C / -cf - --files-from=<(sed 's|^/||' "$S/usr.lst") 2> /dev/null | tar -C "$S/stage/usr" -xf -
}

# src: 9600/SCALE generated Pascal units, 216/SCALE MB, sizes log-uniform 1-96 KiB
make_src() {
	local n=$((9600 / SCALE)) want=$((216000000 / SCALE))
	mkdir -p "$S/stage/src/fpc"
	awk -v n="$n" -v want="$want" -v dir="$S/stage/src/fpc" 'BEGIN {
		srand(29); split(".pp .inc .pas", ext, " ")
		split("begin end if then else while do for to var const type procedure function " \
		      "integer longint string boolean result exit inherited record array of", kw, " ")
		for (i = 0; i < n; i++) sz[i] = exp(log(1024) + rand() * (log(96 * 1024) - log(1024)))
		for (i = 0; i < n; i++) tot += sz[i]
		for (i = 0; i < n; i++) {
			d = sprintf("%s/rtl%02d/inc%d", dir, i % 40, i % 7)
			if (!(d in made)) { system("mkdir -p " d); made[d] = 1 }
			f = sprintf("%s/unit%04d%s", d, i, ext[i % 3 + 1])
			left = sz[i] * want / tot; ln = 0
			printf "{ unit %d of the generated tree }\n", i > f
			while (left > 0) {
				s = sprintf("  %s %s%d(%s: %s); { %d }", kw[int(rand() * 21) + 1],
					kw[int(rand() * 21) + 1], int(rand() * 1000), kw[int(rand() * 21) + 1],
					kw[int(rand() * 21) + 1], ++ln)
				print s > f; left -= length(s) + 1
			}
			close(f)
		}
	}'
}

# the patch, as how-made/make-data.sh makes it: every second .pp/.pas/.inc of 2 to
# 512 KiB gets " {mm5}" on line 1 and every 50th line from 25; 40/SCALE new files
make_patch() {
	rm -rf "$S/mk"; mkdir -p "$S/mk"
	cp -a "$S/stage/src/fpc" "$S/mk/fpc.orig"
	cp -a "$S/stage/src/fpc" "$S/mk/fpc"
	( cd "$S/mk/fpc" &&
	  find . -type f \( -name '*.pp' -o -name '*.pas' -o -name '*.inc' \) -size +2k -size -512k |
		sort > ../all.lst &&
	  awk 'NR % 2 == 1' ../all.lst > ../mod.lst &&
	  while read -r f; do
		awk 'NR == 1 || NR % 50 == 25 { sub(/\r?$/, " {mm5}&") } { print }' "$f" > "$f.tmp" &&
			cat "$f.tmp" > "$f" && rm "$f.tmp"
	  done < ../mod.lst &&
	  awk 'NR % 97 == 5' ../all.lst | head -n $((40 / SCALE + 1)) | while read -r f; do
		cp "$f" "$(dirname "$f")/mm5_new_$(basename "$f")"; done )
	( cd "$S/mk" && { diff -ruN fpc.orig fpc > p || [ $? = 1 ]; } && bzip2 -9 -k -f p )
	cp "$S/mk/p.bz2" "$S/stage/src/p.bz2"
	( cd "$S/mk/fpc" && find . -type f -print0 | sort -z | xargs -0 md5sum > ../fpc.md5 )
}

# the images: 4096/SCALE MiB each (sparse), ext4 of the size given at the start; the swap
# file is of random bytes (mke2fs -d leaves blocks of zeros out, and swapon
# refuses a file with holes), its header written by mkswap
make_images() {
	local swap_mb=$((1024 / SCALE)) disk=$((4096 / SCALE))
	rm -rf "$S/img" "$S/stA" "$S/stB" "$S/st1"
	mkdir -p "$S/img" "$S/stA" "$S/stB" "$S/st1"
	cp -a "$S/stage/usr" "$S/stA/usr"
	cp -a "$S/stage/src" "$S/stB/src"
	cp -a "$S/stage/usr" "$S/stage/src" "$S/st1/"
	head -c $((swap_mb * 1048576)) /dev/urandom > "$S/stA/swapfile"
	mkswap -q "$S/stA/swapfile" > /dev/null || die "mkswap failed"
	cp "$S/stA/swapfile" "$S/st1/swapfile"
	chmod 600 "$S/stA/swapfile" "$S/st1/swapfile"
	mk() { truncate -s ${disk}M "$S/img/$1.img" && mke2fs -q -F -t ext4 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0 -L "$1" -d "$2" "$S/img/$1.img" "$3"; }
	mk A "$S/stA" $((disk * 3 / 4))M && mk B "$S/stB" $((disk / 2))M &&
		mk one "$S/st1" $((disk - 32))M || die "mke2fs failed"
	rm -rf "$S/stA" "$S/stB" "$S/st1"
}

seed000_data() {
	[ -s "$S/img/one.img" ] && [ -s "$S/mk/fpc.md5" ] && [ "$(cat "$S/scale" 2> /dev/null)" = "$SCALE v3" ] &&
		return 0
	say "building the seed's data at 1/$SCALE scale in $S (once)..."
	[ -s "$S/mk/fpc.md5" ] || { rm -rf "$S/stage" "$S/mk"; make_usr && make_src && make_patch ||
		die "building the data failed"; }
	make_images || die "building the images failed"
	echo "$SCALE v3" > "$S/scale"
	say "usr $(du -sm "$S/stage/usr" | cut -f1) MB $(find "$S/stage/usr" -type f | wc -l) files;" \
		"src $(du -sm "$S/stage/src/fpc" | cut -f1) MB $(find "$S/stage/src/fpc" -type f | wc -l) files;" \
		"patch $(wc -l < "$S/mk/mod.lst") files, p.bz2 $(stat -c %s "$S/mk/p.bz2") bytes"
}

# ---- seed000: one run ---------------------------------------------------------------
W=$S/work
MA=/mnt/iotape-seedA MB=/mnt/iotape-seedB
disks_down() {
	swapoff "$MA/swapfile" 2> /dev/null
	umount "$MB" 2> /dev/null; umount "$MA" 2> /dev/null
	"$IOTAPE" disk stop --force seedA seedB > /dev/null 2>&1
	rmdir "$MA" "$MB" 2> /dev/null
	rm -f "$W"/*.img
	return 0
}

# seed000_run VARIANT RUN
seed000_run() {
	local var=$1 run=$2 usr src a b devs=() lim=$((512 / SCALE)) hold=$((350 / SCALE))
	disks_down
	mkdir -p "$W" "$MA"
	at_exit disks_down
	if [ "$var" = two-disks ]; then
		cp --sparse=always "$S/img/A.img" "$W/A.img" && cp --sparse=always "$S/img/B.img" "$W/B.img" ||
			die "cannot copy the images"
		a=$("$IOTAPE" disk start --name seedA --backing "$W/A.img") || die "cannot start disk A"
		b=$("$IOTAPE" disk start --name seedB --backing "$W/B.img") || die "cannot start disk B"
		mkdir -p "$MB"
		mount "$a" "$MA" && mount "$b" "$MB" || die "mount failed"
		usr=$MA/usr src=$MB/src devs=(-d seedA -d seedB)
	else
		cp --sparse=always "$S/img/one.img" "$W/A.img" || die "cannot copy the image"
		a=$("$IOTAPE" disk start --name seedA --backing "$W/A.img") || die "cannot start disk A"
		mount "$a" "$MA" || die "mount failed"
		usr=$MA/usr src=$MA/src devs=(-d seedA)
	fi
	swapon "$MA/swapfile" || die "swapon $MA/swapfile failed"
	# where the swap file lies on disk A, for the swap I/O in the trace: the
	# machine-wide counters also count other jobs' swapping
	filefrag -e -b512 "$MA/swapfile" | awk -F'[:.]+' '/^ *[0-9]+:/ {
		gsub(/ /, ""); printf "%s(sector BETWEEN %s AND %s)", n++ ? " OR " : "", $4, $5 }' \
		> "$W/$run.swapext"
	printf '%d\n' $(( $(cut -d: -f1 /sys/block/${a#/dev/}/dev) << 20 | $(cut -d: -f2 /sys/block/${a#/dev/}/dev) )) \
		> "$W/$run.devA"
	rm -f "$W"/stop "$W"/*.done
	# the idle desktop of the seed's captures: anonymous memory written once,
	# made cold (MADV_COLD, 20), then one random page written a second
	cat > "$W/holder.py" <<'PY'
import mmap, os, random, sys, time
n, page = int(sys.argv[1]) << 20, 4096
m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(0, n, page):
    m[i] = (i // page) % 251 + 1
m.madvise(20)
while not os.path.exists(sys.argv[2]):
    time.sleep(1)
    i = random.randrange(n // page) * page
    m[i] ^= 1
PY
	say "$run: $var (disks: $a${b:+ $b})..."
	# the holder ends when debsums and patch both have (whichever ends last
	# says so), so the run's elapsed time is theirs
	"$IOTAPE" capture --db "$DB" --run "$run" "${devs[@]}" --interval 0.5 --duration 60m \
		--mem-limit ${lim}M --drop-caches --label "seed=000" --label "variant=$var" \
		--set vm.dirty_background_bytes=$((25165824 / SCALE)) --set vm.dirty_bytes=$((50331648 / SCALE)) \
		--cmd "python3 $W/holder.py $hold $W/stop" \
		--cmd "find $usr -type f -print0 | xargs -0 md5sum > /dev/null; touch $W/debsums.done; if [ -e $W/patch.done ]; then touch $W/stop; fi" \
		--start-after 1s \
		--cmd "cd $src/fpc && bzcat ../p.bz2 | patch -p1 -s; touch $W/patch.done; if [ -e $W/debsums.done ]; then touch $W/stop; fi" \
		--start-after 1.5s \
		> "$W/$run.out" 2> "$W/$run.err" || { cat "$W/$run.err" >&2; die "capture $run failed"; }
	( cd "$src/fpc" && md5sum -c --quiet "$S/mk/fpc.md5" > "$W/verify.txt" 2>&1 ) ||
		say "$run: the patched tree differs in $(wc -l < "$W/verify.txt") files"
	for d in seedA seedB; do
		[ -e "/run/iotape/disk/$d" ] && "$IOTAPE" disk stats --json "$d" > "$W/$run.$d.json"
	done
	disks_down
}

# the figures of a run: debsums' and patch's real seconds; MB written to and read
# from the swap file (the trace's bios within its extents); the trace's seek mean
seed000_figures() {
	local r=$1 sw so si
	sw=$(cat "$W/$r.swapext" 2> /dev/null)
	so=$(sqlite3 "$DB" "SELECT printf('%.1f', coalesce(sum(bytes), 0) / 1e6) FROM requests q JOIN runs r ON
		r.id = q.run WHERE r.name = '$r' AND q.dev = $(cat "$W/$r.devA") AND q.rwbs LIKE '%W%' AND ($sw)")
	si=$(sqlite3 "$DB" "SELECT printf('%.1f', coalesce(sum(bytes), 0) / 1e6) FROM requests q JOIN runs r ON
		r.id = q.run WHERE r.name = '$r' AND q.dev = $(cat "$W/$r.devA") AND q.rwbs LIKE '%R%' AND ($sw)")
	"$IOTAPE" compare --db "$DB" --json "$r" "$r" | jq -r --arg r "$r" --arg so "$so" --arg si "$si" '.runs[0].figures |
		"\($r | . + " " * (14 - length))debsums \(.cmd1_real_s * 10 | round / 10) s, patch \(.cmd2_real_s * 10 | round / 10) s, swap file written \($so) MB, read \($si) MB; D2D seek mean \(.seek_mean_sectors | round) sectors"'
}

seed000() {
	seed000_data
	local i
	for i in $(seq "$REPEAT"); do
		"$IOTAPE" rm --db "$DB" "two-disks.$i" > /dev/null 2>&1
		"$IOTAPE" rm --db "$DB" "one-disk.$i" > /dev/null 2>&1
		seed000_run two-disks "two-disks.$i"
		seed000_run one-disk "one-disk.$i"
	done
	{
		echo "seed 000 on modelled desktop-2006 disks, 1/$SCALE scale ($("$IOTAPE" --version))"
		for i in $(seq "$REPEAT"); do
			seed000_figures "two-disks.$i"
			seed000_figures "one-disk.$i"
		done
	} | tee "$S/seed000.txt"
	if [ "$REPEAT" = 1 ]; then
		"$IOTAPE" compare --db "$DB" --metric cmd2_real_s "one-disk.1" "two-disks.1"
	else
		"$IOTAPE" compare --db "$DB" --metric cmd2_real_s --group-by 'one-disk.*,two-disks.*' \
			$(for i in $(seq "$REPEAT"); do echo "one-disk.$i"; done) \
			$(for i in $(seq "$REPEAT"); do echo "two-disks.$i"; done)
	fi | tee "$S/seed000-compare.txt"
}

# ---- seed004: a writer on a disk of 13 MB/s ----------------------------------------------
seed004_run() {
	local ratio=$1 run=$2 box=$((${SEED004_MB:-256} * 1048576)) a prof=$S/13mbs.profile
	printf '%s\n' 'base = desktop-2006' 'name = disk-13mbs' \
		'rate_outer_mbs = 13.5   # seed 004: a disk writing about 13 MB/s' \
		'rate_inner_mbs = 12.5' > "$prof"
	disks_down
	mkdir -p "$W" "$MA"
	at_exit disks_down
	a=$("$IOTAPE" disk start --name seedA --model "$prof" --size 2G) || die "cannot start the 13 MB/s disk"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$a" && mount "$a" "$MA" || die "mkfs, mount"
	say "$run: dirty_background_ratio $ratio of a $((box / 1048576)) MiB box..."
	"$IOTAPE" capture --db "$DB" --run "$run" -d seedA --interval 0.25 --duration 10m \
		--drop-caches --label "seed=004" --label "dirty_background_ratio=$ratio" \
		--set vm.dirty_background_bytes=$((box * ratio / 100)) --set vm.dirty_bytes=$((box * 40 / 100)) \
		--cmd "dd if=/dev/zero of=$MA/f bs=1M count=${SEED004_WRITE_MB:-400}; sync" \
		> "$W/$run.out" 2> "$W/$run.err" || { cat "$W/$run.err" >&2; die "capture $run failed"; }
	disks_down
}

seed004() {
	local r
	"$IOTAPE" rm --db "$DB" dbr10 > /dev/null 2>&1
	"$IOTAPE" rm --db "$DB" dbr30 > /dev/null 2>&1
	seed004_run 10 dbr10
	seed004_run 30 dbr30
	{
		echo "seed 004 on a modelled disk of 13 MB/s ($("$IOTAPE" --version)): dd of" \
			"${SEED004_WRITE_MB:-400} MB, dirty limits of a ${SEED004_MB:-256} MiB box"
		for r in dbr10 dbr30; do
			"$IOTAPE" iostat --db "$DB" "$r" --interval 1s --json |
				jq -r --arg r "$r" --argjson dd "$("$IOTAPE" compare --db "$DB" --json "$r" "$r" |
					jq '.runs[0].figures.cmd0_real_s')" '[.rows[] | .["wkB/s"] / 1000] as $w |
				($w | map(select(. < 0.5)) | length) as $idle |
				"\($r): dd + sync \($dd * 10 | round / 10) s; the disk wrote \($w | add | round) MB in \($w | length) s: " +
				"\($idle) idle seconds (under 0.5 MB/s), busy seconds \($w | map(select(. >= 0.5)) | if length > 0 then (add / length * 10 | round / 10) else 0 end) MB/s on average, " +
				"max \($w | max * 10 | round / 10)\nMB/s written each second: \($w | map(. * 10 | round / 10 | tostring) | join(" "))"'
		done
	} | tee "$S/seed004.txt"
	"$IOTAPE" compare --db "$DB" dbr10 dbr30 | tee "$S/seed004-compare.txt"
}

for p in $parts; do
	case $p in
	seed000) seed000 ;;
	seed004) seed004 ;;
	*) die "unknown part '$p' (seed000, seed004)" ;;
	esac
done
