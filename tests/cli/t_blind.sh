# t_blind.sh: explanations from what a reporter sends, a trace and a `vmstat 1`
# log and nothing else, on two pairs the scoreboard captured (make
# explain-score; tests/fixtures/blind, exported to blktrace binary and the
# log a real `vmstat 1` wrote beside each capture on Debian 12, whose memory
# columns repeat the first row's):
#  - writeback: 48 MB written by dd into ext4 on a 40 MB/s disk, a 1.5 s
#    pause, then sync; dirty_background_bytes 4 MiB (base: the flushers write
#    during the pause) or dirty_background_ratio 50 (changed: the sync writes
#    it all). The changed trace shows only the sync's writes at the end.
#  - throttle: 16 files of 4 MiB written with dirty_bytes 1 GiB (base: nothing
#    reaches the disk while traced, an empty trace) or 8 MiB (changed: the
#    writer is held to the disk's speed by balance_dirty_pages).
#  - readahead-changed: two dd (xargs -P 2) reading 12 MiB files each from
#    one disk with read_ahead_kb 8: 8 KiB requests, each reader waiting
#    behind the other's.
#  - healthy-rr: fio, two random readers held to 300 IOPS (a healthy run;
#    its log's one interval caught a task in D state).
#  - null-1, null-2: the same setup twice (two dd reading 8 MiB each, runs of
#    30 and 50 ms): a null pair.
#  - throttle-null-1, -2: the same setup twice (two dd writing 32 MiB each
#    with dirty_bytes 8 MiB, held at the dirty limit all through): a null
#    pair 9% apart whose one cause filled both runs.
#  - writeback-null-1, -2: the same setup twice (two dd writing 48 MiB each,
#    dirty_background_ratio 50, then sync): a null pair 14% apart, the first
#    log's r at 4 for one sample with the CPUs 99% idle.
#  - journal-nobarrier, journal-barrier: dd oflag=dsync of 1,500 4 KiB
#    blocks into ext4 mounted barrier=0, then barrier=1 (each write waits for
#    jbd2's commit; with barriers, for its cache flushes and FUA write too),
#    on a loop device over a second loop device held to 40 MB/s and 2,000
#    IOPS by blk-throttle; with each run's `time` paste (2.23 s, 3.74 s).
#  - split-big, split-small: dd bs=1M count=40 iflag=direct reading that
#    loop device, with max_sectors_kb at its default, then at 8: each 1 MiB
#    read split (X) into 128 requests of 8 KiB (0.93 s, 2.51 s).
#    Both pairs were captured by a new user's trial (iotape capture, then
#    iotape export --format blktrace), xz -9e.
#  - frag-base, frag-changed: dd bs=1M reading a 48 MiB file from ext4 on a
#    loop device over a loop device held to 400 IOPS: laid in 2 extents
#    (0.23 s), then in 709 extents of 64 KiB with a 64 KiB gap after each
#    (1.72 s): the same bytes in 718 requests of 64 KiB (10967 bios merged
#    into them), none starting where another ended, against 42 of 1.2 MiB
#    end to end; read_ahead_kb the same. With each run's `time` paste.
#  - refault-base, refault-changed: three dd of a 128 MiB file in a row,
#    --mem-limit 512M (1.29 s), then 96M (3.82 s): the second and third
#    passes read the file from the disk again; with each `time` paste.
#    Both pairs from a blind trial, exported and xz'd as above.
#  - ddsync-base, ddsync-changed: `time dd if=/dev/urandom bs=1M count=160`
#    then `time sync` into ext4 on a disk held to 40 MB/s, with
#    dirty_background_bytes 4 MiB (base: the flushers write during dd; 1.36 s
#    and 2.67 s) or dirty_background_ratio 50 (changed: dd only dirties pages
#    and the sync writes all 160 MiB; 1.14 s and 4.02 s), with each `time`
#    paste; exported after the trace's start-time record (as blktrace writes
#    one), 1.15 s before the first I/O.
#  - nrreq-base.1, .2, nrreq-changed.1, .2: a 4 KiB direct random reader
#    (fio, 300 reads from 1 s in) beside `dd` of 300 MiB and `sync` into
#    ext4 on a loop device over one held to 40 MB/s for writes, mq-deadline,
#    queue/nr_requests 256, then 4: with 4 the writer's requests hold every
#    tag and each read waits for one (fio's IOPS 8,824 and 7,895, then 48.8
#    and 48.4; its run 0.40 s, then 6.58 s); both runs move the same bytes.
#    A trial's captures (iotape capture, export --format blktrace), xz -9e,
#    with the `vmstat 1` logs written beside them; fio's IOPS set by hand.
#  - wbt-base.1, wbt-changed.1: the same reader (500 reads) and writer,
#    nr_requests as found, queue/wbt_lat_usec 2000, then 0 (writeback
#    throttling off: the reads wait in the scheduler behind the writes; fio's
#    IOPS 920.8, then 85.6), from the same trial.
#  - swap-roomy, swap-tight: a perl process touching 250 MB, in a memory
#    cgroup of 1 GiB, then of 160 MiB with swap (0.41 s, 17.41 s): the
#    `vmstat 1` log (procps-ng 4.0.2: its memory columns frozen) and the
#    `time` paste, no trace.
# Fixed captures, so what is checked does not depend on this machine's load.
. "$(dirname "$0")/../lib.sh"

