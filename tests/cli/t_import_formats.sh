# t_import_formats.sh: every import format of the table (import/formats.c)
# on its fixture (tests/fixtures/import, written from the formats' layouts):
# told from content (whatever the file's name), the numbers the store and
# report give equal those read off the file with awk, --split and joining an
# existing run work, each bad fixture is refused with one line naming file
# and line and the database left as it was. The same checks run on real
# files where they are: fio's t0038 iolog in ../shared/corpus, iostat run
# here on the corpus's recorded /proc (sysstat's test snapshots), the
# published traces in $IOTAPE_INTEROP_DIR (tests/fixtures/README.md); and on
# real output of fio --write_iolog and iostat, made here.
. "$(dirname "$0")/../lib.sh"

need_iotape "import formats"
F=$FIXTURES/import B=$FIXTURES/bad t=$TEST_TMP db=$t/t.db
q() { sqlite3 "$db" "$@"; }
rid() { echo "(SELECT id FROM runs WHERE name = '$1')"; }
# counted: the store's rows, for "nothing stored" (badnum's $before)
counted() { q "SELECT count(*) FROM runs; SELECT count(*) FROM events;
	SELECT count(*) FROM requests; SELECT count(*) FROM samples" | tr '\n' ' '; }

imp() {  # imp RUN FILE [OPTION...]: import (again: one file into several
	# runs), or a not ok line
	local run=$1 file=$2; shift 2
	"$IOTAPE" import --quiet --again --db "$db" --run "$run" "$@" "$file" 2> "$t/err" ||
		{ not_ok "import $run" "$(cat "$t/err")"; return 1; }
}

# q2c RUN: "N MEAN_US" of the run's report, the mean to 3 decimals
q2c() {
	"$IOTAPE" report --db "$db" --json "$1" |
		jq -r '"\(.all.q2c.n) \(.all.q2c.mean_us)"' | awk '{ printf "%d %.3f", $1, $2 }'
}

# ---- one check per format: FILE's own numbers (awk) against the store ----

# check_msr RUN FILE: Q2C is the ResponseTime column (100 ns units)
check_msr() {
	check_eq "$1: Q2C n and mean us = ResponseTime's" \
		"$(awk -F, '$1 ~ /^[0-9]+$/ { s += $7; n++ } END { printf "%d %.3f", n, s / n / 10 }' "$2")" \
		"$(q2c "$1")"
	check_eq "$1: format, a Q and a C per line" \
		"msr-csv $(awk -F, '$1 ~ /^[0-9]+$/ { n += 2 } END { print n }' "$2")" \
		"$(q "SELECT format, last_event - first_event + 1 FROM runs WHERE name = '$1'" | tr '|' ' ')"
}

# check_systor RUN FILE: Q2C is the Response column (s); no-response lines skipped
check_systor() {
	check_eq "$1: Q2C n and mean us = Response's; lines with no IOType skipped" \
		"$(awk -F, 'NR > 1 && $3 != "" { s += $2; n++ } NR > 1 && $3 == "" { b++ }
			END { printf "%d %.3f %d", n, s / n * 1e6, b }' "$2")" \
		"$(q2c "$1") $(q "SELECT value FROM run_stats WHERE run = $(rid "$1") AND key = 'systor_csv.no_response'")"
	check_eq "$1: stored in time order ($(awk -F, 'NR > 2 && $1 < p { n++ } { p = $1 } END { print n + 0 }' "$2") lines of the file are not)" \
		"0 0" "$(q "SELECT count(*) FROM events a JOIN events b ON b.run = a.run AND b.sequence = a.sequence + 1
			WHERE a.run = $(rid "$1") AND b.time_ns < a.time_ns;
			SELECT value FROM run_stats WHERE run = $(rid "$1") AND key = 'time_backwards'" | paste -sd' ')"
}

# check_cloudphysics RUN FILE: SCSI opcodes to directions (SBC-3), bytes as given
check_cloudphysics() {
	check_eq "$1: reads, read bytes, writes, write bytes, flushes, discards, other ops" \
		"$(awk -F, 'NR > 1 { o = tolower($3) }
			NR > 1 && (o == "28" || o == "08" || o == "a8" || o == "88") { r++; rb += $4; next }
			NR > 1 && (o == "2a" || o == "0a" || o == "aa" || o == "8a") { w++; wb += $4; next }
			NR > 1 && (o == "35" || o == "91") { f++; next }
			NR > 1 && o == "42" { d++; next }
			NR > 1 { x++ }
			END { printf "%d %d %d %d %d %d %d", r, rb, w, wb, f, d, x }' "$2")" \
		"$(q "SELECT total(rwbs = 'R'), total(CASE WHEN rwbs = 'R' THEN bytes END),
			total(rwbs = 'W'), total(CASE WHEN rwbs = 'W' THEN bytes END),
			total(rwbs LIKE 'F%'), total(rwbs LIKE 'D%'),
			(SELECT value FROM run_stats WHERE run = $(rid "$1") AND key = 'cloudphysics_csv.other_ops')
			FROM requests WHERE run = $(rid "$1")" | awk -F'|' '{ printf "%d %d %d %d %d %d %d", $1, $2, $3, $4, $5, $6, $7 }')"
}

# check_load RUN FILE: one Q (or D) per data line at its start time (results:
# start + replay_delay), sectors as given
check_load() {
	check_eq "$1: I/Os, bytes, time from the first start to the last" \
		"$(awk -F';' '/^ *[0-9]+\.[0-9]+ *;/ { t = $1 + ($6 > 0 ? $5 : 0); s += $3 * 512
			if (!n++ || t < lo) lo = t; if (n == 1 || t > hi) hi = t }
			END { printf "%d %d %.9f", n, s, hi - lo }' "$2")" \
		"$(q "SELECT count(*), sum(bytes), printf('%.9f', (max(coalesce(q_ns, d_ns)) - min(coalesce(q_ns, d_ns))) / 1e9)
			FROM requests WHERE run = $(rid "$1")" | tr '|' ' ')"
}

# check_fio RUN FILE: I/Os and bytes per direction (trim D, sync and datasync
# zero-length flushes FWS)
check_fio() {
	check_eq "$1: I/Os and bytes per RWBS" \
		"$(awk '{ a = $(NF - 2) } $1 ~ /^[0-9]+$/ && NF == 5 || NF == 4 {
			if (a == "read") k = "R"; else if (a == "write") k = "W"; else if (a == "trim") k = "D";
			else if (a == "sync" || a == "datasync") k = "FWS"; else next
			n[k]++; b[k] += k == "FWS" ? 0 : $NF }
			END { for (k in n) printf "%s %d %.0f\n", k, n[k], b[k] }' "$2" | LC_ALL=C sort | paste -sd'|')" \
		"$(q "SELECT rwbs, count(*), sum(bytes) FROM requests WHERE run = $(rid "$1")
			GROUP BY rwbs ORDER BY rwbs" | tr '|' ' ' | paste -sd'|')"
}

# iostat_values FILE: the values of its avg-cpu rows and device tables, plus
# one since_boot sample per banner (the report after it averages since boot)
iostat_values() {
	awk '/^Linux .*\(/ { n++; tab = 0; next }
		$1 == "avg-cpu:" { cpu = 1; tab = 0; next }
		cpu { n += NF; cpu = 0; next }
		$1 ~ /^Device:?$/ || $NF == "Device" { tab = 1; next }
		NF == 0 { tab = 0; next }
		tab { n += NF - 1 }
		END { print n }' "$1"
}

# check_iostat RUN FILE: every value a sample
check_iostat() {
	check_eq "$1: a sample per value (and since_boot)" "$(iostat_values "$2")" \
		"$(q "SELECT count(*) FROM samples WHERE run = $(rid "$1") AND source = 'iostat'")"
}

# check_time RUN FILE: bash's real lines, one command each (other reports: not checked)
check_time() {
	if grep -qE 'elapsed|Command being timed|s user .* total|bytes transferred in|^real[[:blank:]]+[0-9.]+$' "$2"; then
		diag "$1: $(basename "$2") has other reports than bash's: not checked"; return
	fi
	check_eq "$1: commands and their real seconds" \
		"$(awk '$1 == "real" { split($2, a, /[ms]/); n++; s += a[1] * 60 + a[2] } END { printf "%d %.3f", n, s }' "$2")" \
		"$(q "SELECT count(*), printf('%.3f', sum(real_s)) FROM commands WHERE run = $(rid "$1")" | tr '|' ' ')"
}

# ---- the fixtures ----

imp msr "$F/msr-web.csv" && check_msr msr "$F/msr-web.csv"
q "SELECT notes FROM runs WHERE name = 'msr'" | grep -q "Q2C is the trace's response time" &&
	ok "msr: the run's notes say Q2C is the response time" ||
	not_ok "msr: notes" "$(q "SELECT notes FROM runs WHERE name = 'msr'")"

