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
# The same capture on a 1 us clock (as a coarse clocksource stamps it): records
# of one microsecond on two CPUs, some at the end of one of blkparse's 512-record
# batches from a pipe, which it sorts apart (t_capture_loop's failure on a loaded
# machine); read as one batch blkparse orders them as iotape does
python3 - "$trace" "$t/us.bin" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
out, off = bytearray(), 0
while off + 48 <= len(d):
    n = 48 + struct.unpack_from('<H', d, off + 46)[0]
    rec = bytearray(d[off:off + n])
    t = struct.unpack_from('<Q', rec, 8)[0]
    struct.pack_into('<Q', rec, 8, t - t % 1000)
    out += rec
    off += n
open(sys.argv[2], 'wb').write(out)
PY
"$IOTAPE" import --quiet --db "$db" --run us "$t/us.bin"
blkparse_events_sorted "$t/us.bin" > "$t/us.bp"
compare_dump "$db" us "$t/us.bp" "1 us clock, blkparse in one batch"
blkparse_events "$t/us.bin" > "$t/us-512.bp"
diag "1 us clock: blkparse in 512-record batches orders $(diff "$t/us-512.bp" "$t/us.bp" | grep -c '^<') lines otherwise"
tap_finish
