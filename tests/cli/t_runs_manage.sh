# t_runs_manage.sh: run management: rm (one run, a glob needing --force, no
# orphan row left in any table), mv (a taken name refused), import refusing
# an input it already holds unless --again, vacuum shrinking the file after rm,
# runs within 80 columns with long names and sources, a vmstat-only run's span,
# and a schema-3 database (made here from schema/00[1-3]_*.sql in SQLite's
# dialect) migrated to the latest with nothing lost and its orphans dropped; a
# newer schema refused;
# new run names of digits only refused (they would hide run ids), old ones read.
. "$(dirname "$0")/../lib.sh"

need_iotape "run management"
command -v sqlite3 > /dev/null || { skip "run management" "no sqlite3"; tap_finish; }
t=$TEST_TMP db=$t/t.db F=$FIXTURES/loop-fio-small.bin
TABLES="events requests samples settings devices processes commands run_stats replays"

# orphans DB: rows of every run table whose run is gone, as "table:N ..."
orphans() {
	local tb out=
	for tb in $TABLES; do
		n=$(sqlite3 "$1" "SELECT count(*) FROM $tb WHERE run NOT IN (SELECT id FROM runs)")
		[ "$n" = 0 ] || out="$out $tb:$n"
	done
	printf '%s' "$out"
}
# rows DB: the rows of every run table, "N N N ..."
rows() {
	local tb out=
	for tb in $TABLES; do out="$out $(sqlite3 "$1" "SELECT count(*) FROM $tb")"; done
	printf '%s' "$out"
}
q() { sqlite3 "$db" "$1"; }

# ---- import twice: refused, naming the run; --again imports it ----
"$IOTAPE" import --quiet --db "$db" "$F"
if "$IOTAPE" import --quiet --db "$db" "$F" 2> "$t/err"; then
	not_ok "import of an input already imported is refused"
else
	check_eq "import twice: the error names the run holding it" 1 \
		"$(grep -c "already imported as run 'loop-fio-small' (id 1, the same SHA-256); give --again" "$t/err")"
fi
check_eq "import twice: nothing stored" 1 "$(q 'SELECT count(*) FROM runs')"
check_eq "the run's input hash is the file's SHA-256" "$(sha256sum < "$F" | cut -d' ' -f1)" \
	"$(q 'SELECT input_sha256 FROM runs WHERE id = 1')"
check "import --again imports it again" "$IOTAPE" import --quiet --again --db "$db" --run seed-2 "$F"
check "import --again: a third copy" "$IOTAPE" import --quiet --again --db "$db" --run seed-3 "$F"
check "import --again: a fourth" "$IOTAPE" import --quiet --again --db "$db" --run keep "$F"
# a replay whose parent is deleted: kept, with no parent
q "UPDATE runs SET kind = 'replay', parent = (SELECT id FROM runs WHERE name = 'seed-2') WHERE name = 'keep'"

# ---- rm ----
size0=$(stat -c %s "$db")
check "rm one run by name" "$IOTAPE" rm --db "$db" loop-fio-small
check_eq "rm: the run is gone" 0 "$(q "SELECT count(*) FROM runs WHERE name = 'loop-fio-small'")"
check_eq "rm: no orphan rows" "" "$(orphans "$db")"
if "$IOTAPE" rm --db "$db" 'seed-*' < /dev/null > "$t/out" 2> "$t/err"; then
	not_ok "rm of a glob matching 2 runs needs --force"
else
	check_eq "rm glob without --force: refused, saying how many" 1 \
		"$(grep -c '2 runs match; give --force' "$t/err")"
	check_eq "rm glob without --force: nothing deleted" 3 "$(q 'SELECT count(*) FROM runs')"
fi
"$IOTAPE" rm --db "$db" --force 'seed-*' > "$t/out" 2> "$t/err"
check_eq "rm --force glob: both deleted" "keep" "$(q 'SELECT name FROM runs')"
check_eq "rm: the replay of a deleted run is kept with no parent" "replay|" \
	"$(q "SELECT kind || '|' || coalesce(parent, '') FROM runs WHERE name = 'keep'")"