need_iotape "explanations from a trace and a vmstat log"
command -v jq > /dev/null || { skip "blind explanations" "no jq"; exit 0; }
F=$REPO_ROOT/tests/fixtures/blind
t=$TEST_TMP db=$t/b.db

for p in writeback throttle; do
	for s in base changed; do
		"$IOTAPE" import --quiet --db "$db" --run "$p-$s" "$F/$p-$s.bin.gz" 2> "$t/err" &&
		"$IOTAPE" import --quiet --db "$db" --run "$p-$s" "$F/$p-$s.vmstat" 2>> "$t/err" ||
			not_ok "import $p-$s" "$(cat "$t/err")"
	done
done
check_eq "the blind runs hold a trace and a log, no commands, no other samples" "0 0" \
	"$(sqlite3 "$db" "SELECT (SELECT count(*) FROM commands), (SELECT count(*) FROM
		samples WHERE source != 'vmstat-log')" | tr '|' ' ')"

# the changed log, untimed, is shifted to where its bo matches the trace's
# writes: its second row (the sync's 123 MB/s) over the sync
check_eq "an untimed log lined up with the trace by its bi+bo" \
	"interval, shifted to the trace's I/O" \
	"$(sqlite3 "$db" "SELECT value FROM run_stats s JOIN runs r ON r.id = s.run
		WHERE r.name = 'writeback-changed' AND key = 'vmstat_log.alignment'")"

# cmp A B: compare's JSON
cmp() { "$IOTAPE" compare --db "$db" --json "$1" "$2"; }
# sums FILE: "sum" when the waterfall (causes in it, offsets, not explained)
# adds up to the difference
sums() {
	jq -r '.comparisons[0] | ([.findings[] | select(.in_waterfall == 1) | .cost_s] |
		add // 0) as $s | if (($s + .not_explained_s - .difference_s) | fabs) < 1e-6
		then "sum" else "nosum \($s) \(.not_explained_s) \(.difference_s)" end' "$1"
}
first() { jq -r '[.comparisons[0].findings[] | select(.cause == 1)][0].analyzer // "-"' "$1"; }

cmp writeback-base writeback-changed > "$t/wb.json"
check_eq "writeback: the question is the workload's span" workload_span_s \
	"$(jq -r '.comparisons[0].question.figure' "$t/wb.json")"
check_eq "writeback: the changed run is the worse (its writer dirtied pages before any write went out)" \
	writeback-changed "$(jq -r '.comparisons[0].worse' "$t/wb.json")"
check_eq "writeback: writeback is the first cause" writeback "$(first "$t/wb.json")"
check_eq "writeback: the waterfall adds up to the difference" sum "$(sums "$t/wb.json")"
# both logs have the CPUs saturated (r 8 and 7 on 2 CPUs): the changed
# run's workload had 0.8 s of free time where the base's writes kept it
# waiting, and waited for a CPU in it at no more contention: no cpu cause
check_eq "writeback: the same CPU contention in both logs is no cause" "" \
	"$(jq -r '.comparisons[0].findings[] | select(.cause == 1 and .analyzer == "cpu") | .analyzer' "$t/wb.json")"
