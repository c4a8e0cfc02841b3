# t_fuzz_fixtures.sh: every input fuzzing found bad (tests/fixtures/fuzz) and
# every broken input kept (tests/fixtures/bad) goes through import and dump:
# a clean exit (0, or 1 with one error line), never a crash, a hang or a
# sanitizer report (this test matters most in the SANITIZE=... build).
. "$(dirname "$0")/../lib.sh"

need_iotape "fuzz and bad fixtures"
t=$TEST_TMP n=0
for f in "$FIXTURES"/fuzz/* "$FIXTURES"/bad/* "$FIXTURES"/variants/*; do
	case $f in *.md|*.db) continue ;; esac
	[ -f "$f" ] || continue
	n=$((n + 1))
	rm -f "$t/f.db"
	timeout 60 "$IOTAPE" import --quiet --db "$t/f.db" --run r "$f" > /dev/null 2> "$t/err"
	rc=$?
	if [ $rc = 0 ]; then
		timeout 60 "$IOTAPE" dump --db "$t/f.db" r > /dev/null 2>> "$t/err" &&
		timeout 60 "$IOTAPE" report --db "$t/f.db" r > /dev/null 2>> "$t/err"
		rc=$?
	fi
	if { [ $rc = 0 ] || { [ $rc = 1 ] && [ "$(wc -l < "$t/err")" = 1 ]; }; } &&
	   ! grep -q "Sanitizer\|runtime error" "$t/err"; then
		ok "$(basename "$(dirname "$f")")/$(basename "$f"): exit $rc"
	else
		not_ok "$(basename "$(dirname "$f")")/$(basename "$f")" "exit $rc" "$(head -n 8 "$t/err")"
	fi
done
[ $n -gt 0 ] || not_ok "fixtures found" "none under $FIXTURES"
tap_finish
