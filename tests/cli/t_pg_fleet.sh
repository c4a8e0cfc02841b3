# t_pg_fleet.sh: a fleet store a site can run (issue 28) on a private PostgreSQL
# server (tests/lib.sh pg_start): the roles of the README, granted by the owner's
# `fleet --migrate`; each machine (a login role: web1, web3) writes only its own
# runs: every attack of the issue tried as a writer is refused (rows into another
# machine's run, through the tables, the load function or a load table; another's
# run changed or its host spoofed; a name in another machine's namespace; the
# schema table); push keeps notes, input checksum and host; runs of two machines,
# their request ids both from 1, pull into one file; vacuum's figures, and a
# non-owner told it did nothing; rolling upgrades (a newer store a client one
# version behind still reads and pushes, one it may not use named; grants given
# again by --migrate; a version 7 store that never got 006 migrated); expiry drops
# whole months. Skipped without the server binaries.
. "$(dirname "$0")/../lib.sh"

need_iotape "fleet store"
need_pg "fleet store"
command -v jq > /dev/null || { skip "fleet store" "no jq"; exit 0; }
pg_start || { not_ok "start a private PostgreSQL server"; tap_finish; }
t=$TEST_TMP F=$FIXTURES/loop-fio-small.bin URL=$PG_URL
cd "$t" || exit 1
as() { echo "postgresql:///iotape?host=$PG_DIR&user=$1"; }
psql_as() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PG_DIR" -U "$1" -d iotape -c "$2"; }
W1=$(as web1) W3=$(as web3) R=$(as reader)

# ---- the owner makes the store and grants the README's roles
pg_psql "$(sed -n '/^-- iotape roles: begin/,/^-- iotape roles: end/p' "$REPO_ROOT/README.md")
	CREATE ROLE web1 LOGIN IN ROLE iotape_writer; CREATE ROLE web3 LOGIN IN ROLE iotape_writer;
	CREATE ROLE reader LOGIN IN ROLE iotape_reader" > roles.out 2>&1 ||
	not_ok "the README's roles" "$(cat roles.out)"
"$IOTAPE" fleet --migrate --db "$URL" > mig.out 2>&1
check_eq "fleet --migrate makes the store and grants the roles" \
	"schema version 0 -> $(ls "$REPO_ROOT"/schema/[0-9]*.sql | wc -l); grants given again" \
	"$(sed 's/^.*: schema/schema/' mig.out)"

# ---- two machines' local stores, each a run named from its machine, request ids 1..
for m in web1 web3; do
	"$IOTAPE" import --quiet --db "$m.db" --run "$m:nightly" "$F" &&
	"$IOTAPE" import --quiet --again --db "$m.db" --run other "$F" ||
		not_ok "import into $m.db"
done
sqlite3 web1.db "UPDATE runs SET notes = 'kernel 6.18-rc1, ext4 data=journal'"
# web1 has a local run named in web3's namespace too
"$IOTAPE" import --quiet --again --db web1.db --run "web3:nightly" "$F"
check "web1 pushes its run" "$IOTAPE" push --db web1.db --to "$W1" web1:nightly
check "web3 pushes its run" "$IOTAPE" push --db web3.db --to "$W3" web3:nightly
r1=$(pg_psql "SELECT id FROM runs WHERE name = 'web1:nightly'")
r3=$(pg_psql "SELECT id FROM runs WHERE name = 'web3:nightly'")
check_eq "push keeps notes, input checksum; the host is the writer's machine" \
	"web1|kernel 6.18-rc1, ext4 data=journal|$(sqlite3 web1.db "SELECT input_sha256 FROM runs WHERE name = 'web1:nightly'")" \
	"$(pg_psql "SELECT host || '|' || notes || '|' || input_sha256 FROM runs WHERE id = $r1")"
check_eq "runs --host web1 finds web1's run" "web1:nightly" \
	"$("$IOTAPE" runs --db "$R" --host web1 | awk '$1 ~ /^[0-9]+$/ && $3 == "import" { print $2 }')"
"$IOTAPE" push --db web1.db --to "$URL" other > /dev/null 2>&1
check_eq "the owner's push keeps the host it names the run by (this machine's)" "$(hostname)" \
	"$(pg_psql "SELECT host FROM runs WHERE name = '$(hostname):other'")"

