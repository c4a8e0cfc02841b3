# t_filters.sh: --from, --to and --dev on the readers (issue 15, item 7). On the
# loop fixture: dump's window equals the full dump's lines cut by their time
# column; report's window counts what SQL counts by Q time straight from the
# requests table (btt's rule: a request counts by its Q); the CSV export keeps
# the same requests; iostat's window cuts intervals; report names a window or
# device with nothing in it. On the two-disk corpus trace: report --dev gives
# the device's own figures of the whole report.
. "$(dirname "$0")/../lib.sh"

need_iotape "reader filters"
command -v jq > /dev/null || { skip "reader filters" "no jq"; exit 0; }
command -v sqlite3 > /dev/null || { skip "reader filters" "no sqlite3"; exit 0; }
t=$TEST_TMP db=$t/t.db
"$IOTAPE" import --quiet --db "$db" --run lf "$FIXTURES/loop-fio-small.bin"
g=$(sqlite3 "$db" "SELECT genesis_ns FROM runs WHERE name = 'lf'")
run=$(sqlite3 "$db" "SELECT id FROM runs WHERE name = 'lf'")

# ---- dump: the events whose time is in [0.2 s, 0.5 s)
"$IOTAPE" dump --db "$db" lf > "$t/all"
"$IOTAPE" dump --db "$db" --from 200ms --to 0.5s lf > "$t/cut"
awk '$4 >= 0.2 && $4 < 0.5' "$t/all" > "$t/want"
n=$(wc -l < "$t/cut")
if [ "$n" -gt 100 ] && cmp -s "$t/want" "$t/cut"; then
	ok "dump --from 200ms --to 0.5s: the $n lines of the full dump in the window"
else
	not_ok "dump --from/--to" "$n lines; want $(wc -l < "$t/want")" \
		"$(diff "$t/want" "$t/cut" | head -n 4)"
fi
"$IOTAPE" dump --db "$db" --dev 8,0 lf > "$t/lacks" 2> /dev/null
check_eq "dump --dev of a device the run lacks: nothing on stdout, exit 1" "1 0" \
	"$? $(wc -l < "$t/lacks")"

