# t_replay_files.sh: a replay onto regular files never destroys data (issue 25).
# A file holding data and a file holding an ext4 image survive byte for byte
# without the flags (their writes replayed as reads, said on stderr); with
# --allow-write the ext4 image is refused, naming ext4 and the flag that writes
# over it, unless --overwrite-signature names ext4; a file iotape created is
# written, and written again by the next replay, until something else writes it;
# an empty file is written; a file backing a loop device is refused, and so
# is a block device backing one (root); the database the replay is stored in
# is refused even with --allow-write, and another SQLite database unless
# --overwrite-signature sqlite; a run name already taken is refused before
# any I/O, leaving no target file made for it.
# --help and the man page state the same rule.
. "$(dirname "$0")/../lib.sh"

need_iotape "replay onto regular files"
t=$TEST_TMP db=$t/t.db
q() { sqlite3 "$db" "$@"; }
"$IOTAPE" import --quiet --db "$db" --run src "$FIXTURES/loop-fio-small.bin" ||
	{ not_ok "import the fixture"; tap_finish; }
# replay TARGET RUN [OPTION...]: afap, the null engine not: real writes
replay() {
	local tgt=$1 run=$2; shift 2
	"$IOTAPE" replay --db "$db" src --target "$tgt" --timing afap --run "$run" \
		"$@" > /dev/null 2> "$t/err"
}
# holder WORD CMD...: CMD in the background (HOLDER its pid, killed at exit),
# back once it printed WORD on stdout (it holds what it opened), 10 s at most
holder() {
	local word=$1 i; shift
	"$@" > "$t/holder.out" &
	HOLDER=$!
	at_exit "kill $HOLDER 2> /dev/null"
	for i in $(seq 100); do grep -q "$word" "$t/holder.out" && break; sleep 0.1; done
}
writes() { q "SELECT sum(op = 'write'), sum(as_read) FROM replays r JOIN runs n ON n.id = r.run
	WHERE n.name = '$1'" | tr '|' ' '; }

# ---- a replay refused after its targets opened (its run name taken) ----
# an empty file of the user's (owned: empty) is left as found: not
# extended, its mtime kept, unmarked
replay "$t/taken.img" taken
: > "$t/stamp.img"
touch -d 2020-01-01 "$t/stamp.img"
replay "$t/stamp.img" taken
check_eq "a refused replay leaves an empty file as found (size, mtime, no mark)" \
	"1|0 2020-01-01|" "$?|$(stat -c %s "$t/stamp.img") $(date -r "$t/stamp.img" +%F)|$(python3 -c '
import os, sys
try: print(os.getxattr(sys.argv[1], "user.iotape.replay").decode())
except OSError: pass' "$t/stamp.img")"

# ---- a file with data, a file with an ext4 image: untouched without the flags ----
head -c 32M /dev/urandom > "$t/data.img"
sum=$(md5sum < "$t/data.img")
replay "$t/data.img" data --wrap
check_eq "a file holding data: replayed, its 420 writes as reads, said on stderr" \
	"0 0 420 1" "$? $(writes data) $(grep -c "'$t/data.img' holds data: its writes are replayed as reads" "$t/err")"
check_eq "a file holding data: byte for byte as it was" "$sum" "$(md5sum < "$t/data.img")"
if command -v mkfs.ext4 > /dev/null; then
	truncate -s 64M "$t/ext4.img"
	mkfs.ext4 -q -F "$t/ext4.img" > /dev/null 2>&1
	sum=$(md5sum < "$t/ext4.img")
	replay "$t/ext4.img" ext4 --wrap
	check_eq "an ext4 image: replayed with its writes as reads" "0 0 420" "$? $(writes ext4)"
	replay "$t/ext4.img" ext4-w --allow-write --wrap
	check_eq "an ext4 image with --allow-write: refused, naming ext4 and the flag" \
		"1|iotape: refusing to write to '$t/ext4.img': it holds an ext4 signature (filesystem); --overwrite-signature ext4 writes over it" \
		"$?|$(cat "$t/err")"
	replay "$t/ext4.img" ext4-x --allow-write --overwrite-signature swap --wrap
	check_eq "--overwrite-signature naming another type: refused" 1 $?
	check_eq "an ext4 image: byte for byte as it was, no run stored for the refusals" \
		"$sum 0" "$(md5sum < "$t/ext4.img") $(q "SELECT count(*) FROM runs WHERE name LIKE 'ext4-%'")"
	replay "$t/ext4.img" ext4-o --allow-write --overwrite-signature ext4 --wrap
	check_eq "--allow-write --overwrite-signature ext4: written" "0 420 0" "$? $(writes ext4-o)"
else
	skip "an ext4 image" "no mkfs.ext4"
fi
check_eq "--overwrite-signature without --allow-write: a usage error" 2 \
	"$("$IOTAPE" replay --db "$db" src --target "$t/x.img" --overwrite-signature ext4 > /dev/null 2>&1; echo $?)"

# ---- files iotape may write: new, its own, empty ----------------------------------
replay "$t/new.img" new1
check_eq "a new file: created, its writes written" "0 420 0" "$? $(writes new1)"
replay "$t/new.img" new2
check_eq "the file a replay made: written again" "0 420 0" "$? $(writes new2)"
printf 'user data' | dd of="$t/new.img" bs=1 seek=4096 conv=notrunc status=none
sum=$(md5sum < "$t/new.img")
replay "$t/new.img" new3
check_eq "once something else wrote it: its writes as reads, the file untouched" \
	"0 0 420|$sum" "$? $(writes new3)|$(md5sum < "$t/new.img")"
# a write in the same second as the replay's end: the mark's mtime is a
# second before it ended (a file system keeping whole seconds sees no
# change of mtime otherwise)
replay "$t/sec.img" sec1
check_eq "the file a replay made: its mtime a second or more in the past" 1 \
	"$(( $(stat -c %Y "$t/sec.img") < $(date +%s) ))"
printf 'user data' | dd of="$t/sec.img" bs=1 seek=8192 conv=notrunc status=none
sum=$(md5sum < "$t/sec.img")
replay "$t/sec.img" sec2
check_eq "written in the second the replay ended: its writes as reads, untouched" \
	"0 0 420|$sum" "$? $(writes sec2)|$(md5sum < "$t/sec.img")"
# written, then its mtime put back with touch -d (the mark's mtime, size
# and inode all as the replay left them): the ctime, which no one sets,
# has moved on
replay "$t/touch.img" touch1
m=$(stat -c %y "$t/touch.img")
sleep 4
printf 'user data' | dd of="$t/touch.img" bs=1 seek=8192 conv=notrunc status=none
touch -d "$m" "$t/touch.img"
sum=$(md5sum < "$t/touch.img")
replay "$t/touch.img" touch2
check_eq "written, then touch -d back to the mark's mtime: its writes as reads, untouched" \
	"0 0 420|$sum" "$? $(writes touch2)|$(md5sum < "$t/touch.img")"
# written by another process while a replay writes it (the replay holds a
# write lease: the other's open breaks it), then replayed on again
replay "$t/mid.img" mid1
"$IOTAPE" replay --db "$db" src --target "$t/mid.img" --run mid2 --max-gap 0.3 \
	--timing scale:0.5 > /dev/null 2> "$t/err" &
pid=$!
# once the replay holds its lease (/proc/locks: "LEASE ... WRITE PID
# MAJ:MIN:INODE"), with 2 s of replay from then on
ino=$(stat -c %i "$t/mid.img")
for i in $(seq 100); do
	grep -q "LEASE.* WRITE *$pid [0-9a-f:]*:$ino " /proc/locks && break
	sleep 0.05
done
printf 'user data' | dd of="$t/mid.img" bs=1 seek=12288 conv=notrunc status=none
wait "$pid"
check_eq "written during a replay: the replay stops writing, says so, exits 1, leaves it unmarked" \
	"1 1" "$? $(grep -c "stopped: another process opened '$t/mid.img' while the replay wrote it; nothing more was written" "$t/err")"
sum=$(md5sum < "$t/mid.img")
replay "$t/mid.img" mid3
check_eq "then replayed on: its writes as reads, the other's bytes untouched" \
	"0 0 420|$sum" "$? $(writes mid3)|$(md5sum < "$t/mid.img")"
# open in another process (this shell) before the replay starts: the lease
# cannot be taken, so whatever the other may write is not the replay's to
# overwrite: its writes as reads, said so
replay "$t/held.img" held1
exec 7<> "$t/held.img"
replay "$t/held.img" held2
rc=$?
exec 7>&-
check_eq "a replay-made file another process holds open: its writes as reads, said so" \
	"0 0 420 1" "$rc $(writes held2) $(grep -c "'$t/held.img' is open elsewhere (another process, or a descriptor of this one): its writes are replayed as reads" "$t/err")"
# one a loop device is over: said as that, not as another process's
if [ "$(id -u)" = 0 ] && loop_attach "$t/held.img"; then
	replay "$t/held.img" held3
	check_eq "a replay-made file a loop device is over: its writes as reads, the loop device named" \
		"0 0 420 1" "$? $(writes held3) $(grep -c "'$t/held.img': it backs /dev/$LOOPDEV: its writes are replayed as reads" "$t/err")"
	loop_detach_file "$t/held.img"
fi
# a file of 300 bytes (under a sector): refused in bytes, not as "holds 0
# sectors; use --wrap" (no sector of it to wrap over)
printf '%300s' "" > "$t/tiny.img"
"$IOTAPE" replay --db "$db" src --target "$t/tiny.img" --run tiny > /dev/null 2> "$t/err"
check_eq "a 300-byte file: refused, in bytes, without --wrap's advice" \
	"1|1" "$?|$(grep -c "holds 300 bytes (not a sector); use a larger target" "$t/err")"
# a copy of a replay-made file that kept its mtime and mark (cp -a) is
# another inode: not the replay's own
replay "$t/orig.img" orig1
cp -a "$t/orig.img" "$t/copy.img"
sum=$(md5sum < "$t/copy.img")
replay "$t/copy.img" copy1
check_eq "cp -a of a replay-made file: its writes as reads, untouched" \
	"0 0 420|$sum" "$? $(writes copy1)|$(md5sum < "$t/copy.img")"
# a new file the replay made, then refused (run name taken) while its
# second target's open waited on another's lease, and meanwhile renamed
# away with a user's file put under its name: the user's file stays (the
# replay removes only the inode it made)
printf '128166372000000000,web,0,Write,0,65536,500\n128166372000050000,web,1,Write,0,65536,500\n' > "$t/two.csv"
"$IOTAPE" import --quiet --db "$db" --run two "$t/two.csv"
head -c 1048576 /dev/zero > "$t/leased.img"
python3 -c '
import fcntl, os, signal, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
broke = []
signal.signal(signal.SIGIO, lambda s, f: broke.append(1))
fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)     # F_SETLEASE: a read lease
open(sys.argv[2], "w").close()
while not broke: time.sleep(0.02)
time.sleep(2)
' "$t/leased.img" "$t/lease.ready" &
lh=$!
for i in $(seq 100); do [ -e "$t/lease.ready" ] && break; sleep 0.05; done
"$IOTAPE" replay --db "$db" two --map 0,0="$t/made.img" --map 0,1="$t/leased.img" \
	--timing afap --run taken > /dev/null 2> "$t/err" &
