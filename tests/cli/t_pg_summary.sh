# t_pg_summary.sh: run_summary (schema 7), the headline figures a run gets when
# it lands, and `iotape fleet` ranking from them, on SQLite and on a private
# PostgreSQL server (tests/lib.sh pg_start): the figures fleet prints are the ones
# compare prints for the same run (report's code computes both); imports, a replay
# and a push write the summary in the run's transaction; runs without one (an
# SQLite file of schema 5, a server's runs from before schema 7) are back-filled
# when the store is opened. The PostgreSQL half is skipped without the server.
. "$(dirname "$0")/../lib.sh"

need_iotape "run summaries"
command -v jq > /dev/null || { skip "run summaries" "no jq"; exit 0; }
t=$TEST_TMP db=$t/t.db F=$FIXTURES/loop-fio-small.bin
cd "$t" || exit 1

"$IOTAPE" import --quiet --db "$db" --run lf "$F" &&
"$IOTAPE" import --quiet --db "$db" --run v8 "$FIXTURES/variants/loop-fio-small.v8be.bin" &&
"$IOTAPE" import --quiet --db "$db" --run vm "$FIXTURES/vmstat/timestamped-1-3.log" &&
"$IOTAPE" replay --db "$db" lf --target model:deskstar-7k500 --run rp --quiet > /dev/null ||
	{ not_ok "import and replay into $db"; tap_finish; }

# figures DB: every run's 16 fleet figures as compare --json gives them, one line
# "run figure us" each, us with one decimal as fleet prints them
FIGS="read write"
figures() {
	local r f
	for r in lf v8 rp; do
		"$IOTAPE" compare --json --db "$1" "$r" "$r" |
			jq -r --arg r "$r" '.runs[0].figures | to_entries[] |
				select(.key | test("^(read|write)_[qd]2c_p(50|99)_us$")) |
				"\($r) \(.key | sub("_us$"; "")) \(.value)"' |
			awk '{ printf "%s %s %.1f\n", $1, $2, $3 }'
	done | sort
}

# ranked DB: the same from fleet (runs are named as in the store)
ranked() {
	local w l s
	for w in $FIGS; do for l in q2c d2c; do for s in p50 p99; do
		"$IOTAPE" fleet --db "$1" --worst "${w}_${l}_$s" --limit 100 |
			awk -v f="${w}_${l}_$s" 'NR > 1 { print $2, f, $NF }'
	done; done; done | sort
}

want=$(figures "$db")
got=$(ranked "$db")
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	ok "SQLite: fleet's p50 and p99 figures are compare's ($(wc -l <<< "$got") figures of lf, v8 and a replay)"
else
	not_ok "SQLite: fleet's figures are compare's" "$(diff <(echo "$want") <(echo "$got") | head -n 8)"
fi
check_eq "SQLite: every run has its two rows (the vmstat-only run too)" 8 \
	"$(sqlite3 "$db" "SELECT count(*) FROM run_summary")"
check_eq "SQLite: the vmstat-only run has no latency to rank" "0 0" \
	"$(sqlite3 "$db" "SELECT sum(q2c_n), sum(d2c_n) FROM run_summary s JOIN runs r ON r.id = s.run WHERE r.name = 'vm'" | tr '|' ' ')"
# mean and max as report gives them: its all-devices rows are both directions,
# the summary's read and write rows together give them back
all=$("$IOTAPE" report --json --db "$db" lf |
	jq -r '.all | [.q2c.n, .q2c.mean_us, .q2c.max_us, .d2c.n, .d2c.mean_us, .d2c.max_us] | map(tostring) | join(" ")' |
	awk '{ printf "%d %.3f %.3f %d %.3f %.3f\n", $1, $2, $3, $4, $5, $6 }')
sum=$(sqlite3 -separator ' ' "$db" "SELECT sum(q2c_n), sum(q2c_n * q2c_mean_ns) / sum(q2c_n) / 1e3, max(q2c_max_ns) / 1e3, sum(d2c_n), sum(d2c_n * d2c_mean_ns) / sum(d2c_n) / 1e3, max(d2c_max_ns) / 1e3 FROM run_summary s JOIN runs r ON r.id = s.run WHERE r.name = 'lf'" |
	awk '{ printf "%d %.3f %.3f %d %.3f %.3f\n", $1, $2, $3, $4, $5, $6 }')
check_eq "the summary's n, mean and max of both directions are report's all-devices Q2C and D2C" "$all" "$sum"
max=$("$IOTAPE" fleet --db "$db" --worst read_q2c_max | awk '$2 == "lf" { print $NF }')
check_eq "fleet read_q2c_max is report's Q2C max (the reads hold it)" \
	"$("$IOTAPE" report --json --db "$db" lf | jq -r '.all.q2c.max_us' | xargs printf '%.1f')" "$max"
"$IOTAPE" fleet --db "$db" --worst read_q2c_p98 > /dev/null 2> bad.err
if grep -q "no figure 'read_q2c_p98' to rank by" bad.err; then ok "an unknown figure is refused: $(cat bad.err)"
else not_ok "an unknown figure is refused" "$(cat bad.err)"; fi

