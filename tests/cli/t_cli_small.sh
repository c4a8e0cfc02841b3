# t_cli_small.sh: the command line's small manners (issue 15, items 5 and 10):
# a database in a missing folder is named, usage errors are one line and "see
# --help" in every command, a mistyped command gets "did you mean", default
# run names follow one rule, the txt plot's legend is readable, hints quote
# run names for the shell, a trace without completions says why instead of
# printing zeros (corpus; skipped without it), compare of a run against
# itself or its twin says nobody took longer, section rules are 80 wide, and
# the hints after a store (replay, make demo) run as printed.
. "$(dirname "$0")/../lib.sh"

need_iotape "small command-line checks"
t=$TEST_TMP db=$t/t.db
"$IOTAPE" import --quiet --db "$db" --run lf "$FIXTURES/loop-fio-small.bin"

# one_line LABEL WANT-RC PATTERN IOTAPE-ARGS...: exit WANT-RC, exactly one
# stderr line, matching PATTERN
one_line() {
	local label=$1 want=$2 pat=$3 rc; shift 3
	"$IOTAPE" "$@" > "$t/out" 2> "$t/err" < /dev/null; rc=$?
	if [ "$rc" = "$want" ] && [ "$(wc -l < "$t/err")" = 1 ] &&
	   grep -qE -- "$pat" "$t/err"; then
		ok "$label: $(cat "$t/err")"
	else
		not_ok "$label" "exit $rc (want $want): $(cat "$t/err")" "want /$pat/"
	fi
}

# ---- a database in a missing folder: the folder named, nothing made
one_line "import into a missing folder" 1 \
	"^iotape: $t/no/such/x.db: folder '$t/no/such' does not exist$" \
	import --db "$t/no/such/x.db" "$FIXTURES/loop-fio-small.bin"
one_line "runs of a database in a missing folder" 1 \
	"folder '$t/no/such' does not exist$" runs --db "$t/no/such/x.db"
one_line "report from a database under a file" 1 \
	"'$t/t.db' is not a folder$" report --db "$t/t.db/x.db" lf
check "no folder was made" test ! -e "$t/no"

# ---- usage errors: an error line, then "see --help", never the whole help
"$IOTAPE" report --db "$db" lf lf > "$t/out" 2> "$t/err"; rc=$?
if [ $rc = 2 ] && [ "$(sed -n 1p "$t/err")" = "iotape: report takes one RUN; for several: iotape compare" ] &&
   [ "$(sed -n 2p "$t/err")" = "iotape: see 'iotape report --help'" ] &&
   [ "$(wc -l < "$t/err")" = 2 ] && [ ! -s "$t/out" ]; then
	ok "report RUN RUN: an error line and see --help"
else
	not_ok "report RUN RUN" "exit $rc: $(cat "$t/err")"
fi
cmds=$("$IOTAPE" --help | awk '/^commands:/ { on = 1; next } on && /^   [a-z]/ { print $1 }')
check "the command table lists capture ... model" test "$(printf '%s\n' "$cmds" | wc -l)" -ge 12
for c in $cmds; do
	"$IOTAPE" "$c" --db "$db" --no-such-option lf > "$t/out" 2> "$t/err" < /dev/null; rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$t/err")" = 2 ] &&
	   grep -q "unknown option: '--no-such-option'" "$t/err" &&
	   [ "$(sed -n 2p "$t/err")" = "iotape: see 'iotape $c --help'" ] &&
	   ! grep -q "usage:" "$t/err" "$t/out"; then
		ok "$c --no-such-option: two lines, exit 2"
	else
		not_ok "$c --no-such-option" "exit $rc" "$(head -n 5 "$t/err")"
	fi
done
for c in dump export plot vmstat replay model report; do
	"$IOTAPE" "$c" --db "$db" > "$t/out" 2> "$t/err" < /dev/null; rc=$?
	if [ $rc = 2 ] && [ "$(wc -l < "$t/err")" = 2 ] &&
	   [ "$(sed -n 2p "$t/err")" = "iotape: see 'iotape $c --help'" ] &&
	   ! grep -q "usage:" "$t/err" "$t/out"; then
		ok "$c without its arguments: $(sed -n 1p "$t/err")"
	else
		not_ok "$c without its arguments" "exit $rc" "$(head -n 5 "$t/err")"
	fi
done

# ---- a mistyped command: the closest ones, exit 2
one_line "reprot" 2 "^iotape: 'reprot' is not an iotape command; did you mean 'report'\?$" reprot lf
one_line "caputre" 2 "did you mean 'capture'\?$" caputre
one_line "mial" 2 "did you mean 'mail'\?$" mial
one_line "nothing close to xyzzy" 2 \
	"^iotape: 'xyzzy' is not an iotape command; see 'iotape --help'$" xyzzy