# ---- each attack of the issue, as a writer: refused
# refused LABEL ROLE SQL: ROLE's SQL fails with a permission or policy error
refused() {
	if psql_as "$2" "$3" > att.out 2>&1; then
		not_ok "$1" "it ran: $(cat att.out)"
	elif grep -qE "permission denied|row-level security|may not|not machine|another run" att.out; then
		ok "$1: $(grep -m 1 -E "ERROR|may not" att.out | cut -c1-150)"
	else
		not_ok "$1" "$(cat att.out)"
	fi
}
ev="(run, id, time_ns, sequence, sector, bytes, action, pid, dev, cpu, error, day)"
refused "rows into web3's run through the parent table" web1 \
	"INSERT INTO events $ev SELECT $r3, 99999, 1000000000, 0, 0, 0, 0, 0, 0, 0, 0, day FROM events WHERE run = $r3 LIMIT 1"
refused "rows into web3's run through a partition" web1 \
	"INSERT INTO events_$(date -u +%Y_%m) $ev SELECT $r3, 99999, 1, 0, 0, 0, 0, 0, 0, 0, 0, day FROM events WHERE run = $r3 LIMIT 1"
refused "rows into web3's run through iotape_land()" web1 \
	"BEGIN; SELECT iotape_load_tables(); INSERT INTO pg_temp.iotape_load_requests (run, id, dev, sector, bytes, rwbs, cats, pid, q_ns, c_ns, day) VALUES ($r3, 99999, 1, 0, 4096, 'R', 0, 0, 0, 1000000000000, 0); SELECT iotape_land('requests', $r3); COMMIT"
refused "web3's rows slipped among web1's own in its load table" web1 \
	"BEGIN; SELECT iotape_load_tables(); INSERT INTO pg_temp.iotape_load_requests (run, id, dev, sector, bytes, rwbs, cats, pid, q_ns, c_ns, day) VALUES ($r1, 99999, 1, 0, 4096, 'R', 0, 0, 0, 1, 0), ($r3, 99999, 1, 0, 4096, 'R', 0, 0, 0, 1000000000000, 0); SELECT iotape_land('requests', $r1); COMMIT"
check_eq "web3's run has none of those rows" "3570 733 0" \
	"$(pg_psql "SELECT (SELECT count(*) FROM events WHERE run = $r3) || ' ' || (SELECT count(*) FROM requests WHERE run = $r3) || ' ' || (SELECT count(*) FROM requests WHERE id = 99999)")"
psql_as web1 "UPDATE runs SET status = 'failed', host = 'spoofed' WHERE id = $r3" > att.out 2>&1
check_eq "update runs set status='failed', host='spoofed' of web3's run: no row of it changes" \
	"0 complete web3" "$? $(pg_psql "SELECT status || ' ' || host FROM runs WHERE id = $r3")"
refused "web1 spoofing its own run's host" web1 "UPDATE runs SET host = 'web3' WHERE id = $r1"
"$IOTAPE" push --db web1.db --to "$W1" web3:nightly --replace > att.out 2>&1; rc=$?
if [ $rc != 0 ] && grep -q "may not delete" att.out &&
   [ "$(pg_psql "SELECT count(*) FROM runs WHERE name = 'web3:nightly' AND id = $r3")" = 1 ]; then
	ok "web1 pushing a local run named web3:nightly over web3's: refused: $(cut -c1-160 att.out)"
else
	not_ok "web1 pushed over web3's run" "exit $rc: $(cat att.out)"
fi
sqlite3 web1.db "UPDATE runs SET name = 'web3:other' WHERE name = 'web3:nightly'"
"$IOTAPE" push --db web1.db --to "$W1" web3:other > att.out 2>&1; rc=$?
if [ $rc != 0 ] && grep -q "begin with 'web1:'" att.out &&
   [ "$(pg_psql "SELECT count(*) FROM runs WHERE name = 'web3:other'")" = 0 ]; then
	ok "web1 pushing a local run named web3:other: refused: $(cut -c1-160 att.out)"
else
	not_ok "web1 pushed into web3's namespace" "exit $rc: $(cat att.out)"
fi
refused "insert into iotape_schema values (99)" web1 "INSERT INTO iotape_schema VALUES (99)"
refused "update iotape_schema" web1 "UPDATE iotape_schema SET version = 99"
refused "a label on web3's run" web1 "INSERT INTO settings VALUES ($r3, 'x', 'y', 'start')"
n3=$(pg_psql "SELECT count(*) FROM settings WHERE run = $r3")
psql_as web1 "DELETE FROM runs WHERE id = $r3; DELETE FROM settings WHERE run = $r3" > att.out 2>&1
check_eq "web1 deleting web3's run or its settings: nothing goes" "0 1 $n3" \
	"$? $(pg_psql "SELECT count(*) FROM runs WHERE id = $r3") $(pg_psql "SELECT count(*) FROM settings WHERE run = $r3")"
