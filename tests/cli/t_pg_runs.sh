# t_pg_runs.sh: `iotape runs` filters (--host, --kernel, --kind, --since, --until,
# --where KEY=VALUE) pick the same runs from an SQLite file and from a private
# PostgreSQL server (tests/lib.sh pg_start), with hosts, kernels, setting keys and
# values full of quotes, semicolons and backslashes going through as values. The
# PostgreSQL half is skipped without the server binaries.
. "$(dirname "$0")/../lib.sh"

need_iotape "runs filters"
t=$TEST_TMP F=$FIXTURES/loop-fio-small.bin
cd "$t" || exit 1

evil_host="h'o\"st; DROP TABLE runs; --\\"
evil_key="k'ey\\; DELETE FROM settings; --"
evil_val="v\\'a\"l;ue"
q() { printf '%s' "$1" | sed "s/'/''/g"; }   # an SQL literal's body (both engines)
day=86400000000000
# the same runs, settings, hosts and kernels in a store; SQL (run as $2) sets
# what no command sets on its own: another host and kernel, an old run (values
# no machine has: the replay records this one's own sysctls)
fill() {
	local d=$1 sql=$2
	"$IOTAPE" import --quiet --db "$d" --run a "$F" &&
	"$IOTAPE" import --quiet --db "$d" --run b --again "$F" &&
	"$IOTAPE" import --quiet --db "$d" --run c --again "$F" &&
	"$IOTAPE" replay --db "$d" a --target model:deskstar-7k500 --run ra --quiet > /dev/null &&
	"$IOTAPE" label --db "$d" a vm.dirty_ratio=23 > /dev/null &&
	"$IOTAPE" label --db "$d" b vm.dirty_ratio=43 > /dev/null &&
	"$IOTAPE" label --db "$d" c vm.dirty_ratio=23 x=1 > /dev/null &&
	$sql "UPDATE runs SET host = '$(q "$evil_host")', kernel = '6.1.0-evil' WHERE name = 'a';
		UPDATE runs SET host = 'web2', kernel = '$(q "$evil_val")' WHERE name = 'b';
		UPDATE runs SET created_ns = created_ns - 10 * $day WHERE name = 'c';
		INSERT INTO settings (run, key, value, at) SELECT id, '$(q "$evil_key")', '$(q "$evil_val")', 'start' FROM runs WHERE name = 'b';
		INSERT INTO settings (run, key, value, at) SELECT id, 'vm.swappiness', '13', 'end' FROM runs WHERE name = 'c';
		INSERT INTO settings (run, key, value, at) SELECT id, 'vm.swappiness', '63', 'start' FROM runs WHERE name = 'a';
		INSERT INTO settings (run, key, value, at) SELECT id, 'vm.swappiness', '13', 'end' FROM runs WHERE name = 'a';"
}
names() { awk '$1 ~ /^[0-9]+$/ && $3 ~ /^(import|capture|replay)$/ { print $2 }' | sort | tr '\n' ' ' | sed 's/ $//'; }

# pick STORE LABEL WANT ARGS...: runs ARGS... lists exactly the runs WANT
pick() {
	local d=$1 label=$2 want=$3 got; shift 3
	got=$("$IOTAPE" runs --db "$d" "$@" 2> pick.err | names)
	check_eq "$label" "$want" "$got"
}

sq() { sqlite3 "$t/t.db" "$1"; }
stores=("$t/t.db")
fill "$t/t.db" sq || { not_ok "fill the SQLite store"; tap_finish; }
if [ -x "${PG_BIN:-/usr/lib/postgresql/15/bin}/initdb" ] && pg_start; then
	fill "$PG_URL" pg_psql && stores+=("$PG_URL") || not_ok "fill the PostgreSQL store"
else
	skip "runs filters on PostgreSQL" "no PostgreSQL server binaries (or it did not start)"
fi

for d in "${stores[@]}"; do
	case $d in postgresql*) s=PostgreSQL ;; *) s=SQLite ;; esac
	pick "$d" "$s: no filter" "a b c ra"
	pick "$d" "$s: --host with quotes, a semicolon and a backslash" "a" --host "$evil_host"
	pick "$d" "$s: --host web2" "b" --host web2
	pick "$d" "$s: --kernel with quotes and a backslash" "b" --kernel "$evil_val"
	pick "$d" "$s: --kernel 6.1.0-evil" "a" --kernel 6.1.0-evil
	pick "$d" "$s: --kind replay" "ra" --kind replay
	pick "$d" "$s: --kind import --since 7d" "a b" --kind import --since 7d
	pick "$d" "$s: --until 7d" "c" --until 7d
	pick "$d" "$s: --since 11d --until 9d" "c" --since 11d --until 9d
	pick "$d" "$s: --where vm.dirty_ratio=23" "a c" --where vm.dirty_ratio=23
	pick "$d" "$s: --where twice (ANDed)" "c" --where vm.dirty_ratio=23 --where x=1
	pick "$d" "$s: --where KEY=VALUE full of quotes, semicolons and backslashes" "b" \
		--where "$evil_key=$evil_val"
	pick "$d" "$s: --where takes the start value over the end one" "a" --where vm.swappiness=63
	pick "$d" "$s: --where takes the end value when there is no start one" "c" --where vm.swappiness=13
	pick "$d" "$s: --where a value no run has" "" --where vm.dirty_ratio=2
	pick "$d" "$s: everything at once" "a" --host "$evil_host" --kernel 6.1.0-evil \
		--kind import --since 1d --where vm.dirty_ratio=23
	pick "$d" "$s: the tables are intact after all that" "a b c ra"
	"$IOTAPE" runs --db "$d" --where novalue > /dev/null 2> bad.err; rc=$?
	if [ $rc = 2 ] && grep -q "invalid setting 'novalue' for --where" bad.err; then
		ok "$s: --where without '=' is refused: $(head -n 1 bad.err)"
	else
		not_ok "$s: --where without '='" "exit $rc: $(cat bad.err)"
	fi
done
"$IOTAPE" runs --kind other > /dev/null 2> bad.err; rc=$?
check_eq "--kind other is refused" "2 1" "$rc $(grep -c "invalid kind 'other'" bad.err)"
"$IOTAPE" runs --since 2x > /dev/null 2> bad.err; rc=$?
check_eq "--since 2x is refused" "2 1" "$rc $(grep -c "invalid duration '2x' for --since" bad.err)"
tap_finish