# never trusted by name: the same bytes as trace.bin
cp "$F/msr-web.csv" "$t/trace.bin"
imp byname "$t/trace.bin" &&
	check_eq "a CSV named .bin is read as what it is" msr-csv \
		"$(q "SELECT format FROM runs WHERE name = 'byname'")"

# one host's disks: one run with a device each, or with --split a run per
# disk; two hosts: a run per host
check_eq "msr: one host, its disks are the run's devices" \
	"$(awk -F, '{ print "0," $3 }' "$F/msr-web.csv" | sort -u | paste -sd' ')" \
	"$(q "SELECT (dev >> 20) || ',' || (dev & 1048575) FROM devices WHERE run = $(rid msr) ORDER BY dev" | paste -sd' ')"
imp split "$F/msr-web.csv" --split &&
	check_eq "msr --split: a run per disk" \
		"$(awk -F, '{ n[$2 "_" $3]++ } END { for (k in n) print "split-" k, n[k] }' "$F/msr-web.csv" | sort | paste -sd'|')" \
		"$(q "SELECT r.name, count(q.id) FROM runs r JOIN requests q ON q.run = r.id
		      WHERE r.name LIKE 'split-%' GROUP BY r.name ORDER BY r.name" | tr '|' ' ' | paste -sd'|')"
{ cat "$F/msr-web.csv"; sed 's/,web,/,db,/' "$F/msr-web.csv"; } > "$t/hosts.csv"
imp hosts "$t/hosts.csv" &&
	check_eq "msr: a run per host" "hosts-db $(wc -l < "$F/msr-web.csv")|hosts-web $(wc -l < "$F/msr-web.csv")" \
		"$(q "SELECT r.name, count(q.id) FROM runs r JOIN requests q ON q.run = r.id
		      WHERE r.name LIKE 'hosts-%' GROUP BY r.name ORDER BY r.name" | tr '|' ' ' | paste -sd'|')"

imp systor "$F/systor17.csv" && check_systor systor "$F/systor17.csv"
imp slun "$F/systor17.csv" --split &&
	check_eq "systor --split: a run per LUN" \
		"$(awk -F, 'NR > 1 && $3 != "" { n["slun-lun" $4]++ } END { for (k in n) print k, n[k] }' "$F/systor17.csv" | sort | paste -sd'|')" \
		"$(q "SELECT r.name, count(q.id) FROM runs r JOIN requests q ON q.run = r.id
		      WHERE r.name LIKE 'slun-%' GROUP BY r.name ORDER BY r.name" | tr '|' ' ' | paste -sd'|')"

imp cp "$F/cloudphysics.csv" && check_cloudphysics cp "$F/cloudphysics.csv"
# a CSV's device 0,0 against a loop device: compare says the devices differ
"$IOTAPE" import --quiet --again --db "$db" --run loopq "$FIXTURES/quick/before.bin.gz"
check_eq "compare of a loop device's run and a CSV's: 'different devices' said" "1" \
	"$("$IOTAPE" compare --db "$db" loopq cp | tr '\n' ' ' | grep -c "different devices: loopq traced 7,2, cp 0,0; no kind of device is in both")"
# Qs alone: how long a bio waited the trace does not say ("waited s 18.000"
# beside "no completions"), and the importer's one process is no flusher
# ("12 bursts of 0.0 MB")
"$IOTAPE" report --db "$db" --json cp > "$t/cp.json"
check_eq "a CloudPhysics run's report: waited unknown (null), no writeback finding" "null|0" \
	"$(jq -r '[.. | objects | select(has("waited_s") and .comm != null)][0].waited_s' "$t/cp.json")|$(jq '[.findings[] | select(.analyzer == "writeback" and .present == 1)] | length' "$t/cp.json")"

imp load "$F/blkreplay.load" && check_load load "$F/blkreplay.load"
imp dload "$F/blkreplay-results.load" && check_load dload "$F/blkreplay-results.load"
# blkreplay's results: Q and C a replay_duration apart, D where it is 0
imp result "$F/blkreplay-results.load" &&
	check_eq "blkreplay results: Q2C n and mean us = replay_duration's; D-only lines" \
		"$(awk -F';' '/^ *[0-9]+\.[0-9]+ *;/ { if ($6 > 0) { n++; s += $6 } else d++ }
			END { printf "%d %.3f %d", n, s / n * 1e6, d }' "$F/blkreplay-results.load")" \
		"$(q2c result) $(q "SELECT count(*) FROM requests WHERE run = $(rid result) AND q_ns IS NULL AND d_ns IS NOT NULL")"

imp fio3 "$F/fio-v3.iolog" && check_fio fio3 "$F/fio-v3.iolog"
check_eq "fio v3: each file a device, open and close in the notes" "/dev/sdb /dev/sdc 4" \
	"$(q "SELECT name FROM devices WHERE run = $(rid fio3) ORDER BY dev" | paste -sd' ') $(q "SELECT notes FROM runs
	      WHERE name = 'fio3'" | grep -oE '(opened|closed) at' | wc -l)"
imp fio2 "$F/fio-v2.iolog" && check_fio fio2 "$F/fio-v2.iolog"
# a trace of issue times alone (no D, no C): report's and compare's rates
# count its issued I/Os (they were 0 requests and 0 IOPS, read as measured)
check_eq "fio v3 (issue times alone): report's reads and writes (trims with them, as btt's) are its I/Os, not 0" \
	"$(q "SELECT sum(rwbs LIKE 'R%') || ' ' || sum(rwbs LIKE 'W%' OR rwbs LIKE 'D%') FROM requests WHERE run = $(rid fio3) AND bytes > 0")" \
	"$("$IOTAPE" report --db "$db" --json fio3 | jq -r '[.devices[] | .read.requests] as $r | [.devices[] | .write.requests] as $w |
	"\($r | add) \($w | add)"')"
check_eq "fio v2: the I/O after 'wait 400' is at 400 ms" \
	"$(awk '$2 == "wait" && $3 > m { m = $3 } END { print m * 1000000 }' "$F/fio-v2.iolog")" \
	"$(q "SELECT max(q_ns) FROM requests WHERE run = $(rid fio2)")"

# iostat -x: samples named DEVICE:COLUMN; joins an existing run
"$IOTAPE" import --quiet --db "$db" --run withio "$FIXTURES/loop-fio-small.bin"
if imp withio "$F/iostat-x-12.log" --interval 1; then
	check_iostat withio "$F/iostat-x-12.log"
	check_eq "iostat: sda:r/s and nvme0n1:%util of the first report (read off the log)" "6.5 1.95" \
		"$(q "SELECT (SELECT value FROM samples WHERE run = $(rid withio) AND key = 'sda:r/s' ORDER BY time_ns LIMIT 1),
		      (SELECT value FROM samples WHERE run = $(rid withio) AND key = 'nvme0n1:%util' ORDER BY time_ns LIMIT 1)" | tr '|' ' ')"
	check_eq "iostat: joined, no second run" 1 "$(q "SELECT count(*) FROM runs WHERE name LIKE 'withio%'")"
fi
# the other layouts and column sets; reports on the log's own clock when it
# prints times
for spec in x-12-pretty:assumed:1 xmt-11:timestamps:3 dx-comma:assumed:1 d-iso:timestamps:5; do
	IFS=: read -r name from every <<< "$spec"
	imp "io-$name" "$F/iostat-$name.log" || continue
	check_iostat "io-$name" "$F/iostat-$name.log"
	check_eq "io-$name: interval $every s ($from)" "$every $from" \
		"$(q "SELECT value FROM run_stats WHERE run = $(rid "io-$name") AND key IN ('iostat.interval_s', 'iostat.interval_from')
		      ORDER BY key DESC" | paste -sd' ')"
done

# iotape iostat shows an imported log: the trace's table for a traced run
# (--source log for its log), the log's reports for a run of the log alone;
# a --pretty log's split read and write parts meet in one row per device
ios() { "$IOTAPE" iostat --db "$db" "$@"; }
check_eq "iostat of a traced run with a log: the trace's devices by default" "7,0" \
	"$(ios withio | awk 'NR > 1 && NF == 10 { print $2 }' | sort -u)"
ios withio --source log > "$t/withio-log.txt"
ios io-x-12-pretty > "$t/pretty.txt"
check_eq "iostat --source log: the log's devices, the first report 'boot'" "boot dm-0 boot nvme0n1 boot sda" \
	"$(awk 'NR > 1 && NF == 10 && $1 == "boot" { printf "%s%s %s", n++ ? " " : "", $1, $2 }' "$t/withio-log.txt")"