for cmd in "rm --force web3:nightly" "mv web3:nightly web1:stolen" "label web3:nightly fs=x" \
	   "metric web3:nightly tps=1"; do
	# shellcheck disable=SC2086
	"$IOTAPE" $cmd --db "$W1" > att.out 2>&1; rc=$?
	if [ $rc != 0 ] && grep -qE "may not|row-level security|permission denied" att.out; then
		ok "iotape $cmd as web1: refused: $(cut -c1-140 att.out)"
	else
		not_ok "iotape $cmd as web1" "exit $rc: $(cat att.out)"
	fi
done
"$IOTAPE" import --quiet --db "$R" --run by-reader "$F" > att.out 2>&1
check_eq "the reader may not import" "1 0" "$? $(pg_psql "SELECT count(*) FROM runs WHERE name = 'by-reader'")"
"$IOTAPE" fleet --migrate --db "$W1" > att.out 2>&1
check_eq "a writer may not migrate" "1 1" "$? $(grep -c "only the store's owner" att.out)"
check "web1 deletes its own run, and pushes it again" sh -c \
	"'$IOTAPE' rm --db '$W1' web1:nightly > /dev/null && '$IOTAPE' push --db web1.db --to '$W1' web1:nightly > /dev/null"
r1=$(pg_psql "SELECT id FROM runs WHERE name = 'web1:nightly'")

# ---- ids that travel: two machines' runs (request ids 1..733 each) into one file
check "pull web1's and web3's runs into one file" \
	"$IOTAPE" pull --db all.db --from "$R" web1:nightly web3:nightly
for m in web1 web3; do
	"$IOTAPE" report --json --db "$m.db" "$m:nightly" > a.out
	"$IOTAPE" report --json --db all.db "$m:nightly" > b.out
	if cmp -s a.out b.out && [ -s a.out ]; then ok "$m:nightly pulled beside the other reports as it did at home"
	else not_ok "$m:nightly pulled" "$(diff a.out b.out | head -n 4 | cut -c1-150)"; fi
done
check_eq "the second run's requests got new ids, its merges moved with them" "1 733 734 1466 0" \
	"$(sqlite3 all.db "SELECT min(id), max(id) FROM requests WHERE run = 1; SELECT min(id), max(id) FROM requests WHERE run = 2;
		SELECT count(*) FROM requests q WHERE merged_into IS NOT NULL AND NOT EXISTS (SELECT 1 FROM requests h WHERE h.id = q.merged_into AND h.run = q.run)" | tr '\n|' '  ' | sed 's/ $//')"

# ---- vacuum: the figures say what happened; a writer is told it did nothing
"$IOTAPE" vacuum --db "$URL" 2>&1 | tr -s '\n ' '  ' > vac.out  # one line (it wraps at 80)
if grep -qE "bytes before, [0-9]+ after \(([0-9.]+ MiB freed|nothing freed: [0-9.]+ MiB more)" vac.out &&
   ! grep -q -- "-[0-9.]* MiB freed" vac.out; then
	ok "vacuum as the owner: $(cat vac.out)"
else
	not_ok "vacuum as the owner" "$(cat vac.out)"
fi
"$IOTAPE" vacuum --db "$W1" > vac.out 2>&1
check_eq "vacuum as a writer: exit 1, nothing was vacuumed" "1 1" \
	"$? $(grep -c "owns none of the store's tables: nothing was vacuumed" vac.out)"

# ---- rolling upgrades
# a store one version ahead that only added (min_client still this iotape's)
pg_psql "UPDATE iotape_schema SET version = version + 1; ALTER TABLE runs ADD COLUMN later text;
	CREATE TABLE later_things (run bigint); SELECT iotape_grant()" > /dev/null
"$IOTAPE" import --quiet --again --db web1.db --run web1:after "$F"
check "a client one version behind pushes" "$IOTAPE" push --db web1.db --to "$W1" web1:after
check "... and reads" "$IOTAPE" report --db "$R" web1:after
pg_psql "UPDATE iotape_schema SET min_client = version" > /dev/null
"$IOTAPE" runs --db "$R" > up.out 2>&1
if [ $? != 0 ] && grep -q "is newer than this iotape's ($(($(pg_psql "SELECT version FROM iotape_schema") - 1))): it needs an iotape of that schema or later" up.out; then
	ok "a store this iotape may no longer use is refused, naming the version: $(cut -c1-160 up.out)"
else
	not_ok "a store past min_client" "$(cat up.out)"
fi
pg_psql "UPDATE iotape_schema SET version = version - 1, min_client = version - 1;
	ALTER TABLE runs DROP COLUMN later; DROP TABLE later_things" > /dev/null
