# t_output_paths.sh: an output path that is not a plain file of its own is
# written in place, never replaced (lib/outfile.c): export -o into a FIFO, a
# device node, /dev/null, a symlink, a hard-linked file; plot's text through
# a symlink. A plain file is still made whole and keeps its mode (and owner,
# as root). The database the command reads is never an output: export -o
# naming it, its journal's name, a symlink or a hard link to it is refused
# and the database stays byte for byte.
. "$(dirname "$0")/../lib.sh"

need_iotape "output paths"
t=$TEST_TMP db=$t/t.db
"$IOTAPE" import --quiet --db "$db" --run lf "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" export --quiet --db "$db" --format csv -o "$t/want.csv" lf
want=$(md5sum < "$t/want.csv")

# exp PATH: export run lf as CSV to PATH; its exit status
exp() { "$IOTAPE" export --quiet --db "$db" --format csv -o "$1" lf 2> "$t/err"; }

# a FIFO: a reader gets the CSV, the FIFO stays
mkfifo "$t/fifo"
timeout 20 cat "$t/fifo" > "$t/fifo.out" &
reader=$!
at_exit "kill $reader 2> /dev/null"
timeout 20 "$IOTAPE" export --quiet --db "$db" --format csv -o "$t/fifo" lf 2> "$t/err"
rc=$?
wait $reader
check_eq "fifo: export exits 0, the reader gets the CSV, the FIFO stays" "0 $want fifo" \
	"$rc $(md5sum < "$t/fifo.out") $([ -p "$t/fifo" ] && echo fifo || echo replaced)"

# a symlink: its target written, the link stays
echo old > "$t/target.csv"
ln -s target.csv "$t/link.csv"
exp "$t/link.csv"; rc=$?
check_eq "symlink: exit 0, still a symlink, its target holds the CSV" "0 link $want" \
	"$rc $([ -L "$t/link.csv" ] && echo link || echo replaced) $(md5sum < "$t/target.csv")"

# a file with two names: both see the CSV
echo old > "$t/a.csv"
ln "$t/a.csv" "$t/b.csv"
exp "$t/a.csv"; rc=$?
check_eq "hard link: exit 0, the other name sees the CSV, still 2 links" "0 $want 2" \
	"$rc $(md5sum < "$t/b.csv") $(stat -c %h "$t/a.csv")"

# a plain file of mode 600 (owned by nobody, as root): replaced whole, mode
# and owner kept; no temporary left beside it
echo old > "$t/m600.csv"
chmod 600 "$t/m600.csv"
owner=$(id -un)
if [ "$(id -u)" = 0 ] && id nobody > /dev/null 2>&1; then
	chown nobody "$t/m600.csv" && owner=nobody
fi
exp "$t/m600.csv"; rc=$?
check_eq "mode 600 file: exit 0, the CSV, mode 600, owner $owner kept" "0 $want 600 $owner" \
	"$rc $(md5sum < "$t/m600.csv") $(stat -c '%a %U' "$t/m600.csv")"
check_eq "no temporary left beside it" "" "$(ls "$t" | grep '\.tmp\.')"

# device nodes: a private null and full (as root: mknod in TEST_TMP), then
# /dev/null itself, but only when the private null survived
safe=1
if [ "$(id -u)" = 0 ] && mknod "$t/null" c 1 3 2> /dev/null && mknod "$t/full" c 1 7 2> /dev/null; then
	exp "$t/null"; rc=$?
	check_eq "a null device node: exit 0, still char device 1,3" "0 c 1,3" \
		"$rc $(stat -c '%F' "$t/null" | sed 's/character special file/c/') $(stat -c '%t,%T' "$t/null")"
	[ -c "$t/null" ] || safe=0
	exp "$t/full"; rc=$?
	check_eq "a full device node: exit 1, one line naming the path and ENOSPC, still a char device" \
		"1 1 yes c" "$rc $(wc -l < "$t/err") $(grep -qF "cannot write '$t/full': No space left on device" "$t/err" &&
			echo yes || echo no) $([ -c "$t/full" ] && echo c || echo replaced)"
	[ -c "$t/full" ] || safe=0