# ---- default run names: one rule for every format
mkdir -p "$t/names"
cp "$FIXTURES/loop-fio-small.bin" "$t/names/t.bin"
cp "$FIXTURES/loop-fio-small.bin" "$t/names/w.blktrace.0"
cp "$FIXTURES/vmstat/plain-1-3.log" "$t/names/vm.log"
cp "$FIXTURES/import/fio-v3.iolog" "$t/names/fio3.iolog"
ndb=$t/names.db
for f in t.bin w.blktrace.0 vm.log fio3.iolog t.bin; do
	"$IOTAPE" import --again --quiet --db "$ndb" "$t/names/$f" ||
		not_ok "import $f"
done
check_eq "default names drop .bin, .blktrace.N, .log, .iolog" \
	"t w vm fio3 t-2" "$(sqlite3 "$ndb" "SELECT name FROM runs ORDER BY id" | tr '\n' ' ' | sed 's/ $//')"

# ---- the txt plot's legend has room between its entries
if command -v gnuplot > /dev/null; then
	"$IOTAPE" plot --db "$db" --kind lat --format txt -o "$t/plot" lf 2> "$t/err" ||
		not_ok "plot --format txt" "$(cat "$t/err")"
	legend=$(grep -E ' read \*+' "$t/plot/lf.lat.txt" | head -n 1)
	if printf '%s\n' "$legend" | grep -qE 'read \*+ {2,}write #+'; then
		ok "txt legend readable: $(printf '%s' "$legend" | sed 's/^ *//')"
	else
		not_ok "txt legend" "'$legend'"
	fi
else
	skip "txt plot legend" "no gnuplot"
fi

# ---- a hint with a run name that is a glob to the shell quotes it
img=$t/replay.img   # a new file: made and written by the replay (a file
rm -f "$img"        # holding data would have its writes replayed as reads)
name='lf[queue/scheduler=none]'
if "$IOTAPE" replay --db "$db" --target "$img" --run "$name" --engine sync lf \
	> "$t/out" 2> "$t/err"; then
	check_eq "the replay's hint quotes its name and names the store" \
		"iotape: stored replay run '$name'; see: iotape report --db $db '$name'" \
		"$(grep 'stored replay run' "$t/err")"
	# and the hint works as printed
	hint=$(grep 'stored replay run' "$t/err" | sed 's/.*see: iotape //')
	if (eval "set -- $hint" && [ "$#" = 4 ] && [ "$4" = "$name" ]) &&
	   (cd / && eval "\"\$IOTAPE\" $hint" | head -n 1 | grep -qF "run '$name' (replay"); then
		ok "the quoted hint runs as printed, from another folder too"
	else
		not_ok "the quoted hint runs as printed" "$hint"
	fi
else
	not_ok "replay to a file" "$(tail -n 3 "$t/err")"
fi
# a plain name: the hint in quotes as it runs ("see ' iotape" had a space)
if "$IOTAPE" replay --db "$db" --target "$img" --run lfplain --engine sync lf \
	> "$t/out" 2> "$t/err"; then
	check_eq "the replay's hint for a plain name" \
		"iotape: stored replay run 'lfplain'; see 'iotape report --db $db lfplain'" \
		"$(grep 'stored replay run' "$t/err")"
else
	not_ok "replay to a file, a plain name" "$(tail -n 3 "$t/err")"
fi
rm -f "$img"

# ---- a trace without completions (corpus: a per-CPU set with CPUs missing)
if C=$(corpus_dir) && [ -f "$C/zzunny97-hadoop-40cpu-partial/sdb.blktrace.0" ]; then
	cdb=$t/c.db set=$C/zzunny97-hadoop-40cpu-partial/sdb
	"$IOTAPE" import --quiet --db "$cdb" "$set" &&
	"$IOTAPE" import --again --quiet --db "$cdb" --run sdb2 "$set" ||
		not_ok "import the partial set"
	"$IOTAPE" report --db "$cdb" sdb > "$t/rep" 2> "$t/err" ||
		not_ok "report sdb" "$(cat "$t/err")"
	check "report: says why there are no completions" \
		grep -q "no completions in this trace: 2661 requests pending at its end; CPUs 1-28" "$t/rep"
	check "report: no Q2C or D2C rows" bash -c "! grep -qE '^  (Q2C|D2C) ' '$t/rep'"
	check "report: no 'avg in flight 0.00'" bash -c "! grep -q 'avg in flight 0' '$t/rep'"
	check "report: no stage shares of nothing" bash -c "! grep -q 'Q2G 0.0%' '$t/rep'"
	check "report: Q2D is still measured" grep -qE '^  Q2D +2402 ' "$t/rep"
	"$IOTAPE" report --db "$cdb" --json sdb > "$t/rep.json"
	check_eq "report --json: null, not 0, where nothing was measured" \
		"0 None None None None None" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
t = json.load(open(sys.argv[1]))["time"]["devices"][0]
print(d["q2c"]["n"], d["q2c"]["mean_us"], d["d2c"]["p99_us"], d["avg_inflight"],
      t["util_pct"], t["stages"]["d2c"]["pct_of_q2c"])' "$t/rep.json")"
	"$IOTAPE" compare --db "$cdb" sdb sdb2 > "$t/cmp" 2> "$t/err" ||
		not_ok "compare sdb sdb2" "$(cat "$t/err")"
	check "compare: no Q2C or D2C figures" bash -c "! grep -qE '(Q2C|D2C) p(50|99)' '$t/cmp'"
	check "compare: says why for each run" \
		test "$(grep -c 'no completions in this trace' "$t/cmp")" = 2
	"$IOTAPE" mail --db "$cdb" -o "$t/mail" sdb sdb2 > /dev/null 2>&1
	check "mail: says why" grep -q "no completions in this trace" "$t/mail/sdb-vs-sdb2.full.txt"
