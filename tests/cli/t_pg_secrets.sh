# t_pg_secrets.sh: no command prints the password of its store's URL (issue 28):
# a private PostgreSQL server (tests/lib.sh pg_start) asks one role for a
# password (scram-sha-256 on its socket); every command of `iotape --help` is run
# with --db (or --to, --from, IOTAPE_DB) given that URL with the password in it,
# each one doing its work or failing as it may, and its output and errors are
# searched for the password (as written and URL-encoded). Skipped without the
# server binaries.
. "$(dirname "$0")/../lib.sh"

need_iotape "no password printed"
need_pg "no password printed"
pg_start || { not_ok "start a private PostgreSQL server"; tap_finish; }
t=$TEST_TMP F=$FIXTURES/loop-fio-small.bin
cd "$t" || exit 1
pw="Zq8;sEcr'3t"
enc=$(printf '%s' "$pw" | jq -sRr @uri 2> /dev/null) || enc='Zq8%3BsEcr%273t'
pg_psql "CREATE ROLE carol LOGIN SUPERUSER PASSWORD '$(printf '%s' "$pw" | sed "s/'/''/g")'" ||
	{ not_ok "create a role with a password"; tap_finish; }
hba=$PG_DIR/data/pg_hba.conf
{ echo "local all carol scram-sha-256"; cat "$hba"; } > "$t/hba" && cat "$t/hba" > "$hba"
pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" reload > /dev/null 2>&1 ||
	{ not_ok "reload the server"; tap_finish; }
sleep 1
U="postgresql://carol:$enc@/iotape?host=$PG_DIR"
"$IOTAPE" import --quiet --db "$U" --run lf "$F" > imp.out 2>&1 ||
	{ not_ok "import with the password in the URL" "$(cat imp.out)"; tap_finish; }
"$IOTAPE" import --quiet --db l.db --run lf "$F"

# clean LABEL ARGS...: iotape ARGS... (any exit status) prints no part of the password
clean() {
	local label=$1; shift
	timeout 60 "$@" > out 2>&1 < /dev/null
	local rc=$?
	if grep -qF -e "$pw" -e "$enc" -e "Zq8" out; then
		not_ok "$label: the password shows" "$(grep -F -e Zq8 -e "$enc" out | head -n 3)"
	else
		ok "$label (exit $rc): no password in $(wc -c < out) bytes"
	fi
}
cmds=$("$IOTAPE" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
for c in $cmds; do
	case $c in
	capture) clean "capture" "$IOTAPE" capture --db "$U" --run c -d nosuchdev --cmd true ;;
	record) clean "record" "$IOTAPE" record --db "$U" -d nosuchdev --window 1s ;;
	import) clean "import" "$IOTAPE" import --quiet --again --db "$U" --run lf2 "$F" ;;
	runs) clean "runs" "$IOTAPE" runs --db "$U" ;;
	rm) clean "rm" "$IOTAPE" rm --db "$U" lf2 ;;
	mv) clean "mv" "$IOTAPE" mv --db "$U" lf lf3
	    "$IOTAPE" mv --db "$U" lf3 lf > /dev/null 2>&1 ;;
	label) clean "label" "$IOTAPE" label --db "$U" lf fs=ext4 ;;
	metric) clean "metric" "$IOTAPE" metric --db "$U" lf tps=1 ;;
	vacuum) clean "vacuum" "$IOTAPE" vacuum --db "$U" ;;
	push) clean "push --to" "$IOTAPE" push --db l.db --to "$U" lf ;;
	pull) clean "pull --from" "$IOTAPE" pull --db p.db --from "$U" lf ;;
	fleet) clean "fleet" "$IOTAPE" fleet --db "$U"
	       clean "fleet --migrate" "$IOTAPE" fleet --migrate --db "$U"
	       clean "fleet --expire" "$IOTAPE" fleet --expire 999d --db "$U" ;;
	dump) clean "dump" "$IOTAPE" dump --db "$U" lf ;;
	report) clean "report" "$IOTAPE" report --db "$U" lf ;;
	compare) clean "compare" "$IOTAPE" compare --db "$U" lf lf ;;
	export) clean "export" "$IOTAPE" export --db "$U" --format csv lf ;;
	plot) clean "plot" "$IOTAPE" plot --db "$U" -o p --format txt lf ;;
	mail) clean "mail" "$IOTAPE" mail --db "$U" -o m lf lf ;;
	iostat) clean "iostat" "$IOTAPE" iostat --db "$U" lf ;;
	vmstat) clean "vmstat" "$IOTAPE" vmstat --db "$U" lf ;;
	# a lab state of its own: a capture elsewhere on the machine does not stop it
	replay) clean "replay" "$IOTAPE" replay --db "$U" lf --target model:deskstar-7k500 \
		--run rp --state-dir "$t/lab" ;;
	model) clean "model fit" "$IOTAPE" model fit --db "$U" lf ;;
	disk) clean "disk list" "$IOTAPE" disk list --db "$U" ;;
	*) not_ok "$c: no case in this test for it" ;;
	esac
done
clean "a run that is not there" "$IOTAPE" report --db "$U" nosuch
clean "IOTAPE_DB" env IOTAPE_DB="$U" "$IOTAPE" runs
clean "a wrong password" "$IOTAPE" runs --db "postgresql://carol:$enc-no@/iotape?host=$PG_DIR"
clean "a server that is not there" "$IOTAPE" runs --db "postgresql://carol:$enc@/iotape?host=$t/none"
tap_finish