else
	skip "device nodes in TEST_TMP" "needs root and mknod"
fi
if [ $safe = 1 ]; then
	exp /dev/null; rc=$?
	check_eq "/dev/null: exit 0, still char device 1,3" "0 yes 1,3" \
		"$rc $([ -c /dev/null ] && echo yes || echo no) $(stat -c '%t,%T' /dev/null)"
else
	not_ok "/dev/null not tried: export replaced a device node in TEST_TMP"
fi

# a failed export into an existing file leaves it whole
echo old > "$t/keep.csv"
"$IOTAPE" export --quiet --db "$db" --format csv -o "$t/keep.csv" nope 2> /dev/null
check_eq "failed export: the old file whole" old "$(cat "$t/keep.csv")"

# plot --format txt: its text tidied through a symlink the user put there
if command -v gnuplot > /dev/null; then
	mkdir "$t/plot"
	echo old > "$t/tput.txt"
	ln -s ../tput.txt "$t/plot/lf.tput.txt"
	if "$IOTAPE" plot --db "$db" -o "$t/plot" --format txt --kind tput lf > /dev/null 2> "$t/err"; then
		check_eq "plot txt through a symlink: still a symlink, its target the plot" "link yes" \
			"$([ -L "$t/plot/lf.tput.txt" ] && echo link || echo replaced) $(
			grep -q 'MB/s' "$t/tput.txt" && echo yes || echo no)"
	else
		not_ok "plot --format txt into a symlink" "$(cat "$t/err")"
	fi
else
	skip "plot txt through a symlink" "no gnuplot"
fi
# the database itself, by any name: refused, one line, the database untouched
sum=$(md5sum < "$db")
ln -s t.db "$t/db-link"
ln "$db" "$t/db-hard"
for o in "$db" "$t/./t.db" "$db-journal" "$t/db-link" "$t/db-hard"; do
	exp "$o"
	check_eq "export -o ${o#"$t/"} (the database): refused, naming it" \
		"1|iotape: cannot write '$o': it is the database this command has open, or its journal|$sum" \
		"$?|$(cat "$t/err")|$(md5sum < "$db")"
done
check_eq "no journal-named file left beside the database" no \
	"$([ -e "$db-journal" ] && echo yes || echo no)"
rm -f "$t/db-hard"
# another SQLite file (another store), and a block device: never written over
cp "$db" "$t/other.db"
sum=$(md5sum < "$t/other.db")
exp "$t/other.db"
check_eq "export -o another store: refused, naming its header, untouched" \
	"1|iotape: cannot write '$t/other.db': it holds an SQLite database (its file header): output never replaces one; remove it first or name another file|$sum" \
	"$?|$(cat "$t/err")|$(md5sum < "$t/other.db")"
if [ "$(id -u)" = 0 ]; then
	truncate -s 1M "$t/blk.img"
	if loop_attach "$t/blk.img"; then
		exp "/dev/$LOOPDEV"
		check_eq "export -o a block device: refused, the device untouched" \
			"1|iotape: cannot write '/dev/$LOOPDEV': it is a block device: output goes to files, never onto a disk (replay writes devices, under its rules)|0" \
			"$?|$(cat "$t/err")|$(tr -d '\0' < "/dev/$LOOPDEV" | wc -c)"
	else
		not_ok "attach a loop device"
	fi
else
	skip "export -o a block device" "not root"
fi
# a file system image (libblkid finds its signature): never written over
if command -v mkfs.ext4 > /dev/null; then
	truncate -s 8M "$t/fs.img"
	mkfs.ext4 -q -F "$t/fs.img"
	isum=$(md5sum < "$t/fs.img")
	exp "$t/fs.img"
	check_eq "export -o an ext4 image: refused, untouched" \
		"1|iotape: cannot write '$t/fs.img': it holds a file system or another signature (libblkid): output never replaces one; remove it first or name another file|$isum" \
		"$?|$(cat "$t/err")|$(md5sum < "$t/fs.img")"