"$IOTAPE" compare --db "$db" writeback-base writeback-changed > "$t/wb.txt"
grep -q "nothing was written back for" "$t/wb.txt" &&
	ok "writeback: says how long the dirty data waited" ||
	not_ok "writeback: says how long the dirty data waited" "$(sed -n '/== why/,$p' "$t/wb.txt" | head -n 8)"

cmp throttle-base throttle-changed > "$t/th.json"
check_eq "throttle: a run whose trace holds no I/O took 0 s of workload span" 0 \
	"$(jq -r '.comparisons[0].base_value' "$t/th.json")"
check_eq "throttle: the changed run is the worse" throttle-changed \
	"$(jq -r '.comparisons[0].worse' "$t/th.json")"
check_eq "throttle: throttle is the first cause" throttle "$(first "$t/th.json")"
check_eq "throttle: the waterfall adds up to the difference" sum "$(sums "$t/th.json")"
# the writer is not in the trace: its how in compare says which of its
# 1.43 s the flushers' writes stand for (report said it, compare did not,
# beside evidence of 0.10 s blocked while writeback ran)
check_eq "throttle: compare's how says the flushers' writes stand for the writer's wait" 1 \
	"$(jq -r '.comparisons[0].findings[] | select(.analyzer == "throttle") | .how' "$t/th.json" |
		grep -c 'stand for the writer.s wait (it only dirtied pages: not in the trace): 1.329 s in throttle-changed')"

for r in readahead-changed healthy-rr null-1 null-2 throttle-null-1 throttle-null-2 \
	writeback-null-1 writeback-null-2; do
	"$IOTAPE" import --quiet --db "$db" --run "$r" "$F/$r.bin.xz" 2> "$t/err" &&
	"$IOTAPE" import --quiet --db "$db" --run "$r" "$F/$r.vmstat" 2>> "$t/err" ||
		not_ok "import $r" "$(cat "$t/err")"
done
# causes RUN: report's causes, first first, "analyzer:cost_s"
causes() { "$IOTAPE" report --db "$db" --json "$1" |
	jq -r '[.findings[] | select(.cause == 1) | "\(.analyzer):\(.cost_s * 100 | round / 100)"] | join(" ")'; }
c=$(causes readahead-changed)
check_eq "readahead: the first cause of the readers' own run, none beside it" readahead 	"$(sed 's/:[^ ]*//g' <<< "$c")"
# the costs are parts of the workload's time: readahead takes the queueing
# behind the other reader's small requests from queue, not both
"$IOTAPE" report --db "$db" --json readahead-changed |
	jq -e '(.analysis.time.elapsed_s) as $e | ([.findings[] | select(.cause == 1) |
		.cost_s] | add) <= $e and ([.findings[] | select(.analyzer == "readahead")][0].cost_s
		> 0.5 * $e)' > /dev/null &&
	ok "readahead: its cost is most of the workload's time, the causes within it" ||
	not_ok "readahead: its cost is most of the workload's time, the causes within it" "$c"
check_eq "a healthy run: no cause (one sample of b is no limit)" "" "$(causes healthy-rr)"
cmp null-1 null-2 > "$t/null.json"
check_eq "a null pair 28 ms apart: no cause" - "$(first "$t/null.json")"
check_eq "a null pair: no significant difference" "no significant difference" \
	"$(jq -r '.comparisons[0].verdict' "$t/null.json")"
# whichever side is worse, nothing is explained, so the question does not
# say "so this explains what made ... better"
for pair in "null-1 null-2" "null-2 null-1"; do
	# shellcheck disable=SC2086
	"$IOTAPE" compare --db "$db" $pair > "$t/null.txt"
	check_eq "a null pair ($pair): the question claims no explanation" 0 \
		"$(grep -c 'explains what made' "$t/null.txt")"
done
# one run a side, the same cause filling both: its time moving by 9% is
# no cause (it is named, with why, among what is present)
cmp throttle-null-1 throttle-null-2 > "$t/thnull.json"
check_eq "a null pair of throttled writers 9% apart: no cause" - "$(first "$t/thnull.json")"
check_eq "a null pair of throttled writers: throttle present, the same in both runs" \
	"the same cause in both runs" "$(jq -r '[.comparisons[0].findings[] |
	select(.analyzer == "throttle")][0].confidence_why // "-" | .[0:27]' "$t/thnull.json")"
