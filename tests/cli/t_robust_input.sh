# t_robust_input.sh: inputs of the kinds that broke blkparse, btt or iotape
# (issue 12), each a crafted trace of tests/fixtures/robust: a trace of
# completions only, cgroup-id payloads, message and long-name records, the
# start-time notify record. Checked against blkparse 1.2.0 and btt 2.09 on
# the same input.
. "$(dirname "$0")/../lib.sh"

need_iotape "robust inputs"
for tool in blkparse btt jq; do
	command -v $tool > /dev/null || { skip "robust inputs" "no $tool"; exit 0; }
done
R=$FIXTURES/robust t=$TEST_TMP db=$t/t.db

# Completions only (action mask C): report counts the completed bios, as
# its help says, by direction as blkparse prints them; btt has nothing to
# pair, and neither has iotape.
"$IOTAPE" import --quiet --db "$db" --run conly "$R/conly.bin"
"$IOTAPE" report --db "$db" --json conly > "$t/conly.json"
check_eq "conly: completed bios counted (read write), as blkparse's C lines" \
	"$(blkparse -i - < "$R/conly.bin" | awk '$6 == "C" && / \+ / {
		if ($7 ~ /W/) w++; else r++ } END { print r + 0, w + 0 }')" \
	"$(jq -r '"\(.devices[0].read.requests) \(.devices[0].write.requests)"' "$t/conly.json")"
check_eq "conly: read IOPS as the full capture's" 299.7 \
	"$(jq '.devices[0].read.iops * 10 | round / 10' "$t/conly.json")"
blkparse -q -i - -d "$t/conly.dump" -O < "$R/conly.bin" > /dev/null 2>&1
compare_btt "$db" conly "$t/conly.dump" conly
tap_finish