check_eq "iostat: a --pretty log reads as the plain one (rows past the time column)" \
	"$(awk 'NF == 10 { $1 = ""; print }' "$t/withio-log.txt")" "$(awk 'NF == 10 { $1 = ""; print }' "$t/pretty.txt")"
# sda in the second report, from the stored samples, against the table's row
want=$(q "SELECT group_concat(printf('%.2f', value), ' ') FROM (SELECT value FROM samples
	WHERE run = $(rid io-x-12-pretty) AND key IN ('sda:r/s', 'sda:w/s', 'sda:r_await', 'sda:w_await', 'sda:aqu-sz', 'sda:%util')
	AND time_ns = (SELECT DISTINCT time_ns FROM samples WHERE run = $(rid io-x-12-pretty) ORDER BY time_ns LIMIT 1 OFFSET 1)
	ORDER BY CASE key WHEN 'sda:r/s' THEN 1 WHEN 'sda:w/s' THEN 2 WHEN 'sda:r_await' THEN 3 WHEN 'sda:w_await' THEN 4
		WHEN 'sda:aqu-sz' THEN 5 ELSE 6 END)")
check_eq "iostat log: sda's second report as stored (r/s w/s r_await w_await aqu-sz %util)" "$want" \
	"$(awk '$1 != "boot" && $2 == "sda" { print $3, $4, $7, $8, $9, $10 }' "$t/pretty.txt")"
