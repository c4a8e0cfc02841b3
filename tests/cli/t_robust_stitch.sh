# t_robust_stitch.sh: the stitching classes that broke btt or iotape (issue 12),
# each on a crafted trace of tests/fixtures/robust (make-robust-fixtures.py),
# checked against btt 2.09 run on the same input where btt is right.
. "$(dirname "$0")/../lib.sh"

need_iotape "robust stitching"
for tool in blkparse btt jq; do
	command -v $tool > /dev/null || { skip "robust stitching" "no $tool"; exit 0; }
done
R=$FIXTURES/robust t=$TEST_TMP db=$t/t.db

# stat RUN KEY: a run_stats value
stat() {
	sqlite3 "$db" "SELECT value FROM run_stats s JOIN runs r ON r.id = s.run
		WHERE r.name = '$1' AND key = '$2'"
}

# with_btt NAME: import robust/NAME.bin and compare report with btt on it
with_btt() {
	if ! "$IOTAPE" import --quiet --db "$db" --run "$1" "$R/$1.bin" 2> "$t/$1.err"; then
		not_ok "import $1" "$(cat "$t/$1.err")"; return
	fi
	blkparse -q -i - -d "$t/$1.dump" -O < "$R/$1.bin" > /dev/null 2>&1
	compare_btt "$db" "$1" "$t/$1.dump" "$1"
}

# A lost completion, then a new I/O at the same sector: btt (since 2016)
# replaces the stale one, so Q2C max is 55 us, not the 5 s gap.
with_btt replace
check_eq "replace: the stale I/O counted" 1 "$(stat replace dup_q)"
check_eq "replace: Q2C max us" 55 \
	"$("$IOTAPE" report --db "$db" --json replace | jq '.all.q2c.max_us')"

# Requeues: btt counts a D2D seek for every D (16 here, mean 21936.5).
with_btt requeue
check_eq "requeue: requeued dispatches' seeks kept" 4 "$(stat requeue requeued_seeks)"

# Flush+write sequences (kernel 5.x: Q FWFS no size, D FN, C FN 0, C WFS s)
# and fio #1978's FWFS write with data: btt's Q2C and D2C, nothing unmatched,
# and the flush bios' Q2C in jbd2's per-process row.
with_btt flushseq
check_eq "flushseq: completions unmatched" 0 "$(stat flushseq unmatched_c)"
check_eq "flushseq: pending at the end" 0 "$(stat flushseq pending_end)"
"$IOTAPE" report --db "$db" flushseq > "$t/flush.txt"
check_eq "flushseq: jbd2's Q2C mean us (flush bios 704, FWFS writes 700)" 702.0 \
	"$(awk '$2 == "jbd2/dm-4-8" { print $6; exit }' "$t/flush.txt")"
check_eq "flushseq: FWFS writes stay writes (18 + 6)" 24 \
	"$("$IOTAPE" report --db "$db" --json flushseq | jq '.devices[0].write.requests')"
check_eq "flushseq: replay plan keeps each FWFS write after its flush" \
	"flush 12 write 24" "$("$IOTAPE" replay --db "$db" flushseq --engine null --target "$t/tgt" \
	--run flushrep --timing afap --allow-write --quiet > /dev/null 2>&1; sqlite3 "$db" \
	"SELECT op, count(*) FROM replays p JOIN runs r ON r.id = p.run WHERE r.name = 'flushrep'
	 GROUP BY op ORDER BY op" | tr '|\n' '  ' | sed 's/ $//')"

# An I/O nested inside another in flight: btt 2.09 still charges an inner
# G to the outer I/O and pairs 15 of 16 (Q2C N 15, D2C N 14); iotape pairs
# each with its own events (exact ranges first) and agrees on the seeks.
"$IOTAPE" import --quiet --db "$db" --run nested "$R/nested.bin"
blkparse -q -i - -d "$t/nested.dump" -O < "$R/nested.bin" > /dev/null 2>&1
(cd "$t" && btt -i nested.dump > nested.btt)
"$IOTAPE" report --db "$db" --json nested > "$t/nested.json"
check_eq "nested: btt 2.09 pairs Q2C of 15 (its limit, shown)" 15 \
	"$(btt_all_row "$t/nested.btt" Q2C | cut -d' ' -f1)"
check_eq "nested: every I/O's Q2C and D2C paired" "16 16" \
	"$(jq -r '"\(.all.q2c.n) \(.all.d2c.n)"' "$t/nested.json")"
check_eq "nested: Q2C mean us ((8*55 + 390+300+290+400 + 0) / 16)" 127.5 \
	"$(jq -r '.all.q2c.mean_us' "$t/nested.json")"
check_eq "nested: seeks as btt" "$(btt_seeks "$t/nested.btt" | cut -d' ' -f2-)" \
	"$(jq -r '.devices[0].seeks | "\(.n) \(.mean_sectors * 10 | round / 10)"' "$t/nested.json" | sed 's/ \([0-9]*\)$/ \1.0/')"
check_eq "nested: nothing unmatched" "0 0 0" \
	"$(stat nested unmatched_c) $(stat nested unmatched_gim) $(stat nested pending_end)"
tap_finish
