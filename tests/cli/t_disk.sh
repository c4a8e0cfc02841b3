# t_disk.sh: `iotape disk`, the modelled disk as a block device in real time.
# Two disks at once (each its own model), random 4 KiB reads at depth 1 taking
# the 2006 profile's overhead + average seek + half a turn + transfer (12-14 ms
# in the model's own account, never less in fio's), sequential reads at the
# outer zone's rate, data kept (written, flushed, read back), capture -d NAME
# (D2C of the trace is the model's time plus the measured host overhead, and
# near the offline model's for the same requests), replay --target NAME, a
# mounted disk refused by stop, and every way of ending: stop, SIGTERM, SIGINT
# in the foreground, capture --reset, and SIGKILL of the daemon (I/O then
# fails at once, and its guardian detaches the loop device). Timed figures
# are checked for direction and consistency only; bench/validate_disk.sh
# measures them with repeats.
. "$(dirname "$0")/../lib.sh"

need_iotape "modelled disk in real time"
need_root "modelled disk in real time"
[ -c /dev/fuse ] || { skip "modelled disk in real time" "no /dev/fuse"; exit 0; }
[ -e /usr/lib/x86_64-linux-gnu/libfuse3.so.3 ] || ldconfig -p | grep -q libfuse3.so.3 ||
	{ skip "modelled disk in real time" "no libfuse3 (make deps)"; exit 0; }
for tool in fio jq mkfs.ext4 losetup; do
	command -v $tool > /dev/null || { skip "modelled disk in real time" "no $tool"; exit 0; }
done

t=$TEST_TMP db=$t/t.db
pre=t29-$$                        # names of this test's disks
export TMPDIR=$t                   # backing files in the test's folder
lab=$t/lab                         # a private lab folder for capture --reset
stop_all() {
	local n
	for n in "$pre-a" "$pre-b" "$pre-c" "$pre-f" "$pre-n" "$pre-x"; do
		"$IOTAPE" disk stop --force "$n" > /dev/null 2>&1
	done
	"$IOTAPE" disk stop --force --state-dir "$lab" "$pre-r" > /dev/null 2>&1
	return 0
}
at_exit stop_all
# ours_left DEV: 1 when loop device DEV is still one of this test's disks (its
# backing file under a folder named $pre-...), else 0: a detached one's number
# may be another job's loop device at once
ours_left() { losetup -l -n -O NAME,BACK-FILE | grep -c "^$1 .*$pre"; }
pid_of() { awk -F= '$1 == "pid" { print $2 }' "/run/iotape/disk/$1/state" 2> /dev/null; }
gpid_of() { awk -F= '$1 == "guardian" { print $2 }' "/run/iotape/disk/$1/state" 2> /dev/null; }
stat_js() { "$IOTAPE" disk stats --json "$1"; }
# lab_retry OUT CMD...: CMD with stdout to OUT and stderr to $t/err, again
# after another job's capture ends (replay refuses to start while one runs:
# its state file is there), at most 5 times
lab_retry() {
	local out=$1 i; shift
	for i in 1 2 3 4 5; do
		"$@" > "$out" 2> "$t/err" && return 0
		grep -q "left the machine changed" "$t/err" || return 1
		locked true
	done
	return 1
}

# ---- refusals, before anything starts ---------------------------------------------
"$IOTAPE" disk start --name 'bad/name' > /dev/null 2> "$t/err"; rc=$?
check_eq "a bad name is refused in one line" "1 1" "$rc $(wc -l < "$t/err")"
"$IOTAPE" disk start --name "$pre-x" --model no-such-disk > /dev/null 2> "$t/err"; rc=$?
[ $rc = 1 ] && grep -q "no-such-disk" "$t/err" && [ ! -e "/run/iotape/disk/$pre-x" ] &&
	ok "an unknown profile is refused, nothing left" ||
	not_ok "an unknown profile is refused" "$(cat "$t/err")"
"$IOTAPE" disk stop "$pre-none" 2> "$t/err"; rc=$?
check_eq "stop of no such disk: exit 1, one line" "1 iotape: no disk '$pre-none' (see 'iotape disk list')" \
	"$rc $(cat "$t/err")"

# a backing file that is a database, or that backs a loop device: refused,
# untouched (the disk is writable by anyone with its device)
"$IOTAPE" import --quiet --db "$t/store.db" --run s "$FIXTURES/loop-fio-small.bin"
sum=$(md5sum < "$t/store.db")
"$IOTAPE" disk start --name "$pre-x" --backing "$t/store.db" --size 64M > /dev/null 2> "$t/err"
check_eq "a database as the backing file: refused, untouched, nothing left" \
	"1|iotape: refusing backing file '$t/store.db': it holds an SQLite database (its file header)|$sum|0" \
	"$?|$(cat "$t/err")|$(md5sum < "$t/store.db")|$(ls -d "/run/iotape/disk/$pre-x" 2> /dev/null | wc -l)"