check_eq "rm: says the replay was kept" 1 "$(grep -c 'kept 1 replay' "$t/out")"
check_eq "rm glob: no orphan rows" "" "$(orphans "$db")"
if "$IOTAPE" rm --db "$db" no-such 2> "$t/err"; then not_ok "rm of no run fails"
else check_eq "rm of no run: names it" 1 "$(grep -c "no run named 'no-such'" "$t/err")"; fi
if "$IOTAPE" rm --db "$db" 'zz*' 2> "$t/err"; then not_ok "rm of a glob matching nothing fails"
else check_eq "rm of a glob matching nothing: says so" 1 "$(grep -c "no run matches 'zz\*'" "$t/err")"; fi
# a store the user may not write (immutable: root writes a mode 444 file):
# the error names the store and the run, which stays
ro=$t/ro.db
cp "$db" "$ro"
if chattr +i "$ro" 2> /dev/null; then
	"$IOTAPE" rm --db "$ro" keep 2> "$t/err"
	rc=$?
	chattr -i "$ro"
	check_eq "rm on a store it cannot write: fails, naming the store and the run, run kept" \
		"1|1|keep" "$((rc != 0))|$(grep -c "^iotape: $ro: run 'keep' not deleted: .*readonly" "$t/err")|$(sqlite3 "$ro" 'SELECT name FROM runs')"
else
	skip "rm on a store it cannot write" "no chattr +i on $t"
fi
rm -f "$ro"
long=$(printf 'x%.0s' $(seq 300))
"$IOTAPE" mv --db "$db" keep "$long" 2> "$t/err"
rc=$?
check_eq "mv to a 300-byte name: refused, the name shown cut" \
	"1|iotape: invalid run name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (300 bytes: 1 to 200)" \
	"$((rc != 0))|$(cat "$t/err")"

# ---- vacuum ----
if "$IOTAPE" vacuum --db "$db" > "$t/out" 2> "$t/err"; then
	size1=$(stat -c %s "$db")
	[ "$size1" -lt "$size0" ] && ok "vacuum after rm shrinks the file ($size0 -> $size1 bytes)" ||
		not_ok "vacuum after rm shrinks the file" "$size0 -> $size1" "$(cat "$t/out")"
	check_eq "vacuum reports the size after" "$size1" "$(awk '{ print $(NF - 4) }' "$t/out")"
else
	not_ok "vacuum" "$(cat "$t/err")"
fi

# ---- mv ----
check "mv renames a run" "$IOTAPE" mv --db "$db" keep kept
check_eq "mv: the new name" kept "$(q 'SELECT name FROM runs')"
"$IOTAPE" import --quiet --again --db "$db" --run other "$F"
if "$IOTAPE" mv --db "$db" kept other 2> "$t/err"; then not_ok "mv onto a taken name is refused"
else
	check_eq "mv onto a taken name: refused, naming it" 1 "$(grep -c "a run named 'other' exists" "$t/err")"
	check_eq "mv onto a taken name: nothing renamed" "kept other" "$(q 'SELECT name FROM runs ORDER BY id' | xargs)"
fi
"$IOTAPE" mv --db "$db" kept kept 2> "$t/err"
check_eq "mv to the name it has: refused, said so, as mv(1) does" \
	"1|iotape: $db: run 'kept' is already named 'kept'; nothing changed|kept other" \
	"$?|$(cat "$t/err")|$(q 'SELECT name FROM runs ORDER BY id' | xargs)"
if "$IOTAPE" mv --db "$db" kept "$(printf 'a\tb')" 2> "$t/err"; then not_ok "mv to a name with a control character is refused"
else ok "mv to a name with a control character is refused"; fi
check "mv by id" "$IOTAPE" mv --db "$db" "$(q "SELECT id FROM runs WHERE name = 'kept'")" kept2