else
	skip "export -o an ext4 image" "no mkfs.ext4"
fi
# plot and mail: every file they make in -o DIR (the picture gnuplot writes,
# its .dat and .gp) is checked as export -o is: a name there that is a
# symlink or hard link to the database, another store, a file system image
# or a block device is refused, and that is left whole (once plot wrote a
# PNG over the database and the image)
if command -v gnuplot > /dev/null; then
	targets=("$db" "$t/other.db")
	[ -e "$t/fs.img" ] && targets+=("$t/fs.img")
	[ "$(id -u)" = 0 ] && [ -n "${LOOPDEV:-}" ] && targets+=("/dev/$LOOPDEV")
	for tg in "${targets[@]}"; do
		for f in lf.tput.png lf.tput.dat lf.tput.gp; do
			rm -rf "$t/pl"; mkdir "$t/pl"
			ln -s "$tg" "$t/pl/$f"
			before=$(md5sum < "$tg")
			"$IOTAPE" plot --db "$db" -o "$t/pl" --kind tput lf > /dev/null 2> "$t/err"
			check_eq "plot: $f a symlink to ${tg#"$t/"}: refused in one line, it untouched" \
				"1 1 $before" "$? $(grep -c "^iotape: cannot write '$t/pl/$f': " "$t/err") $(md5sum < "$tg")"
		done
	done
	rm -rf "$t/pl"; mkdir "$t/pl"
	ln "$db" "$t/pl/lf.tput.png"
	"$IOTAPE" plot --db "$db" -o "$t/pl" --kind tput lf > /dev/null 2> "$t/err"
	check_eq "plot: the picture's name a hard link to the database: refused, it untouched" \
		"1 $sum" "$? $(md5sum < "$db")"
	rm -f "$t/pl/lf.tput.png"
	mdb=$t/m.db
	"$IOTAPE" import --quiet --db "$mdb" --run lf "$FIXTURES/loop-fio-small.bin"
	"$IOTAPE" import --quiet --again --db "$mdb" --run lf2 "$FIXTURES/loop-fio-small.bin"
	msum=$(md5sum < "$mdb")
	rm -rf "$t/ml"; mkdir "$t/ml"
	ln -s ../m.db "$t/ml/lf-vs-lf2.tput.dat"
	"$IOTAPE" mail --db "$mdb" -o "$t/ml" lf lf2 > /dev/null 2> "$t/err"
	check_eq "mail: a plot's .dat a symlink to the database: refused, it untouched" \
		"1 $msum" "$? $(md5sum < "$mdb")"
else
	skip "plot and mail into symlinks" "no gnuplot"
fi
# capture --raw: the trace file is checked the same way before anything runs
# (the device is not looked up yet: none is needed)
for o in "$db" "$db-journal" "$t/other.db" "$t/x.bin:rows"; do
	raw=${o%:rows}
	[ "$raw" != "$o" ] && cp "$db" "$raw.rows"
	"$IOTAPE" capture --db "$db" --run rawcap -d /dev/nosuch --raw "$raw" --cmd true \
		> /dev/null 2> "$t/err"
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l < "$t/err")" = 1 ] && grep -q "^iotape: refusing --raw '$raw'" "$t/err" &&
		ok "capture --raw ${o#"$t/"}: refused at once ($(sed 's/.*: //' "$t/err"))" ||
		not_ok "capture --raw ${o#"$t/"}: refused at once" "exit $rc: $(cat "$t/err")"
done
check_eq "capture --raw refusals: the stores untouched, no run" "$sum|$sum|0" \
	"$(md5sum < "$db")|$(md5sum < "$t/other.db")|$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE name = 'rawcap'")"
tap_finish
