# t_model.sh: modelled rotating disks. `iotape model list` (built-ins, one profile's
# sources, 80 columns), profile files (good, and bad ones refused with file and line),
# `iotape replay --target model:PROFILE` on the loop fixture (a replay run whose D/C
# times are the model's, far faster than real time), its refusals, `model fit`
# refusing traces that cannot support a fit (a loop device: D2C flat in distance, too
# few requests alone), report --model, the seed case (one disk vs two disks on the
# 2006 profile: modelled time per process, compare --model), and, when the DiskSim validation traces of real disks
# are at hand, fit on the first half and predict the second.
. "$(dirname "$0")/../lib.sh"

need_iotape "modelled disks"
command -v sqlite3 > /dev/null || { skip "modelled disks" "no sqlite3"; exit 0; }
command -v jq > /dev/null || { skip "modelled disks" "no jq"; exit 0; }
t=$TEST_TMP db=$t/t.db
q() { sqlite3 "$db" "$@"; }
width() { awk '{ if (length > m) m = length } END { print m + 0 }' "$1"; }

# ---- profiles ------------------------------------------------------------------------
"$IOTAPE" model list > "$t/list" 2> "$t/err"
check_eq "model list exits 0" 0 $?
check_eq "model list: four built-ins with their aliases" \
	"deskstar-7k500 desktop-2006|ultrastar-7k4000 desktop-current|travelstar-5k320 laptop-5400|ultrastar-15k450 sas-15k" \
	"$(awk 'NR > 2 && !NF { exit } NR > 2 && NF > 5 { printf "%s%s %s", (n++ ? "|" : ""), $1, $2 }' "$t/list")"