rp=$!
for i in $(seq 100); do [ -e "$t/made.img" ] && break; sleep 0.02; done
sleep 0.5
mv "$t/made.img" "$t/made-away.img" && echo "user data" > "$t/made.img"
wait "$rp"
rc=$?
wait "$lh"
check_eq "a refused replay removes only the file it made, not one put under its name" \
	"1|user data" "$rc|$(cat "$t/made.img" 2> /dev/null)"
# a cp -a copy onto another file system that gives it the same inode
# number (two fresh tmpfs: their first file is inode 2 or so), within the
# mark's ctime window: another device, not the replay's own
mkdir -p "$t/fsa" "$t/fsb"
if mount -t tmpfs -o size=8m tmpfs "$t/fsa" && at_exit "umount '$t/fsa' 2> /dev/null" &&
   mount -t tmpfs -o size=8m tmpfs "$t/fsb" && at_exit "umount '$t/fsb' 2> /dev/null"; then
	replay "$t/fsa/r.img" tmpa1
	cp -a "$t/fsa/r.img" "$t/fsb/r.img"
	printf 'user data' | dd of="$t/fsb/r.img" bs=1 seek=4096 conv=notrunc status=none
	touch -r "$t/fsa/r.img" "$t/fsb/r.img"
	sum=$(md5sum < "$t/fsb/r.img")
	if [ "$(stat -c %i "$t/fsa/r.img")" = "$(stat -c %i "$t/fsb/r.img")" ]; then
		replay "$t/fsb/r.img" tmpb1
		check_eq "a copy on another file system with the same inode number: its writes as reads, untouched" \
			"0 0 420|$sum" "$? $(writes tmpb1)|$(md5sum < "$t/fsb/r.img")"
	else
		skip "a copy with the same inode number" "tmpfs gave different inode numbers"
	fi
	umount "$t/fsa" "$t/fsb"
else
	skip "a copy on another file system" "cannot mount tmpfs"
fi
# one file by two names (a symlink) for two devices: refused before any I/O
: > "$t/one.img"
ln -s "$t/one.img" "$t/one-link.img"
sum=$(md5sum < "$t/one.img")
"$IOTAPE" replay --db "$db" two --map 0,0="$t/one.img" --map 0,1="$t/one-link.img" \
	--run two-one > /dev/null 2> "$t/err"
