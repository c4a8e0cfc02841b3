# t_replay_load.sh: iotape replay reads the source run's requests as the store finds
# them and puts them in time order itself. A run whose rows are stored out of time
# order (reversed, new ids) replays to the same I/Os as the run stored in order: the
# real capture tests/fixtures/loop-fio-small.bin and a bio split in two (X), whose
# halves are one I/O of both halves' bytes. On a real loop device, as root.
. "$(dirname "$0")/../lib.sh"

need_iotape "replay"
need_root "replay"

t=$TEST_TMP db=$t/t.db
q() { sqlite3 "$db" "$@"; }
rid() { q "SELECT id FROM runs WHERE name = '$1'"; }

cat > "$t/split.txt" <<'EOF'
  7,0    0        1     0.000000000  4242  Q R 2048 + 16 [reader]
  7,0    0        2     0.000001000  4242  X R 2048 / 2056 [reader]
  7,0    0        3     0.000002000  4242  G R 2048 + 8 [reader]
  7,0    0        4     0.000003000  4242  I R 2048 + 8 [reader]
  7,0    0        5     0.000004000  4242  D R 2048 + 8 [reader]
  7,0    0        6     0.000005000  4242  G R 2056 + 8 [reader]
  7,0    0        7     0.000006000  4242  I R 2056 + 8 [reader]
  7,0    0        8     0.000007000  4242  D R 2056 + 8 [reader]
  7,0    0        9     0.000300000     0  C R 2048 + 8 [0]
  7,0    0       10     0.000400000     0  C R 2056 + 8 [0]
  7,0    0       11     0.001000000  4243  Q R 4096 + 8 [reader]
  7,0    0       12     0.001010000  4243  D R 4096 + 8 [reader]
  7,0    0       13     0.001200000     0  C R 4096 + 8 [0]
EOF
for r in src rsrc; do
	"$IOTAPE" import --db "$db" --run $r --again --quiet "$FIXTURES/loop-fio-small.bin" ||
		{ not_ok "import the fixture"; tap_finish; }
done
for r in sp rsp; do
	"$IOTAPE" import --db "$db" --run $r --again --quiet "$t/split.txt" ||
		{ not_ok "import the split bio"; tap_finish; }
done

# reverse RUN: its requests stored again against time order under new ids (latest
# first; rows of the same time in their order, as a split bio's halves follow the
# bio in every store); split_from and merged_into follow them
reverse() {
	local r; r=$(rid "$1")
	q "CREATE TEMP TABLE m AS SELECT id AS old, (SELECT max(id) FROM requests) +
		row_number() OVER (ORDER BY coalesce(q_ns, d_ns, c_ns) DESC, id) AS new FROM requests WHERE run = $r;
	INSERT INTO requests (id, run, dev, sector, bytes, rwbs, cats, pid, q_ns, g_ns,
		m_ns, i_ns, d_ns, c_ns, d_sector, d_bytes, requeues, error, merged_into,
		d_head, seek_sectors, split_from, split, orig_dev, orig_sector)
	SELECT m.new, run, dev, sector, bytes, rwbs, cats, pid, q_ns, g_ns, m_ns, i_ns,
		d_ns, c_ns, d_sector, d_bytes, requeues, error,
		(SELECT new FROM m x WHERE x.old = r.merged_into), d_head, seek_sectors,
		(SELECT new FROM m x WHERE x.old = r.split_from), split, orig_dev, orig_sector
		FROM requests r JOIN m ON m.old = r.id ORDER BY m.new;
	DELETE FROM requests WHERE id IN (SELECT old FROM m);"
}
reverse rsrc
reverse rsp
for r in rsrc rsp; do
	check_eq "the copy $r is stored against time order" "1" \
		"$(q "SELECT count(*) > 0 FROM (SELECT q_ns, lag(q_ns) OVER (ORDER BY id) p
			FROM requests WHERE run = $(rid $r) AND q_ns IS NOT NULL) WHERE q_ns < p")"
done

truncate -s 256M "$t/a.img"
loop_attach "$t/a.img" || { not_ok "attach loop"; tap_finish; }
A=$LOOPDEV

# rows RUN: a replay's I/Os as planned, in plan order
rows() {
	q "SELECT idx, stream, pid, coalesce(sector, '-'), bytes, op, fua, as_read
		FROM replays WHERE run = $(rid "$1") ORDER BY idx"
}
for lvl in queue dispatch; do
	for r in src rsrc; do
		"$IOTAPE" replay --db "$db" $r --target "/dev/$A" --timing afap --level $lvl \
			--run "$r.$lvl" --quiet > /dev/null 2> "$t/err" ||
			not_ok "replay $r at the $lvl level" "$(cat "$t/err")"
	done
	rows "src.$lvl" > "$t/want"
	rows "rsrc.$lvl" > "$t/got"
	if [ -s "$t/want" ] && cmp -s "$t/want" "$t/got"; then
		ok "$lvl level: a run stored out of order replays the same $(wc -l < "$t/want") I/Os"
	else
		not_ok "$lvl level: a run stored out of order replays the same I/Os" \
			"$(diff "$t/want" "$t/got" | head -n 8)"
	fi
done
check_eq "each replayed I/O names its source row in the reversed run" "733" \
	"$(q "SELECT count(*) FROM replays p JOIN requests s ON s.id = p.src_request
		WHERE p.run = $(rid rsrc.queue) AND s.run = $(rid rsrc)")"

for r in sp rsp; do
	"$IOTAPE" replay --db "$db" $r --target "/dev/$A" --timing afap --run "$r.r" \
		--quiet > /dev/null 2> "$t/err" || not_ok "replay $r" "$(cat "$t/err")"
done
check_eq "a split bio replays as one I/O of both halves (stored in order)" \
	"0|0|4242|2048|8192|read|0|0
1|1|4243|4096|4096|read|0|0" "$(rows sp.r)"
check_eq "... and stored out of order" "$(rows sp.r)" "$(rows rsp.r)"
tap_finish