# the grants lost (a table remade by hand): given again by the owner's --migrate
pg_psql "REVOKE ALL ON runs FROM iotape_reader" > /dev/null
"$IOTAPE" runs --db "$R" > /dev/null 2> up.err
check_eq "without its grant the reader cannot list" 1 "$(grep -c "permission denied" up.err)"
check "the owner's fleet --migrate gives the grants again" "$IOTAPE" fleet --migrate --db "$URL"
check "the reader lists again" "$IOTAPE" runs --db "$R"

# a version 7 store made by a build that never had 006 (its bulk tables plain):
# --migrate brings it to the new layout, its rows read the same
pg_psql "CREATE DATABASE s7" > /dev/null
S7="postgresql:///s7?host=$PG_DIR&user=postgres"
s7() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PG_DIR" -U postgres -d s7 "$@"; }
mig=ok
for f in "$REPO_ROOT"/schema/00[1-57]_*.sql; do
	sh "$REPO_ROOT/schema/embed.sh" -s -d postgresql "$f" | s7 > /dev/null 2> s7.err ||
		mig="$f: $(cat s7.err)"
done
s7 -c "UPDATE iotape_schema SET version = 7" > /dev/null
for tb in runs settings devices processes commands run_stats metrics run_summary events requests samples replays; do
	col=run; [ $tb = runs ] && col=id
	# the columns the old store has (not schema 8's day nor 9's requests)
	cols=$(s7 -c "SELECT string_agg(attname, ', ' ORDER BY attnum) FROM pg_attribute
		WHERE attrelid = '$tb'::regclass AND attnum > 0 AND NOT attisdropped")
	"$PG_BIN/psql" -X -q -h "$PG_DIR" -U postgres -d iotape \
		-c "COPY (SELECT $cols FROM $tb WHERE $col = $r3) TO STDOUT" |
		s7 -c "COPY $tb ($cols) FROM STDIN" > /dev/null 2> s7.err || mig="$tb: $(cat s7.err)"
done
check_eq "a version 7 store without 006, with web3's run" ok "$mig"
"$IOTAPE" fleet --migrate --db "$S7" > s7.out 2>&1
check_eq "fleet --migrate: 7 -> the newest" "schema version 7 -> $(ls "$REPO_ROOT"/schema/[0-9]*.sql | wc -l); grants given again" \
	"$(sed 's/^.*: schema/schema/' s7.out)"
"$IOTAPE" report --json --db "$URL" web3:nightly > a.out
"$IOTAPE" report --json --db "$S7" web3:nightly > b.out
if cmp -s a.out b.out && [ -s a.out ]; then ok "the migrated store reports the run as it was"
else not_ok "the migrated store's run" "$(diff a.out b.out | head -n 4 | cut -c1-150)"; fi

# ---- retention: runs made long ago pushed into their months; --expire 90d drops
# those months whole and keeps the rest
day=86400000000000
"$IOTAPE" import --quiet --again --db old.db --run old200 "$F"
"$IOTAPE" import --quiet --again --db old.db --run old150 "$F"
"$IOTAPE" import --quiet --again --db old.db --run fresh "$F"
sqlite3 old.db "UPDATE runs SET created_ns = created_ns - 200 * $day WHERE name = 'old200';
	UPDATE runs SET created_ns = created_ns - 150 * $day WHERE name = 'old150'"
check "push of runs made 200 and 150 days ago" "$IOTAPE" push --db old.db --to "$URL" old200 old150 fresh
months=$(pg_psql "SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass")
"$IOTAPE" fleet --expire 90d --db "$W1" > exp.out 2>&1
check_eq "a writer may not expire" "1 1" "$? $(grep -c "only the store's owner" exp.out)"
"$IOTAPE" fleet --expire 90d --db "$URL" > exp.out 2>&1
check_eq "fleet --expire 90d: the two old runs gone, their months' 8 tables dropped" \
	"2 runs made before 8 tables" "$(sed -n 's/.*: \([0-9]*\) runs made before .* deleted; \([0-9]*\) tables.*/\1 runs made before \2 tables/p' exp.out)"
check_eq "... the other months' partitions and runs stay, with their rows, no orphans" \
	"$((months - 2)) 0 1 3570 0" \
	"$(pg_psql "SELECT (SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass) || ' ' ||
		(SELECT count(*) FROM runs WHERE name LIKE '%:old%') || ' ' ||
		(SELECT count(*) FROM runs WHERE name LIKE '%:fresh') || ' ' ||
		(SELECT count(*) FROM events e JOIN runs r ON r.id = e.run WHERE r.name LIKE '%:fresh') || ' ' ||
		(SELECT count(*) FROM events WHERE run NOT IN (SELECT id FROM runs))")"
tap_finish
