# t_fixture_loop.sh: import the committed loop-device capture (no root needed) and check
# `iotape dump` against blkparse's per-event lines and `iotape report` against btt.
. "$(dirname "$0")/../lib.sh"

need_iotape "import the loop capture fixture"
for tool in blkparse btt jq; do
	command -v $tool > /dev/null || { skip "loop capture fixture" "no $tool"; exit 0; }
done

t=$TEST_TMP db=$t/t.db trace=$FIXTURES/loop-fio-small.bin
if "$IOTAPE" import --db "$db" --run small "$trace" 2> "$t/import.err"; then
	ok "import loop-fio-small.bin"
else
	not_ok "import loop-fio-small.bin" "$(tail -n 5 "$t/import.err")"
	tap_finish
fi

blkparse_events "$trace" > "$t/blkparse.txt"
compare_dump "$db" small "$t/blkparse.txt" fixture

if blkparse -q -i - -d "$t/btt-in" -O < "$trace" 2> "$t/bpd.err"; then
	compare_btt "$db" small "$t/btt-in" "fixture"
else
	not_ok "blkparse -d dump for btt" "$(tail -n 3 "$t/bpd.err")"
fi
tap_finish