truncate -s 64M "$t/looped.img"
if loop_attach "$t/looped.img"; then
	"$IOTAPE" disk start --name "$pre-x" --backing "$t/looped.img" > /dev/null 2> "$t/err"
	check_eq "a loop device's backing file as the backing file: refused" \
		"1|iotape: refusing backing file '$t/looped.img': it backs /dev/$LOOPDEV" \
		"$?|$(cat "$t/err")"
else
	not_ok "attach a loop device"
fi
# an image with a file system on it: a disk may hold one (it is served as
# it is, and kept)
truncate -s 16M "$t/fs.img"; mkfs.ext4 -q -F "$t/fs.img"
N=$("$IOTAPE" disk start --name "$pre-n" --backing "$t/fs.img" 2> "$t/err") ||
	not_ok "start disk n over an ext4 image" "$(cat "$t/err")"
check_eq "an ext4 image as the backing file: served, its file system seen" ext4 \
	"$(blkid -o value -s TYPE "$N" 2> /dev/null)"
# ... and, while served, that image mounted through a loop device of its own
# at an offset (the disk's loop device is over its FUSE file, which hides the
# image behind it): replay --allow-write onto the disk refused, image
# untouched
printf '128166372000000000,h,0,Write,0,65536,500\n' > "$t/w.csv"
"$IOTAPE" import --quiet --db "$t/w.db" --run w "$t/w.csv"
if over=$(losetup -f --show -o 4194304 "$t/fs.img"); then
	at_exit "losetup -d '$over' 2> /dev/null"
	sum=$(md5sum < "$t/fs.img")
	"$IOTAPE" replay --db "$t/w.db" w --target "$pre-n" --allow-write \
		--overwrite-signature ext4 --timing afap > /dev/null 2> "$t/err"
	check_eq "replay onto a disk whose image another loop device is over: refused, untouched" \
		"1|iotape: refusing to write to '$N': it is disk '$pre-n', whose backing file $t/fs.img is in use: it backs ${over}|$sum" \
		"$?|$(cat "$t/err")|$(md5sum < "$t/fs.img")"
	losetup -d "$over"
else
	not_ok "attach a loop device over the disk's image"
fi
"$IOTAPE" disk stop "$pre-n" > /dev/null 2>&1
# a backing file the user named, made by start: kept at stop
N=$("$IOTAPE" disk start --name "$pre-n" --backing "$t/named.img" --size 16M 2> "$t/err") ||
	not_ok "start disk n" "$(cat "$t/err")"
"$IOTAPE" disk stop "$pre-n" > /dev/null 2> "$t/err"
check_eq "a backing file named with --backing and made by start: kept at stop" \
	"$((16 << 20))" "$(stat -c %s "$t/named.img" 2> /dev/null)"

# ---- two disks at once -------------------------------------------------------------
A=$("$IOTAPE" disk start --name "$pre-a" --size 512M 2> "$t/err")
check_eq "start disk a (desktop-2006, 512 MiB) prints its loop device" "0 /dev/loop" \
	"$? ${A%%[0-9]*}"
B=$("$IOTAPE" disk start --name "$pre-b" --model laptop-5400 --size 256M 2> "$t/err")
check_eq "start disk b (laptop-5400, 256 MiB) beside it" "0 /dev/loop" "$? ${B%%[0-9]*}"
[ -b "$A" ] && [ -b "$B" ] && [ "$A" != "$B" ] || { not_ok "two loop devices" "$A $B $(cat "$t/err")"; tap_finish; }
"$IOTAPE" disk list --json > "$t/list.json"
check_eq "list: both serving, with their profiles and sizes" \
	"$pre-a deskstar-7k500 536870912 serving|$pre-b travelstar-5k320 268435456 serving" \
	"$(jq -r --arg p "$pre" '[.[] | select(.name | startswith($p)) |
		"\(.name) \(.profile) \(.size_bytes) \(.state)"] | join("|")' "$t/list.json")"
