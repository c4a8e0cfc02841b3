# t_robust_replay.sh: a replay waiting through a 4400 s gap (the committed
# capture with its second half 4400 s later, tests/fixtures/robust/
# stepahead.bin) stops at once on SIGINT or SIGTERM, with every engine's
# waits (null here: no device needed); by default the gap is shortened to
# --max-gap and the run says so.
. "$(dirname "$0")/../lib.sh"

need_iotape "replay through a long gap"
t=$TEST_TMP db=$t/t.db
"$IOTAPE" import --quiet --db "$db" --run ahead "$FIXTURES/robust/stepahead.bin"

# stop_after SIG NAME: replay with every gap kept, SIG after 1.5 s; one TAP
# line: stopped within 2 s, exit 128 + the signal's number (a shell's
# convention: 130 for INT, 143 for TERM), run stored as interrupted
stop_after() {
	local sig=$1 name=$2 want=$3 pid t0 rc i
	"$IOTAPE" replay --db "$db" ahead --engine null --target "$t/tgt" --max-gap 0 \
		--run "$name" > /dev/null 2>&1 &
	pid=$!
	sleep 1.5
	t0=$(date +%s%N)
	kill -"$sig" "$pid"
	for i in $(seq 40); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
	if kill -0 "$pid" 2> /dev/null; then
		kill -KILL "$pid"; wait "$pid" 2> /dev/null
		not_ok "SIG$sig stops a replay inside a 4400 s gap" "still running 2 s later"
		return
	fi
	wait "$pid"; rc=$?
	check_eq "SIG$sig stops a replay inside a 4400 s gap (exit, status)" \
		"$want interrupted" "$rc $(sqlite3 "$db" "SELECT status FROM runs WHERE name = '$name'")"
	diag "stopped $(( ($(date +%s%N) - t0) / 1000000 )) ms after SIG$sig"
}
stop_after INT r-int 130
stop_after TERM r-term 143

# the default --max-gap (10 s of original time; scale:100 makes it 0.1 s):
# the gap is 4400.000148108 s from the last start before it to the first after
if "$IOTAPE" replay --db "$db" ahead --engine null --target "$t/tgt" --timing scale:100 \
	--run r-gap > /dev/null 2> "$t/err"; then
	check_eq "default --max-gap: said on stderr" 1 \
		"$(grep -c '1 gap over --max-gap 10 s shortened to it: 4390.000 s of idle time left out' "$t/err")"
	check_eq "default --max-gap: stored" "10000000000 1 4390000148108" \
		"$(sqlite3 "$db" "SELECT group_concat(value, ' ') FROM (SELECT value FROM run_stats s
		   JOIN runs r ON r.id = s.run WHERE r.name = 'r-gap' AND key IN
		   ('replay.max_gap_ns', 'replay.gaps_shortened', 'replay.gap_removed_ns') ORDER BY key DESC)")"
else
	not_ok "replay with the default --max-gap" "$(cat "$t/err")"
fi
check_eq "--max-gap refuses a negative" 2 \
	"$("$IOTAPE" replay --db "$db" ahead --engine null --target "$t/tgt" --max-gap -1 > /dev/null 2>&1; echo $?)"
# --map by a device's name with or without /dev/: a fio iolog stores its
# files as they are named (/dev/sdb), a capture as sdb
printf 'fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n100 /dev/sdb read 0 4096\n200 /dev/sdb write 8192 4096\n' \
	> "$t/sdb.iolog"
"$IOTAPE" import --quiet --db "$db" --run fio-sdb "$t/sdb.iolog"
for spec in /dev/sdb sdb; do
	"$IOTAPE" replay --db "$db" fio-sdb --engine null --map "$spec=$t/sdb.img" \
		--timing afap --run "map-${spec##*/}-${#spec}" --quiet > /dev/null 2> "$t/err"
	check_eq "--map $spec=FILE matches the fio iolog's /dev/sdb" "0 2" \
		"$? $(sqlite3 "$db" "SELECT count(*) FROM replays r JOIN runs n ON n.id = r.run
			WHERE n.name = 'map-${spec##*/}-${#spec}'")"
done
tap_finish
