# t_iostat.sh: `iotape iostat` against the kernel's own counters. fio runs on a
# loop device under `iotape capture --interval 1`, which samples /proc/diskstats
# on the events' clock; for each pair of consecutive samples, iostat over exactly
# that window must give the r/s, w/s, rkB/s and %util that the diskstats deltas
# give (iostat -x's formulas), within the tolerances below. Needs root.
. "$(dirname "$0")/../lib.sh"

need_root "iostat against diskstats"
if ! tracefs_check; then skip "iostat against diskstats" "$TRACEFS_WHY"; exit 0; fi
for tool in fio jq sqlite3; do
	command -v $tool > /dev/null || { skip "iostat against diskstats" "no $tool"; exit 0; }
done
need_iotape "iostat against diskstats"

t=$TEST_TMP db=$t/t.db
truncate -s 128M "$t/disk.img"
loop_attach "$t/disk.img" || { skip "iostat against diskstats" "cannot attach a loop device"; exit 0; }
d=$LOOPDEV
majmin=$(tr : , < /sys/block/$d/dev)

# Busy, then nearly idle (one 4k read a second), then busy again, reads and
# writes mixed; an fsync every 4 writes, an empty flush the kernel counts as
# a write of 0 sectors and as a flush.
cat > "$t/job.fio" <<EOF
[global]
filename=/dev/$d
direct=1
ioengine=libaio
iodepth=4
time_based=1
runtime=2
size=120M
[rd]
rw=randread
bs=256k
[wr]
rw=randwrite
bs=256k
rate_iops=40
fsync=4
[idle]
stonewall
rw=read
bs=4k
rate_iops=1
runtime=2
[rd2]
stonewall
rw=randrw
rwmixread=70
bs=128k
EOF
dd if=/dev/zero of=/dev/$d bs=1M count=120 oflag=direct status=none
"$IOTAPE" capture --db "$db" --run io -d "/dev/$d" --interval 1 --quiet \
	-- fio --output="$t/fio.out" "$t/job.fio" 2> "$t/cap.err"
rc=$?
if [ $rc != 0 ]; then
	not_ok "capture fio on $d" "exit $rc" "$(tail -n 5 "$t/cap.err")"
	tap_finish
fi
ok "capture fio on $d"

run=$(sqlite3 "$db" "SELECT id FROM runs WHERE name = 'io'")
g=$(sqlite3 "$db" "SELECT genesis_ns FROM runs WHERE id = $run")
# one line per sample: time_ns reads read_sectors writes write_sectors io_ms
# flushes (-1 on a kernel without the flush fields, before 5.5)
sqlite3 -separator ' ' "$db" "SELECT time_ns,
	max(CASE WHEN key = '$majmin:reads' THEN value END),
	max(CASE WHEN key = '$majmin:read_sectors' THEN value END),
	max(CASE WHEN key = '$majmin:writes' THEN value END),
	max(CASE WHEN key = '$majmin:write_sectors' THEN value END),
	max(CASE WHEN key = '$majmin:io_ms' THEN value END),
	coalesce(max(CASE WHEN key = '$majmin:flushes' THEN value END), -1)
	FROM samples WHERE run = $run AND source = 'diskstats' AND key LIKE '$majmin:%'
	GROUP BY time_ns ORDER BY time_ns" > "$t/ds"
n=$(wc -l < "$t/ds")
if [ "$n" -ge 5 ]; then ok "capture sampled /proc/diskstats of $majmin $n times"
else not_ok "capture sampled /proc/diskstats of $majmin" "$n samples"; tap_finish; fi

