# t_words.sh: words a btt, iostat and fio user knows mean what they mean there.
# report's stage shares are btt's Device Overhead (I2D and M2D apart, btt run on
# the same trace); iostat's table stands alone, its definitions with --explain;
# a run of a time paste points at the command that shows it, and that command
# shows it; export --format fio says which device each file was and that it
# holds writes, fio reads it, and import reads it back.
. "$(dirname "$0")/../lib.sh"

need_iotape "words as btt, iostat and fio use them"
t=$TEST_TMP
db=$t/w.db
"$IOTAPE" import --quiet --db "$db" --run lf "$FIXTURES/loop-fio-small.bin" ||
	{ not_ok "import the committed capture"; tap_finish; }

# ---- report's device overhead is btt's ------------------------------------------
if ! command -v btt > /dev/null || ! command -v blkparse > /dev/null; then
	skip "report's stage shares against btt's Device Overhead" "no btt"
else
	blkparse -q -i - -d "$t/lf.dump" < "$FIXTURES/loop-fio-small.bin" > /dev/null
	(cd "$t" && btt -i lf.dump > btt.out 2> btt.err)
	# btt: " (  7,  0) |   4.6967%   2.2605%   0.1425%   1.4974%  74.8108%"
	want=$(awk '/^=+ Device Overhead =+$/ { on = 1; next } /^=+ / { on = 0 }
		on && /^ *\( *7, *0\)/ { sub(/^[^|]*\|/, ""); gsub(/%/, "")
		printf "%.1f %.1f %.1f %.1f %.1f", $1, $2, $3, $4, $5; exit }' "$t/btt.out")
	got=$("$IOTAPE" report --db "$db" --json lf | jq -r '.time.devices[0].stages |
		[.q2g, .g2i, .q2m, .i2d, .d2c] | map(.pct_of_q2c * 10 | round / 10 |
		tostring | if test("\\.") then . else . + ".0" end) | join(" ")')
	check_eq "report --json: Q2G G2I Q2M I2D D2C shares are btt's Device Overhead" "$want" "$got"
	line=$("$IOTAPE" report --db "$db" lf | grep -m1 '^ *Q2C: Q2G')
	read -r q2g g2i q2m i2d d2c <<< "$want"
	[[ $line == *"Q2G $q2g% G2I $g2i% Q2M $q2m% I2D $i2d% M2D "*"% D2C $d2c%"* ]] &&
		ok "report: the device line shows btt's columns in its order, and M2D" ||
		not_ok "report: the device line shows btt's columns" "btt: $want" "iotape: $line"
	# M2D is what btt leaves out: the shares add up to 100 with it
	sum=$("$IOTAPE" report --db "$db" --json lf | jq '.time.devices[0].stages |
		[.q2g, .g2i, .q2m, .i2d, .m2d, .d2c] | map(.pct_of_q2c) | add | round')
	check_eq "report --json: Q2G G2I Q2M I2D M2D D2C add up to 100% of Q2C" 100 "$sum"
fi

# ---- iostat: the table alone; --explain adds the definitions ------------------------
"$IOTAPE" iostat --db "$db" lf > "$t/io.txt" && "$IOTAPE" iostat --db "$db" --explain lf > "$t/iox.txt"
check_eq "iostat: no definitions without --explain, under the table with it" "0 1" \
	"$(grep -c 'As iostat -x names them' "$t/io.txt") $(grep -c 'As iostat -x names them' "$t/iox.txt")"
check_eq "iostat --explain: the same table above them" "$(cat "$t/io.txt")" "$(head -n "$(wc -l < "$t/io.txt")" "$t/iox.txt")"
check_eq "iostat --json: the definitions always" 1 \
	"$("$IOTAPE" iostat --db "$db" --json lf | jq -r '.definitions | test("As iostat")' | grep -c true)"

# ---- a time paste: report names the command that shows it, and it does ---------------
"$IOTAPE" import --quiet --db "$db" --run paste "$FIXTURES/import/time-bash-dd.txt"
hint=$("$IOTAPE" report --db "$db" paste | tr -s ' \n' ' ' | grep -oE 'see iotape [a-z]+ [^ )]+')
check_eq "report of a time paste: points at iotape metric" "see iotape metric paste" "$hint"
out=$("$IOTAPE" ${hint#see iotape } --db "$db")
[[ $out == *cmd1_real_s* ]] && ok "the command it names shows the timed commands" ||
	not_ok "the command it names shows the timed commands" "$out"
"$IOTAPE" import --quiet --db "$db" --run vm "$FIXTURES/vmstat/plain-1-3.log"
hint=$("$IOTAPE" report --db "$db" vm | tr -s ' \n' ' ' | grep -oE 'see iotape [a-z]+ [^ )]+')
check_eq "report of a vmstat log: points at iotape vmstat" "see iotape vmstat vm" "$hint"
check "the command it names shows the samples" "$IOTAPE" ${hint#see iotape } --db "$db"
# ... then its causes, as its JSON has them (the text stopped after those
# two lines), with no table's terms under them
check_eq "report of a vmstat log: its two lines, its causes, no empty tables, elapsed of 0 s or terms" "2 1 0" \
	"$("$IOTAPE" report --db "$db" vm | sed -n '1,2p' | grep -c .) $("$IOTAPE" report --db "$db" vm | grep -c '^== why') $("$IOTAPE" report --db "$db" vm | grep -c '^== device\|elapsed\|^Q2C: queue')"
# the time its three rows 1 s apart cover, as iotape runs lists it (once
# "0.000 s"), and windows on the samples' clock (once from -1.8e9 s)
check_eq "report of a vmstat log: the header gives the samples' span" \
	"run 'vm' (import, complete, vmstat-text): 2.000 s of samples, 0 devices" \
	"$("$IOTAPE" report --db "$db" vm | head -n 1)"
"$IOTAPE" import --quiet --db "$db" --run vmt "$FIXTURES/vmstat/timestamped-1-3.log"
check_eq "report --json of a timestamped vmstat log: span_s, and every finding's window inside it" \
	"2 true" "$("$IOTAPE" report --db "$db" --json vmt |
	jq -r '"\(.span_s) \([.findings[].window | .from_s >= 0 and .to_s <= 2] | all)"')"

# ---- export --format fio: stderr names each file's device and the writes ---------------
"$IOTAPE" export --db "$db" --format fio -o "$t/lf.iolog" lf 2> "$t/head"
writes=$(grep -c ' write ' "$t/lf.iolog")
check_eq "fio iolog: the version line first, then the files, no comment lines" \
	"fio version 3 iolog|0 iotape-dev-7,0 add|0" \
	"$(head -n 2 "$t/lf.iolog" | paste -sd'|')|$(grep -c '^#' "$t/lf.iolog")"
# (a name that is no device: fio without --replay_redirect writes a file of
# it, not the disk that has these numbers where fio runs)
grep -q "^iotape: iotape-dev-7,0 is its device 7,0: [0-9]* reads, $writes writes" "$t/head" &&
	ok "fio iolog: stderr says its file is device 7,0, with the count of writes ($writes)" ||
	not_ok "fio iolog: its file's device and writes" "$(cat "$t/head")"
grep -q "replay_redirect" "$t/head" && ok "fio iolog: stderr says to replay the writes with --replay_redirect" ||
	not_ok "fio iolog: says --replay_redirect" "$(cat "$t/head")"
check "fio iolog imports again" "$IOTAPE" import --quiet --db "$db" --run lf-back "$t/lf.iolog"
if command -v fio > /dev/null; then
	truncate -s 256M "$t/scratch.img"
	fio --name=r --read_iolog="$t/lf.iolog" --replay_redirect="$t/scratch.img" \
		--replay_no_stall=1 --output-format=json --output="$t/fio.json" > "$t/fio.out" 2>&1
	got=$(sed -n '/^{/,$p' "$t/fio.json" | jq -r '.jobs[0].write.total_ios' 2> /dev/null)
	check_eq "fio replays it: every write ($writes), no complaint" "$writes 0" \
		"$got $(grep -c 'bad iolog' "$t/fio.out")"
else
	skip "fio replays the iolog" "no fio"
fi
tap_finish
