# t_fuzz_fixtures.sh: every input fuzzing found bad (tests/fixtures/fuzz), every
# crafted trace of tests/fixtures/robust and
# every broken input kept (tests/fixtures/bad) goes through import and dump:
# a clean exit (0, or 1 with one error line), never a crash, a hang or a
# sanitizer report (this test matters most in the SANITIZE=... build).
. "$(dirname "$0")/../lib.sh"

need_iotape "fuzz and bad fixtures"
t=$TEST_TMP n=0
for f in "$FIXTURES"/fuzz/* "$FIXTURES"/bad/* "$FIXTURES"/variants/* "$FIXTURES"/robust/*.bin; do
	case $f in *.md|*.db) continue ;; esac
	[ -f "$f" ] || continue
	n=$((n + 1))
	rm -f "$t/f.db" "$t"/set.blktrace.*
	input=$f
	case $(basename "$f") in trace_input-*)
		# as the harness feeds it: a per-CPU set of CPUs 0 and 2, the
		# rest of the bytes cut where the first byte says; then the whole
		# input as member 0 beside that same member 2
		size=$(stat -c %s "$f")
		first=$(od -An -tu1 -N1 "$f" | tr -d ' ')
		cut=$(( size > 1 ? first * (size - 1) / 255 : 0 ))
		tail -c +2 "$f" | head -c "$cut" > "$t/set.blktrace.0"
		tail -c +$((2 + cut)) "$f" > "$t/set.blktrace.2"
		timeout 60 "$IOTAPE" import --quiet --db "$t/f.db" --run s "$t/set" > /dev/null 2> "$t/err0"
		rc0=$?
		if [ $rc0 -gt 1 ] || grep -q "Sanitizer\|runtime error" "$t/err0"; then
			not_ok "$(basename "$f") as the harness's set" "exit $rc0" "$(head -n 8 "$t/err0")"
			continue
		fi
		cp "$f" "$t/set.blktrace.0"
		input=$t/set ;;
	esac
	timeout 60 "$IOTAPE" import --quiet --db "$t/f.db" --run r "$input" > /dev/null 2> "$t/err"
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