# Tolerances: a request whose C is traced just before a sample may be counted
# by the kernel just after it (or the reverse), and a C btt's pairing gives to
# a later request of the same sector leaves its request uncounted: 3 requests
# per window, plus 1% (rkB/s in requests of the window's mean read size). %util: 10 points, or 15% of the kernel's: the kernel
# counts io_ticks in whole jiffies from stamps taken at request start and end
# (block/blk-core.c update_io_ticks), the trace the union of [D, C] in ns;
# measured here, on a shared 2-core machine: the kernel's 0.1 to 8.3 points
# below the trace's. A window starting before the trace's first event holds
# I/O the trace did not see (the device probed on attach): not compared.
windows=0 bad=
prev=
while read -r tn rd srd wr swr ioms fl; do
	if [ -n "$prev" ]; then
		read -r t0 rd0 srd0 wr0 swr0 ioms0 fl0 <<< "$prev"
		if [ "$t0" -lt "$g" ]; then
			diag "window from $t0 ns: before the trace's first event ($g), not compared"
			prev="$tn $rd $srd $wr $swr $ioms $fl"
			continue
		fi
		from=$(awk -v a="$t0" -v g="$g" 'BEGIN { printf "%.9fs", (a - g) / 1e9 }')
		to=$(awk -v a="$tn" -v g="$g" 'BEGIN { printf "%.9fs", (a - g) / 1e9 }')
		iv=$(awk -v a="$t0" -v b="$tn" 'BEGIN { printf "%.9fs", (b - a) / 1e9 }')
		row=$("$IOTAPE" iostat --db "$db" --json --dev "$majmin" \
			--from "$from" --to "$to" --interval "$iv" io |
			jq -r '.rows[0] | "\(.r) \(.w) \(.["rkB/s"]) \(.util) \(.f)"')
		read -r jr jw jrkb jutil jf <<< "$row"
		line=$(awk -v dt="$(( tn - t0 ))" -v dr="$(( ${rd%.*} - ${rd0%.*} ))" \
			-v dw="$(( ${wr%.*} - ${wr0%.*} ))" \
			-v dsr="$(( ${srd%.*} - ${srd0%.*} ))" \
			-v dio="$(( ${ioms%.*} - ${ioms0%.*} ))" \
			-v df="$(( ${fl%.*} < 0 ? -1 : ${fl%.*} - ${fl0%.*} ))" -v jf="$jf" \
			-v jr="$jr" -v jw="$jw" -v jrkb="$jrkb" -v ju="$jutil" -v w="$from" '
			function off(a, b) { d = a - b; if (d < 0) d = -d; return d > 3 + 0.01 * b }
			BEGIN {
				s = dt / 1e9; du = 100 * dio / (dt / 1e6); rkb = dsr / 2 / s
				printf "window %s: reads %d/%d writes %d/%d flushes %d/%d rkB/s %.0f/%.0f %%util %.1f/%.1f", \
					w, jr, dr, jw, dw, jf, df, jrkb, rkb, ju, du
				# kB in requests of the mean read size of the window (the
				# workload mixes sizes: one 512k read is 128 4k ones)
				rsz = dr > 0 ? dsr / 2 / dr : 4
				if (off(jr, dr) || off(jw, dw) || (df >= 0 && off(jf, df)) ||
				    off(jrkb * s / rsz, rkb * s / rsz)) print " BAD"
				else if ((d = ju - du) < 0 ? -d > 10 && -d > 0.15 * du : d > 10 && d > 0.15 * du) print " BAD"
				else print ""
			}')
		diag "$line (iotape/diskstats)"
		case $line in *BAD) bad="$bad; $line" ;; esac
		windows=$((windows + 1))
	fi
	prev="$tn $rd $srd $wr $swr $ioms $fl"
done < "$t/ds"
nf=$("$IOTAPE" iostat --db "$db" --json --dev "$majmin" io | jq '[.rows[].f] | add')
[ "${nf:-0}" -gt 0 ] && ok "the trace holds flushes to count ($nf)" ||
	not_ok "the trace holds flushes to count" "f: $nf"
if [ -z "$bad" ] && [ "$windows" -ge 5 ]; then
	ok "iostat agrees with /proc/diskstats over $windows windows"
else
	not_ok "iostat agrees with /proc/diskstats over $windows windows" "${bad#; }"
fi

# the text table: 80 columns, one row per interval
"$IOTAPE" iostat --db "$db" io > "$t/text"
w=$(awk '{ if (length > m) m = length } END { print m }' "$t/text")
[ "$w" -le 80 ] && ok "iostat text fits 80 columns ($w)" || not_ok "iostat text fits 80 columns" "$w"
check "iostat text: header with iostat -x's names" grep -q \
	'Device.*r/s.*w/s.*rkB/s.*wkB/s.*r_await.*w_await.*aqu-sz.*%util' "$t/text"

tap_finish