# vmstat's r is an instant's count: 4 once, with the CPUs idle, is no wait
# for a CPU
cmp writeback-null-1 writeback-null-2 > "$t/wbnull.json"
check_eq "a null pair of writers 14% apart, r 4 once with idle CPUs: no cause" - \
	"$(first "$t/wbnull.json")"
c=$(causes writeback-changed)
check_eq "writeback: the report of the run alone names it first (a trace and a log)" writeback \
	"$(sed 's/:.*//' <<< "$c")"
# its workload's time (1.830 s, from when the cache began to grow) is not
# the trace's 1.225 s shown above it: said, with why, before the waterfall
check_eq "writeback: report says the workload's time it judges, not the trace's span" 1 \
	"$("$IOTAPE" report --db "$db" writeback-changed | grep -c "^the workload's time below: 1.830 s, the workload's first Q")"

# what a reporter sends beside each trace: the log and the `time` paste
for r in journal-nobarrier journal-barrier split-big split-small; do
	for f in "$F/$r.bin.xz" "$F/$r.vmstat" "$F/$r.time"; do
		"$IOTAPE" import --quiet --db "$db" --run "$r" "$f" 2> "$t/err" ||
			not_ok "import $r" "$(cat "$t/err")"
	done
done
# share RUN-JSON ANALYZER: its cost over the difference, in %
share() { jq -r --arg a "$2" '.comparisons[0] | ([.findings[] | select(.analyzer ==
	$a)][0].cost_s // 0) / .difference_s * 100 | round' "$1"; }
cmp journal-nobarrier journal-barrier > "$t/jr.json"
check_eq "barrier=1: the barrier run is the worse" journal-barrier \
	"$(jq -r '.comparisons[0].worse' "$t/jr.json")"
check_eq "barrier=1: the journal's commits (flushes, FUA) are the first cause" journal \
	"$(first "$t/jr.json")"
s=$(share "$t/jr.json" journal)
[ "$s" -ge 75 ] && [ "$s" -le 110 ] && ok "barrier=1: the journal's cost is ${s}% of the difference" ||
	not_ok "barrier=1: the journal's cost near the difference" "${s}%"
check_eq "barrier=1: the waterfall adds up" sum "$(sums "$t/jr.json")"
"$IOTAPE" compare --db "$db" journal-nobarrier journal-barrier > "$t/jr.txt"
grep -q "cache flushes, 1501 FUA writes" "$t/jr.txt" &&
	ok "barrier=1: the cause counts the flushes and FUA writes" ||
	not_ok "barrier=1: the cause counts the flushes and FUA writes" \
		"$(grep -A3 'journal:' "$t/jr.txt" | head -n 4)"
cmp split-big split-small > "$t/sp.json"
check_eq "max_sectors_kb 8: the small-request run is the worse" split-small \
	"$(jq -r '.comparisons[0].worse' "$t/sp.json")"
check_eq "max_sectors_kb 8: smaller reads are the first cause" readahead "$(first "$t/sp.json")"
s=$(share "$t/sp.json" readahead)
[ "$s" -ge 80 ] && [ "$s" -le 110 ] && ok "max_sectors_kb 8: smaller reads cost ${s}% of the difference" ||
	not_ok "max_sectors_kb 8: smaller reads cost near the difference" "${s}%"
# dd waits for every piece of its split reads: not free, so nothing held
# above the block layer (blk-throttle was named at 147% when only a bio's
# first piece counted)
check_eq "max_sectors_kb 8: no throttle cause" "" \
	"$(jq -r '.comparisons[0].findings[] | select(.cause == 1 and .analyzer == "throttle") | .analyzer' "$t/sp.json")"
check_eq "max_sectors_kb 8: every cost has a title" 0 \
	"$(jq '[.comparisons[0].findings[] | select(.cost_s != 0 and .title == "")] | length' "$t/sp.json")"