check_eq "one file by two names in --map: refused, naming both, untouched" \
	"1|iotape: '$t/one.img' and '$t/one-link.img' are one file: map the devices to one name|$sum" \
	"$?|$(cat "$t/err")|$(md5sum < "$t/one.img")"
: > "$t/empty.img"
replay "$t/empty.img" empty
check_eq "an empty file: written and grown" "0 420 0 $((395776 * 512))" \
	"$? $(writes empty) $(stat -c %s "$t/empty.img")"

# ---- a file backing a loop device: refused even with --allow-write ----------------
if [ "$(id -u)" = 0 ]; then
	head -c 64M /dev/zero > "$t/backing.img"
	echo data | dd of="$t/backing.img" conv=notrunc status=none
	if loop_attach "$t/backing.img"; then
		sum=$(md5sum < "$t/backing.img")
		replay "$t/backing.img" backing --allow-write --wrap
		check_eq "a loop device's backing file with --allow-write: refused, untouched" \
			"1 1 $sum" "$? $(grep -c "refusing to write to '$t/backing.img': it backs /dev/$LOOPDEV" "$t/err") $(md5sum < "$t/backing.img")"
		# unlinked under its first name, kept by another: backing_file
		# then says '... (deleted)', so the kernel's inode decides
		ln "$t/backing.img" "$t/backing2.img"
		rm "$t/backing.img"
		replay "$t/backing2.img" backing2 --allow-write --wrap
		check_eq "the backing file by another name, its first unlinked: refused, untouched" \
			"1|iotape: refusing to write to '$t/backing2.img': it backs /dev/$LOOPDEV|$sum" \
			"$?|$(cat "$t/err")|$(md5sum < "$t/backing2.img")"
		# its name back, for the detach registered by that name
		mv "$t/backing2.img" "$t/backing.img"
	else
		skip "a loop device's backing file" "cannot attach a loop device"
	fi
else
	skip "a loop device's backing file" "needs root"
fi

# ---- a file or device another process has open: refused with --allow-write ----
# (an SQLite WAL its application holds, a raw disk a VM has open, an image
# fuse2fs serves: no signature says so, the open descriptor does)
head -c 1M /dev/urandom > "$t/held.img"
sum=$(md5sum < "$t/held.img")
sleep 30 < "$t/held.img" &
holder=$!
at_exit "kill $holder 2> /dev/null"
replay "$t/held.img" held --allow-write --wrap
check_eq "a file another process has open, --allow-write: refused, naming it, untouched" \
	"1|iotape: refusing to write to '$t/held.img': it is open in process $holder (sleep): stop it first|$sum" \
	"$?|$(cat "$t/err")|$(md5sum < "$t/held.img")"
kill $holder; wait $holder 2> /dev/null
if [ "$(id -u)" = 0 ] && head -c 16M /dev/urandom > "$t/raw.img" && loop_attach "$t/raw.img"; then
	sum=$(md5sum < "/dev/$LOOPDEV")
	sleep 30 < "/dev/$LOOPDEV" &
	holder=$!
	at_exit "kill $holder 2> /dev/null"
	replay "/dev/$LOOPDEV" rawheld --allow-write --wrap
	check_eq "a block device another process has open, --allow-write: refused, untouched" \
		"1|iotape: refusing to write to '/dev/$LOOPDEV': it is open in process $holder (sleep): stop it first|$sum" \
		"$?|$(cat "$t/err")|$(md5sum < "/dev/$LOOPDEV")"
	kill $holder; wait $holder 2> /dev/null
else
	skip "a block device another process has open" "needs root and a loop device"
fi
# an erofs image mounted straight from its file (no loop device: Linux 6.12's
# file-backed mounts): mountinfo's source names the file
if [ "$(id -u)" = 0 ] && command -v mkfs.erofs > /dev/null && mkdir -p "$t/ero" "$t/eromnt" &&
	echo data > "$t/ero/f" && mkfs.erofs --quiet "$t/ero.img" "$t/ero" > /dev/null 2>&1 &&
	python3 -c 'import ctypes, sys
l = ctypes.CDLL(None, use_errno=True)   # mount(2) itself: mount(8) would loop it
sys.exit(1 if l.mount(sys.argv[1].encode(), sys.argv[2].encode(), b"erofs", 1, None) else 0)' \
		"$t/ero.img" "$t/eromnt" 2> /dev/null; then
	at_exit "umount '$t/eromnt' 2> /dev/null"
	sum=$(md5sum < "$t/ero.img")
	replay "$t/ero.img" ero --allow-write --overwrite-signature erofs --wrap
	check_eq "an image file mounted with no loop device: refused, untouched" \
		"1|iotape: refusing to write to '$t/ero.img': it is mounted as an image on $t/eromnt|$sum" \
		"$?|$(cat "$t/err")|$(md5sum < "$t/ero.img")"
	umount "$t/eromnt"
else
	umount "$t/eromnt" 2> /dev/null
	skip "an image file mounted with no loop device" "needs root, mkfs.erofs and erofs file-backed mounts"
fi

# an MBR with partition 1 at sector 2048, 81920 sectors (type 83), written
# by hand: util-linux's sfdisk is not on every machine
mbr() {
	truncate -s 64M "$1"
	printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\x40\x01\x00' |
		dd of="$1" bs=1 seek=446 conv=notrunc status=none
	printf '\x55\xaa' | dd of="$1" bs=1 seek=510 conv=notrunc status=none
}

# one new file by two names ("new" and "./new"): refused before it is made
# (the second open met the first's lease and waited 45 s for itself)
(cd "$t" && "$IOTAPE" replay --db "$db" two --map 0,0=twice.img --map 0,1=./twice.img \
	--timing afap --run twice > /dev/null 2> "$t/err")
check_eq "one new file by two names in --map: refused at once, not made" \
	"1|iotape: 'twice.img' and './twice.img' are one file: map the devices to one name|absent" \
	"$?|$(cat "$t/err")|$([ -e "$t/twice.img" ] && echo made || echo absent)"
# a new file in /dev/shm (a tmpfs, not a device name): made
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	shm=/dev/shm/iotape-test-$$.img
	at_exit "rm -f '$shm'"
	replay "$shm" shm
	check_eq "a new file in /dev/shm: made and written" "0 yes" \
		"$? $([ -s "$shm" ] && echo yes || echo no)"
	rm -f "$shm"
fi

