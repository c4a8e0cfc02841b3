# t_pg_concurrency.sh: concurrent push, push --replace, rm and readers on one
# PostgreSQL store never deadlock and never fail (issue 28): on a private server
# (tests/lib.sh pg_start), four machines (writer roles m1..m4) run two writers each,
# 8 at once, for ROUNDS rounds (20; T_PG_ROUNDS), replacing the same names in a race
# and deleting and pushing runs, while a reader role lists, reports and ranks in a
# loop. Every command must succeed; at the end each machine's runs are whole. The
# runs are small (the robust/nested.bin fixture), so a round takes about a second.
# Skipped without the server binaries.
. "$(dirname "$0")/../lib.sh"

need_iotape "concurrent writers"
need_pg "concurrent writers"
pg_start || { not_ok "start a private PostgreSQL server"; tap_finish; }
t=$TEST_TMP F=$FIXTURES/robust/nested.bin URL=$PG_URL
ROUNDS=${T_PG_ROUNDS:-20}
cd "$t" || exit 1
as() { echo "postgresql:///iotape?host=$PG_DIR&user=$1"; }
pg_psql "$(sed -n '/^-- iotape roles: begin/,/^-- iotape roles: end/p' "$REPO_ROOT/README.md")
	CREATE ROLE m1 LOGIN IN ROLE iotape_writer; CREATE ROLE m2 LOGIN IN ROLE iotape_writer;
	CREATE ROLE m3 LOGIN IN ROLE iotape_writer; CREATE ROLE m4 LOGIN IN ROLE iotape_writer;
	CREATE ROLE rd LOGIN IN ROLE iotape_reader" > roles.out 2>&1 ||
	not_ok "roles" "$(cat roles.out)"
"$IOTAPE" fleet --migrate --db "$URL" > /dev/null 2>&1 || not_ok "fleet --migrate"
for m in m1 m2 m3 m4; do
	"$IOTAPE" import --quiet --db "$m.db" --run "$m:a" "$F" &&
	"$IOTAPE" import --quiet --again --db "$m.db" --run "$m:b" "$F" &&
	"$IOTAPE" push --db "$m.db" --to "$(as $m)" "$m:a" > /dev/null ||
		not_ok "the first push of $m"
done

# the reader: list, report a run being replaced, rank; until told to stop
R=$(as rd)
reader() {
	local n=0 bad=0
	while [ ! -e stop ]; do
		for c in "runs" "report m1:a" "dump m2:a"; do
			# shellcheck disable=SC2086
			if ! "$IOTAPE" $c --db "$R" > /dev/null 2> "reader.err.$n"; then
				bad=$((bad + 1))
				echo "$c: $(cat "reader.err.$n")" >> reader.fail
			fi
			n=$((n + 1))
		done
	done
	echo "$n $bad" > reader.count
}
reader &
rpid=$!
at_exit "touch '$t/stop'; wait $rpid 2>/dev/null"

fails=0 runs=0
t0=$(date +%s)
for ((r = 1; r <= ROUNDS; r++)); do
	pids=()
	for m in m1 m2 m3 m4; do
		W=$(as $m)
		# two writers of one machine: the same name replaced at once, or a run
		# deleted and pushed again beside a replace
		( "$IOTAPE" push --db "$m.db" --to "$W" --replace "$m:a" > /dev/null 2> "w.$m.1.err" ||
			{ echo "round $r $m push --replace: $(cat "w.$m.1.err")" >> writers.fail; exit 1; } ) &
		pids+=($!)
		if ((r % 2)); then
			( "$IOTAPE" push --db "$m.db" --to "$W" --replace "$m:a" > /dev/null 2> "w.$m.2.err" ||
				{ echo "round $r $m push --replace (same name): $(cat "w.$m.2.err")" >> writers.fail; exit 1; } ) &
		else
			( { "$IOTAPE" rm --db "$W" --force "$m:b*" > /dev/null 2> "w.$m.2.err" ||
			    grep -q "no run matches" "w.$m.2.err"; } &&
			  "$IOTAPE" push --db "$m.db" --to "$W" "$m:b" > /dev/null 2> "w.$m.2.err" ||
				{ echo "round $r $m rm + push: $(cat "w.$m.2.err")" >> writers.fail; exit 1; } ) &
		fi
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || fails=$((fails + 1))
		runs=$((runs + 1))
	done
done
touch stop
wait $rpid
read -r nread bad < reader.count
check_eq "$ROUNDS rounds of 8 writers ($runs commands, $(( $(date +%s) - t0 )) s): none failed" 0 "$fails"
[ -s writers.fail ] && diag "$(head -n 5 writers.fail)"
check_eq "the reader's $nread commands meanwhile: none failed" 0 "$bad"
[ -s reader.fail ] && diag "$(head -n 5 reader.fail)"
grep -h "tried" w.*.err 2> /dev/null | head -n 3 | while read -r l; do diag "$l"; done
whole=$(sqlite3 m1.db "SELECT (SELECT last_event - first_event + 1 FROM runs WHERE name = 'm1:a') || ' ' ||
	(SELECT count(*) FROM requests q JOIN runs r ON r.id = q.run WHERE r.name = 'm1:a')")
check_eq "each machine's runs whole: a, and b after the last round's push" \
	"$(for m in m1 m2 m3 m4; do printf '%s|' "$m:a $whole" "$m:b $whole"; done | sed 's/|$//')" \
	"$(pg_psql "SELECT string_agg(name || ' ' || (SELECT count(*) FROM events WHERE run = r.id) || ' ' ||
		(SELECT count(*) FROM requests WHERE run = r.id), '|' ORDER BY name) FROM runs r")"
check_eq "no rows of a deleted run left" "0 0" \
	"$(pg_psql "SELECT (SELECT count(*) FROM events WHERE run NOT IN (SELECT id FROM runs)),
		(SELECT count(*) FROM samples WHERE run NOT IN (SELECT id FROM runs))" | tr '\t' ' ')"
check_eq "no deadlock in the server's log" 0 "$(grep -c "deadlock detected" "$PG_DIR/log")"
tap_finish