for p in desktop-2006 desktop-current laptop-5400 sas-15k; do
	"$IOTAPE" model list "$p" > "$t/one" 2> "$t/err" || not_ok "model list $p" "$(cat "$t/err")"
	[ "$(width "$t/one")" -le 80 ] && ok "model list $p fits 80 columns" ||
		not_ok "model list $p fits 80 columns" "$(width "$t/one")"
	# every key has a source
	n=$(awk '/^key/ { on = 1; next } on && !NF { exit } on && /^[a-z_]+ / { k++; if ($NF == "-") bad++ }
		END { print k + 0, bad + 0 }' "$t/one")
	check_eq "model list $p: 19 keys, none without a source" "19 0" "$n"
done
grep -q "seek_avg_ms *8.5 ms *specification: average read seek" <("$IOTAPE" model list desktop-2006) &&
	ok "the 2006 profile's average seek is the data sheet's, with its source" ||
	not_ok "the 2006 profile's average seek is the data sheet's"
"$IOTAPE" model list desktop-2006 | grep -q "random 4 KiB read about 12.9[0-9] ms" &&
	ok "the 2006 profile makes a disk whose random 4 KiB read takes about 12.9 ms" ||
	not_ok "the 2006 profile's random 4 KiB read" "$("$IOTAPE" model list desktop-2006 | tail -n 5)"

printf '%s\n' '# the reporter'"'"'s disk, as far as we know it' 'base = desktop-2006' \
	'name = reporter' 'write_cache = off   # hdparm -W0 in the report' 'queue = fifo' > "$t/rep.profile"
"$IOTAPE" model list "$t/rep.profile" > "$t/one" 2> "$t/err"
check_eq "a profile file with base: listed" "0 reporter" "$? $(head -n 1 "$t/one")"
grep -q "write_cache *off *hdparm -W0 in the report" "$t/one" &&
	ok "a profile file's value and source are shown" || not_ok "a profile file's source" "$(cat "$t/one")"
printf 'base = desktop-2006\nrpm = 7200\nseek_avg_ms = fast\n' > "$t/bad.profile"
"$IOTAPE" model list "$t/bad.profile" > /dev/null 2> "$t/err"; rc=$?
check_eq "a bad profile file: one line naming file, line and key" \
	"1 1 iotape: $t/bad.profile: line 3: seek_avg_ms: 'fast' is not a number" \
	"$rc $(wc -l < "$t/err") $(cat "$t/err")"
"$IOTAPE" model list nosuch > /dev/null 2> "$t/err"; rc=$?
[ $rc != 0 ] && grep -q "no built-in profile 'nosuch'" "$t/err" &&
	ok "an unknown profile name is refused" || not_ok "an unknown profile name is refused" "$(cat "$t/err")"

# ---- a replay on a modelled disk -------------------------------------------------------
"$IOTAPE" import --db "$db" --run src --quiet "$FIXTURES/loop-fio-small.bin" ||
	{ not_ok "import the fixture"; tap_finish; }
SRC=$(q "SELECT id FROM runs WHERE name = 'src'")
"$IOTAPE" replay --db "$db" src --target model:desktop-2006 --run m1 --json --quiet \
	> "$t/m1.json" 2> "$t/err"
check_eq "replay on model:desktop-2006 exits 0" "0 " "$? $(cat "$t/err")"
R=$(q "SELECT id FROM runs WHERE name = 'm1'")
check_eq "the model replay is a run of kind replay whose parent is the source" \
	"replay|$SRC|complete" "$(q "SELECT kind, parent, status FROM runs WHERE id = $R")"
check_eq "it replays the dispatches (D rows), all of them" \
	"$(q "SELECT count(*) FROM requests WHERE run = $SRC AND d_head = 1")" \
	"$(jq '.[0].ios.replay' "$t/m1.json")"
check_eq "engine model, dispatch level, the 2006 profile" "model dispatch deskstar-7k500" \
	"$(jq -r '.[0] | "\(.engine) \(.level) \(.model.disks[0].profile)"' "$t/m1.json")"
# report --model: the seeks' modelled time, beside what this device measured
"$IOTAPE" report --db "$db" --json --model desktop-2006 src > "$t/rm.json" 2> "$t/err"
check_eq "report --model desktop-2006 exits 0" "0 " "$? $(cat "$t/err")"
jq -e '.analysis.seek.devices[0] | .model_device_s > .model_transfer_s and
	.model_transfer_s > 0 and (.cost_s - (.model_device_s - .model_transfer_s) | fabs) < 1e-6' \
	"$t/rm.json" > /dev/null && ok "report --model: seek cost is modelled device time less transfer" ||
	not_ok "report --model: seek cost is modelled device time less transfer" \
		"$(jq -c '.analysis.seek' "$t/rm.json")"
check_eq "report --model: the cost names the modelled disk" "the workload's time on the modelled disk deskstar-7k500" \
	"$(jq -r '.findings[] | select(.analyzer == "seek") | .cost_of' "$t/rm.json")"
"$IOTAPE" report --db "$db" --model no-such-disk src > /dev/null 2> "$t/err"
check_eq "report --model with an unknown profile: exit 1, one line" "1 1" "$? $(wc -l < "$t/err")"
# D2C of the replay is the disk's: random reads on a 2006 disk take milliseconds
d2c=$(q "SELECT avg(c_ns - d_ns) / 1e6 FROM requests WHERE run = $R AND d_head = 1 AND bytes > 0 AND NOT cats & 2")
awk -v d="$d2c" 'BEGIN { exit !(d > 3 && d < 200) }' &&
	ok "modelled read D2C is a rotating disk's (mean $d2c ms)" ||
	not_ok "modelled read D2C is a rotating disk's" "mean $d2c ms"
span=$(jq '.[0].span_s.replay' "$t/m1.json") sim=$(jq '.[0].model.sim_wall_s' "$t/m1.json")
# (5 times: a replay that waited in real time would be 1; the model's speed
# is make bench's figure (bench_model.sh): on a loaded machine this run's CPU
# time moves, 35 times seen beside another job, over 100 quiet)
fast=5
awk -v s="$span" -v w="$sim" -v f=$fast 'BEGIN { exit !(w > 0 && s / w > f) }' &&
	ok "simulated time: $span s of disk time in $sim s of CPU" ||
	not_ok "the model replay is much faster than real time" "span $span s, CPU $sim s (at least $fast times)"
check_eq "run_stats keep the profile as a profile file" "1" \
	"$(q "SELECT count(*) FROM run_stats WHERE run = $R AND key LIKE 'replay.model.profile.%' AND value LIKE '%seek_avg_ms = 8.5%'")"
check "iotape report works on the model replay" "$IOTAPE" report --db "$db" m1
check "iotape compare works on it" "$IOTAPE" compare --db "$db" src m1
# --model on a run the model made: its D2C is the model's, queueing and all
# (costed again, a 20.8 s replay came out at 0.256 s): refused, in one line
for c in "report --model desktop-2006 m1" "compare --model desktop-2006 src m1"; do
	"$IOTAPE" $c --db "$db" > "$t/out" 2> "$t/err"
	check_eq "$c: refused (a modelled replay), exit 1, one line, nothing else" \
		"1 1 0 1" "$? $(wc -l < "$t/err") $(wc -c < "$t/out") $(grep -c "run 'm1' was replayed on model:desktop-2006" "$t/err")"
done
# the same replay again: the model is deterministic
"$IOTAPE" replay --db "$db" src --target model:desktop-2006 --run m2 --quiet > /dev/null 2>&1
check_eq "a model replay is deterministic (same D2C sum twice)" \
	"$(q "SELECT sum(c_ns - d_ns) FROM requests WHERE run = $R")" \
	"$(q "SELECT sum(c_ns - d_ns) FROM requests WHERE run = (SELECT id FROM runs WHERE name = 'm2')")"
# a slower disk stretches the timeline: the 5400 rpm laptop disk against the 15k disk
"$IOTAPE" replay --db "$db" src --target model:laptop-5400 --run slow --json --quiet > "$t/slow.json"
"$IOTAPE" replay --db "$db" src --target model:sas-15k --run fast --json --quiet > "$t/fast.json"
awk -v a="$(jq '.[0].span_s.replay' "$t/slow.json")" -v b="$(jq '.[0].span_s.replay' "$t/fast.json")" \
	'BEGIN { exit !(a > b) }' && ok "the laptop disk takes longer than the 15k rpm disk" ||
	not_ok "the laptop disk takes longer than the 15k rpm disk"

# refusals, each before anything is stored
nruns=$(q "SELECT count(*) FROM runs")
refuse() {   # refuse DESC PATTERN ARGS...
	local d=$1 pat=$2; shift 2
	"$IOTAPE" replay --db "$db" src "$@" > /dev/null 2> "$t/err"; rc=$?
	if [ $rc != 0 ] && grep -q -- "$pat" "$t/err"; then ok "$d"
	else not_ok "$d" "exit $rc" "$(cat "$t/err")"; fi
}
refuse "an unknown profile" "no built-in profile 'nosuch'" --target model:nosuch
refuse "a bad profile file" "line 3: seek_avg_ms" --target "model:$t/bad.profile"
refuse "--set on a modelled disk" "do not apply to a modelled disk" --target model:desktop-2006 \
	--set vm.dirty_ratio=10
refuse "--engine sync with a modelled disk" "the model engine drives modelled disks only" \
	--target model:desktop-2006 --engine sync
refuse "the model engine on a file" "the model engine drives modelled disks only" \
	--target "$t/f.img" --engine model
check_eq "refusals stored nothing" "$nruns" "$(q "SELECT count(*) FROM runs")"
"$IOTAPE" replay --db "$db" src --target "model:$t/rep.profile" --run rep --quiet > /dev/null 2> "$t/err"
check_eq "a replay on a profile file" "0 " "$? $(cat "$t/err")"

# ---- model fit refuses what cannot support a fit ---------------------------------------
"$IOTAPE" model fit --db "$db" src > "$t/fit" 2> "$t/err"; rc=$?
if [ $rc != 0 ] && grep -q "cannot fit a disk to run 'src' (device 7,0): D2C is flat in seek distance: .* not a rotating disk" "$t/err"
then ok "fit on a loop-device capture is refused: D2C flat in seek distance"
else not_ok "fit on a loop-device capture is refused: D2C flat in seek distance" "exit $rc" "$(cat "$t/err")"; fi

# a short trace: 60 reads, one at a time, 10 ms each
awk 'BEGIN { for (i = 0; i < 60; i++) { t = i * 0.02; s = (i * 7919 % 1000) * 100000
	printf "  8,0    0 %8d %14.9f  4242  Q   R %d + 8 [x]\n", 3 * i + 1, t, s
	printf "  8,0    0 %8d %14.9f  4242  D   R %d + 8 [x]\n", 3 * i + 2, t, s
	printf "  8,0    0 %8d %14.9f  4242  C   R %d + 8 [0]\n", 3 * i + 3, t + 0.01, s } }' > "$t/short.txt"