# ---- runs: 80 columns with long names and sources, a vmstat-only span ----
long=$(printf 'ü%.0s' $(seq 1 50))-$(printf 'x%.0s' $(seq 1 60))-end
"$IOTAPE" mv --db "$db" other "$long"
"$IOTAPE" mv --db "$db" kept2 "a-name-of-thirty-characters-1"
deep=$t/$(printf 'd%.0s' $(seq 1 90))/é
mkdir -p "$deep" && cp "$F" "$deep/t.bin"
"$IOTAPE" import --quiet --again --db "$db" "$deep/t.bin"
{
	echo "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----"
	echo " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
	for i in $(seq 1 120); do
		echo " 1  0      0 22145528  50328 2371304    0    0     4     5 1551 2822 16 15 69  0  0"
	done
} > "$t/vm120.log"
"$IOTAPE" import --quiet --db "$db" --interval 1 --run vm "$t/vm120.log"
if "$IOTAPE" runs --db "$db" > "$t/runs" 2> "$t/err"; then
	w=$(LC_ALL=C.UTF-8 wc -L < "$t/runs")
	[ "$w" -le 80 ] && ok "runs fits 80 columns with long names and sources ($w)" ||
		not_ok "runs fits 80 columns" "widest $w" "$(cat "$t/runs")"
	check_eq "runs: a vmstat-only run spans its samples (120 rows 1 s apart)" 119.000 \
		"$(awk '$2 == "vm" { print $7 }' "$t/runs")"
	check_eq "runs: prints the source (its end when too long)" 1 "$(grep -c 'src …d*/é/t.bin$' "$t/runs")"
	check_eq "runs: a long name is cut in the middle" 1 "$(grep -c '^ *[0-9]* üü*…x*-end$' "$t/runs")"
	check_eq "runs: the database's size" 1 "$(grep -c "^4 runs; database $db: [0-9.]* MiB$" "$t/runs")"
else
	not_ok "runs" "$(cat "$t/err")"
fi

# ---- a schema-3 database migrated: nothing lost, orphans dropped ----
old=$t/old.db
sh "$REPO_ROOT/schema/embed.sh" -s -d sqlite "$REPO_ROOT"/schema/00[1-3]_*.sql > "$t/v3.sql"
echo "PRAGMA user_version = 3;" >> "$t/v3.sql"
sqlite3 "$old" < "$t/v3.sql"
sqlite3 "$old" "
INSERT INTO runs (id, name, kind, created_ns, first_event, last_event, genesis_ns) VALUES (1, 'a', 'import', 0, 1, 2, 10), (2, 'b', 'replay', 0, 3, 3, 10);
UPDATE runs SET parent = 1 WHERE id = 2;
INSERT INTO events (id, run, time_ns, sequence, sector, bytes, action, pid, dev, cpu, error, pdu) VALUES (1, 1, 10, 1, 8, 4096, 1, 1, 8388608, 0, 0, NULL), (2, 1, 20, 2, 16, 4096, 1, 1, 8388608, 0, 0, x'0102'), (3, 2, 10, 1, 8, 512, 1, 1, 8388608, 0, 0, NULL), (4, 9, 10, 1, 8, 512, 1, 1, 8388608, 0, 0, NULL);
INSERT INTO requests (id, run, dev, sector, bytes, rwbs, cats, pid, q_ns, d_ns, c_ns, d_head) VALUES (1, 1, 8388608, 8, 4096, 'R', 1, 1, 10, 15, 30, 1), (2, 2, 8388608, 8, 512, 'W', 2, 1, 10, NULL, NULL, 0), (3, 9, 8388608, 8, 512, 'W', 2, 1, 10, NULL, NULL, 0);
INSERT INTO samples VALUES (1, 5, 'stat', 'ctxt', 7), (9, 5, 'stat', 'ctxt', 7);
INSERT INTO run_stats VALUES (1, 'records', '2'), (9, 'records', '1');"
before=$(sqlite3 "$old" "SELECT group_concat(x, ';') FROM (SELECT id || ',' || run || ',' || time_ns || ',' || hex(coalesce(pdu, '')) AS x FROM events WHERE run IN (1, 2) UNION ALL SELECT id || ',' || run || ',' || coalesce(q2c_ns, '-') || rwbs FROM requests WHERE run IN (1, 2))")
# the highest migration number (a number may have no file: schema/embed.sh)
latest=$(ls "$REPO_ROOT"/schema/[0-9][0-9][0-9]_*.sql | sed 's,.*/0*\([0-9]*\)_.*,\1,' | sort -n | tail -1)
if "$IOTAPE" runs --db "$old" > "$t/out" 2> "$t/err"; then
	check_eq "schema 3 -> $latest: user_version" "$latest" "$(sqlite3 "$old" 'PRAGMA user_version')"
	check_eq "schema 3 -> 4: events and requests kept (ids, payloads, generated columns)" "$before" \
		"$(sqlite3 "$old" "SELECT group_concat(x, ';') FROM (SELECT id || ',' || run || ',' || time_ns || ',' || hex(coalesce(pdu, '')) AS x FROM events UNION ALL SELECT id || ',' || run || ',' || coalesce(q2c_ns, '-') || rwbs FROM requests)")"
	check_eq "schema 3 -> 4: orphans dropped, the rest kept" " 3 2 1 0 0 0 0 1 0" "$(rows "$old")"
	check_eq "schema 3 -> 4: foreign keys hold" "" "$(sqlite3 "$old" 'PRAGMA foreign_key_check')"
	check_eq "schema 3 -> 4: events cascade now" 1 \
		"$(sqlite3 "$old" "SELECT count(*) FROM pragma_foreign_key_list('events') WHERE \"table\" = 'runs' AND on_delete = 'CASCADE'")"
	"$IOTAPE" rm --db "$old" a > /dev/null
	check_eq "schema 3 -> 4: rm after migrating leaves no orphans" "" "$(orphans "$old")"
	check_eq "schema 3 -> 4: rm keeps the replay, parent cleared" "b|" "$(sqlite3 "$old" "SELECT name || '|' || coalesce(parent, '') FROM runs")"
