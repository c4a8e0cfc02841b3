# t_pg_conninfo.sh: no message shows a password given in --db or IOTAPE_DB (a URI
# or a key=value connection string): a private PostgreSQL server (tests/lib.sh
# pg_start) asks one role for a password (scram-sha-256 on its socket), and every
# kind of command that names its store in an error is given the wrong one. The
# store is named by libpq's parse of what was given (PQconninfoParse), rebuilt as
# key=value pairs without the password. Skipped without the server binaries.
. "$(dirname "$0")/../lib.sh"

need_iotape "PostgreSQL connection strings"
need_pg "PostgreSQL connection strings"
pg_start || { not_ok "start a private PostgreSQL server"; tap_finish; }
t=$TEST_TMP F=$FIXTURES/loop-fio-small.bin
cd "$t" || exit 1
"$IOTAPE" import --quiet --db "$PG_URL" --run lf "$F" || { not_ok "import"; tap_finish; }
pw="Pa55;w'o\\\\rd"
pg_psql "CREATE ROLE carol LOGIN PASSWORD 'right-one' IN ROLE pg_read_all_data" ||
	{ not_ok "create a role with a password"; tap_finish; }
# the server asks carol for her password; everyone else is trusted as before
hba=$PG_DIR/data/pg_hba.conf
{ echo "local all carol scram-sha-256"; cat "$hba"; } > "$t/hba" && cat "$t/hba" > "$hba"
pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" reload > /dev/null 2>&1 ||
	{ not_ok "reload the server"; tap_finish; }
sleep 1

enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$pw" 2> /dev/null) ||
	enc=wrong-password
[ "$enc" = wrong-password ] && pw=wrong-password
U="postgresql://carol:$enc@/iotape?host=$PG_DIR"
K="host=$PG_DIR dbname=iotape user=carol password='$(printf '%s' "$pw" | sed "s/[\\\\']/\\\\&/g")'"

# secret_free LABEL FILE: FILE (stderr) says the password failed and shows none of it
secret_free() {
	if grep -q "password authentication failed" "$2" && ! grep -qF "$pw" "$2" &&
	   ! grep -qF "$enc" "$2" && ! grep -q "Pa55" "$2"; then
		ok "$1: $(head -c 200 "$2")"
	else
		not_ok "$1" "$(cat "$2")"
	fi
}
for form in U K; do
	db=${!form}
	"$IOTAPE" runs --db "$db" > /dev/null 2> e1; secret_free "runs ($form)" e1
	"$IOTAPE" report --db "$db" lf > /dev/null 2> e2; secret_free "report ($form)" e2
	"$IOTAPE" import --quiet --db "$db" --run x "$F" > /dev/null 2> e3; secret_free "import ($form)" e3
	"$IOTAPE" metric --db "$db" lf tps=1 > /dev/null 2> e4; secret_free "metric ($form)" e4
	"$IOTAPE" fleet --db "$db" > /dev/null 2> e5; secret_free "fleet ($form)" e5
	IOTAPE_DB=$db "$IOTAPE" compare lf lf > /dev/null 2> e6; secret_free "compare, IOTAPE_DB ($form)" e6
	"$IOTAPE" replay --db "$db" lf --target model:deskstar-7k500 --quiet > /dev/null 2> e7
	secret_free "replay ($form)" e7
	"$IOTAPE" push --db "$t/l.db" --to "$db" lf > /dev/null 2> e8 ||
		{ "$IOTAPE" import --quiet --db "$t/l.db" --run lf "$F" &&
		  "$IOTAPE" push --db "$t/l.db" --to "$db" lf > /dev/null 2> e8; }
	secret_free "push --to ($form)" e8
done
check_eq "the store is named by its parts, the password left out" 1 \
	"$(grep -c "^iotape: host=$PG_DIR dbname=iotape user=carol\|user=carol.*dbname=iotape" e8)"
# the right password (in IOTAPE_DB) works: nothing refuses a password as such
right="postgresql://carol:right-one@/iotape?host=$PG_DIR"
if IOTAPE_DB=$right "$IOTAPE" runs > runs.out 2> runs.err && grep -q " lf " runs.out &&
   ! grep -q "right-one" runs.out runs.err; then
	ok "the right password in IOTAPE_DB reads the store; the listing does not show it"
else
	not_ok "the right password" "$(cat runs.err runs.out)"
fi
# a URL that does not parse: libpq quotes it (or the value it stopped at),
# password and all; iotape's message shows neither
for bad in 'postgresql://u:s3cr3t-pw@[bad' 'postgresql://u:s3cr3t-pw%zz@h/x'; do
	"$IOTAPE" runs --db "$bad" > /dev/null 2> e9
	check_eq "a URL that does not parse ($bad): exit 1, one line, no password" \
		"1 1 0" "$? $(wc -l < e9) $(grep -c 's3cr3t' e9)"
done
"$IOTAPE" runs --db postgres:// > /dev/null 2> e10
grep -q "^iotape: (the PostgreSQL store of libpq's defaults): " e10 &&
	ok "postgres:// alone: the store named" || not_ok "postgres:// alone: the store named" "$(cat e10)"
# libpq is loaded on first use (lib/dl.h): without it (hidden by a bind
# mount in a mount namespace of this command's own) a PostgreSQL store is
# one line naming the package, not a crash
lib=$(ldconfig -p | awk '$1 == "libpq.so.5" && /x86-64/ { print $NF; exit }')
if [ -n "$lib" ] && command -v unshare > /dev/null; then
	lib=$(readlink -f "$lib")
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" \
		"$IOTAPE" runs --db "$right" > /dev/null 2> e11
	check_eq "no libpq: exit 1, one line naming libpq5, no password" "1 1 1 0" \
		"$? $(wc -l < e11) $(grep -c 'apt-get install libpq5' e11) $(grep -c right-one e11)"
else
	skip "no libpq" "no libpq.so.5 in ldconfig's cache, or no unshare"
fi
tap_finish