check_eq "max_sectors_kb 8: the waterfall adds up" sum "$(sums "$t/sp.json")"
# its 1 MiB reads were each split (X): btt pairs neither half, so report's
# Q2C rows leave them out; the question's Q2C counts each bio once, from
# its Q to its last piece's C (40 of 1 MiB a run)
check_eq "split reads: report counts 40 whole bios, their Q2C p50 97 ms" "40 97" \
	"$("$IOTAPE" report --db "$db" --json split-small | jq -r '.devices[0] |
		"\(.split_whole_bios) \(.split_whole_q2c_p50_us / 1000 * 10 | round / 10)"')"
"$IOTAPE" compare --db "$db" --json --metric read_q2c_p50_us split-big split-small > "$t/sp50.json" 2> "$t/err" &&
	check_eq "split reads: their Q2C p50 can be asked about (the small-request run worse)" \
		split-small "$(jq -r '.comparisons[0].worse' "$t/sp50.json")" ||
	not_ok "split reads: their Q2C p50 can be asked about" "$(cat "$t/err")"
# IOPS asked about: the 1 MiB run's is 96% down, with its requests 64x the
# size and the same bytes read 1.6 s sooner: no time cost, no cause (volume
# was costed 0.88 s of "the faster run's time beyond")
"$IOTAPE" compare --db "$db" --json --metric read_iops split-big split-small > "$t/spi.json"
check_eq "IOPS down with 64x larger requests, the work done sooner: no time cost, no cause" \
	"split-big|no time cost|0" "$(jq -r '.comparisons[0] | "\(.worse)|\(.verdict)|\([.findings[] |
	select(.cause == 1)] | length)"' "$t/spi.json")"
check_eq "max_sectors_kb 8: dd waited on I/O nearly all its time" 1 \
	"$("$IOTAPE" report --db "$db" --json split-small | jq '(.analysis.time.waiting_on_io_s /
		.analysis.time.elapsed_s) > 0.9 | if . then 1 else 0 end')"

# a vmstat log and a time paste, no trace: swap, its stall inferred (no PSI,
# no delay accounting), the more work under pressure said in its cost
for r in swap-roomy swap-tight; do
	for f in "$F/$r.vmstat" "$F/$r.time"; do
		"$IOTAPE" import --quiet --db "$db" --run "$r" "$f" 2> "$t/err" ||
			not_ok "import $r" "$(cat "$t/err")"
	done
done
cmp swap-roomy swap-tight > "$t/sw.json"
check_eq "swap from vmstat alone: swap is the first cause" swap "$(first "$t/sw.json")"
s=$(share "$t/sw.json" swap)
[ "$s" -ge 80 ] && [ "$s" -le 110 ] && ok "swap from vmstat alone: ${s}% of the difference" ||
	not_ok "swap from vmstat alone: near the difference" "${s}%"
check_eq "swap from vmstat alone: inferred, not measured; the how names the more work" \
	"counterfactual 1 1" "$(jq -r '[.comparisons[0].findings[] | select(.analyzer == "swap")][0] |
	"\(.method) \(.how | test("more of the workload.s own time") | if . then 1 else 0 end) \(.evidence |
	test("never moved") | if . then 1 else 0 end)"' "$t/sw.json")"
# report's how of swap gives its cost and adds up: the accounting's swap,
# its waits on the swap devices plus its time off I/O stalled on memory (a
# how of PSI's and the trace's union, not the cost, before)
check_eq "report swap-tight: swap's how gives its cost as the sum of its parts" 1 \
	"$("$IOTAPE" report --db "$db" --json swap-tight | jq -r '.. | objects | select(.analyzer? == "swap") |
	(.how | capture("gave swap, (?<a>[0-9.]+) s: .*way, (?<b>[0-9.]+) s .* and (?<c>[0-9.]+) s of its time off")) as $h |
	[$h.a, $h.b, $h.c | tonumber] as [$a, $b, $c] |
	if ((.cost_s - $a) | fabs) < 0.006 and (($a - $b - $c) | fabs) < 0.011 and $a > 1 then 1 else 0 end')"

# dd then sync: in changed the trace ran 1.15 s (its start-time record)
# with no I/O while dd wrote 160 MiB into the page cache, then sync waited
# for all of it: the time the devices idled with the dirty data is
# writeback's (blind said "no cause": the trace began at its first I/O and
# the pasted commands were placed from there)
for r in ddsync-base ddsync-changed; do
	for f in "$F/$r.bin.xz" "$F/$r.vmstat" "$F/$r.time"; do
		"$IOTAPE" import --quiet --db "$db" --run "$r" "$f" 2> "$t/err" ||
			not_ok "import $r" "$(cat "$t/err")"
	done
