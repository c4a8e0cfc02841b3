# t_export.sh: `iotape export` checked by the tools that read its output.
# blktrace: blkparse prints exactly `iotape dump`'s lines and btt agrees with
# `iotape report` (Q2C, D2C, D2D seeks); importing the export (binary or
# blkparse text) gives the same report; fio replays the fio iolog onto a loop
# device and issues the same I/O count and bytes; the CSV holds every
# request with the store's times. Usage errors leave no file behind.
. "$(dirname "$0")/../lib.sh"

need_iotape "export"
t=$TEST_TMP db=$t/t.db
q() { sqlite3 "$db" "$@"; }
"$IOTAPE" import --quiet --db "$db" --run lf "$FIXTURES/loop-fio-small.bin"
MSR=$FIXTURES/import/msr-web.csv
"$IOTAPE" import --quiet --db "$db" --run msr "$MSR"

# report_body DB RUN: the report without its first lines (which name the run:
# one, or two for a long name), from the blank line after them
report_body() { "$IOTAPE" report --db "$1" "$2" | sed -n '/^$/,$p'; }

# roundtrip RUN DB: blktrace and blkparse exports of RUN import to its report
roundtrip() {
	local run=$1 rdb=$2 fmt
	for fmt in blktrace blkparse; do
		"$IOTAPE" export --quiet --db "$rdb" --format $fmt -o "$t/$run.rt.$fmt" "$run" &&
		"$IOTAPE" import --quiet --db "$t/rt.db" --run "$run-$fmt" "$t/$run.rt.$fmt" ||
			{ not_ok "$run: $fmt export imports"; continue; }
		if cmp -s <(report_body "$rdb" "$run") <(report_body "$t/rt.db" "$run-$fmt"); then
			ok "$run: $fmt export imported again gives the same report"
		else
			not_ok "$run: $fmt round trip" "$(diff <(report_body "$rdb" "$run") \
				<(report_body "$t/rt.db" "$run-$fmt") | head -n 6)"
		fi
	done
}

# blktrace: blkparse and btt read it as iotape does
"$IOTAPE" export --db "$db" --format blktrace -o "$t/lf.bin" lf 2> "$t/err" ||
	not_ok "export --format blktrace" "$(cat "$t/err")"
blkparse_events "$t/lf.bin" > "$t/lf.bp"
compare_dump "$db" lf "$t/lf.bp" "lf blktrace export"
compare_btt "$db" lf "$t/lf.bin" "lf blktrace export"
roundtrip lf "$db"

# a trace with only Q and C (MSR): blkparse prints it as dump does; btt
# pairs its Q and C by sector, as iotape does when it imports the export
# (the MSR run itself pairs them by line: its Q2C is every line's response
# time, where btt refuses a Q at a sector already in flight)
"$IOTAPE" export --quiet --db "$db" --format blktrace -o "$t/msr.bin" msr
blkparse_events "$t/msr.bin" > "$t/msr.bp"
compare_dump "$db" msr "$t/msr.bp" "msr blktrace export"
"$IOTAPE" import --quiet --db "$db" --run msr-bin "$t/msr.bin"
# btt and analyze/stitch.c differ on this Q/C-only trace with I/Os in
# flight at one sector (stitching is not this test's: shown, not checked)
(cd "$t" && btt -i "$t/msr.bin" > "$t/msr.btt" 2>&1)
diag "msr export: btt Q2C N and mean s $(btt_all_row "$t/msr.btt" Q2C); iotape's stitching of it:" \
	"$("$IOTAPE" report --db "$db" --json msr-bin | jq -r '"\(.all.q2c.n) \(.all.q2c.mean_us) us"')"
check_eq "msr: its own Q2C has every line; btt's pairing fewer" "$(wc -l < "$MSR") $(q "SELECT count(*) FROM requests
	WHERE run = (SELECT id FROM runs WHERE name = 'msr-bin') AND q_ns IS NOT NULL AND c_ns IS NOT NULL")" \
	"$("$IOTAPE" report --db "$db" --json msr | jq -r .all.q2c.n) $("$IOTAPE" report --db "$db" --json msr-bin | jq -r .all.q2c.n)"