"$IOTAPE" import --db "$db" --run short --quiet "$t/short.txt" || not_ok "import a short trace"
"$IOTAPE" model fit --db "$db" short > /dev/null 2> "$t/err"; rc=$?
[ $rc != 0 ] && grep -q "too few requests alone on the device: 59 of 60 with data" "$t/err" &&
	ok "fit on 60 requests is refused: too few alone on the device" ||
	not_ok "fit on 60 requests is refused: too few alone on the device" "$(cat "$t/err")"

# a run with no I/O at all (a time paste alone): refused in one line (it
# sorted an empty list through a null pointer and named "device 0,0")
printf 'real\t0m1.000s\nuser\t0m0.000s\nsys\t0m0.000s\n' > "$t/noio.txt"
"$IOTAPE" import --db "$db" --run noio --quiet "$t/noio.txt" || not_ok "import a time paste"
"$IOTAPE" model fit --db "$db" noio > /dev/null 2> "$t/err"
check_eq "fit on a run with no requests: refused in one line" \
	"1|iotape: run 'noio' has no dispatched requests (D and C traced) to fit a model to" \
	"$?|$(cat "$t/err")"

# ---- the seed case: one disk vs two disks on a 2006 disk --------------------------------
if CORPUS=$(corpus_dir) && [ -r "$CORPUS/seed-debsums-patch/one-disk/trace.bin" ]; then
	S=$CORPUS/seed-debsums-patch
	for v in one-disk two-disks; do
		"$IOTAPE" import --db "$db" --run "$v" --quiet --names "$S/$v/saved_cmdlines.txt" \
			"$S/$v/trace.bin" || not_ok "import seed $v"
		"$IOTAPE" replay --db "$db" "$v" --target model:desktop-2006 --run "$v-2006" \
			--json --quiet > "$t/$v.json" 2> "$t/err" || not_ok "replay seed $v" "$(cat "$t/err")"
	done
	"$IOTAPE" model fit --db "$db" one-disk > /dev/null 2> "$t/err"; rc=$?
	[ $rc != 0 ] && grep -q "D2C is flat in seek distance: .* not a rotating disk" "$t/err" &&
		ok "fit on the seed's loop device is refused: D2C flat in distance" ||
		not_ok "fit on the seed's loop device is refused: D2C flat in distance" "$(cat "$t/err")"
	check_eq "three devices on a model: named once, with a disk each" \
		"model:desktop-2006 (a disk for each of 3 devices)" \
		"$(jq -r '.[0].targets' "$t/two-disks.json")"
	one=$(jq '.[0].span_s.replay' "$t/one-disk.json") two=$(jq '.[0].span_s.replay' "$t/two-disks.json")
	# per process: first modelled dispatch to last modelled completion
	for v in one-disk two-disks; do
		diag "$v on desktop-2006, per process (modelled s, I/Os):"
		q "SELECT printf('#   %-8s %8.3f s %6d', p.comm, (max(r.c_ns) - min(r.d_ns)) / 1e9, count(*))
			FROM requests r JOIN processes p ON p.run = r.run AND p.pid = r.pid
			WHERE r.run = (SELECT id FROM runs WHERE name = '$v-2006') AND r.d_head = 1
			AND p.comm IN ('patch', 'md5sum', 'find', 'sync')
			GROUP BY p.comm ORDER BY p.comm"
	done
	pone=$(q "SELECT (max(r.c_ns) - min(r.d_ns)) / 1e9 FROM requests r JOIN processes p ON p.run = r.run AND p.pid = r.pid
		WHERE r.run = (SELECT id FROM runs WHERE name = 'one-disk-2006') AND p.comm = 'patch'")
	ptwo=$(q "SELECT (max(r.c_ns) - min(r.d_ns)) / 1e9 FROM requests r JOIN processes p ON p.run = r.run AND p.pid = r.pid
		WHERE r.run = (SELECT id FROM runs WHERE name = 'two-disks-2006') AND p.comm = 'patch'")
	awk -v a="$one" -v b="$two" 'BEGIN { exit !(a > 1.2 * b) }' &&
		ok "seed case on a 2006 disk: one disk ${one} s, clearly longer than two disks ${two} s" ||
		not_ok "seed case: one disk clearly longer than two disks on a 2006 disk" "one $one s, two $two s"
	awk -v a="$pone" -v b="$ptwo" 'BEGIN { exit !(a > b) }' &&
		ok "seed case: patch takes longer on one disk (${pone} s) than on two (${ptwo} s)" ||
		not_ok "seed case: patch longer on one disk" "one $pone s, two $ptwo s"
	# compare --model: what the seeks would have cost on the 2006 disk
	"$IOTAPE" compare --db "$db" --json --model desktop-2006 one-disk two-disks \
		> "$t/cmpm.json" 2> "$t/err" || not_ok "compare --model" "$(cat "$t/err")"
	read -r first cost <<< "$(jq -r '.comparisons[0].findings[] | select(.cause == 1) |
		"\(.analyzer) \(.cost_s)"' "$t/cmpm.json" | head -n 1)"
	check_eq "seed case: compare --model desktop-2006 ranks seek first (${cost} s)" seek "$first"
	# the seeks' time on the workload's critical path on that disk
	s1=$("$IOTAPE" report --db "$db" --json --model desktop-2006 one-disk |
		jq '.analysis.time.by_cause_s.seek')
	s2=$("$IOTAPE" report --db "$db" --json --model desktop-2006 two-disks |
		jq '.analysis.time.by_cause_s.seek')
	awk -v c="$cost" -v a="$s1" -v b="$s2" 'BEGIN { d = a - b - c; if (d < 0) d = -d
		exit !(a > b && b > 0 && d < 0.001) }' &&
		ok "seed case: modelled seek time one disk ${s1} s, two disks ${s2} s; the cost is the difference" ||
		not_ok "seed case: modelled seek time one disk over two disks, cost their difference" \
			"one $s1, two $s2, cost $cost"
	# the replays compared: the device's parts add up to what the device,
	# seek and queue categories moved (the queueing slower service brought
	# goes to the device's parts), and the device's 'how' shows that sum
	"$IOTAPE" compare --db "$db" --json one-disk-2006 two-disks-2006 > "$t/cmpr.json"
	jq -e '.comparisons[0] as $c |
		([.analyses[] | select(.run == $c.worse)][0].analysis.time.by_cause_s) as $y |
		([.analyses[] | select(.run == $c.better)][0].analysis.time.by_cause_s) as $x |
		([$c.findings[] | select(.analyzer | IN("device", "seek", "queue",
			"volume", "readahead")) | .cost_s] | add) as $parts |
		(($y.device + $y.seek + $y.queue) - ($x.device + $x.seek + $x.queue)) as $cats |
		($parts - $cats | fabs) < 0.005 and $c.scale == 1' "$t/cmpr.json" > /dev/null &&
		ok "seed replays: device, seek, queue and volume costs add up to those categories' difference" ||
		not_ok "seed replays: device, seek, queue and volume costs add up to those categories' difference"
	total=$(jq -r '.comparisons[0].findings[] | select(.analyzer == "device") | .how' "$t/cmpr.json" |
		sed -n "s/.*the device's \([-+][0-9.]*\) s, split.*/\1/p")
	parts=$(jq -r '[.comparisons[0].findings[] | select(.analyzer | IN("device", "seek",
		"volume", "readahead")) | .cost_s] | add' "$t/cmpr.json")
	awk -v a="$total" -v b="$parts" 'BEGIN { d = a - b; exit !(a != "" && d < 0.002 && d > -0.002) }' &&
		ok "seed replays: the device's 'how' gives the sum of its parts ($total s)" ||
		not_ok "seed replays: the device's 'how' gives the sum of its parts" "how '$total', parts $parts"
	# without the model the loop device's seeks cost nothing: seek is no
	# cause (what the one device's sharing cost may be: its D2C grew)
	"$IOTAPE" compare --db "$db" --json one-disk two-disks > "$t/cmp.json"
	check_eq "seed case: without --model, seek is no cause (seeks cost nothing on the loop device)" "" \
		"$(jq -r '.comparisons[0].findings[] | select(.cause == 1 and .analyzer == "seek") | .analyzer' "$t/cmp.json")"