done
check_eq "dd then sync: the trace's start kept (1.150 s before its first I/O)" "1.150" \
	"$(sqlite3 "$db" "SELECT printf('%.3f', (r.genesis_ns - s.value) / 1e9) FROM run_stats s
		JOIN runs r ON r.id = s.run WHERE r.name = 'ddsync-changed' AND key = 'trace.start_ns'")"
cmp ddsync-base ddsync-changed > "$t/ds.json"
check_eq "dd then sync: changed is worse, writeback the first cause" "ddsync-changed writeback" \
	"$(jq -r '.comparisons[0].worse' "$t/ds.json") $(first "$t/ds.json")"
s=$(share "$t/ds.json" writeback)
[ "$s" -ge 70 ] && [ "$s" -le 105 ] && ok "dd then sync: writeback costs ${s}% of the difference" ||
	not_ok "dd then sync: writeback costs within the difference" "${s}%"
check_eq "dd then sync: the waterfall adds up" sum "$(sums "$t/ds.json")"
# no Dirty in a vmstat log: the idle time with dirty data is inferred, and the
# title says so ("while over 8 MB was dirty" said what no sample showed)
"$IOTAPE" report --db "$db" ddsync-changed > "$t/dsr.txt"
check_eq "dd then sync: writeback's title says its dirty data was inferred" 1 \
	"$(grep -c '^1\. writeback: the devices idled [0-9.]* s with dirty data pending, inferred (no$' "$t/dsr.txt")"
check_eq "dd then sync: report fits 80 columns (a split bios' line ran to 83)" "" \
	"$(awk 'length($0) > 80' "$t/dsr.txt")"

# a fragmented file: the same bytes in 17x more, smaller requests that do
# not follow each other: the layout (seek), costed within the difference;
# not readahead (its bios averaged 4.5 KiB against the other run's 1.2 MiB
# requests: "smaller reads" at 148% of the difference)
for r in frag-base frag-changed refault-base refault-changed; do
	for f in "$F/$r.bin.xz" "$F/$r.vmstat" "$F/$r.time"; do
		"$IOTAPE" import --quiet --db "$db" --run "$r" "$f" 2> "$t/err" ||
			not_ok "import $r" "$(cat "$t/err")"
	done
done
cmp frag-base frag-changed > "$t/fr.json"
# vmstat's kB are KiB: its cache column's peak as MB of 10^6 bytes, as the
# read MB beside it (48444 kB read as 48.4 MB, not 49.6)
check_eq "refault: the page cache's peak in MB from vmstat's kB (KiB)" \
	"$(awk 'NR > 2 && $6 + 0 > m { m = $6 } END { printf "%.1f", m * 1024 / 1e6 }' "$F/refault-changed.vmstat")" \
	"$("$IOTAPE" report --db "$db" --json refault-changed |
		jq -r '.findings[] | select(.analyzer == "refault") | .evidence' |
		sed -n 's/.*page cache at most \([0-9.]*\) MB.*/\1/p')"
check_eq "fragmented file: the fragmented run is the worse" frag-changed \
	"$(jq -r '.comparisons[0].worse' "$t/fr.json")"
check_eq "fragmented file: the layout (seek) is the first cause" seek "$(first "$t/fr.json")"
check_eq "fragmented file: its title names the layout" 1 \
	"$(jq -r '[.comparisons[0].findings[] | select(.analyzer == "seek")][0].title |
	test("layout.*718 scattered requests") | if . then 1 else 0 end' "$t/fr.json")"
s=$(share "$t/fr.json" seek)
[ "$s" -ge 80 ] && [ "$s" -le 105 ] && ok "fragmented file: the layout costs ${s}% of the difference" ||
	not_ok "fragmented file: the layout costs within the difference" "${s}%"
check_eq "fragmented file: readahead is no cause" "" \
	"$(jq -r '.comparisons[0].findings[] | select(.cause == 1 and .analyzer == "readahead") | .analyzer' "$t/fr.json")"