# ---- report: counts by Q time, from SQL
lo=$((g + 200000000)) hi=$((g + 500000000))
want_q=$(sqlite3 "$db" "SELECT count(*) FROM requests WHERE run = $run AND q_ns >= $lo
	AND q_ns < $hi AND bytes > 0 AND split_from IS NULL")
want_q2c=$(sqlite3 "$db" "SELECT count(*) FROM requests WHERE run = $run AND q_ns >= $lo
	AND q_ns < $hi AND bytes > 0 AND c_ns >= q_ns AND NOT split")
want_d=$(sqlite3 "$db" "SELECT count(*) FROM requests WHERE run = $run AND d_head
	AND d_bytes > 0 AND coalesce(q_ns, d_ns, c_ns) >= $lo AND coalesce(q_ns, d_ns, c_ns) < $hi")
"$IOTAPE" report --db "$db" --json --from 200ms --to 0.5s lf > "$t/rep.json"
got=$(jq -r '[.devices[0].q_with_data, .all.q2c.n,
	(.devices[0].read.requests + .devices[0].write.requests), .span_s] | @tsv' "$t/rep.json")
check_eq "report --from 200ms --to 0.5s: Q with data, Q2C n, D requests (SQL by Q time); span 0.3 s" \
	"$want_q	$want_q2c	$want_d	0.3" "$got"
[ "$want_q" -gt 50 ] && ok "the window holds $want_q requests" ||
	not_ok "the window holds requests" "$want_q"
"$IOTAPE" report --db "$db" --json lf > "$t/full.json"
check "report without a window differs" test "$(jq .all.q2c.n "$t/full.json")" != "$want_q2c"
"$IOTAPE" export --db "$db" --format csv --quiet --from 200ms --to 0.5s lf > "$t/cut.csv"
check_eq "export csv --from/--to: the requests the window keeps (SQL)" \
	"$(sqlite3 "$db" "SELECT count(*) FROM requests WHERE run = $run AND
		coalesce(q_ns, d_ns, c_ns) >= $lo AND coalesce(q_ns, d_ns, c_ns) < $hi")" \
	"$(($(wc -l < "$t/cut.csv") - 1))"

# ---- report of a window after the run or a device it lacks: says which is
# empty (not "samples only"), and prints no empty tables
"$IOTAPE" report --db "$db" --from 10s lf > "$t/late" 2>&1
if grep -q "^  no requests in the window 10.000 s to the end: the run's events are" "$t/late" &&
   ! grep -qE 'samples only|elapsed|^==' "$t/late"; then
	ok "report --from 10s: the window is empty"
else
	not_ok "report --from 10s: the window is empty" "$(head -n 4 "$t/late")"
fi
# a device the run lacks is a typo, not an idle disk: every reader says so
# in one line and exits 1, printing nothing else
for c in "report" "report --json" "iostat" "dump" "plot -o $t/nodev-plot" \
	 "export --format csv -o $t/nodev.csv"; do
	"$IOTAPE" $c --db "$db" --dev 7,0 --dev 9,9 --dev 9,10 lf > "$t/nodev" 2> "$t/nodev.err"
	check_eq "$c --dev 7,0 --dev 9,9 --dev 9,10: exit 1, one line naming both and the run's own, no output" \
		"1 1 0" "$? $(grep -cx "iotape: run 'lf': no device 9,9 or 9,10 in this run; it has 7,0" "$t/nodev.err") $(wc -c < "$t/nodev")"
done

# ---- iostat: --from/--to cut intervals; rows sum to the whole
"$IOTAPE" iostat --db "$db" --json --interval 100ms --from 200ms --to 0.5s lf > "$t/io.json"
check_eq "iostat --from 200ms --to 0.5s --interval 100ms: three rows at 0.2 0.3 0.4" \
	"0.2 0.3 0.4" "$(jq -r '[.rows[].t_s * 10 | round / 10] | map(tostring) | join(" ")' "$t/io.json")"
"$IOTAPE" iostat --db "$db" --json --interval 100ms lf > "$t/io-all.json"
check_eq "iostat: its requests are all the D requests with data and the empty flushes" \
	"$(jq '.devices[0].read.requests + .devices[0].write.requests + .devices[0].flushes' "$t/full.json")" \
	"$(jq '[.rows[] | .r + .w] | add' "$t/io-all.json")"

# ---- iostat's text stays in 80 columns when a rate has 10 digits: one 1 GiB
# read completed 0.5 ms after its Q, the run's one interval (its last, rated
# over its own 0.5 ms): 1048576 kB / 0.0005 s, 2.1 * 10^9 kB/s
cat > "$t/big.txt" <<'EOF'
  7,0    0        1     0.000000000  1234  Q   R 0 + 2097152 [fio]
  7,0    0        2     0.000002000  1234  D   R 0 + 2097152 [fio]
  7,0    0        3     0.000500000     0  C   R 0 + 2097152 [0]
EOF
"$IOTAPE" import --quiet --db "$db" --run big "$t/big.txt"
"$IOTAPE" iostat --db "$db" --interval 1ms big > "$t/big.out"
check_eq "iostat: 2097152000 kB/s is 2097M, the row in 80 columns" "2097M 80" \
	"$(awk '$2 == "7,0" { print $5, length }' "$t/big.out")"

# ---- plot: the tput data and its time axis cover the window only (the data
# is written with or without gnuplot)
"$IOTAPE" plot --db "$db" --kind tput --format txt -o "$t/pl" --from 200ms --to 0.5s lf \
	> /dev/null 2>&1
got=$(awk '!/^#/ && NF { if (lo == "") lo = $1; hi = $1 } END { print (lo >= 0.2 && hi < 0.51) }' \
	"$t/pl/lf.tput.dat" 2> /dev/null)
check_eq "plot --from 200ms --to 0.5s: tput bins in the window" "1" "$got"
check "plot --from/--to: the x range is the window" grep -q 'set xrange \[0.2:0.5' "$t/pl/lf.tput.gp"

# ---- bad values: one line each
for args in "--from x" "--to 1q" "--dev 8" "--dev 8,x" "--from 2s --to 1s" \
	    "--from 0x2s" "--from inf" "--to nan" "--from 0x1p1" "--dev 0x8,0" "--dev 8,-1"; do
	# shellcheck disable=SC2086
	"$IOTAPE" report --db "$db" $args lf > /dev/null 2> "$t/err"; rc=$?
	if [ $rc != 0 ] && [ "$(wc -l < "$t/err")" = 1 ]; then ok "report $args: $(cat "$t/err")"
	else not_ok "report $args: exit non-zero, one line" "exit $rc: $(cat "$t/err")"; fi
done

# ---- --dev on two devices of a corpus trace: that device's own figures
if corpus_dir > /dev/null 2>&1 && [ -f "$(corpus_dir)/seed-debsums-patch/two-disks/trace.bin" ]; then
	"$IOTAPE" import --quiet --db "$db" --run two "$(corpus_dir)/seed-debsums-patch/two-disks/trace.bin"
	"$IOTAPE" report --db "$db" --json two > "$t/two.json"
	"$IOTAPE" report --db "$db" --json --dev 7,2 two > "$t/two72.json"
	check_eq "report --dev 7,2: one device" "7,2" "$(jq -r '[.devices[].dev] | join(" ")' "$t/two72.json")"
	check_eq "report --dev 7,2: its figures as in the whole report" \
		"$(jq -c '.devices[] | select(.dev == "7,2") | [.bios, .btt_q, .q2c, .d2c, .seeks]' "$t/two.json")" \
		"$(jq -c '.devices[0] | [.bios, .btt_q, .q2c, .d2c, .seeks]' "$t/two72.json")"
	"$IOTAPE" dump --db "$db" --dev 7,2 --dev 7,0 two | awk '{ print $1 }' | sort -u > "$t/devs"
	check_eq "dump --dev 7,2 --dev 7,0: those two" "7,0 7,2" "$(paste -sd' ' "$t/devs")"
else
	skip "report --dev on the two-disk trace" "no corpus"
fi

tap_finish