# ---- a store of schema 5 (before summaries): back-filled when opened
cp "$db" old.db
sqlite3 old.db "DROP TABLE run_summary; ALTER TABLE runs DROP COLUMN requests; PRAGMA user_version = 5"
"$IOTAPE" runs --db old.db > /dev/null 2> old.err || not_ok "runs on a schema-5 store" "$(cat old.err)"
latest=$(ls "$REPO_ROOT"/schema/[0-9]*.sql | sed -n '$s|.*/0*\([0-9]*\)_.*|\1|p')
check_eq "schema 5 -> $latest: the migration back-fills every run's summary" \
	"$(sqlite3 "$db" "SELECT * FROM run_summary ORDER BY run, dir")" \
	"$(sqlite3 old.db "SELECT * FROM run_summary ORDER BY run, dir")"
check_eq "schema 5 -> $latest: user_version" "$latest" "$(sqlite3 old.db "PRAGMA user_version")"

# ---- PostgreSQL
if ! { [ -x "${PG_BIN:-/usr/lib/postgresql/15/bin}/initdb" ] && command -v python3 > /dev/null; }; then
	skip "run summaries on PostgreSQL" "no PostgreSQL server binaries"
	tap_finish
fi
pg_start || { not_ok "start a private PostgreSQL server"; tap_finish; }
URL=$PG_URL
"$IOTAPE" import --quiet --db "$URL" --run lf "$F" &&
"$IOTAPE" import --quiet --db "$URL" --run v8 "$FIXTURES/variants/loop-fio-small.v8be.bin" &&
"$IOTAPE" import --quiet --db "$URL" --run vm "$FIXTURES/vmstat/timestamped-1-3.log" &&
"$IOTAPE" replay --db "$URL" lf --target model:deskstar-7k500 --run rp --quiet > /dev/null ||
	{ not_ok "import and replay into PostgreSQL"; tap_finish; }
sumq="SELECT r.name, s.dir, s.span_ns, s.requests, s.bytes, s.q2c_n, s.q2c_mean_ns, s.q2c_p50_ns, s.q2c_p99_ns, s.q2c_max_ns, s.d2c_n, s.d2c_mean_ns, s.d2c_p50_ns, s.d2c_p99_ns, s.d2c_max_ns FROM run_summary s JOIN runs r ON r.id = s.run"
# SQLite prints REAL with 15 digits, PostgreSQL float8 with 17: compare as %.6f
norm() { awk -F'\t' -v OFS=' ' '{ for (i = 3; i <= NF; i++) if ($i != "") $i = sprintf("%.6f", $i); print }' | sort; }
check_eq "PostgreSQL: imports and a replay write the same summaries as into SQLite" \
	"$(sqlite3 -separator $'\t' "$db" "$sumq" | norm)" "$(pg_psql "$sumq" | norm)"
for f in read_q2c_p99 write_d2c_p50 read_d2c_max write_q2c_mean; do
	a=$("$IOTAPE" fleet --db "$db" --worst $f)
	b=$("$IOTAPE" fleet --db "$URL" --worst $f)
	if [ "$a" = "$b" ] && [ "$(wc -l <<< "$a")" -ge 3 ]; then ok "fleet --worst $f: the same table from both stores"
	else not_ok "fleet --worst $f differs" "$(diff <(echo "$a") <(echo "$b") | head -n 6)"; fi
done
check_eq "PostgreSQL: fleet's figures are compare's" "$want" "$(ranked "$URL")"

# ---- a push carries the run's summary (the destination reads no request back)
"$IOTAPE" push --db "$db" --to "$URL" lf > push.out 2> push.err || not_ok "push" "$(cat push.err)"
host=$(hostname)
check_eq "push: the pushed run's summary is the local one" \
	"$(sqlite3 -separator $'\t' "$db" "$sumq WHERE r.name = 'lf'" | norm)" \
	"$(pg_psql "$sumq WHERE r.name = '$host:lf'" | norm | sed "s/^$host:lf /lf /")"
check_eq "fleet --since 7d ranks the pushed run with the others" 1 \
	"$("$IOTAPE" fleet --db "$URL" --since 7d --worst read_q2c_p99 | grep -c " $host:lf ")"

# ---- runs without a summary on PostgreSQL (stored before schema 7; a store is no
# longer taken back to 6 and migrated by any opener since schema 8: t_pg_fleet.sh
# migrates with fleet --migrate): the first opener that may write back-fills them
before=$(pg_psql "$sumq" | norm)
pg_psql "DELETE FROM run_summary"
"$IOTAPE" fleet --db "$URL" > /dev/null 2> fleet.err || not_ok "fleet on a store without summaries" "$(cat fleet.err)"
check_eq "PostgreSQL: runs without a summary are back-filled by the next opener, as they were" \
	"$before" "$(pg_psql "$sumq" | norm)"

# ---- a failed import leaves no summary row either
printf 'garbage' > bad.bin
"$IOTAPE" import --quiet --db "$URL" --run bad "$F" bad.bin > /dev/null 2>&1
check_eq "a failed import leaves no run and no summary" "0 0" \
	"$(pg_psql "SELECT (SELECT count(*) FROM runs WHERE name = 'bad'), (SELECT count(*) FROM run_summary WHERE run NOT IN (SELECT id FROM runs))" | tr '\t' ' ')"
tap_finish