# corpus traces: remaps, partitions, text imports (their P/U carry no
# category in the store) and blkparse -d dumps (times from 0)
if CORPUS=$(corpus_dir); then
	for spec in liuzel01-centos7-sda/sda oxdeadmeat-nvme-dmcrypt/nvme0n1.blktrace.txt \
		    romeus-loop-blkparse-d/trace_x_0_y_0.bin asifazamali-sda1/sda1; do
		run=${spec%%/*}
		"$IOTAPE" import --quiet --db "$db" --run "$run" "$CORPUS/$spec" ||
			{ not_ok "import $run"; continue; }
		"$IOTAPE" export --quiet --db "$db" --format blktrace -o "$t/$run.bin" "$run"
		blkparse_events "$t/$run.bin" > "$t/$run.bp"
		compare_dump "$db" "$run" "$t/$run.bp" "$run blktrace export"
		compare_btt "$db" "$run" "$t/$run.bin" "$run blktrace export"
		roundtrip "$run" "$db"
	done
else
	skip "corpus exports" "corpus absent"
fi

# blkparse text: what dump prints
"$IOTAPE" export --quiet --db "$db" --format blkparse -o "$t/lf.txt" lf
"$IOTAPE" dump --db "$db" lf > "$t/lf.dump"
cmp -s "$t/lf.txt" "$t/lf.dump" && ok "blkparse export is dump's text" ||
	not_ok "blkparse export is dump's text" "$(diff "$t/lf.dump" "$t/lf.txt" | head -n 4)"
# the lines it says it wrote are the lines written (process-name records,
# which print none, were counted)
"$IOTAPE" import --quiet --db "$t/names.db" --run named "$FIXTURES/quick/after.bin.gz"
"$IOTAPE" export --db "$t/names.db" --format blkparse -o "$t/named.txt" named 2> "$t/err"
check_eq "blkparse export of a run with process names: the count said is the lines written" \
	"iotape: exported run 'named': $(wc -l < "$t/named.txt") lines" "$(cat "$t/err")"

# CSV: a header, one line per request, times as stored
"$IOTAPE" export --quiet --db "$db" --format csv -o "$t/lf.csv" lf
check_eq "csv: header" \
	"id,major,minor,sector,bytes,rwbs,pid,comm,q_ns,g_ns,m_ns,i_ns,d_ns,c_ns,q2g_us,g2i_us,q2m_us,i2d_us,m2d_us,q2d_us,d2c_us,q2c_us,d_sector,d_bytes,merged_into,split_from,requeues,error" \
	"$(head -n 1 "$t/lf.csv")"
check_eq "csv: one line per request, Q2C and D2C sums as the store's" \
	"$(q "SELECT count(*), printf('%.3f', total(c_ns - q_ns) / 1e3), printf('%.3f', total(c_ns - d_ns) / 1e3)
	      FROM requests WHERE run = (SELECT id FROM runs WHERE name = 'lf')" | tr '|' ' ')" \
	"$(awk -F, 'NR > 1 { n++; q += $22; d += $21 } END { printf "%d %.3f %.3f", n, q, d }' "$t/lf.csv")"

# fio iolog: a line per Q; import it again: the same bios and bytes
"$IOTAPE" export --quiet --db "$db" --format fio -o "$t/lf.fio" lf
qs=$(q "SELECT count(*) FROM events WHERE run = (SELECT id FROM runs WHERE name = 'lf')
	AND (action & 255) = 1 AND (bytes > 0 OR (action >> 16) & 4)")
check_eq "fio: one I/O line per Q (flushes as sync)" "$qs" \
	"$(grep -cE ' (read|write|trim|sync) ' "$t/lf.fio")"
"$IOTAPE" import --quiet --db "$db" --run lf-fio "$t/lf.fio"
bios() {
	q "SELECT rwbs, count(*), sum(bytes) FROM requests WHERE run = (SELECT id FROM runs
	   WHERE name = '$1') AND q_ns IS NOT NULL AND NOT split AND bytes > 0
	   GROUP BY substr(rwbs, 1, 1) ORDER BY 1" | awk -F'|' '{ print substr($1, 1, 1), $2, $3 }' | paste -sd' '
}
check_eq "fio export imported again: the same bios and bytes by direction" "$(bios lf)" "$(bios lf-fio)"

# fio replays it onto a loop device and issues the same I/O
if [ "$(id -u)" != 0 ] || ! command -v fio > /dev/null; then
	skip "fio replays the export" "needs root and fio"
else
	truncate -s 512M "$t/replay.img"
	if loop_attach "$t/replay.img"; then
		fio --name=replay --read_iolog="$t/lf.fio" --replay_redirect="/dev/$LOOPDEV" \
			--ioengine=psync --replay_no_stall=1 --output-format=json \
			--output="$t/replay.json" > "$t/fio.out" 2>&1
		want=$(awk '$3 == "read" { rn++; rb += $5 } $3 == "write" { wn++; wb += $5 }
			END { printf "%d %d %d %d", rn, rb, wn, wb }' "$t/lf.fio")
		got=$(jq -r '.jobs[0] | "\(.read.total_ios) \(.read.io_bytes) \(.write.total_ios) \(.write.io_bytes)"' \
			"$t/replay.json" 2>/dev/null)
		check_eq "fio --read_iolog on the export: read and write I/Os and bytes" "$want" "$got"
		check_eq "the export's I/O is the run's: read and write bios and bytes" \
			"$(q "SELECT sum((action >> 16) & 2 = 0),
			      sum(CASE WHEN (action >> 16) & 2 = 0 THEN bytes ELSE 0 END),
			      sum((action >> 16) & 2 != 0), sum(CASE WHEN (action >> 16) & 2 != 0 THEN bytes ELSE 0 END)
			      FROM events WHERE run = (SELECT id FROM runs WHERE name = 'lf')
			      AND (action & 255) = 1 AND bytes > 0 AND (action >> 16) & 8192 = 0" | tr '|' ' ')" "$want"
	else
		not_ok "attach a loop device for the replay"
	fi
fi

# usage errors: one line, no file left
"$IOTAPE" export --db "$db" --format tar lf > /dev/null 2> "$t/err"; rc=$?
check_eq "unknown --format: exit 2, one line" "2 1" "$rc $(wc -l < "$t/err")"
"$IOTAPE" export --db "$db" --format csv -o "$t/x.csv" nope 2> "$t/err"; rc=$?
check_eq "unknown run: exit 1, one line, no file" "1 1 no" \
	"$rc $(wc -l < "$t/err") $([ -e "$t/x.csv" ] && echo yes || echo no)"
"$IOTAPE" export --db "$db" --format csv -o "$t/nodir/x.csv" lf 2> "$t/err"; rc=$?
check_eq "unwritable -o: exit 1, one line" "1 1" "$rc $(wc -l < "$t/err")"
# a device or window with no request: report's reason, exit 1, no file (a
# header-only iolog is what fio and import then refuse)
for fmt in blktrace fio csv blkparse; do
	"$IOTAPE" export --db "$db" --format $fmt --dev 9,9 -o "$t/none.$fmt" lf 2> "$t/err"; rc=$?
	check_eq "$fmt --dev 9,9: exit 1, report's reason, no file" "1 1 no" \
		"$rc $(grep -c "^iotape: run 'lf': no device 9,9 in this run; it has 7,0$" "$t/err") $([ -e "$t/none.$fmt" ] && echo yes || echo no)"
done
"$IOTAPE" export --db "$db" --format fio --from 10s -o "$t/late.iolog" lf 2> "$t/err"; rc=$?
check_eq "fio --from 10s: exit 1, the window named, no file" "1 1 no" \
	"$rc $(grep -c "no requests in the window 10.000 s to the end" "$t/err") $([ -e "$t/late.iolog" ] && echo yes || echo no)"
# '-o -' is stdout, as 'import -' is stdin (it wrote a file named '-')
(cd "$t" && "$IOTAPE" export --quiet --db "$db" --format csv -o - lf > "$t/stdout.csv" 2> "$t/err")
check_eq "-o -: the CSV on stdout, no file named '-'" \
	"0 $("$IOTAPE" export --quiet --db "$db" --format csv lf | wc -l) absent" \
	"$? $(wc -l < "$t/stdout.csv") $([ -e "$t/-" ] && echo made || echo absent)"
tap_finish