# ---- a clean block device, twice in a row: closed when iotape exits -----------------
# (the io_uring ring's own teardown runs in a kernel worker after exit: the
# device stayed open exclusively, and the next replay was refused as in use)
if [ "$(id -u)" = 0 ] && head -c 64M /dev/zero > "$t/clean.img" &&
	loop_attach "$t/clean.img"; then
	replay "/dev/$LOOPDEV" clean1 --allow-write --wrap
	rc1=$?
	replay "/dev/$LOOPDEV" clean2 --allow-write --wrap
	check_eq "a clean loop device, --allow-write twice in a row: both written" \
		"0 0 420 0|" "$rc1 $? $(writes clean2)|$(grep refusing "$t/err")"
	"$IOTAPE" replay --db "$db" src --map 7,0=/dev/$LOOPDEV --map 7,0="$t/m.img" \
		--run maps > /dev/null 2> "$t/err"
	check_eq "one device in --map twice: refused, naming both" \
		"1|1" "$?|$(grep -c "is in --map twice ('7,0' and '7,0')" "$t/err")"
	# the same device by a node of one's own (mknod): refused too
	mknod "$t/alias" b $(stat -c '%t %T' "/dev/$LOOPDEV" | while read a b; do echo $((16#$a)) $((16#$b)); done)
	"$IOTAPE" replay --db "$db" two --map 0,0=/dev/$LOOPDEV --map 0,1="$t/alias" \
		--run two-alias > /dev/null 2> "$t/err"
	check_eq "one device by two nodes in --map: refused" \
		"1|iotape: '/dev/$LOOPDEV' and '$t/alias' are one device: map the devices to one name" \
		"$?|$(cat "$t/err")"
	# a /dev/block/MAJ:MIN name where udev made no /dev/block: named, not
	# taken for a file to make
	if [ ! -e /dev/block ]; then
		mm=$(cat "/sys/block/$LOOPDEV/dev")
		"$IOTAPE" replay --db "$db" src --target "/dev/block/$mm" --run blk \
			> /dev/null 2> "$t/err"
		check_eq "a /dev/block link this machine lacks: the device's node named" \
			"1|iotape: target '/dev/block/$mm': no such node (this machine has no udev link of that name): that device is /dev/$LOOPDEV here" \
			"$?|$(cat "$t/err")"
	fi
else
	skip "a clean loop device twice in a row" "needs root and a loop device"
fi
# a disk and its own partition in one --map: they overlap, and the second
# open would find the replay's own hold on the first
mbr "$t/disk.img"
# (partx adds the partition where the loop device scanned none at attach;
# where it did, partx finds it there already)
if [ "$(id -u)" = 0 ] && command -v partx > /dev/null && loop_attach "$t/disk.img" &&
	{ partx -a "/dev/$LOOPDEV" 2> /dev/null
	  for i in $(seq 50); do [ -e "/sys/block/$LOOPDEV/${LOOPDEV}p1/dev" ] && break; sleep 0.1; done
	  [ -e "/sys/block/$LOOPDEV/${LOOPDEV}p1/dev" ]; }; then
	mknod "$t/part1" b $(tr : ' ' < "/sys/block/$LOOPDEV/${LOOPDEV}p1/dev")
	"$IOTAPE" replay --db "$db" two --map 0,0=/dev/$LOOPDEV --map 0,1="$t/part1" \
		--allow-write --run two-nested > /dev/null 2> "$t/err"
	check_eq "a disk and its own partition in --map: refused as overlapping" \
		"1|iotape: '/dev/$LOOPDEV' and '$t/part1' overlap (a disk and one of its partitions): map the devices to targets apart" \
		"$?|$(cat "$t/err")"
	# a loop device over the partition, nothing else on its disk: written
	# (the loop device is the target itself, not another user of the
	# disk: it was refused as "it backs" itself); with a second loop
	# device over the partition, refused, naming that one
	if [ -e "/dev/${LOOPDEV}p1" ] && pl=$(losetup -f --show "$t/part1"); then
		at_exit "losetup -d '$pl' 2> /dev/null"
		# (a loop device just set up over a block device may read EIO
		# for a moment, beside other jobs' loop devices: tried again)
		for i in 1 2 3; do
			replay "$pl" overpart --allow-write --wrap
			rc=$?
			grep -q "Input/output error" "$t/err" || break
			sleep 0.5
		done
		check_eq "a loop device over a partition of a disk nothing else uses: written" \
			"0 420 0" "$rc $(writes overpart)"
		[ "$rc" = 0 ] || diag "$(cat "$t/err")"
		if pl2=$(losetup -f --show "$t/part1"); then
			at_exit "losetup -d '$pl2' 2> /dev/null"
			replay "$pl" overpart2 --allow-write --wrap
			check_eq "... and with a second loop device over the partition: refused, naming it" \
				"1|1" "$?|$(grep -c "it backs $pl2\$" "$t/err")"
			losetup -d "$pl2"
		else
			skip "a second loop device over a partition" "losetup failed"
		fi
		losetup -d "$pl"
	else
		skip "a loop device over a partition" "no /dev node for the partition, or losetup failed"
	fi
else
	skip "a disk and its own partition in --map" "needs root, partx and a loop device"
fi

# ---- a loop device whose file also backs a mounted one -------------------------
# (an offset loop over one image, mounted: writing the whole image through
# another loop device writes under the mounted file system)
if [ "$(id -u)" = 0 ] && command -v mkfs.ext4 > /dev/null &&
	truncate -s 64M "$t/shared.img" && loop_attach "$t/shared.img" -o 1048576; then
	inner=$LOOPDEV
	mkfs.ext4 -q "/dev/$inner" > /dev/null 2>&1
	mkdir -p "$t/mnt"
	at_exit "umount '$t/mnt' 2> /dev/null"
	if mount "/dev/$inner" "$t/mnt" && losetup -f --show "$t/shared.img" > "$t/outer"; then
		outer=$(basename "$(cat "$t/outer")")
		"$IOTAPE" replay --db "$db" src --target "/dev/$outer" --allow-write --wrap \
			--run sib > /dev/null 2> "$t/err"
		rc=$?
		umount "$t/mnt"
		check_eq "a loop device whose file also backs a mounted one: refused before any I/O, no run" \
			"1|iotape: refusing to write to '/dev/$outer': its backing file also backs /dev/$inner, and it is mounted|0" \
			"$rc|$(sed 's/ (device [0-9:]* on .*)$//' "$t/err")|$(q "SELECT count(*) FROM runs WHERE name = 'sib'")"
		e2fsck -n "/dev/$inner" > /dev/null 2>&1
		check_eq "... and its file system checks clean" 0 "$?"
		# the same, mounted in another mount namespace (a container's,
		# a service's with PrivateMounts=): not in this one's
		# mountinfo, but its device is held exclusively
		if command -v unshare > /dev/null; then
			unshare -m --propagation private sh -c "mount /dev/$inner '$t/mnt' &&
				touch '$t/ns.ready' && exec sleep 30" &
			ns=$!
			at_exit "kill $ns 2> /dev/null"
			for i in $(seq 100); do [ -e "$t/ns.ready" ] && break; sleep 0.05; done
			"$IOTAPE" replay --db "$db" src --target "/dev/$outer" --allow-write --wrap \
				--run sibns > /dev/null 2> "$t/err"
			rc=$?
			kill "$ns"; wait "$ns" 2> /dev/null
			check_eq "... and mounted in another mount namespace: refused, no run" \
				"1|1|0" "$rc|$(grep -c "also backs /dev/$inner, and it is open exclusively" "$t/err")|$(q "SELECT count(*) FROM runs WHERE name = 'sibns'")"
			e2fsck -n "/dev/$inner" > /dev/null 2>&1
			check_eq "... and its file system still checks clean" 0 "$?"
		else
			skip "a loop device whose file backs one mounted in another namespace" "no unshare"
		fi
		# a loop device over the mounted device itself, at an offset that
		# keeps its superblock out of view: writing it writes into the
		# mounted file system (the loop's backing is a block device)
		mount "/dev/$inner" "$t/mnt"
		if over=$(losetup -f --show -o 4194304 "/dev/$inner"); then
			at_exit "losetup -d '$over' 2> /dev/null"
			"$IOTAPE" replay --db "$db" src --target "$over" --allow-write --wrap \
				--run over > /dev/null 2> "$t/err"
			rc=$?
			losetup -d "$over"
			umount "$t/mnt"
			check_eq "a loop device over a mounted device, at an offset: refused, no run" \
				"1|iotape: refusing to write to '$over': it is a loop device over /dev/$inner, and it is mounted|0" \
				"$rc|$(sed 's/ (device [0-9:]* on .*)$//' "$t/err")|$(q "SELECT count(*) FROM runs WHERE name = 'over'")"
			e2fsck -n "/dev/$inner" > /dev/null 2>&1
			check_eq "... and the file system under it checks clean" 0 "$?"
		else
			umount "$t/mnt"
			skip "a loop device over a mounted device" "losetup over a loop device failed"
		fi
	else
		skip "a loop device whose file backs a mounted one" "cannot mount"
	fi
else
	skip "a loop device whose file backs a mounted one" "needs root, mkfs.ext4 and loop devices"
fi

# ---- overlayfs: a file may be written through its upper copy, unseen ------------
if [ "$(id -u)" = 0 ] && mkdir -p "$t/ov/l" "$t/ov/u" "$t/ov/w" "$t/ov/m" &&
	at_exit "umount '$t/ov/m' 2> /dev/null" &&
	mount -t overlay overlay -o "lowerdir=$t/ov/l,upperdir=$t/ov/u,workdir=$t/ov/w" "$t/ov/m" 2> /dev/null; then
	replay "$t/ov/m/f.img" ov1
	r1=$?
	replay "$t/ov/m/f.img" ov2
	check_eq "overlayfs: a new file written, then no longer the replay's own, said so" \
		"0 420 0|0 0 420 1" \
		"$r1 $(writes ov1)|$? $(writes ov2) $(grep -c "is on overlayfs, where another name may write it unseen" "$t/err")"
	umount "$t/ov/m"
else
	skip "overlayfs target" "needs root and overlayfs"
fi

# ---- a block device backing a loop device: refused with --allow-write -----------
if [ "$(id -u)" = 0 ]; then
	head -c 64M /dev/zero > "$t/lower.img"
	if loop_attach "$t/lower.img"; then
		lower=$LOOPDEV
		if loop_attach "/dev/$lower"; then
			sum=$(md5sum < "$t/lower.img")
			replay "/dev/$lower" lower --allow-write --wrap
			check_eq "a block device backing a loop device, --allow-write: refused, untouched" \
				"1|iotape: refusing to write to '/dev/$lower': it backs /dev/$LOOPDEV|$sum" \
				"$?|$(cat "$t/err")|$(md5sum < "$t/lower.img")"
			loop_detach_file "/dev/$lower"
		else
			skip "a block device backing a loop device" "cannot attach a loop device over one"
		fi
	else
		skip "a block device backing a loop device" "cannot attach a loop device"
	fi
else
	skip "a block device backing a loop device" "needs root"
fi

# ---- SQLite databases: the replay's own never, another only by name ------------
sum=$(md5sum < "$db")
replay "$db" self --allow-write --wrap
check_eq "the database itself as the target, --allow-write: refused, untouched" \
	"1|iotape: refusing to replay on '$db': it is the database this replay is stored in, or its journal|$sum" \
	"$?|$(cat "$t/err")|$(md5sum < "$db")"
replay "$db-journal" selfj --allow-write
check_eq "the database's journal name as the target: refused, nothing made there" \
	"1|iotape: refusing to replay on '$db-journal': it is the database this replay is stored in, or its journal|absent" \
	"$?|$(cat "$t/err")|$([ -e "$db-journal" ] && echo made || echo absent)"
cp "$db" "$t/other.db"
sum=$(md5sum < "$t/other.db")
replay "$t/other.db" other --allow-write --wrap
check_eq "another SQLite database, --allow-write: refused, naming sqlite, untouched" \
	"1|iotape: refusing to write to '$t/other.db': it holds an SQLite database (its file header); --overwrite-signature sqlite writes over it|$sum" \
	"$?|$(cat "$t/err")|$(md5sum < "$t/other.db")"
# a loop device over the database: refused whatever --overwrite-signature
# says (a trial's replay onto one made the store "malformed")
if [ "$(id -u)" = 0 ]; then
	sum=$(md5sum < "$db")
	if loop_attach "$db"; then
		replay "/dev/$LOOPDEV" selfloop --allow-write --overwrite-signature sqlite --wrap
		check_eq "a loop device over the database, --overwrite-signature sqlite: refused, untouched" \
			"1|iotape: refusing to replay on '/dev/$LOOPDEV': it is a loop device over the database this replay is stored in|$sum" \
			"$?|$(cat "$t/err")|$(md5sum < "$db")"
		loop_detach_file "$db"
	else
		skip "a loop device over the database" "cannot attach a loop device"
	fi
else
	skip "a loop device over the database" "needs root"
fi
# ... and one loop further down: a loop over a loop at an offset that hides
# the database's header (the check looked one loop down)
if [ "$(id -u)" = 0 ]; then
	sum=$(md5sum < "$db")
	if L1=$(losetup -f --show -o 16384 "$db") && L2=$(losetup -f --show "$L1"); then
		at_exit "losetup -d $L2 2> /dev/null; losetup -d $L1 2> /dev/null"
		replay "$L2" selfloop2 --allow-write --overwrite-signature sqlite --wrap
		check_eq "a loop over a loop at an offset over the database: refused, untouched" \
			"1|1|$sum" "$?|$(grep -c "it is a loop device over the database this replay is stored in" "$t/err")|$(md5sum < "$db")"
		losetup -d "$L2"; losetup -d "$L1"
	else
		skip "a loop over a loop over the database" "cannot attach loop devices"
	fi
fi

# ---- a file open elsewhere, however it is open ----------------------------------
# held by a process's descriptor, under a loop device: the loop's file checked too
if [ "$(id -u)" = 0 ]; then
	head -c 8M /dev/urandom > "$t/held.img"
	sum=$(md5sum < "$t/held.img")
	sleep 300 7<> "$t/held.img" &
	holder=$!
	at_exit "kill $holder 2> /dev/null"
	if loop_attach "$t/held.img"; then
		replay "/dev/$LOOPDEV" heldloop --allow-write --wrap
		check_eq "a loop device over a file open in another process: refused, untouched" \
			"1|1|$sum" "$?|$(grep -c "it is a loop device over $t/held.img: it is open in process $holder (sleep)" "$t/err")|$(md5sum < "$t/held.img")"
		loop_detach_file "$t/held.img"
	else
		skip "a loop device over a file open elsewhere" "cannot attach a loop device"
	fi
	kill $holder; wait $holder 2> /dev/null
fi
# mapped shared by a process that closed its descriptor: no /proc/PID/fd
# shows it, the kernel's refusal of a write lease does
if command -v python3 > /dev/null; then
	head -c 8M /dev/urandom > "$t/mapped.img"
	sum=$(md5sum < "$t/mapped.img")
	# (libc's mmap: Python's mmap keeps a descriptor of its own)
	MAPPER='import ctypes, os, sys, time
libc = ctypes.CDLL(None)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDWR)
p = libc.mmap(None, 1 << 20, 3, 1, fd, 0)   # PROT_READ|WRITE, MAP_SHARED
os.close(fd)
print("mapped" if p and p != ctypes.c_void_p(-1).value else "failed", flush=True)
time.sleep(300)'
	holder mapped python3 -c "$MAPPER" "$t/mapped.img"
	mapper=$HOLDER
	replay "$t/mapped.img" mapped --allow-write --wrap
	check_eq "a file mapped by a process whose descriptor is closed: refused, untouched" \
		"1|1|$sum" "$?|$(grep -c "refusing to write to '$t/mapped.img': it is open in process $mapper (python3)" "$t/err")|$(md5sum < "$t/mapped.img")"
	# ... under a loop device: the loop driver's own open defeats the
	# lease, proc's PID/map_files shows the mapping
	if [ "$(id -u)" = 0 ] && loop_attach "$t/mapped.img"; then
		replay "/dev/$LOOPDEV" mappedloop --allow-write --wrap
		check_eq "a loop device over a file mapped with its descriptor closed: refused, untouched" \
			"1|1|$sum" "$?|$(grep -c "it is a loop device over $t/mapped.img: it is open in process $mapper (python3)" "$t/err")|$(md5sum < "$t/mapped.img")"
		kill $mapper; wait $mapper 2> /dev/null
		# the loop device itself mapped so
		holder mapped python3 -c "$MAPPER" "/dev/$LOOPDEV"
		mapper=$HOLDER
		replay "/dev/$LOOPDEV" mappeddev --allow-write --wrap
		check_eq "a loop device mapped by a process whose descriptor is closed: refused, untouched" \
			"1|1|$sum" "$?|$(grep -c "it is open in process $mapper (python3)" "$t/err")|$(md5sum < "$t/mapped.img")"
		kill $mapper; wait $mapper 2> /dev/null
		loop_detach_file "$t/mapped.img"
	fi
	kill $mapper 2> /dev/null; wait $mapper 2> /dev/null
	# open through overlayfs: the process's descriptor is the overlay's
	# file, not the upper one; the kernel's refusal of a write lease tells
	mkdir -p "$t/ov/l" "$t/ov/u" "$t/ov/w" "$t/ov/m"
	if [ "$(id -u)" = 0 ] && mount -t overlay none \
		-o "lowerdir=$t/ov/l,upperdir=$t/ov/u,workdir=$t/ov/w" "$t/ov/m" 2> /dev/null; then
		at_exit "umount '$t/ov/m' 2> /dev/null"
		head -c 8M /dev/urandom > "$t/ov/m/a"
		sum=$(md5sum < "$t/ov/u/a")
		sleep 300 7<> "$t/ov/m/a" &
		ovh=$!
		replay "$t/ov/u/a" overlay --allow-write --wrap
		check_eq "an overlayfs upper file held open through the overlay: refused (a write lease refused), untouched" \
			"1|1|$sum" "$?|$(grep -c "it is open elsewhere (a mapping, an overlayfs file over it" "$t/err")|$(md5sum < "$t/ov/u/a")"
		kill $ovh; wait $ovh 2> /dev/null
		umount "$t/ov/m"
	fi
	# a process that calls itself udev and keeps the file: udev's probe is
	# waited for (2 s), this one then refused
	head -c 8M /dev/urandom > "$t/udev.img"
	sum=$(md5sum < "$t/udev.img")
	holder open python3 -c 'import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"systemd-udevd", 0, 0, 0)
fd = os.open(sys.argv[1], os.O_RDWR); print("open", flush=True); time.sleep(300)' \
		"$t/udev.img"
	fake=$HOLDER
	replay "$t/udev.img" fakeudev --allow-write --wrap
	check_eq "a process named systemd-udevd holding the file: waited for, then refused, untouched" \
		"1|1|$sum" "$?|$(grep -c "it is open in process $fake (systemd-udevd)" "$t/err")|$(md5sum < "$t/udev.img")"
	kill $fake; wait $fake 2> /dev/null
	# one who opens a file of the user's while --allow-write writes it stops
	# the writes, and what it wrote stays (its open waits for the lease)
	head -c 8M /dev/urandom > "$t/opened.img"
	"$IOTAPE" replay --db "$db" src --target "$t/opened.img" --timing scale:0.1 \
		--run opened --allow-write --wrap > /dev/null 2> "$t/err" &
	rp=$!
	at_exit "kill $rp 2> /dev/null"
	# once it holds its lease (proc/locks: LEASE ... PID MAJ:MIN:INODE); a
	# reader watching the file's bytes was itself refused as an opener
	ino=$(stat -c %i "$t/opened.img")
	for i in $(seq 600); do
		grep -q "LEASE.*WRITE $rp [0-9a-f]*:[0-9a-f]*:$ino " /proc/locks && break
		kill -0 $rp 2> /dev/null || break
		sleep 0.05
	done
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDWR); os.pwrite(fd, b"U" * 262144, 0); os.fsync(fd)' "$t/opened.img"
	wait $rp
	check_eq "a file of the user's opened while --allow-write writes it: the replay stops, the opener's 256 KiB intact" \
		"1|1|262144" "$?|$(grep -c "stopped: another process opened '$t/opened.img'" "$t/err")|$(head -c 262144 "$t/opened.img" | tr -cd U | wc -c)"
fi
# a file of the user's keeps its size: a run past its end is refused, as on
# a device (it grew silently), unless --wrap
head -c 64K /dev/urandom > "$t/small.img"
replay "$t/small.img" small --allow-write
check_eq "--allow-write on a 64 KiB file the run reaches past: refused, its size kept" \
	"1|1|65536" "$?|$(grep -c "use --wrap or a larger target" "$t/err")|$(stat -c %s "$t/small.img")"

# ---- a run name already taken: refused before the target is made ----------------
replay "$t/fresh.img" new1
check_eq "--run naming a run that exists: refused at once, no file made" \
	"1|iotape: $db: a run named 'new1' exists; give another --run|absent" \
	"$?|$(cat "$t/err")|$([ -e "$t/fresh.img" ] && echo made || echo absent)"

# ---- --target twice: refused, neither file made ---------------------------------
"$IOTAPE" replay --db "$db" new1 --target "$t/t1.img" --target "$t/t2.img" \
	--run two > /dev/null 2> "$t/err"
check_eq "--target given twice: refused with both names, no file made" \
	"2|iotape: --target given twice ('$t/t1.img' and '$t/t2.img'); give one, or --map DEV=PATH for each device|absent" \
	"$?|$(cat "$t/err")|$([ -e "$t/t1.img" ] || [ -e "$t/t2.img" ] && echo made || echo absent)"

# ---- a partition table: naming it names nothing inside its partitions -----------
# (mbr(), above)
if command -v mkfs.ext4 > /dev/null; then
	mbr "$t/parted.img"
	mkfs.ext4 -q -F -E offset=$((2048 * 512)) "$t/parted.img" 40M
	sum=$(md5sum < "$t/parted.img")
	replay "$t/parted.img" parted --allow-write --overwrite-signature dos
	check_eq "a dos table with ext4 in partition 1, --overwrite-signature dos: refused, untouched" \
		"1|iotape: refusing to write to '$t/parted.img': its partition 1 (from sector 2048) holds an ext4 signature (filesystem); --overwrite-signature dos names the partition table only: wipe the partition first (wipefs -a) or replay onto it|$sum" \
		"$?|$(cat "$t/err")|$(md5sum < "$t/parted.img")"
else
	skip "a dos table with ext4 in a partition" "no mkfs.ext4"
fi
# a table inside partition 1 (a BSD slice's, a VM image's): the outer
# table named names nothing inside it either
mbr "$t/nested.img"
printf '\x00\x00\x00\x00\x83\x00\x00\x00\x00\x08\x00\x00\x00\x20\x00\x00' |
	dd of="$t/nested.img" bs=1 seek=$((2048 * 512 + 446)) conv=notrunc status=none
printf '\x55\xaa' | dd of="$t/nested.img" bs=1 seek=$((2048 * 512 + 510)) conv=notrunc status=none
sum=$(md5sum < "$t/nested.img")
replay "$t/nested.img" nested --allow-write --overwrite-signature dos
check_eq "a dos table inside partition 1, --overwrite-signature dos: refused, untouched" \
	"1|iotape: refusing to write to '$t/nested.img': its partition 1 (from sector 2048) holds a dos partition table of its own; --overwrite-signature dos names the partition table only: wipe the partition first (wipefs -a) or replay onto it|$sum" \
	"$?|$(cat "$t/err")|$(md5sum < "$t/nested.img")"
# partition 1's entry says 200000 sectors on a disk of 131072 (an image
# restored onto a smaller disk): what of it the disk holds is probed
if command -v mkfs.ext4 > /dev/null; then
	mbr "$t/long.img"
	mkfs.ext4 -q -F -E offset=$((2048 * 512)) "$t/long.img" 40M
	printf '\x40\x0d\x03\x00' | dd of="$t/long.img" bs=1 seek=$((446 + 12)) conv=notrunc status=none
	sum=$(md5sum < "$t/long.img")
	replay "$t/long.img" long --allow-write --overwrite-signature dos
	check_eq "a partition entry past the disk's end with ext4 in it: refused, untouched" \
		"1|1|$sum" "$?|$(grep -c "its partition 1 (from sector 2048) holds an ext4 signature" "$t/err")|$(md5sum < "$t/long.img")"
fi
# a GPT (UEFI spec 2.10, 5.3: header at LBA 1 and the last LBA, 128
# entries of 128 bytes, CRC32s) with one partition from sector 2048, written
# by hand as the MBR above: gpt IMG
gpt() {
	truncate -s 32M "$1"
	python3 - "$1" << 'PY'
import struct, sys, zlib, uuid
path, n = sys.argv[1], (32 << 20) // 512
ent = bytearray(128 * 128)
ent[0:56] = (uuid.UUID('0fc63daf-8483-4772-8e79-3d69d8477de4').bytes_le +
             uuid.uuid4().bytes_le + struct.pack('<QQQ', 2048, n - 2049, 0))
def header(cur, alt, first):
    h = struct.pack('<8sIIIIQQQQ16sQIII', b'EFI PART', 0x10000, 92, 0, 0, cur,
                    alt, 34, n - 34, uuid.uuid4().bytes_le, first, 128, 128,
                    zlib.crc32(ent))
    return h[:16] + struct.pack('<I', zlib.crc32(h)) + h[20:] + bytes(420)
with open(path, 'r+b') as f:
    f.seek(446); f.write(struct.pack('<B3sB3sII', 0, b'\0\2\0', 0xee, b'\xff' * 3, 1, n - 1))
    f.seek(510); f.write(b'\x55\xaa')
    f.seek(512); f.write(header(1, n - 1, 2) + ent)
    f.seek((n - 33) * 512); f.write(ent + header(n - 1, 1, n - 33))
PY
}
# a GPT whose protective MBR was zeroed, and one with only its backup header
# left: wipefs lists both (libblkid's forced GPT probe), so must the replay
gpt "$t/gpt1.img"
dd if=/dev/zero of="$t/gpt1.img" bs=512 count=1 conv=notrunc status=none
gpt "$t/gpt2.img"
dd if=/dev/zero of="$t/gpt2.img" bs=512 count=34 conv=notrunc status=none
for g in gpt1 gpt2; do
	sum=$(md5sum < "$t/$g.img")
	replay "$t/$g.img" "$g" --allow-write
	rc=$?
	what="protective MBR"
	[ $g = gpt2 ] && what="primary header"
	check_eq "a GPT with no $what: refused, untouched" \
		"1|iotape: refusing to write to '$t/$g.img': it holds a gpt partition table; --overwrite-signature gpt writes over it|$sum" \
		"$rc|$(cat "$t/err")|$(md5sum < "$t/$g.img")"
done
# ... and naming that GPT names nothing inside its partition 1
if command -v mkfs.ext4 > /dev/null; then
	mkfs.ext4 -q -F -E offset=1048576 "$t/gpt1.img" 20M
	sum=$(md5sum < "$t/gpt1.img")
	replay "$t/gpt1.img" gpt1x --allow-write --overwrite-signature gpt
	check_eq "a GPT with no protective MBR, ext4 in partition 1, --overwrite-signature gpt: refused, untouched" \
		"1|1|$sum" "$?|$(grep -c "its partition 1 (from sector 2048) holds an ext4 signature" "$t/err")|$(md5sum < "$t/gpt1.img")"
fi
# a partition's contents with its table gone: ext4 from 1 MiB, nothing before
if command -v mkfs.ext4 > /dev/null; then
	truncate -s 64M "$t/notable.img"
	mkfs.ext4 -q -F -E offset=1048576 "$t/notable.img" 40M
	sum=$(md5sum < "$t/notable.img")
	replay "$t/notable.img" notable --allow-write --wrap
	check_eq "ext4 at 1 MiB with no partition table: refused, untouched" \
		"1|iotape: refusing to write to '$t/notable.img': it holds an ext4 signature at byte 1048576 (a partition's contents with no table to show them); --overwrite-signature ext4 writes over it|$sum" \
		"$?|$(cat "$t/err")|$(md5sum < "$t/notable.img")"
fi
# ext4 in partition 1 with a stale xfs superblock in its first sector (wipefs
# lists both; mount -t ext4 mounts it): an ambiguous probe is no empty
# partition
if command -v mkfs.ext4 > /dev/null && command -v mkfs.xfs > /dev/null &&
	truncate -s 320M "$t/x.xfs" && mkfs.xfs -q -f "$t/x.xfs" > /dev/null 2>&1; then
	mbr "$t/amb.img"
	mkfs.ext4 -q -F -E offset=$((2048 * 512)) "$t/amb.img" 40M
	dd if="$t/x.xfs" of="$t/amb.img" bs=512 count=1 seek=2048 conv=notrunc status=none
	# the same two in a file: the refusal names them, as wipefs would
	truncate -s 64M "$t/amb2.img"
	mkfs.ext4 -q -F "$t/amb2.img"
	dd if="$t/x.xfs" of="$t/amb2.img" bs=512 count=1 conv=notrunc status=none
	rm -f "$t/x.xfs"
	replay "$t/amb2.img" amb2 --allow-write --wrap
	check_eq "a file with ext4 and xfs signatures: refused, naming both" "1|1" \
		"$?|$(grep -c "it holds several signatures (xfs, ext4: an ambiguous probe)" "$t/err")"
	sum=$(md5sum < "$t/amb.img")
	replay "$t/amb.img" amb --allow-write --overwrite-signature dos
	check_eq "ext4 and a stale xfs superblock in partition 1: refused, untouched" \
		"1|1|$sum" "$?|$(grep -c "its partition 1 (from sector 2048) holds several signatures" "$t/err")|$(md5sum < "$t/amb.img")"
else
	rm -f "$t/x.xfs"
	skip "ext4 and a stale xfs superblock in a partition" "no mkfs.xfs"
fi
mbr "$t/table.img"
replay "$t/table.img" table --allow-write --overwrite-signature dos --wrap
check_eq "a dos table with empty partitions, --overwrite-signature dos: written" \
	"0|0" "$?|$(grep -c refusing "$t/err")"

# ---- --set: only files under /sys/block/DISK and /proc/sys ------------------------
printf '\nabcdef\n' > "$t/victim"
sum=$(md5sum < "$t/victim")
for k in "../../../../../../..$t/victim" "$t/victim" "queue/../../x" "7,0:../x" "nodots"; do
	"$IOTAPE" replay --db "$db" src --target "$t/set.img" --allow-write --run sets \
		--set "$k=XYZ" > /dev/null 2> "$t/err"
	check_eq "--set $k: refused before anything runs" \
		"2|iotape: invalid --set key '$k' (queue/ATTR of the target, DEV:queue/ATTR or a sysctl such as vm.dirty_ratio)|$sum|absent" \
		"$?|$(cat "$t/err")|$(md5sum < "$t/victim")|$([ -e "$t/set.img" ] && echo made || echo absent)"
done

# a key inside the target disk's folder that a sysfs link leads out of (to the
# machine's other disks, to the backing device info): refused, the other
# disk's setting as it was
if [ "$(id -u)" = 0 ] && head -c 16M /dev/zero > "$t/setdev.img" && loop_attach "$t/setdev.img"; then
	# a whole disk, not a loop device: another job's come and go
	other=$( (ls /sys/block | grep -v '^loop'; ls /sys/block | grep -vx "$LOOPDEV") | head -n 1)
	before=$(cat "/sys/class/block/$other/queue/read_ahead_kb" 2> /dev/null)
	for k in "subsystem/$other/queue/read_ahead_kb" "bdi/read_ahead_kb"; do
		"$IOTAPE" replay --db "$db" src --target "/dev/$LOOPDEV" --run setout --wrap \
			--set "$k=4096" > /dev/null 2> "$t/err"
		check_eq "--set $k (a link out of the disk's folder): refused" \
			"1|iotape: invalid --set key '$k': '/sys/block/$LOOPDEV/$k' leads out of the disk's folder (a link to another device)|$before" \
			"$?|$(cat "$t/err")|$(cat "/sys/class/block/$other/queue/read_ahead_kb" 2> /dev/null)"
	done
else
	skip "--set through a sysfs link" "needs root and a loop device"
fi

# ---- the rule, said the same in --help and the man page -------------------------
rule=$("$IOTAPE" replay --help | awk '/^  --allow-write/ { on = 1 } on && /^  --overwrite/ { exit } on' |
	sed 's/^  --allow-write//; s/^ *//' | paste -sd' ' | sed 's/.*The rule: //')
doc=$(awk '/^- `--allow-write`/ { on = 1 } on && /^$/ { exit } on' "$REPO_ROOT/docs/iotape.md" |
	paste -sd' ' | sed 's/  */ /g')
case $doc in
*"$rule"*) ok "--help and docs/iotape.md give the same rule (${#rule} characters)" ;;
*) not_ok "--help and docs/iotape.md give the same rule" "help: $rule" "doc:  $doc" ;;
esac
case $(paste -sd' ' "$REPO_ROOT/README.md" | sed 's/  */ /g') in
*"${rule^}"*) ok "the README gives the same rule" ;;
*) not_ok "the README gives the same rule" "help: $rule" ;;
esac
tap_finish