else
	skip "seed case on a 2006 disk" "corpus absent"
fi

# ---- real rotating disks: fit the first half, predict the second -----------------------
# The DiskSim 4.0 validation traces (valid/*.trace, "validate" format: R/W, buffer
# action, block, blocks, measured response us, next inter-arrival us; requests issued
# to real SCSI disks) are not in this tree: set IOTAPE_DISKSIM_VALID to their folder,
# or put them in the corpus as disksim-valid/.
V=${IOTAPE_DISKSIM_VALID:-${CORPUS:-/nonexistent}/disksim-valid}
if [ -r "$V/atlas_III.trace" ]; then
	for d in atlas_III atlas10k; do
		[ -r "$V/$d.trace" ] || continue
		# Q and D at the arrival, C at arrival + response, as blkparse prints them
		awk '{ o = ($1 == "W") ? "W" : "R"
			printf "%.9f 0 Q %s %d %d\n%.9f 1 D %s %d %d\n%.9f 2 C %s %d %d\n",
				at / 1e6, o, $3, $4, at / 1e6, o, $3, $4, (at + $5) / 1e6, o, $3, $4
			at += $6 }' "$V/$d.trace" | sort -s -g -k1,1 -k2,2 |
			awk '{ printf "  8,0    0 %8d %14.9f  4242  %s   %s %d + %d [%s]\n", NR, $1, $3, $4,
				$5, $6, ($3 == "C") ? "0" : "disksim" }' > "$t/$d.txt"
		"$IOTAPE" import --db "$db" --run "$d" --quiet "$t/$d.txt" || not_ok "import $d"
		"$IOTAPE" model fit --db "$db" "$d" --holdout -o "$t/$d.profile" > "$t/$d.fit" 2>&1 ||
			not_ok "model fit $d" "$(cat "$t/$d.fit")"
		errs=$(awk '/second half \(predicted\)/ { on = 1; next } on && /error/ {
			gsub(/[%+]/, ""); print $2, $3, $4; exit }' "$t/$d.fit")
		set -- $errs
		awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN { a = a < 0 ? -a : a; b = b < 0 ? -b : b
			c = c < 0 ? -c : c; exit !(a <= 15 && b <= 15 && c <= 25) }' &&
			ok "$d (real disk): fit on the first half, second half D2C mean ${1}% median ${2}% p95 ${3}% off" ||
			not_ok "$d: predicted D2C within 15% (mean, median) and 25% (p95)" "$(cat "$t/$d.fit" | head -n 20)"
		"$IOTAPE" model list "$t/$d.profile" > /dev/null 2> "$t/err" &&
			ok "$d: the fitted profile reads back" || not_ok "$d: the fitted profile reads back" "$(cat "$t/err")"
		grep -q "^rpm = " "$t/$d.profile" && diag "$d fitted: $(grep -E '^(rpm|seek_avg_ms) ' "$t/$d.profile" | tr '\n' ' ')"
	done
else
	skip "fit and predict on real rotating disks" "DiskSim validation traces absent (IOTAPE_DISKSIM_VALID)"
fi
tap_finish