a=${A#/dev/}
check_eq "disk a's loop device: direct I/O, rotational, mq-deadline, no discard" "1 1 mq-deadline 0" \
	"$(cat /sys/block/$a/loop/dio) $(cat /sys/block/$a/queue/rotational) $(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$a/queue/scheduler) $(cat /sys/block/$a/queue/discard_max_bytes)"
grep -q "^capacity_sectors = 1048576 " "/run/iotape/disk/$pre-a/profile" &&
	ok "the disk keeps the profile it serves, sized to the device" ||
	not_ok "the disk's profile file" "$(head -5 "/run/iotape/disk/$pre-a/profile")"
"$IOTAPE" disk start --name "$pre-a" > /dev/null 2> "$t/err"; rc=$?
[ $rc = 1 ] && grep -q "is running ($A)" "$t/err" && ok "a second start of a running disk is refused" ||
	not_ok "a second start of a running disk is refused" "$(cat "$t/err")"

# ---- random 4 KiB reads at depth 1 ---------------------------------------------------
fio --name=rr --filename="$A" --rw=randread --bs=4k --direct=1 --ioengine=psync \
	--runtime=3 --time_based --randseed=29 --output-format=json > "$t/rr.json" 2> "$t/err" ||
	not_ok "fio random reads on disk a" "$(cat "$t/err")"
stat_js "$pre-a" > "$t/s1.json"
n=$(jq '.ops.read.requests' "$t/s1.json")
svc=$(jq '.model_service.mean_us / 1000' "$t/s1.json")
clat=$(jq '.jobs[0].read.clat_ns.mean / 1e6' "$t/rr.json")
diag "random 4 KiB reads, depth 1: $n; model $svc ms; fio clat $clat ms; late mean" \
	"$(jq '.late.mean_us' "$t/s1.json") us; host overhead mean $(jq '.overhead.mean_us' "$t/s1.json") us"
awk -v s="$svc" -v n="$n" 'BEGIN { exit !(n >= 60 && s >= 12 && s <= 14) }' &&
	ok "random 4 KiB reads: the model serves them in overhead + average seek + half a turn + transfer (12-14 ms)" ||
	not_ok "random 4 KiB reads in 12-14 ms" "n=$n model mean $svc ms"
awk -v s="$svc" -v c="$clat" 'BEGIN { exit !(c >= s * 0.999) }' &&
	ok "fio's completion time is never below the model's (no answer early)" ||
	not_ok "fio's completion time is never below the model's" "fio $clat ms, model $svc ms"
check_eq "each request answered after its modelled completion, never before" \
	"$(jq '[.ops[].requests] | add' "$t/s1.json")" "$(jq '.late.n' "$t/s1.json")"

# ---- sequential reads: the outer zone's rate --------------------------------------------
dd if="$A" of=/dev/null bs=1M count=48 skip=64 iflag=direct 2> "$t/dd" ||
	not_ok "sequential reads" "$(cat "$t/dd")"
stat_js "$pre-a" > "$t/s2.json"
mbs=$(jq -s '((.[1].ops.read.bytes - .[0].ops.read.bytes) / 1e6) /
	((.[1].model_service.mean_us * .[1].model_service.n - .[0].model_service.mean_us * .[0].model_service.n) / 1e6)' \
	"$t/s1.json" "$t/s2.json")
ddmbs=$(awk '/copied/ { for (i = 1; i < NF; i++) if ($(i+1) ~ /^[MG]B\/s$/) v = ($(i+1) == "GB/s") ? $i * 1000 : $i } END { print v }' "$t/dd")
diag "sequential 1 MiB reads: model $mbs MB/s, dd $ddmbs MB/s (zone 0 of the profile: 64.8 MB/s)"
awk -v m="$mbs" 'BEGIN { exit !(m >= 58 && m <= 70) }' &&
	ok "sequential reads: the model streams them at the outer zones' rate (58-70 MB/s: a read the drive had partly read ahead costs less)" ||
	not_ok "sequential reads at the zone's rate" "model $mbs MB/s" "$(jq -c . "$t/s1.json" "$t/s2.json")"
awk -v d="$ddmbs" 'BEGIN { exit !(d > 0 && d <= 65.5) }' &&
	ok "dd never reads faster than the modelled medium" || not_ok "dd's rate" "$ddmbs MB/s"

# ---- data: written, flushed, read back -----------------------------------------------
head -c 4194304 /dev/urandom > "$t/data"
dd if="$t/data" of="$B" bs=64k seek=100 oflag=direct conv=fsync status=none ||
	not_ok "write 4 MiB with fsync to disk b"
check_eq "data written to disk b reads back the same" "$(md5sum < "$t/data")" \
	"$(dd if="$B" bs=64k skip=100 count=64 iflag=direct status=none | md5sum)"
stat_js "$pre-b" > "$t/sb.json"
check_eq "disk b: 64 writes of 64 KiB and a flush reached the model" "true true" \
	"$(jq '.ops.write.requests >= 64 and .ops.write.bytes >= 4194304' "$t/sb.json") $(jq '.ops.flush.requests >= 1' "$t/sb.json")"

# ---- the device takes the profile's queue depth, the scheduler the rest -------------------
fio --name=deep --filename="$B" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=64 --runtime=1 --time_based --output=/dev/null 2> /dev/null
check_eq "64 reads queued: 32 at the disk (NCQ), the rest in the scheduler" "32" \
	"$(stat_js "$pre-b" | jq '.held_max')"

# ---- capture -d NAME, the offline model, replay --target NAME ----------------------------
if tracefs_check "$a"; then
	dirty0=$(sysctl -n vm.dirty_bytes vm.dirty_ratio | tr '\n' ' ')
	"$IOTAPE" capture --db "$db" --run live --quiet -d "$pre-a" --set vm.dirty_bytes=50331648 --cmd \
		"fio --name=c --filename=$A --rw=randread --bs=4k --direct=1 --ioengine=psync --runtime=2 --time_based --randseed=7 --output=/dev/null" \
		> /dev/null 2> "$t/err"
	rc=$?
	check_eq "capture -d NAME traces the disk's loop device" "0 $a" \
		"$rc $(sqlite3 "$db" "SELECT name FROM devices WHERE run = (SELECT id FROM runs WHERE name = 'live')")"
	[ $rc = 0 ] || diag "capture: $(tail -n 5 "$t/err")"
	check_eq "capture puts vm.dirty_bytes and dirty_ratio back (bytes 0: the ratio rules)" "$dirty0" \
		"$(sysctl -n vm.dirty_bytes vm.dirty_ratio | tr '\n' ' ')"
	"$IOTAPE" report --db "$db" --json live > "$t/live.json" 2>> "$t/err"
	cp "/run/iotape/disk/$pre-a/profile" "$t/a.profile"
	lab_retry /dev/null "$IOTAPE" replay --db "$db" live --target "model:$t/a.profile" \
		--run offline --quiet --json
	"$IOTAPE" report --db "$db" --json offline > "$t/off.json" 2>> "$t/err"
	live=$(jq '.all.d2c.mean_us' "$t/live.json") off=$(jq '.all.d2c.mean_us' "$t/off.json")
	diag "D2C mean: live $live us, offline model $off us, model in the daemon $(stat_js "$pre-a" | jq .model_service.mean_us) us"
	awk -v l="$live" -v o="$off" 'BEGIN { exit !(l >= o * 0.97 && l <= o * 1.25) }' &&
		ok "the trace's D2C is the offline model's for the same requests, plus the host's overhead" ||
		not_ok "live D2C against the offline model" "live $live us, offline $off us" "$(tail -n 5 "$t/err")"
	lab_retry "$t/onto.json" "$IOTAPE" replay --db "$db" live --target "$pre-a" --run onto \
		--quiet --json
	check_eq "replay --target NAME replays onto the disk in real time" "0 $(jq '.all.d2c.n' "$t/live.json")" \
		"$? $(jq '.[0].ios.replay' "$t/onto.json")"
else
	skip "capture -d NAME" "$TRACEFS_WHY"
fi

# ---- a mounted disk is not stopped ------------------------------------------------------
mkfs.ext4 -q -F "$B" && mkdir -p "$t/mnt" && mount "$B" "$t/mnt" || not_ok "mkfs and mount disk b"
at_exit "umount '$t/mnt' 2> /dev/null"
"$IOTAPE" disk stop "$pre-b" 2> "$t/err"; rc=$?
[ $rc = 1 ] && grep -q "is in use" "$t/err" && [ -b "$B" ] &&
	ok "stop refuses a mounted disk, which keeps serving" || not_ok "stop refuses a mounted disk" "$(cat "$t/err")"
umount "$t/mnt"
bb=$(awk -F= '$1 == "backing" { print $2 }' "/run/iotape/disk/$pre-b/state")
"$IOTAPE" disk stop "$pre-b" 2> "$t/err"
check_eq "stop after unmounting: folder, loop device and backing file gone" "0 0 0 0" \
	"$? $(ls -d "/run/iotape/disk/$pre-b" 2> /dev/null | wc -l) $(ours_left "$B") $(ls "$bb" 2> /dev/null | wc -l)"

# ---- SIGTERM to the daemon ---------------------------------------------------------------
ab=$(awk -F= '$1 == "backing" { print $2 }' "/run/iotape/disk/$pre-a/state")
p=$(pid_of "$pre-a") g=$(gpid_of "$pre-a")
kill -TERM "$p"
# (a loop device detached while another opener, udev's probe, still holds it
# goes when that one closes: its listing is waited for too)
for i in $(seq 100); do
	kill -0 "$p" 2> /dev/null || kill -0 "$g" 2> /dev/null ||
		[ "$(ours_left "$A")" != 0 ] || break
	sleep 0.1
done
check_eq "SIGTERM: the daemon and its guardian end, the disk cleaned up" "0 0 0 0" \
	"$(kill -0 "$p" 2> /dev/null && echo 1 || echo 0) $(ls -d "/run/iotape/disk/$pre-a" 2> /dev/null | wc -l) $(ours_left "$A") $(ls "$ab" 2> /dev/null | wc -l)"

# ---- SIGINT in the foreground ------------------------------------------------------------
"$IOTAPE" disk start --name "$pre-f" --size 64M --foreground > "$t/fg.out" 2> "$t/fg.err" &
fgp=$!
for i in $(seq 100); do [ -s "$t/fg.out" ] && break; sleep 0.1; done
F=$(cat "$t/fg.out")
dd if="$F" of=/dev/null bs=4k count=4 iflag=direct status=none &&
	ok "a disk in the foreground serves ($F)" || not_ok "a disk in the foreground serves" "$(cat "$t/fg.err")"
kill -INT $fgp; wait $fgp; rc=$?
check_eq "SIGINT ends it with status 0, cleaned up" "0 0 0" \
	"$rc $(ls -d "/run/iotape/disk/$pre-f" 2> /dev/null | wc -l) $(ours_left "$F")"

# ---- SIGKILL: I/O fails at once, the guardian cleans up -----------------------------------
C=$("$IOTAPE" disk start --name "$pre-c" --size 256M) || not_ok "start disk c"
cb=$(awk -F= '$1 == "backing" { print $2 }' "/run/iotape/disk/$pre-c/state")
p=$(pid_of "$pre-c") g=$(gpid_of "$pre-c")
dd if="$C" of=/dev/null bs=64k iflag=direct 2> "$t/dd.err" &
ddp=$!
sleep 0.5
kill -KILL "$p"
for i in $(seq 100); do kill -0 $ddp 2> /dev/null || break; sleep 0.1; done
if kill -0 $ddp 2> /dev/null; then
	not_ok "I/O in flight when the daemon is killed fails, not hangs" "dd still runs after 10 s"
	kill -KILL $ddp
else
	wait $ddp; rc=$?
	[ $rc != 0 ] && grep -q "Input/output error\|Transport endpoint\|No such device" "$t/dd.err" &&
		ok "I/O in flight when the daemon is killed fails at once (dd: $(head -1 "$t/dd.err" | sed 's/.*: //'))" ||
		not_ok "I/O in flight when the daemon is killed fails" "dd exit $rc: $(cat "$t/dd.err")"
fi
for i in $(seq 100); do kill -0 "$g" 2> /dev/null || break; sleep 0.1; done
check_eq "the guardian detaches the loop device and removes the disk's files" "0 0 0 0" \
	"$(kill -0 "$g" 2> /dev/null && echo 1 || echo 0) $(ours_left "$C") $(ls -d "/run/iotape/disk/$pre-c" 2> /dev/null | wc -l) $(ls "$cb" 2> /dev/null | wc -l)"

# ---- capture --reset stops the disks ---------------------------------------------------
R=$("$IOTAPE" disk start --state-dir "$lab" --name "$pre-r" --size 64M) || not_ok "start disk r"
"$IOTAPE" capture --reset --state-dir "$lab" > "$t/reset" 2> "$t/err"
check_eq "capture --reset stops every disk" "0 stopped disk '$pre-r' ($R) 0" \
	"$? $(grep stopped "$t/reset") $(ours_left "$R")"

gone=0
for d in "$A" "$B" "$C" "$F" "$R"; do
	# by this test's names: the loop device's number may be another job's
	# now (its disk's too, under /run/iotape/disk)
	[ -n "$d" ] && losetup -l -n -O NAME,BACK-FILE | grep -q "^$d .*$pre" && gone=1
done
check_eq "none of the disks' loop devices is left" 0 "$gone"
check_eq "no disk folder, process or backing file left" "0 0 0" \
	"$(ls -d /run/iotape/disk/$pre-* "$lab"/disk/* 2> /dev/null | wc -l) $(pgrep -c -f "iotape disk start --name $pre-" || true) $(ls "$t"/iotape-disk-* 2> /dev/null | wc -l)"
tap_finish