# sysstat 11's rMB/s in kB/s
want=$(q "SELECT printf('%.2f', value * 1024) FROM samples WHERE run = $(rid io-xmt-11) AND key = 'sdb:rMB/s'
	ORDER BY time_ns LIMIT 1 OFFSET 1")
check_eq "iostat log, sysstat 11: rkB/s from rMB/s x 1024" "$want" \
	"$(ios io-xmt-11 | awk '$1 != "boot" && $2 == "sdb" { print $5; exit }')"
check_eq "iostat log --json: every column of the log (sysstat 11's svctm)" "true" \
	"$(ios io-xmt-11 --json | jq '.source == "log" and (.rows[0] | has("svctm"))')"
check_eq "report on a log-only run points at iotape iostat" "1" \
	"$("$IOTAPE" report --db "$db" io-x-12-pretty | grep -c 'samples only: see iotape iostat')"
# device names wider than the column: whole, on a line of their own, never cut
# to another device's name (nvme0n1p1 and nvme0n1p12 would both read nvme0n1p)
{ printf 'Linux 6.1 (h) \t12/04/26 \t_x86_64_\t(2 CPU)\n\nDevice            r/s     w/s  %%util\n'
  printf 'nvme0n1p1       10.00   20.00  30.00\nnvme0n1p12     100.00  200.00  99.00\n'
  printf 'vg_data-lv_wal   5.00    5.00   5.00\n\n'
  printf 'Device            r/s     w/s  %%util\nsdz   1.00 123456789012345678901.00 2.00\n\n'; } > "$t/long.log"
if imp longdev "$t/long.log" --interval 1 2> "$t/err"; then
	ios longdev > "$t/long.txt"
	check_eq "iostat log: long device names whole on their own lines" "nvme0n1p1 nvme0n1p12 vg_data-lv_wal" \
		"$(awk '$1 == "boot" && NF == 2 { printf "%s%s", n++ ? " " : "", $2 }' "$t/long.txt")"
	check_eq "iostat log: every line in 80 columns, a huge value as an exponent" "0 1.2e+20" \
		"$(awk 'length > 80' "$t/long.txt" | wc -l) $(awk '$2 == "sdz" { print $4 }' "$t/long.txt")"
else
	not_ok "import a log of long device names" "$(cat "$t/err")"
fi
# a log copied while iostat wrote it: its last row cut inside a value ("99.6"
# of 99.60) is left out with a warning naming the line, never stored as 99.6
f12=$F/iostat-x-12.log
head -c "$(( $(grep -b -o '99\.60' "$f12" | tail -n 1 | cut -d: -f1) + 4 ))" "$f12" > "$t/cut.log"
"$IOTAPE" import --db "$db" --run iocut --interval 1 "$t/cut.log" > /dev/null 2> "$t/err"; rc=$?
check_eq "iostat log cut short: exit 0, one warning naming its last line, sda's cut row not stored" \
	"0 1 0 5" "$rc $(grep -c "cut.log: line $(wc -l < "$t/cut.log" | awk '{ print $1 + 1 }'): the last line is cut short" "$t/err") $(q "SELECT count(*) FROM samples WHERE run = $(rid iocut) AND key = 'sda:%util' AND value BETWEEN 99 AND 100") $(q "SELECT count(*) FROM samples WHERE run = $(rid iocut) AND key LIKE '%:%util'")"
# a trace copied while it was written: its last line cut inside a number
# (no newline: "write 4096 40" of 4096, ResponseTime 44 of 4470) is left
# out with a warning naming its line and a note, never stored as 40 or 44
cut_case() {  # cut_case FILE TEXT: TEXT with its second I/O line cut
	printf '%s' "$2" > "$t/$1"
	"$IOTAPE" import --db "$db" --run "$1" "$t/$1" > /dev/null 2> "$t/err"; rc=$?
	check_eq "$1, last line cut short: exit 0, one warning naming it, one I/O stored, a note" \
		"0|1|1|1|1" "$rc|$(grep -c warning "$t/err")|$(grep -cF "warning: $t/$1: line $(( $(wc -l < "$t/$1") + 1 )): the last line is cut short (no newline); left out" "$t/err")|$(q "SELECT
			count(*) FROM requests WHERE run = $(rid "$1")")|$(q "SELECT notes LIKE '%line % was cut short%left out%' FROM runs WHERE id = $(rid "$1")")"
}
cut_case cut-fio.iolog "$(printf 'fio version 3 iolog\n0 /dev/sdb add\n5 /dev/sdb write 0 4096\n6 /dev/sdb write 4096 40')"
cut_case cut-msr.csv "$(printf '128166372001234567,web,0,Write,8599642112,4096,12034\n128166372001240311,web,1,Read,1073741824,65536,44')"
cut_case cut-systor.csv "$(printf 'Timestamp,Response,IOType,LUN,Offset,Size\n1480000000.000017000,0.000806000,R,0,1099511627776,131072\n1480000000.000020000,0.018646000,R,1,184070512,16')"
cut_case cut-cp.csv "$(printf 'version,time,op,size,lbn\n1,4211000,2a,4096,73400320\n1,4211001,2a,4096,4751')"
cut_case cut-blkreplay.load "$(printf 'start ; sector; length ; op ; replay_delay=0 ; replay_duration=0\n 1.5 ; 100 ; 8 ; R ; 0.0 ; 0.0\n 1.6 ; 200 ; 256 ; W ; 0.0 ; 0.00')"
# a NUL byte inside a number of a text line (a block a crash left zeroed, a
# binary file): refused naming the file, line and byte, no run stored; it
# was read as a C string, "40<NUL>96" as 40
nul_case() {  # nul_case FILE LINE BYTE PRINTF-FORMAT: its \000 at BYTE of LINE
	printf "$4" > "$t/$1"
	"$IOTAPE" import --db "$db" --run "$1" "$t/$1" > /dev/null 2> "$t/err"; rc=$?
	check_eq "$1, a NUL byte in line $2: exit 1, one line naming file, line and byte, no run" \
		"1|1|1|0" "$rc|$(wc -l < "$t/err")|$(grep -cF "$t/$1: line $2: a NUL byte (byte $3 of the line): not a text line" "$t/err")|$(q "SELECT
			count(*) FROM runs WHERE name = '$1'")"
}
nul_case nul-fio.iolog 4 20 'fio version 3 iolog\n0 /dev/sdb add\n5 /dev/sdb write 0 4096\n6 /dev/sdb write 40\00096 4096\n'
nul_case nul-msr.csv 2 44 '128166372001234567,web,0,Write,8599642112,4096,12034\n128166372001240311,web,1,Read,1073741824,65\000536,44\n'
nul_case nul-systor.csv 3 50 'Timestamp,Response,IOType,LUN,Offset,Size\n1480000000.000017000,0.000806000,R,0,1099511627776,131072\n1480000000.000020000,0.018646000,R,1,184070512,16\000384\n'
nul_case nul-cp.csv 3 21 'version,time,op,size,lbn\n1,4211000,2a,4096,73400320\n1,4211001,2a,4096,47\00051\n'
nul_case nul-blkreplay.load 3 16 'start ; sector; length ; op ; replay_delay=0 ; replay_duration=0\n 1.5 ; 100 ; 8 ; R ; 0.0 ; 0.0\n 1.6 ; 200 ; 25\0006 ; W ; 0.0 ; 0.0\n'
# in the first 4 KiB, where the formats are told apart, no text format
# takes it: the message says where the NUL is, not "neither a blktrace ..."
printf 'real\t0m1.234s\nuser\t0m0\000.010s\nsys\t0m0.020s\n' > "$t/nul-time.txt"
"$IOTAPE" import --db "$db" --run nul-time "$t/nul-time.txt" > /dev/null 2> "$t/err"; rc=$?
check_eq "a time paste with a NUL byte: exit 1, one line naming its offset, no run" \
	"1|1|1|0" "$rc|$(wc -l < "$t/err")|$(grep -cF "$t/nul-time.txt: offset 22: a NUL byte in a text file: no text format has one" "$t/err")|$(q "SELECT
		count(*) FROM runs WHERE name = 'nul-time'")"
nul_case nul-iostat.log 5 27 'Linux 6.1 (h) \t12/04/26 \t_x86_64_\t(2 CPU)\n\nDevice            r/s     w/s  %%util\nsda              1.00    2.00   3.00\nsda              1.00    2\000.00   3.00\n\n'
nul_case nul-vmstat.log 3 21 'procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----\n r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n 1  0      0 2214579\0002  50328 2371304    0    0     0   788  121  109  1  1 99  0  0\n'
nul_case nul-blkparse.txt 2 52 '  8,0    0        1     0.000000000  1234  Q   R 1000 + 8 [dd]\n  8,0    0        2     0.000001000  1234  D   R 10\00000 + 8 [dd]\n'
# a UTF-8 byte order mark before the first line (a Windows editor's save):
# every text format reads the file as without it, the same rows stored
for f in fio-v2.iolog fio-v3.iolog msr-web.csv systor17.csv cloudphysics.csv \
	blkreplay.load iostat-x-12.log time-bash-dd.txt vmstat/plain-1-3.log; do
	src=$F/$f
	[ -e "$src" ] || src=$FIXTURES/$f
	b=bom-${f##*/}
	{ printf '\357\273\277'; cat "$src"; } > "$t/$b"
	"$IOTAPE" import --quiet --db "$db" --run "$b" --interval 1 "$t/$b" 2> "$t/err"; rc=$?
	"$IOTAPE" import --quiet --again --db "$db" --run "nobom-$b" --interval 1 "$src" 2> /dev/null
	rows() { q "SELECT count(*), total(time_ns), total(sector), total(bytes) FROM events WHERE run = $(rid "$1");
		SELECT count(*), total(q_ns), total(c_ns), total(bytes) FROM requests WHERE run = $(rid "$1");
		SELECT count(*), total(value), group_concat(DISTINCT key) FROM samples WHERE run = $(rid "$1");
		SELECT count(*), total(real_s), group_concat(argv) FROM commands WHERE run = $(rid "$1")"; }
	if [ "$rc" = 0 ] && [ "$(rows "$b")" = "$(rows "nobom-$b")" ] && [ "$(rows "$b")" != "$(rows none)" ]; then
		ok "$f after a byte order mark: the same rows as without it"
	else
		not_ok "$f after a byte order mark" "exit $rc: $(head -c 300 "$t/err")" "$(rows "$b" | head -c 200)"
	fi
done
# iostat -y: no since-boot report, which sysstat shows by two blank lines
# after the banner (one without -y): its first report is an interval's
{ printf 'Linux 6.1 (h) \t12/04/26 \t_x86_64_\t(2 CPU)\n\n\n'
  printf 'Device            r/s     w/s  %%util\nsda              1.00    2.00   3.00\n\n'
  printf 'Device            r/s     w/s  %%util\nsda              4.00    5.00   6.00\n\n'; } > "$t/y.log"
imp ylog "$t/y.log" --interval 1 2> /dev/null
check_eq "iostat -y log: no report since boot" "0" \
	"$(q "SELECT count(*) FROM samples WHERE run = $(rid ylog) AND key = 'since_boot'")"
# an iostat -t log joined to a traced run: local times with no zone, placed
# at the run's first event, saying so
"$IOTAPE" import --quiet --again --db "$db" --run tjoin "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" import --db "$db" --run tjoin "$F/iostat-xmt-11.log" > /dev/null 2> "$t/err"
check_eq "iostat -t log into a traced run: a warning that it is not placed by the clock" "1" \
	"$(grep -c "carry no time zone: its first report is placed at the first event of run 'tjoin'" "$t/err")"
ios io-x-12-pretty --dev 8,0 > /dev/null 2> "$t/err"; rc=$?
check_eq "iostat log: --dev refused, one line" "1 1" "$rc $(wc -l < "$t/err")"
ios io-x-12-pretty --interval 5 > /dev/null 2> "$t/err"; rc=$?
check_eq "iostat log: --interval refused, one line" "1 1" "$rc $(wc -l < "$t/err")"
ios fio2 --source log > /dev/null 2> "$t/err"; rc=$?
check_eq "iostat --source log on a run without a log: exit 1, saying so" "1 1" \
	"$rc $(grep -c 'has no iostat log' "$t/err")"

# time/dd: each timed command with its real/user/sys and dd's records
if imp tdd "$F/time-bash-dd.txt"; then
	check_time tdd "$F/time-bash-dd.txt"
	check_eq "time: the second is 'sync', the first dd's records are kept" \
		"sync|2048+0 in, 2048+0 out" \
		"$(q "SELECT argv FROM commands WHERE idx = 1 AND run = $(rid tdd);
		      SELECT value FROM run_stats WHERE key = 'command.0.dd_records' AND run = $(rid tdd)" | paste -sd'|')"
fi
imp tgnu "$F/time-gnu-zsh-dd.txt" &&
	check_eq "time: GNU time, -v, time -p, zsh and two dd alone: 6 commands, exit status 1 kept" "6 1" \
		"$(q "SELECT count(*), max(status) FROM commands WHERE run = $(rid tgnu)" | tr '|' ' ')"
# each report pasted alone, as this machine's tools print them (the sniff
# once wanted two of its marks, and only bash's report had two)
printf 'sleep 0.1  0.00s user 0.00s system 1%% cpu 0.102 total\n' > "$t/t-zsh.txt"
printf '0.00user 0.00system 0:00.10elapsed 0%%CPU (0avgtext+0avgdata 1680maxresident)k\n0inputs+0outputs (0major+100minor)pagefaults 0swaps\n' > "$t/t-gnu.txt"
printf '\tCommand being timed: "sleep 0.1"\n\tUser time (seconds): 0.00\n\tSystem time (seconds): 0.00\n\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:00.10\n\tExit status: 0\n' > "$t/t-gnuv.txt"
printf 'real 0.10\nuser 0.00\nsys 0.00\n' > "$t/t-p.txt"
for k in zsh gnu gnuv p; do
	"$IOTAPE" import --quiet --db "$db" --run "t-$k" "$t/t-$k.txt" 2> "$t/err"
	check_eq "time: a $k report alone: imported as time-text, one command" \
		"0|time-text|1" "$?|$(q "SELECT format FROM runs WHERE name = 't-$k'")|$(q "SELECT count(*) FROM commands WHERE run = $(rid t-$k)")"
done
# a command line of 45 KB (a shell glob's expansion) before bash's report:
# the first 16 KB the sniff reads are that one line
{ printf '$ time tar cf /dev/null'
  for i in $(seq 1500); do printf ' /some/long/path/file%05d.dat' "$i"; done
  printf '\n\nreal\t0m2.345s\nuser\t0m0.100s\nsys\t0m0.400s\n'; } > "$t/t-long.txt"
"$IOTAPE" import --quiet --db "$db" --run t-long "$t/t-long.txt" 2> "$t/err"
check_eq "time: a paste whose command line is 45 KB: imported, its real time kept" \
	"0|time-text|2.345" "$?|$(q "SELECT format FROM runs WHERE name = 't-long'")|$(q "SELECT real_s FROM commands WHERE run = $(rid t-long)")"

# ---- real files, where they live ----

# fio's own t0038 regression log, in the corpus
CORPUS=$(corpus_dir) || CORPUS=
if [ -n "$CORPUS" ]; then
	imp t0038 "$CORPUS/fio-t0038-iolog/t0038.iolog" &&
		check_fio t0038 "$CORPUS/fio-t0038-iolog/t0038.iolog"
else
	skip "fio's t0038 iolog" "corpus absent"
fi

# iostat on the corpus's recorded /proc (sysstat's own test snapshots root1
# and root2, the source of its expected.iostat-x): diskstats read through
# `iostat -f DIR`, /proc/stat and a made-up /proc/uptime (1000 s, then 1002 s)
# bound over in a private mount namespace, swapped while iostat waits for
# its second report. The figures iotape stores are worked out again here
# from the /proc files with iostat(1)'s formulas.
S=$CORPUS/sysstat-proc-snapshots
if [ -z "$CORPUS" ]; then
	skip "iostat on the corpus's /proc snapshots" "corpus absent"
elif [ "$(id -u)" != 0 ] || ! command -v iostat > /dev/null || ! command -v unshare > /dev/null; then
	skip "iostat on the corpus's /proc snapshots" "needs root, iostat and unshare"
else
	mkdir -p "$t/procdir"
	echo "1000.00 3000.00" > "$t/uptime1"
	echo "1002.00 3004.00" > "$t/uptime2"
	for try in 1 2 3; do   # the swap must come before iostat's second read, 1 s on
		ln -sfn "$S/root1_proc_diskstats" "$t/procdir/diskstats"
		LC_ALL=C timeout 30 unshare -m --propagation private bash -c '
			mount --bind "$1/root1_proc_stat" /proc/stat &&
				mount --bind "$2/uptime1" /proc/uptime || exit 1
			iostat -x -p ALL -t -f "$2/procdir" 1 2 > "$2/iostat-corpus.log" &
			pid=$!
			for i in $(seq 300); do
				grep -q "^Device" "$2/iostat-corpus.log" && break
				sleep 0.01
			done
			mount --bind "$1/root2_proc_stat" /proc/stat &&
				mount --bind "$2/uptime2" /proc/uptime &&
				ln -sfn "$1/root2_proc_diskstats" "$2/procdir/ds.new" &&
				mv -T "$2/procdir/ds.new" "$2/procdir/diskstats"
			wait $pid' _ "$S" "$t" 2> "$t/err"
		# in time: sdq, idle in root1, read 200 I/Os by root2
		awk '$1 == "sdq" { n++; v = $2 } END { exit !(n == 2 && v > 0) }' "$t/iostat-corpus.log" && break
		diag "iostat on the snapshots, try $try: the second report missed the swap"
	done
	if imp iocorpus "$t/iostat-corpus.log"; then
		check_iostat iocorpus "$t/iostat-corpus.log"
		d1=$S/root1_proc_diskstats d2=$S/root2_proc_diskstats
		want=$(awk 'FNR == 1 { f++ }
			$3 == "sda" && f == 1 { printf "%.2f ", $4 / 1000 }           # r/s since boot
			$3 == "sdq" { rd[f] = $4 }
			$3 == "sdr" { w[f] = $8; wt[f] = $11; io[f] = $13 }
			END { printf "%.2f %.2f %.2f", (rd[2] - rd[1]) / 2,            # r/s over 2 s
				(wt[2] - wt[1]) / (w[2] - w[1]),                      # w_await, ms
				(io[2] - io[1]) / 2000 * 100 }' "$d1" "$d2")            # %util
		want="$want $(awk '$1 == "cpu" { f++; t[f] = $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; i[f] = $5; o[f] = $6 }
			END { printf "%.2f %.2f", o[1] / t[1] * 100, (i[2] - i[1]) / (t[2] - t[1]) * 100 }' \
			"$S/root1_proc_stat" "$S/root2_proc_stat")"
		v() { q "SELECT printf('%.2f', value) FROM samples WHERE run = $(rid iocorpus) AND key = '$1'
			ORDER BY time_ns LIMIT 1 OFFSET $2"; }
		diag "iostat on the snapshots: $want"
		check_eq "iostat on the snapshots: sda r/s since boot; sdq r/s, sdr w_await and %util over 2 s; %iowait since boot, %idle over 2 s" \
			"$want" "$(v sda:r/s 0) $(v sdq:r/s 1) $(v sdr:w_await 1) $(v sdr:%util 1) $(v cpu:%iowait 0) $(v cpu:%idle 1)"
	fi
fi

# the published traces of tests/fixtures/README.md, where someone keeps them:
# each told from its content and given its format's checks
if [ -n "${IOTAPE_INTEROP_DIR:-}" ] && [ -d "$IOTAPE_INTEROP_DIR" ]; then
	n=0
	for f in "$IOTAPE_INTEROP_DIR"/*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		imp "real$n" "$f" || continue
		fmt=$(q "SELECT format FROM runs WHERE name = 'real$n' OR name LIKE 'real$n-%' LIMIT 1")
		diag "$IOTAPE_INTEROP_DIR: $(basename "$f") is $fmt, run real$n"
		if [ -z "$(q "SELECT 1 FROM runs WHERE name = 'real$n'")" ]; then
			diag "$(basename "$f"): several runs (hosts), not checked"
			continue
		fi
		case $fmt in
		msr-csv) check_msr "real$n" "$f" ;;
		systor17-csv) check_systor "real$n" "$f" ;;
		cloudphysics-csv) check_cloudphysics "real$n" "$f" ;;
		blkreplay-load) check_load "real$n" "$f" ;;
		fio-iolog) check_fio "real$n" "$f" ;;
		iostat-text) check_iostat "real$n" "$f" ;;
		time-text) check_time "real$n" "$f" ;;
		*) diag "$(basename "$f"): no check for $fmt" ;;
		esac
	done
else
	skip "published traces (MSR, SYSTOR, CloudPhysics, blkreplay, sysstat, LKML)" "IOTAPE_INTEROP_DIR unset"
fi

# bad inputs: one line naming the file and line, nothing stored
before=$(counted)
for f in fio-v3-bad-offset.iolog:9 msr-bad-type.csv:3 systor17-short-line.csv:4 \
	 cloudphysics-bad-lbn.csv:4 blkreplay-bad-op.load:12 iostat-short-row.log:8 \
	 time-bad-real.txt:19; do
	name=${f%:*} line=${f#*:}
	"$IOTAPE" import --db "$db" "$B/$name" > /dev/null 2> "$t/err"; rc=$?
	after=$(counted)
	if [ $rc = 1 ] && [ "$(wc -l < "$t/err")" = 1 ] && grep -q "$name: line $line: " "$t/err" &&
	   [ "$after" = "$before" ]; then
		ok "bad $name: $(cat "$t/err")"
	else
		not_ok "bad $name" "exit $rc: $(cat "$t/err")" "db before '$before' after '$after'"
	fi
done

# hex, inf and nan where a log has a number: refused as the bad fixtures are
# (strtod() took real 0x10.0s as 16 s and an iostat value 0x1p4 as 16)
# badnum DESC FILE LINE MESSAGE: import FILE fails with one line naming FILE,
# LINE and MESSAGE, nothing stored
badnum() {
	"$IOTAPE" import --db "$db" "$2" > /dev/null 2> "$t/err"; rc=$?
	after=$(counted)
	if [ $rc = 1 ] && [ "$(wc -l < "$t/err")" = 1 ] && [ "$after" = "$before" ] &&
	   grep -qF "$(basename "$2"): line $3: $4" "$t/err"; then
		ok "$1: $(cat "$t/err")"
	else
		not_ok "$1" "exit $rc: $(cat "$t/err")" "want 'line $3: $4'; db before '$before' after '$after'"
	fi
}
# a vmstat -t log whose clock steps back an hour (daylight saving time's
# end): its rows were piled onto one instant, silently; now a warning names
# the line and the step, and the rows go on one interval apart
{ printf 'procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----\n'
  printf ' r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 CET\n'
  for i in 0 1 2 3 4 5 6 7; do
	if [ $i -lt 4 ]; then ts="2026-10-25 02:59:5$((7 + i))"; [ $i -ge 3 ] && ts="2026-10-25 03:00:00"
	else ts="2026-10-25 02:00:0$((i - 4))"; fi
	printf ' 1  0 0 2214579%d 50328 2371304 0 0 0 %d 122 110 1 1 99 0 0 %s\n' "$i" "$((100 + i))" "$ts"
  done
  # a second invocation, on the stepped clock: after the first's rows
  printf '\nprocs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----\n'
  printf ' r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 CET\n'
  printf ' 1  0 0 22145798 50328 2371304 0 0 0 108 122 110 1 1 99 0 0 2026-10-25 02:00:10\n'
  printf ' 1  0 0 22145799 50328 2371304 0 0 0 109 122 110 1 1 99 0 0 2026-10-25 02:00:11\n'; } > "$t/vm-dst.log"
"$IOTAPE" import --db "$db" --run vmdst "$t/vm-dst.log" > /dev/null 2> "$t/err"; rc=$?
check_eq "vmstat -t, the clock back 3600 s at line 7: exit 0, a warning naming it, the rows 1 s apart, a later invocation after them" \
	"0|1|0 1 2 3 4 5 6 7 14 15" "$rc|$(grep -c "vm-dst.log: line 7: the timestamps go back 3600 s" "$t/err")|$(q "SELECT
		DISTINCT (time_ns - (SELECT min(time_ns) FROM samples WHERE run = $(rid vmdst))) / 1000000000 FROM samples
		WHERE run = $(rid vmdst) ORDER BY 1" | paste -sd' ')"
before=$(counted)
# dump of a run with no block events (an iostat log alone) says so on
# stderr, rather than printing nothing
"$IOTAPE" dump --db "$db" io-x-12-pretty > "$t/out" 2> "$t/err"; rc=$?
check_eq "dump of an iostat log's run: no output, one line saying it has no block events, exit 0" \
	"0|0|1" "$rc|$(wc -c < "$t/out")|$(grep -c "run 'io-x-12-pretty' has no block events" "$t/err")"
# a text trace imported a second time is refused without --again, as a
# blktrace input is (it made fio-v2 and fio-v2-2, silently)
d2=$t/twice.db
"$IOTAPE" import --quiet --db "$d2" "$F/fio-v2.iolog"
"$IOTAPE" import --db "$d2" "$F/fio-v2.iolog" > /dev/null 2> "$t/err"; rc=$?
"$IOTAPE" import --quiet --again --db "$d2" "$F/fio-v2.iolog"; rc2=$?
check_eq "a fio log imported twice: refused naming the run, then imported with --again" \
	"1|1|0|2" "$rc|$(grep -c "fio-v2.iolog: already imported as run 'fio-v2' (id 1, the same SHA-256); give --again" "$t/err")|$rc2|$(sqlite3 "$d2" "SELECT count(*) FROM runs")"
# imported with --again, a trace keeps its SHA-256 all the same: the next
# import without it is refused; a paste into a new run named by --run is
# checked as one into a run named after the file
"$IOTAPE" import --quiet --again --db "$t/again.db" "$F/fio-v3.iolog"
"$IOTAPE" import --quiet --db "$t/again.db" "$F/fio-v3.iolog" 2> /dev/null; rc=$?
"$IOTAPE" import --quiet --db "$t/again.db" "$F/time-bash-dd.txt"
"$IOTAPE" import --quiet --db "$t/again.db" --run newname "$F/time-bash-dd.txt" 2> /dev/null; rc2=$?
check_eq "after --again, the same trace refused; a paste again into a new --run, refused" "1 1 2" \
	"$rc $rc2 $(sqlite3 "$t/again.db" "SELECT count(*) FROM runs")"
# a time paste joined twice to one run doubled its commands; now refused
# without --again, naming the run
"$IOTAPE" import --quiet --db "$d2" --run fio-v2 "$F/time-bash-dd.txt"
"$IOTAPE" import --db "$d2" --run fio-v2 "$F/time-bash-dd.txt" > /dev/null 2> "$t/err"; rc=$?
check_eq "a time paste joined twice to a run: refused, naming the run; its commands once" \
	"1|1|$(grep -c '^real' "$F/time-bash-dd.txt")" "$rc|$(grep -c "time-bash-dd.txt: already imported into run 'fio-v2' (the same SHA-256); give --again" "$t/err")|$(sqlite3 "$d2" "SELECT
		count(*) FROM commands WHERE run = (SELECT id FROM runs WHERE name = 'fio-v2')")"
# a text trace named by digits alone is run-N, as a binary one is (it was
# import-N, where import --help says "7.bin: run-7")
cp "$F/fio-v2.iolog" "$t/7.iolog"
"$IOTAPE" import --again --db "$db" "$t/7.iolog" > /dev/null 2> "$t/err"
check_eq "7.iolog: run 'run-7'" 1 "$(q "SELECT count(*) FROM runs WHERE name = 'run-7'")"
before=$(counted)
# blkreplay: a data line mistyped after the first I/O (an exponent, a sign,
# a decimal comma) was passed over as text, its I/O lost, exit 0; INFO
# lines after the I/O still go by
printf 'start ; sector; length ; op ;  replay_delay=0 ; replay_duration=0\n 0.5 ; 5 ; 8 ; W ; 0.0 ; 0.0\n 1.5e0 ; 9 ; 8 ; R ; 0.0 ; 0.0\n' > "$t/br-exp.load"
badnum "blkreplay: a data line with an exponent after the first I/O" "$t/br-exp.load" 3 "not 'start ; sector ; length ; op"
printf 'start ; sector; length ; op\n 0.5 ; 5 ; 8 ; W\n 3,5 ; 17 ; 8 ; W\n' > "$t/br-comma.load"
badnum "blkreplay: a data line with a decimal comma" "$t/br-comma.load" 3 "not 'start ; sector ; length ; op"
printf 'start ; sector; length ; op\n 0.5 ; 5 ; 8 ; W\n 1.5 ; 9 ; 8 ; R\nINFO: done\n%s\n%s\n 2.5 ; 13 ; 8 ; W\n=====\nmeta_ops=12 ; x\n# total 3\n' \
	-------------------------------------- -------------------------------------- > "$t/br-info.load"
"$IOTAPE" import --quiet --db "$db" --run br-info "$t/br-info.load"
check_eq "blkreplay: INFO, blkreplay's '-----' and '=====' lines and its summary after the I/O go by" 3 \
	"$(q "SELECT count(*) FROM requests WHERE run = $(rid br-info)")"
before=$(counted)
# an issue time near the largest time stored, plus its response: past it
# (a signed overflow: the completion was stored at -9223372036.8 s)
printf 'Timestamp,Response,IOType,LUN,Offset,Size\n9223372036.800000000,0.1,R,0,4096,4096\n' > "$t/systor-max.csv"
badnum "SYSTOR: Timestamp + Response past 2^63 ns" "$t/systor-max.csv" 2 \
	"Timestamp + Response is past the largest time iotape stores"
printf '%s,web,0,Read,4096,4096,100\n' "$((116444736000000000 + 92233720368547758 - 5))" > "$t/msr-max.csv"
badnum "MSR: Timestamp + ResponseTime past 2^63 ns" "$t/msr-max.csv" 1 \
	"Timestamp + ResponseTime is past the largest time iotape stores"
sed '8s/0m3.921s/0x10.0s/' "$F/time-bash-dd.txt" > "$t/time-hex.txt"
badnum "time paste: real 0x10.0s" "$t/time-hex.txt" 8 "bad real time '0x10.0s'"
sed '7s/^0.00user/0x1user/' "$F/time-gnu-zsh-dd.txt" > "$t/time-gnu-hex.txt"
badnum "time paste: GNU time's 0x1user" "$t/time-gnu-hex.txt" 7 "bad user time '0x1'"
sed '40s/2.417 total/inf total/' "$F/time-gnu-zsh-dd.txt" > "$t/time-zsh-inf.txt"
badnum "time paste: zsh's inf total" "$t/time-zsh-inf.txt" 40 "bad total time 'inf'"
for v in 0x1p4 0x10 inf nan 1.4e2; do
	sed "11s/140.00/$v/" "$F/iostat-d-iso.log" > "$t/iostat-$v.log"
	badnum "iostat value $v" "$t/iostat-$v.log" 11 "bad value '$v' for tps"
done
# a report's line that holds no time is named, not "no timed command"
printf '$ time make\nreal\tabc\nuser\t0m0.1s\nsys\t0m0.1s\n' > "$t/time-abc.txt"
badnum "time paste: real abc" "$t/time-abc.txt" 2 "bad real time 'abc'"
# a time no command takes: refused, not stored as no time at all
printf '$ time make\nreal\t99999999999m0.000s\nuser\t0m0.1s\nsys\t0m0.1s\n' > "$t/time-huge.txt"
badnum "time paste: real 99999999999m" "$t/time-huge.txt" 2 "bad real time '99999999999m0.000s'"
# a paste's last line without a newline: kept when it reads whole, left out
# (warned) when its value is cut ("0m0.0" of "0m0.010s", dd's "2.9 GB/"),
# and the time it held is unknown, not 0 s
printf '$ time make\nreal\t0m1.234s\nuser\t0m0.010s\nsys\t0m0.0' > "$t/time-cut.txt"
printf '$ time make\nreal\t0m1.234s\nuser\t0m0.010s\nsys\t0m0.020s' > "$t/time-nonl.txt"
"$IOTAPE" import --db "$db" --run tcut "$t/time-cut.txt" 2> "$t/err"; rc=$?
"$IOTAPE" import --db "$db" --run tnonl "$t/time-nonl.txt" 2>> "$t/err"
check_eq "time paste, last line cut ('sys 0m0.0'): warned, its sys time unknown; whole with no newline: kept" \
	"0|1|$t/time-cut.txt: line 4: the last line is cut short (no newline); left out|1.234 0.01 -|0.02" \
	"$rc|$(grep -c warning "$t/err")|$(grep -o "$t/time-cut.txt: line 4: .*" "$t/err")|$(q "SELECT real_s || ' ' || user_s || ' ' || coalesce(sys_s, '-') FROM commands WHERE run = $(rid tcut)")|$(q "SELECT sys_s FROM commands WHERE run = $(rid tnonl)")"
"$IOTAPE" mail --db "$db" -o "$t/tcut-mail" tcut tnonl > /dev/null 2>&1
check_eq "mail of it: the unknown sys time as '-', not 'nan s'" "1|0" \
	"$(cat "$t/tcut-mail"/* 2> /dev/null | grep -c 'real 1.23 s, user 0.01 s, sys -, exit 0')|$(cat "$t/tcut-mail"/* 2> /dev/null | grep -ci nan)"
printf '$ time dd if=/dev/zero of=/dev/null bs=1M count=100\n100+0 records in\n100+0 records out\n104857600 bytes (105 MB, 100 MiB) copied, 0.0357 s, 2.9 GB/' > "$t/dd-cut.txt"
"$IOTAPE" import --db "$db" --run ddcut "$t/dd-cut.txt" > /dev/null 2> "$t/err"
check_eq "dd's rate line cut ('2.9 GB/'): warned and left out, not read as a rate" \
	"1|1" "$(grep -c "dd-cut.txt: line 4: the last line is cut short" "$t/err")|$(q "SELECT count(*) = 0 FROM runs WHERE name = 'ddcut'")"
# dd under a locale with a decimal comma (LC_NUMERIC=de_DE.UTF-8), as bash's
# time under it: its seconds and rate read, not the line passed over
printf 'real\t0m1,234s\nuser\t0m0,010s\nsys\t0m0,020s\n2+0 records in\n2+0 records out\n2097152 bytes (2,1 MB, 2,0 MiB) copied, 0,0123 s, 170 MB/s\n' > "$t/dd-comma.txt"
"$IOTAPE" import --quiet --db "$db" --run ddcomma "$t/dd-comma.txt"
check_eq "dd with a decimal comma ('0,0123 s, 170 MB/s'): its bytes, seconds and rate" \
	"2097152|0.0123|170000000" "$(q "SELECT group_concat(value, '|') FROM (SELECT value FROM run_stats WHERE run = $(rid ddcomma)
		AND key IN ('command.1.dd_bytes', 'command.1.dd_seconds', 'command.1.dd_bytes_per_s') ORDER BY key = 'command.1.dd_bytes_per_s', key)")"
before=$(counted)
printf '$ time make\nuser\t0m0.1s\nsys\t0m0.1s\n' > "$t/time-noreal.txt"
badnum "time paste: user and sys, no real" "$t/time-noreal.txt" 2 \
	"a time report without its real time"
# an MSR file whose first line has a bad number: the line and field named,
# not "neither a blktrace trace ... nor another format"
sed '1s/^128166372001234567/12816637200123x567/' "$F/msr-web.csv" > "$t/msr-ts.csv"
badnum "MSR first line, bad Timestamp" "$t/msr-ts.csv" 1 "bad Timestamp '12816637200123x567'"
# every per-I/O format quotes the bad value, as MSR and fio do
sed '2s/,0\.000806000,/,0.0008x06000,/' "$F/systor17.csv" > "$t/systor-resp.csv"
badnum "SYSTOR bad Response, quoted" "$t/systor-resp.csv" 2 "bad Response '0.0008x06000'"
sed '2s/^1,/1x,/' "$F/cloudphysics.csv" > "$t/cp-ver.csv"
badnum "CloudPhysics bad version, quoted" "$t/cp-ver.csv" 2 "bad version '1x'"
sed '1s/,8599642112,/,-8599642112,/' "$F/msr-web.csv" > "$t/msr-off.csv"
badnum "MSR first line, bad Offset" "$t/msr-off.csv" 1 "bad Offset '-8599642112'"
# 2^64 - 1 bytes: no disk's offset (export then wrote a fio iolog fio refuses)
sed '3s/,25125453824,/,18446744073709551615,/' "$F/msr-web.csv" > "$t/msr-huge.csv"
badnum "MSR Offset 2^64 - 1" "$t/msr-huge.csv" 3 "bad Offset '18446744073709551615'"
# no iostat column is ever below 0
sed '11s/140.00/-140.00/' "$F/iostat-d-iso.log" > "$t/iostat-neg.log"
badnum "iostat value -140.00" "$t/iostat-neg.log" 11 "bad value '-140.00' for tps"

# real fio --write_iolog output: the log's I/Os are fio's own count
if command -v fio > /dev/null; then
	fio --name=w --filename="$t/fio.data" --size=4m --rw=randrw --bs=4k --io_size=2m \
		--ioengine=psync --write_iolog="$t/fio.iolog" --output-format=json \
		--output="$t/fio.json" > /dev/null 2>&1
	if [ -s "$t/fio.iolog" ] && imp fiolive "$t/fio.iolog"; then
		check_eq "fio --write_iolog: reads and writes as fio counted them" \
			"$(jq -r '.jobs[0] | "\(.read.total_ios) \(.write.total_ios)"' "$t/fio.json")" \
			"$(q "SELECT sum(rwbs = 'R'), sum(rwbs = 'W') FROM requests WHERE run = $(rid fiolive)" | tr '|' ' ')"
	else
		not_ok "fio --write_iolog imports" "$(cat "$t/err" 2>/dev/null)"
	fi
else
	skip "fio --write_iolog imports" "fio absent"
fi

# real iostat -x -t output: reports at their printed times
if command -v iostat > /dev/null; then
	iostat -x -t 1 3 > "$t/iostat.log" 2>&1
	if imp iolive "$t/iostat.log"; then
		check_eq "iostat -x -t: 3 reports, interval from the timestamps" "3|timestamps" \
			"$(q "SELECT value FROM run_stats WHERE key IN ('iostat.reports', 'iostat.interval_from')
			      AND run = $(rid iolive) ORDER BY key DESC" | paste -sd'|')"
	fi
else
	skip "iostat -x -t imports" "sysstat absent"
fi
# ---- from public bug reports (issue 25) ----
# blkreplay's own example linux-mysql.load.gz has an RA op: blkreplay reads
# an op by its first character (sscanf "%c"), so RA is a read (readahead)
printf 'start ; sector; length ; op ;  replay_delay=0 ; replay_duration=0\n%s\n%s\n%s\n' \
	'      0.000000000 ;      2097152 ;    8 ; R ; 0.0 ; 0.0' \
	'      0.004118250 ;     31457280 ;   16 ; RA ; 0.0 ; 0.0' \
	'      0.185519483 ;    917877489 ;    8 ; WS ; 0.0 ; 0.0' > "$t/ra.load"
imp ra "$t/ra.load" &&
	check_eq "blkreplay: RA is a read (readahead), WS a sync write" "R|RA|WS" \
		"$(q "SELECT rwbs FROM requests WHERE run = $(rid ra) ORDER BY q_ns" | paste -sd'|')"
# an offset no file position reaches (2^64-1) is refused, naming its line;
# an iolog line stamped before the one before goes after it (fio issues in
# file order), not 292 years away
printf 'fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n100 /dev/sdb read 0 4096\n200 /dev/sdb read 18446744073709551615 4096\n' \
	> "$t/huge.iolog"
n0=$(q "SELECT count(*) FROM runs")
"$IOTAPE" import --db "$db" --run huge "$t/huge.iolog" > /dev/null 2> "$t/err"
check_eq "fio iolog offset 2^64-1: refused with its line, nothing stored" \
	"1|$t/huge.iolog: line 5: offset beyond the largest file position (2^63 - 1 bytes) '18446744073709551615'|$n0" \
	"$?|$(sed 's/^iotape: //' "$t/err")|$(q "SELECT count(*) FROM runs")"
printf 'fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n2000000 /dev/sdb read 0 4096\n3000000 /dev/sdb read 4096 4096\n100 /dev/sdb read 8192 4096\n3000300 /dev/sdb read 12288 4096\n' \
	> "$t/back.iolog"
imp back "$t/back.iolog" &&
	check_eq "fio iolog time going back: in file order at the line before's time, counted; span 1.0003 s" \
		"0|8|16|24 1 1.0003" \
		"$(q "SELECT sector FROM requests WHERE run = $(rid back) ORDER BY q_ns, id" | paste -sd'|') $(q "SELECT value
			FROM run_stats WHERE run = $(rid back) AND key = 'fio_iolog.time_backwards'") $("$IOTAPE" report \
			--db "$db" --json back | jq '.span_s')"
# report of a Q+C-only import (MSR): busy, avg in flight and aqu-sz from Q
# to C, as iostat counts them (they were 0: no D)
"$IOTAPE" report --db "$db" --json msr > "$t/msr.json"
"$IOTAPE" iostat --db "$db" --json --interval 10 msr > "$t/msr-io.json"
check_eq "msr: report's aqu-sz and busy% per device = iostat's over the run" \
	"$(jq -r '.rows[] | "\(.["aqu-sz"] * 100 | round) \(.util * 10 | round)"' "$t/msr-io.json" | paste -sd'|')" \
	"$(jq -r '.time.devices[] | "\(.aqu_sz * 100 | round) \(.util_pct * 10 | round)"' "$t/msr.json" | paste -sd'|')"
jq -e '[.time.devices[] | .aqu_sz > 0.3 and .util_pct > 20] | all' "$t/msr.json" > /dev/null &&
	ok "msr: aqu-sz and busy are not 0" || not_ok "msr: aqu-sz and busy are not 0" "$(jq -c '.time.devices' "$t/msr.json")"
# a capture's rows file (what a capture keeps when it cannot store: capture/
# capture_rows.h), here without a trace: settings, a command whose line holds a
# tab and a newline (escaped), samples, a metric; a bad row names its line
printf '%s\n' 'iotape capture rows 1' 'run	kept' 'genesis	1000' 'kind	capture' \
	'status	interrupted' 'setting	start	vm.dirty_ratio	20' 'device	7340032	loop7	1048576	data' \
	'command	0	1000	2001000	0.002	0	0	0	printf "a\tb"\necho c' \
	'sample	1500	vmstat	pgpgin	12' 'sample	2500	vmstat	pgpgin	14' \
	'metric	tps	949	-	manual' 'stat	backend	tracefs' 'process	42	fio' > "$t/kept.rows"
sed -i 's/\t-\tmanual/\t\tmanual/' "$t/kept.rows"
imp kept-rows "$t/kept.rows" &&
	check_eq "capture rows: the run, its setting, command (escapes undone), samples, metric" \
		"kept-rows capture interrupted|20|$(printf 'printf "a\tb"\necho c' | paste -sd'~')|2|949" \
		"$(q "SELECT name, kind, status FROM runs WHERE id = $(rid kept-rows)" | tr '|' ' ')|$(q "SELECT value
			FROM settings WHERE run = $(rid kept-rows) AND key = 'vm.dirty_ratio'")|$(q "SELECT argv FROM
			commands WHERE run = $(rid kept-rows)" | paste -sd'~')|$(q "SELECT count(*) FROM samples WHERE
			run = $(rid kept-rows)")|$(q "SELECT printf('%g', value) FROM metrics WHERE run = $(rid kept-rows)")"
printf '%s\n' 'iotape capture rows 1' 'run	bad' 'sample	x	vmstat	a	1' > "$t/bad.rows"
n0=$(q "SELECT count(*) FROM runs")
"$IOTAPE" import --db "$db" "$t/bad.rows" > /dev/null 2> "$t/err"
check_eq "capture rows: a bad row refused with its line, nothing stored" \
	"1|iotape: $t/bad.rows: line 3: sample TIME SOURCE KEY VALUE|$n0" \
	"$?|$(cat "$t/err")|$(q "SELECT count(*) FROM runs")"
# four dd run at once under one time (`time ls ... | xargs -P4 dd`): their
# seconds add up past the report's real time, so they are its output, one
# command, not four timed by dd and summed; two dd, each longer than the
# report after them, ran before it: each a command timed by dd
dd_out() { printf '1280+0 records in\n1280+0 records out\n20971520 bytes (21 MB, 20 MiB) copied, %s s, 8.4 MB/s\n' "$1"; }
{ for s in 2.41561 2.50067 2.50665 2.5102; do dd_out $s; done
  printf '\nreal\t0m2.527s\nuser\t0m0.045s\nsys\t0m0.062s\n'; } > "$t/xargs-dd.txt"
{ dd_out 0.61; dd_out 0.62; printf '\nreal\t0m0.100s\nuser\t0m0.000s\nsys\t0m0.001s\n'; } > "$t/seq-dd.txt"
"$IOTAPE" import --quiet --db "$db" --run xdd "$t/xargs-dd.txt" &&
"$IOTAPE" import --quiet --db "$db" --run sdd "$t/seq-dd.txt" &&
check_eq "time paste: four dd at once under one time are one command (their bytes, over its real time)" \
	"1|2.527|83886080|33195916" \
	"$(q "SELECT count(*), max(real_s) FROM commands WHERE run = (SELECT id FROM runs WHERE name = 'xdd')")|$(q "SELECT
		value FROM run_stats WHERE run = (SELECT id FROM runs WHERE name = 'xdd') AND key = 'command.0.dd_bytes'")|$(q "SELECT
		value FROM run_stats WHERE run = (SELECT id FROM runs WHERE name = 'xdd') AND key = 'command.0.dd_bytes_per_s'")"
# (each longer than the report: neither ran under it, so each is a command
# timed by dd and the report one of its own; the second was the report's,
# its 0.62 s of dd within a real time of 0.1 s, before)
check_eq "time paste: two dd one after another, then a shorter report: two timed by dd, then the report's" \
	"0.61;0.62;0.1" "$(q "SELECT real_s FROM commands WHERE run = (SELECT id FROM runs WHERE name = 'sdd') ORDER BY idx" | paste -sd';')"
# three dd one after another under one time (`time (for i in 1 2 3; do dd
# ...; done)`, a trial's refault loop): their seconds (1.275 s) add up to
# about its real time (1.291 s), so they are the loop's output, one command
# with their bytes and records added up (it was three, the first two timed
# by dd: 2.55 s in all); with `dd; dd; dd; time sync` on the paste's line,
# the same output is three commands, the dd ran before the sync
{ printf '$ time (for i in 1 2 3; do dd if=/mnt/ws of=/dev/null bs=1M; done)\n'
  for s in 1.24752 0.0119063 0.0151851; do dd_out $s; done
  printf '\nreal\t0m1.291s\nuser\t0m0.001s\nsys\t0m0.232s\n'; } > "$t/loop-dd.txt"
{ printf '$ dd if=/mnt/ws of=/dev/null; dd if=/mnt/ws of=/dev/null; dd if=/mnt/ws of=/dev/null; time sync\n'
  sed 1d "$t/loop-dd.txt"; } > "$t/dd-sync.txt"
"$IOTAPE" import --quiet --db "$db" --run ldd "$t/loop-dd.txt" &&
"$IOTAPE" import --quiet --db "$db" --run dds "$t/dd-sync.txt" &&
check_eq "time paste: three dd one after another under one time are one command, the loop (their bytes and records)" \
	"1|1.291|(for i in 1 2 3; do dd if=/mnt/ws of=/dev/null bs=1M; done)|62914560|3840+0 in, 3840+0 out" \
	"$(q "SELECT count(*), max(real_s), max(argv) FROM commands WHERE run = $(rid ldd)")|$(q "SELECT value FROM
		run_stats WHERE run = $(rid ldd) AND key IN ('command.0.dd_bytes', 'command.0.dd_records') ORDER BY key" |
		paste -sd'|')"
check_eq "time paste: 'dd; dd; dd; time sync' stays three commands, the sync's real time its own" \
	"3|1.291" "$(q "SELECT count(*), max(real_s) FROM commands WHERE run = $(rid dds)")"
# dd's bytes, seconds and rate are workload metrics, as capture names dd's
# (iotape metric listed the real/user/sys seconds only, and `compare --metric
# cmd1_dd_bytes_per_s` found no figure): the loop's one command, then the
# dd-sync paste's three (cmdN_ before them)
check_eq "time paste: iotape metric lists dd's bytes, seconds and rate (source dd)" \
	"dd_bytes 62914560 bytes dd|dd_bytes_per_s 49359797 bytes/s dd|dd_s 1.27461 s dd" \
	"$("$IOTAPE" metric --db "$db" ldd | awk '$NF == "dd" { print $1, $2, $3, $4 }' | paste -sd'|')"
check_eq "time paste of several commands: cmdN_dd_... as capture names them" \
	"cmd1_dd_bytes_per_s cmd1_dd_s cmd2_dd_bytes_per_s cmd2_dd_s cmd3_dd_bytes_per_s cmd3_dd_s" \
	"$("$IOTAPE" metric --db "$db" dds | awk '/_dd_(s|bytes_per_s) / { print $1 }' | paste -sd' ')"
"$IOTAPE" compare --db "$db" --json --metric cmd1_dd_bytes_per_s ldd sdd > "$t/ddm.json" 2> "$t/err" &&
	check_eq "time paste: compare --metric cmd1_dd_bytes_per_s (a lone command's dd_bytes_per_s), higher is better" \
		"higher is better|49359797|8400000" \
		"$(jq -r '.comparisons[0] | "\(.question.direction)|\(.base_value)|\(.value)"' "$t/ddm.json")" ||
	not_ok "time paste: compare --metric cmd1_dd_bytes_per_s" "$(cat "$t/err")"
tap_finish