else
	not_ok "schema 3 -> 4: runs opens it" "$(cat "$t/err")"
fi
sqlite3 "$old" "PRAGMA user_version = $((latest + 1))"
if "$IOTAPE" runs --db "$old" > /dev/null 2> "$t/err"; then not_ok "a newer schema is refused"
else check_eq "a newer schema is refused" 1 "$(grep -c "schema version $((latest + 1)) is newer than this iotape" "$t/err")"; fi

# ---- names of digits only: refused for new runs (a run named 1 would hide
# the run whose id is 1); an old database's such a name still reads ----
idb=$t/ids.db
"$IOTAPE" import --quiet --db "$idb" --run first "$F"
"$IOTAPE" import --quiet --again --db "$idb" --run second "$F"
names() { sqlite3 "$idb" "SELECT group_concat(name, ' ') FROM (SELECT name FROM runs ORDER BY id)"; }
# digits DESC ARGS...: iotape ARGS exits 2 with one line saying why; the runs unchanged
digits() {
	local d=$1 rc; shift
	"$IOTAPE" "$@" > /dev/null 2> "$t/err"; rc=$?
	check_eq "$d: refused (exit 2, one line why), the runs unchanged" \
		"2 1 1 first second" "$rc $(wc -l < "$t/err") $(grep -c \
		"invalid run name '1': digits only would read as a run id" "$t/err") $(names)"
}
digits "import --again --run 1" import --quiet --again --db "$idb" --run 1 "$F"
digits "mv second 1" mv --db "$idb" second 1
digits "replay --run 1" replay --db "$idb" --run 1 --target "$t/replay.img" first
digits "capture --run 1" capture --db "$idb" --run 1 --duration 1 -d no-such-dev
check_eq "report 1: the run whose id is 1" 1 \
	"$("$IOTAPE" report --db "$idb" 1 | grep -c "^run 'first' ")"
check_eq "report 01: the run whose id is 1, as a number reads" 1 \
	"$("$IOTAPE" report --db "$idb" 01 | grep -c "^run 'first' ")"
cp "$F" "$t/7.bin"
"$IOTAPE" import --quiet --again --db "$idb" "$t/7.bin"
check_eq "import 7.bin: named run-7, not 7" "first second run-7" "$(names)"
# an old database with a run named 1 (id 2): still found by that name, and mv
# gives it one that does not hide run 1
sqlite3 "$idb" "UPDATE runs SET name = '1' WHERE name = 'second'"
check_eq "an old run named 1: report 1 shows it, as before" 1 \
	"$("$IOTAPE" report --db "$idb" 1 | grep -c "^run '1' ")"
check "an old run named 1: mv renames it" "$IOTAPE" mv --db "$idb" 1 second
check_eq "after mv, report 1 is run id 1 again" 1 \
	"$("$IOTAPE" report --db "$idb" 1 | grep -c "^run 'first' ")"
tap_finish