else
	skip "a trace without completions" "corpus absent"
fi

# ---- a run against itself, or two runs of the same time: neither is worse
"$IOTAPE" import --quiet --db "$db" --again --run lf2 "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" compare --db "$db" lf lf > "$t/self" 2>&1
"$IOTAPE" compare --db "$db" lf lf2 > "$t/twin" 2>&1
if grep -q "^the workload's span (lower is better): lf 1.001 s, lf 1.001 s: the same run on" "$t/self" &&
   ! grep -q 'took longer \(by\|than\)' "$t/self"; then
	ok "compare lf lf: the same run"
else
	not_ok "compare lf lf: the same run" "$(grep -A3 'the question' "$t/self")"
fi
if grep -q "^the workload's span (lower is better): lf 1.001 s, lf2 1.001 s: they took" "$t/twin" &&
   ! grep -q 'took longer \(by\|than\)' "$t/twin"; then
	ok "compare lf lf2: the same time"
else
	not_ok "compare lf lf2: the same time" "$(grep -A3 'the question' "$t/twin")"
fi

# ---- make demo (capture/demo.sh; its import path, as a user would run it
# without root) ends with hints that run as printed from the top of the tree
d=$t/top
mkdir -p "$d/capture" "$d/tests/fixtures/quick"
cp "$REPO_ROOT/capture/demo.sh" "$d/capture/" && cp "$IOTAPE" "$d/iotape" &&
	cp "$FIXTURES"/quick/*.bin.gz "$d/tests/fixtures/quick/"
chmod -R a+rwX "$d"; chmod a+x "$t"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
if [ ${#as_user[@]} -gt 0 ] && ! command -v setpriv > /dev/null; then
	skip "make demo's hints" "root and no setpriv"
elif (cd "$d" && "${as_user[@]}" bash capture/demo.sh) > "$t/demo.out" 2> "$t/demo.err"; then
	mapfile -t cmds < <(sed -n 's/^demo:   //p' "$t/demo.err")
	if [ "${#cmds[@]}" = 2 ] && [ "${cmds[0]}" = "./iotape compare --db demo/demo.db before after" ] &&
	   (cd "$d" && eval "${cmds[0]}") | grep -q '^== the question' &&
	   (cd "$d" && "${as_user[@]}" bash -c "${cmds[1]}") | grep -q 'full.txt' &&
	   (cd "$d" && ./iotape compare --db demo/demo.db --metric read_q2c_p99_us before after) |
		cmp -s - "$t/demo.out" && grep -q '^read_q2c_p99_us (lower is better): before' "$t/demo.out" &&
	   [ -s "$d/demo/before-vs-after.tput.png" ]; then
		ok "make demo: compare's answer on the reader's p99, pictures, hints that run as printed: ${cmds[0]}; ${cmds[1]}"
	else
		not_ok "make demo's compare, pictures and hints" "$(tail -n 4 "$t/demo.err")"
	fi
else
	not_ok "capture/demo.sh without root" "$(tail -n 3 "$t/demo.err")"
fi
# as root, the capture path: tracefs as it was before (it looked, mounting
# tracefs when absent, and once left it mounted)
if [ "$(id -u)" = 0 ] && tracefs_check && command -v fio > /dev/null; then
	tfs0=$(tracefs_state_locked)
	(cd "$d" && bash capture/demo.sh) > "$t/demo-root.out" 2> "$t/demo-root.err"
	check_eq "make demo as root: exits 0, two runs, tracefs as it was ($tfs0)" \
		"0 2 $tfs0" "$? $(grep -c '^demo: capturing' "$t/demo-root.err") $(tracefs_state_locked)"
else
	skip "make demo as root" "not root, no blk tracer or no fio"
fi

# ---- section rules: every "== title ===" line of report, compare and mail
# is 80 columns wide
"$IOTAPE" report --db "$db" lf > "$t/rep" 2>&1
"$IOTAPE" mail --db "$db" -o "$t/rules" lf lf2 > /dev/null 2>&1
rules=$(cat "$t/rep" "$t/twin" "$t/rules/lf-vs-lf2.full.txt" | grep '^== ')
widths=$(printf '%s\n' "$rules" | awk '{ print length }' | sort -u | paste -sd' ')
n=$(printf '%s\n' "$rules" | wc -l)
if [ "$widths" = 80 ] && [ "$n" -ge 15 ]; then
	ok "section rules: all $n of them 80 columns"
else
	not_ok "section rules: all 80 columns" "$(printf '%s\n' "$rules" |
		awk 'length != 80 { print length ": " $0 }')"
fi

tap_finish