check_eq "fragmented file: the waterfall adds up" sum "$(sums "$t/fr.json")"
# the same bytes read thrice through a page cache too small for them: the
# re-reads are refault's (readahead took them at 95% with 10.1 s of
# "device time" in a 3.8 s run, refault left at 0.00 s)
"$IOTAPE" report --db "$db" --json refault-changed > "$t/rf.json"
check_eq "a file read thrice under a memory limit: refault is the report's first cause" refault \
	"$(jq -r '[.findings[] | select(.cause == 1)][0].analyzer // "-"' "$t/rf.json")"
check_eq "refault: no readahead cause, no cost over the run" "0 1" \
	"$(jq -r '(.analysis.time.elapsed_s) as $e | "\([.findings[] | select(.cause == 1 and
	.analyzer == "readahead")] | length) \(if ([.findings[] | .cost_s] | max) <= $e then 1
	else 0 end)"' "$t/rf.json")"
check_eq "refault: the title says the page cache did not hold what was read" 1 \
	"$(jq -r '[.findings[] | select(.analyzer == "refault")][0].title | test("did not hold") |
	if . then 1 else 0 end' "$t/rf.json")"
check_eq "refault: the re-reads' device time is no cost of readahead's" false \
	"$(jq -r '[.findings[] | select(.analyzer == "readahead") | .how |
	test("read a second time")] | any' "$t/rf.json")"
cmp refault-base refault-changed > "$t/rfc.json"
check_eq "refault: compare names it first too" refault "$(first "$t/rfc.json")"
check_eq "refault: compare's waterfall adds up" sum "$(sums "$t/rfc.json")"
# nr_requests 4: the reader waits for a tag the writer's requests hold;
# that wait is queueing, whatever the device did (it went to the device's
# parts that grew, the writes' volume named first at 45%, though both runs
# moved the same bytes)
for r in nrreq-base.1 nrreq-base.2 nrreq-changed.1 nrreq-changed.2; do
	"$IOTAPE" import --quiet --db "$db" --run "$r" "$F/$r.bin.xz" 2> "$t/err" &&
	"$IOTAPE" import --quiet --db "$db" --run "$r" "$F/$r.vmstat" 2>> "$t/err" ||
		not_ok "import $r" "$(cat "$t/err")"
done
# the reader's mean extra per bio against the others', each at the scale of
# its waits: above the flusher, whose writes no one waited on (its raw
# extras made it "8.4 standard errors below"; a negative t reads "below",
# never "-8.4 ... above")
check_eq "nr_requests 4: queue's Welch's t in words, the waiting reader above the flusher" \
	"4.7 standard errors above" \
	"$("$IOTAPE" report --db "$db" nrreq-changed.1 | tr '\n' ' ' | tr -s ' ' |
		grep -o '[-0-9.]* standard errors [a-z]*')"
"$IOTAPE" metric --db "$db" nrreq-base.1 read_iops=8823.53 > /dev/null &&
"$IOTAPE" metric --db "$db" nrreq-base.2 read_iops=7894.74 > /dev/null &&
"$IOTAPE" metric --db "$db" nrreq-changed.1 read_iops=48.77 > /dev/null &&
"$IOTAPE" metric --db "$db" nrreq-changed.2 read_iops=48.42 > /dev/null ||
	not_ok "nr_requests 4: set the reader's IOPS" ""
"$IOTAPE" compare --db "$db" --json --group-by 'nrreq-base*,nrreq-changed*' \
	--metric read_iops 'nrreq-base*' 'nrreq-changed*' > "$t/nr.json" 2> "$t/err" ||
	not_ok "nr_requests 4: compare" "$(cat "$t/err")"
check_eq "nr_requests 4: the reader's wait for a tag behind the writer is the first cause" \
	"nrreq-changed*|queue" "$(jq -r '.comparisons[0] | "\(.worse)|\([.findings[] |
	select(.cause == 1)][0].analyzer // "-")"' "$t/nr.json")"
s=$(share "$t/nr.json" queue)
[ "$s" -ge 80 ] && [ "$s" -le 110 ] && ok "nr_requests 4: queue ${s}% of the difference (the reader's time)" ||
	not_ok "nr_requests 4: queue a large part of the difference" "${s}%"
check_eq "nr_requests 4: the same bytes moved, no volume, device or seek cause" "" \
	"$(jq -r '.comparisons[0].findings[] | select(.cause == 1 and (.analyzer == "volume" or
	.analyzer == "device" or .analyzer == "seek")) | .analyzer' "$t/nr.json")"
