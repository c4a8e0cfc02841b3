# tests/run.sh: runs the cmocka unit binaries given as arguments and every
# tests/cli/t_*.sh, one line per test, and ends with "N passed, N failed, N skipped".
# Called by `make test` as: BUILD=build IOTAPE=/abs/iotape bash tests/run.sh BINARY...
# Exit status is 1 if anything failed. TEST_TIMEOUT (seconds, default 900) bounds each
# binary and script; T_ONLY=PATTERN runs only the scripts whose name matches. Skips
# for want of the corpus of public traces are counted in one line at the end.

set -u
cd "$(dirname "$0")/.." || exit 1
REPO_ROOT=$(pwd)
export IOTAPE=${IOTAPE:-$REPO_ROOT/iotape}
export BUILD=${BUILD:-build}
export REPO_ROOT
TEST_TIMEOUT=${TEST_TIMEOUT:-900}

passed=0 failed=0 skipped=0
failures=()
corpus_skips=0 corpus_scripts=() corpus_why=
work=$(mktemp -d "${TMPDIR:-/tmp}/iotape-run.XXXXXX") || exit 1
child=

cleanup() { [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child"; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# tap_summarise NAME OUTFILE ERRFILE RC: print one line per TAP result in OUTFILE and
# count them; a non-zero RC without any "not ok", a signal or a timeout is a failure
tap_summarise() {
	local name=$1 out=$2 err=$3 rc=$4
	local line desc status nfail=0 nres=0 plan=0 detail=0
	local re_res='^(not )?ok( [0-9]+)?( -)? ?(.*)$' re_skip='(^|[[:space:]])#[[:space:]]*[Ss][Kk][Ii][Pp]'
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		if [[ $line =~ $re_res ]]; then
			desc=${BASH_REMATCH[4]}
			status=pass
			[ -n "${BASH_REMATCH[1]}" ] && status=fail
			# cmocka 1.1.5 prints skipped tests as "not ok N # SKIP name"
			[[ $desc =~ $re_skip ]] && status=skip
			nres=$((nres + 1))
			detail=0
			case $status in
			pass) passed=$((passed + 1)); printf 'PASS  %s: %s\n' "$name" "$desc" ;;
			skip) skipped=$((skipped + 1))
				# "desc # SKIP reason"; cmocka gives "# SKIP name" and no reason
				local reason=${desc#*[Kk][Ii][Pp]} what=${desc%%#*}
				what=${what%"${what##*[! ]}"}; reason=${reason# }
				if [ -z "$what" ]; then what=$reason reason=; fi
				# the public corpus: one line at the end, not one a test
				if [[ $reason == "corpus absent"* ]]; then
					corpus_skips=$((corpus_skips + 1))
					[[ " ${corpus_scripts[*]} " == *" $name "* ]] ||
						corpus_scripts+=("$name")
					corpus_why=${reason#corpus absent}
				else
					printf 'SKIP  %s: %s%s\n' "$name" "$what" "${reason:+ ($reason)}"
				fi ;;
			fail) failed=$((failed + 1)); nfail=$((nfail + 1)); detail=1
				failures+=("$name: $desc")
				printf 'FAIL  %s: %s\n' "$name" "$desc" ;;
			esac
		elif [[ $line == "#"* ]]; then
			# diagnostics under a failed test; cmocka's "# not ok - group" is noise
			if [ $detail -gt 0 ] && [ $detail -le 20 ] && [[ ! $line =~ ^#\ (not\ )?ok\ -\  ]]; then
				printf '      %s\n' "$line"
				detail=$((detail + 1))
			fi
		elif [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=$((plan + BASH_REMATCH[1]))
			detail=0
		elif [[ $line == "Bail out!"* ]]; then
			failed=$((failed + 1)); nfail=$((nfail + 1)); failures+=("$name: $line")
			printf 'FAIL  %s: %s\n' "$name" "$line"
		else
			detail=0
		fi
	done < "$out"

	local why=
	if [ "$rc" = 124 ]; then why="timed out after ${TEST_TIMEOUT}s"
	elif [ "$rc" = 137 ]; then why="killed by SIGKILL (timed out, or out of memory)"
	elif [ "$rc" -gt 128 ]; then why="killed by signal $((rc - 128))"
	elif [ "$rc" != 0 ] && [ $nfail = 0 ]; then why="exited with status $rc"
	elif [ $plan -gt 0 ] && [ $nres -lt $plan ]; then why="planned $plan tests, ran $nres"
	elif [ $nres = 0 ]; then why="printed no test results"
	fi
	if [ -n "$why" ]; then
		failed=$((failed + 1)); failures+=("$name: $why")
		printf 'FAIL  %s: %s\n' "$name" "$why"
	fi
	if [ -n "$why" ] || [ $nfail -gt 0 ]; then
		if [ -s "$err" ]; then
			printf '      --- stderr (last 15 lines) ---\n'
			tail -n 15 "$err" | sed 's/^/      /'
		fi
	fi
}

# run_one NAME CMD...: run CMD under the timeout, in the background so that a signal
# to this script reaches it
run_one() {
	local name=$1 rc; shift
	local out=$work/out err=$work/err start=$SECONDS
	timeout -k 30 "$TEST_TIMEOUT" "$@" > "$out" 2> "$err" < /dev/null &
	child=$!
	{ wait "$child"; } 2> /dev/null; rc=$?   # no "Segmentation fault" job notice
	child=
	tap_summarise "$name" "$out" "$err" "$rc"
	times+=("$(printf '%4ds  %s' $((SECONDS - start)) "$name")")
}

times=()
for bin in "$@"; do
	name=unit/$(basename "$bin")
	if [ ! -x "$bin" ]; then
		failed=$((failed + 1)); failures+=("$name: no such test binary")
		printf 'FAIL  %s: no such test binary\n' "$name"
		continue
	fi
	CMOCKA_MESSAGE_OUTPUT=TAP run_one "$name" "$bin"
done

for script in tests/cli/t_*.sh; do
	[ -e "$script" ] || continue
	name=cli/$(basename "$script" .sh)
	[ -n "${T_ONLY:-}" ] && [[ $name != *$T_ONLY* ]] && continue
	run_one "$name" bash "$script"
done

if [ -n "${TEST_TIMES:-}" ]; then
	printf '\nTime per binary or script:\n'
	printf '  %s\n' "${times[@]}"
fi
if [ $corpus_skips -gt 0 ]; then
	printf 'SKIP  %d test%s of %d script%s: the corpus of public traces is absent%s\n' \
		$corpus_skips "$([ $corpus_skips = 1 ] || echo s)" ${#corpus_scripts[@]} \
		"$([ ${#corpus_scripts[@]} = 1 ] || echo s)" "$corpus_why"
fi
if [ ${#failures[@]} -gt 0 ]; then
	printf '\nFailed:\n'
	printf '  %s\n' "${failures[@]}"
fi
printf '%d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
[ "$failed" = 0 ]
