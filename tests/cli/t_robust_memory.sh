# t_robust_memory.sh: import stays within a fixed memory budget however long
# the trace (blktrace's own reported OOM class): the committed capture
# repeated to 64 MB and to 128 MB (past SQLite's 32 MiB page cache, which
# fills first; each copy a step of the clock back) imports under
# IMPORT_BUDGET_KB peak RSS each, the larger no more than 8 MiB over the
# smaller, and the larger gzip'd on stdin too (1 GB and 3 GB traces measured
# by hand: the README's table).
. "$(dirname "$0")/../lib.sh"

need_iotape "import memory budget"
IMPORT_BUDGET_KB=65536   # SQLite's 32 MiB page cache, 8 MiB mapped, in-flight I/Os
case $IOTAPE in *-san)
	skip "import memory budget" "sanitizer build (its shadow memory is no measure)"; exit 0 ;;
esac
[ -x /usr/bin/time ] || { skip "import memory budget" "no /usr/bin/time"; exit 0; }
t=$TEST_TMP
peak=()
for copies in 366 732; do
	for i in $(seq $copies); do cat "$FIXTURES/loop-fio-small.bin"; done > "$t/big.bin"
	mb=$(( $(stat -c %s "$t/big.bin") / 1000000 ))
	rm -f "$t/m.db"
	if ! /usr/bin/time -f '%M' -o "$t/rss" "$IOTAPE" import --quiet --db "$t/m.db" \
		--run big "$t/big.bin" 2> "$t/err"; then
		not_ok "import of $mb MB" "$(tail -n 3 "$t/err")"; continue
	fi
	kb=$(tail -n 1 "$t/rss")
	peak+=("$kb")
	if [ "$kb" -le $IMPORT_BUDGET_KB ]; then ok "import of $mb MB: peak RSS $((kb / 1024)) MiB"
	else not_ok "import of $mb MB within $((IMPORT_BUDGET_KB / 1024)) MiB" "peak RSS $kb kB"; fi
done
# the larger trace gzip'd on a pipe: spooled to $TMPDIR, read as a file
if command -v gzip > /dev/null && [ -s "$t/big.bin" ]; then
	rm -f "$t/m.db"
	if gzip -1 -c "$t/big.bin" | /usr/bin/time -f '%M' -o "$t/rss" "$IOTAPE" import \
		--quiet --db "$t/m.db" --run big - 2> "$t/err"; then
		kb=$(tail -n 1 "$t/rss")
		if [ "$kb" -le $IMPORT_BUDGET_KB ]; then ok "import of $mb MB gzip'd on stdin: peak RSS $((kb / 1024)) MiB"
		else not_ok "import of $mb MB gzip'd on stdin within $((IMPORT_BUDGET_KB / 1024)) MiB" "peak RSS $kb kB"; fi
	else
		not_ok "import of $mb MB gzip'd on stdin" "$(tail -n 3 "$t/err")"
	fi
fi
if [ ${#peak[@]} = 2 ]; then
	if [ $(( peak[1] - peak[0] )) -le 8192 ]; then
		ok "2x the trace, flat memory (${peak[0]} kB, ${peak[1]} kB)"
	else
		not_ok "2x the trace, flat memory" "${peak[0]} kB, then ${peak[1]} kB"
	fi
fi
tap_finish