check_eq "nr_requests 4: the waterfall adds up" sum "$(sums "$t/nr.json")"
# one run a side: the writer's time, no more of the worse run's than of the
# better's, is no part the causes must explain half of
"$IOTAPE" compare --db "$db" --json --metric read_iops nrreq-base.1 nrreq-changed.1 > "$t/nr1.json"
check_eq "nr_requests 4, one run a side: queue first" queue "$(first "$t/nr1.json")"
# a figure whose name holds "read" inside another word (threads) is no
# figure of reads: the workload and its span stay the run's
"$IOTAPE" metric --db "$db" nrreq-base.1 threads=8 > /dev/null
"$IOTAPE" metric --db "$db" nrreq-changed.1 threads=8 > /dev/null
check_eq "--metric threads: the run's workload span (7.51 s), not the reader's; read_iops: the reader's (6.15 s)" \
	"7.51 6.15" "$(for m in threads read_iops; do "$IOTAPE" compare --db "$db" --json --metric $m nrreq-base.1 nrreq-changed.1 |
	jq -r '.runs[1].figures.workload_span_s * 100 | round / 100'; done | paste -sd' ')"
check_eq "nr_requests 4: report of a changed run names queue first" queue \
	"$("$IOTAPE" report --db "$db" --json nrreq-changed.1 |
	jq -r '[.findings[] | select(.cause == 1)][0].analyzer // "-"')"

# wbt off: the reader's IOPS fell to a tenth; the writer beside it was
# blocked less (7.18 s, then 4.53 s) and was named first, at 58%, its
# better-run time scaled by the reader's IOPS ratio; then queue at 40%, the
# writer's time still in the figure's. read_iops is the reader's: its time
# is the reading processes' span (fio's 5.84 s, not the run's 7.51 s), and
# its wait behind the writes in the scheduler nearly all of what it lost
for r in wbt-base.1 wbt-changed.1; do
	"$IOTAPE" import --quiet --db "$db" --run "$r" "$F/$r.bin.xz" 2> "$t/err" &&
	"$IOTAPE" import --quiet --db "$db" --run "$r" "$F/$r.vmstat" 2>> "$t/err" ||
		not_ok "import $r" "$(cat "$t/err")"
done
"$IOTAPE" metric --db "$db" wbt-base.1 read_iops=920.81 > /dev/null &&
"$IOTAPE" metric --db "$db" wbt-changed.1 read_iops=85.62 > /dev/null ||
	not_ok "wbt off: set the reader's IOPS" ""
"$IOTAPE" compare --db "$db" --json --metric read_iops wbt-base.1 wbt-changed.1 > "$t/wbt.json"
check_eq "wbt off: no throttle, journal or volume cause (the writer was blocked less)" "" \
	"$(jq -r '.comparisons[0].findings[] | select(.cause == 1 and (.analyzer == "throttle" or
	.analyzer == "journal" or .analyzer == "volume")) | .analyzer' "$t/wbt.json")"
check_eq "wbt off: the read figure's time is the reader's: fio's span less the part it did (1 - 85.6 / 920.8 of it)" "1" \
	"$(jq -r '.comparisons[0] | ([.where[] | select(.process == "fio")][0].span_s) as $s |
	(.difference_s / $s - (1 - .value / .base_value)) | fabs < 0.01 | if . then 1 else 0 end' "$t/wbt.json")"
s=$(share "$t/wbt.json" queue)
[ "$s" -ge 80 ] && [ "$s" -le 110 ] && ok "wbt off: queue ${s}% of the difference" ||
	not_ok "wbt off: queue a large part of the difference" "${s}%"
check_eq "wbt off: the waterfall adds up" sum "$(sums "$t/wbt.json")"
check_eq "wbt off: the reader's wait behind the writes is the first cause" queue \
	"$(first "$t/wbt.json")"

w80=$("$IOTAPE" compare --db "$db" throttle-base throttle-changed | awk 'length > 80' | wc -l)
check_eq "compare fits 80 columns" 0 "$w80"
tap_finish
