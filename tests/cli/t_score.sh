# t_score.sh: the explanation scoreboard's own check (not the score: that is
# `make explain-score`). Its quick mode captures the first variation of the
# readahead scenario and of the healthy runs (one run a side, healthy twice),
# copies them blind and scores them: the table has a row per scenario,
# variation and copy and the totals, score.json holds every row with its
# fields, the exit status follows the targets, a re-score of the same
# captures gives the same rows, and nothing it set up is left (loop devices,
# mounts, blk-throttle limits, tracefs).
. "$(dirname "$0")/../lib.sh"

need_iotape "scoreboard"
need_root "scoreboard"
tracefs_check || { skip "scoreboard" "$TRACEFS_WHY"; exit 0; }
[ -w /sys/fs/cgroup/blkio/blkio.throttle.read_bps_device ] ||
	{ skip "scoreboard" "no cgroup v1 blk-throttle"; exit 0; }
for tool in mkfs.ext4 jq sqlite3 vmstat fio; do
	command -v $tool > /dev/null || { skip "scoreboard" "no $tool"; exit 0; }
done

t=$TEST_TMP dir=$t/score
mkdir -p "$t/tmp"
thr() { cat /sys/fs/cgroup/blkio/blkio.throttle.*_device | sort; }
thr0=$(thr) tfs0=$(tracefs_state_locked)

TMPDIR=$t/tmp SCORE_DIR=$dir SCORE_QUICK=1 bash "$REPO_ROOT/tests/score/score.sh" \
	> "$t/out" 2> "$t/err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] && ok "quick score exits 0 or 1 ($rc)" ||
	not_ok "quick score exits 0 or 1" "exit $rc" "$(tail -n 5 "$t/err")"
check_eq "4 runs captured (readahead's pair, healthy twice)" 4 \
	"$(sqlite3 "$dir/full.db" "SELECT count(*) FROM runs")"
check_eq "the blind copy has the 4 runs, from a trace and a vmstat log each" 4 \
	"$(sqlite3 "$dir/blind.db" "SELECT count(DISTINCT s.run) FROM samples s
		WHERE s.source = 'vmstat-log'")"
check_eq "nothing but the trace and the log in the blind copy" 0 \
	"$(sqlite3 "$dir/blind.db" "SELECT (SELECT count(*) FROM commands) +
		(SELECT count(*) FROM samples WHERE source != 'vmstat-log')")"
grep -q "^scenario  variation " "$t/out" && ok "the table has its header" ||
	not_ok "the table has its header" "$(head -n 5 "$t/out")"
for copy in full blind; do
	grep -qE "^readahead dd-24M +$copy " "$t/out" && ok "a readahead row for the $copy copy" ||
		not_ok "a readahead row for the $copy copy" "$(cat "$t/out")"
	grep -qE "^healthy +rr-2x300iops +$copy " "$t/out" && ok "a healthy row for the $copy copy" ||
		not_ok "a healthy row for the $copy copy"
	grep -qE "^$copy +planted first: report [0-9]+/1 " "$t/out" &&
		ok "$copy totals: the report scored" || not_ok "$copy totals" "$(tail -n 12 "$t/out")"
done
w=$(awk 'length > 80' "$t/out" | wc -l)
check_eq "the table fits 80 columns" 0 "$w"
j=$dir/score.json
check_eq "score.json: 2 planted rows, 2 null rows" "2 2" \
	"$(jq -r '[.rows[] | select(.type == "planted")] | length' "$j") $(jq -r '[.rows[] | select(.type == "null")] | length' "$j")"
check_eq "planted rows have their fields" "readahead readahead blkio 1 true" \
	"$(jq -r '.rows[] | select(.type == "planted" and .copy == "blind") |
		"\(.scenario) \(.planted) \(.kind) \(.report_first | length) \(.measured_s != null)"' "$j")"
check_eq "the full copy's delay accounting is beside the blind copy's cost" true \
	"$(jq -r '.rows[] | select(.type == "planted" and .copy == "blind") | .delay_acct_s != null' "$j")"
met=$(jq -r .targets_met "$j")
if { [ "$met" = true ] && [ $rc = 0 ]; } || { [ "$met" = false ] && [ $rc = 1 ]; }; then
	ok "exit $rc as the targets say (met: $met)"
else
	not_ok "the exit status follows the targets" "exit $rc, targets_met $met"
fi
jq -S '.rows' "$j" > "$t/rows1"
SCORE_DIR=$dir RESCORE=1 bash "$REPO_ROOT/tests/score/score.sh" > "$t/out2" 2> "$t/err2"
rc2=$?
jq -S '.rows' "$j" > "$t/rows2"
check_eq "a re-score exits as the score did" $rc $rc2
cmp -s "$t/rows1" "$t/rows2" && ok "a re-score of the same captures gives the same rows" ||
	not_ok "a re-score gives the same rows" "$(diff "$t/rows1" "$t/rows2" | head -n 10)"
check_eq "no loop device left on the scoreboard's files" "" "$(losetup -a | grep -F "$t/tmp")"
check_eq "no mount left" "" "$(grep -F "$t/tmp" /proc/mounts)"
check_eq "blk-throttle limits as they were" "$thr0" "$(thr)"
check_eq "tracefs as it was" "$tfs0" "$(tracefs_state_locked)"
tap_finish
