# t_taskacct.sh: per-task accounting in a capture (issue 26, item 0):
#   a dd reading with O_DIRECT from a device slowed with blk-throttle (a loop
#   device over a throttled loop device, so each read's D2C is the wait):
#   its kernel-measured block I/O delay is within 25% of its reads' summed
#   Q2C in the trace, and within its life (skipped when the kernel got that
#   delay wrong in three runs running);
#   families: a shell loop's dd processes and an xargs -P 2 pipeline's children
#   have their parents' pids, starts and exits, and their names;
#   kernel.task_delayacct is on during the run and back as it was after it and
#   after SIGTERM; the run says how tasks were accounted (capture.task_acct);
#   under --mem-limit the memory cgroup's memory.stat is sampled (source memcg);
#   a --set of vm.dirty_bytes goes back (the kernel refuses 0 for it).
. "$(dirname "$0")/../lib.sh"

need_iotape "per-task accounting"
need_root "per-task accounting"
tracefs_check || { skip "per-task accounting" "$TRACEFS_WHY"; exit 0; }
[ -e /proc/sys/kernel/task_delayacct ] ||
	{ skip "per-task accounting" "no kernel.task_delayacct"; exit 0; }
TG=/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device
[ -w "$TG" ] || { skip "per-task accounting" "no cgroup v1 blk-throttle ($TG)"; exit 0; }

t=$TEST_TMP db=$t/t.db
dbytes0=$(cat /proc/sys/vm/dirty_bytes) dratio0=$(cat /proc/sys/vm/dirty_ratio)
q() { sqlite3 "$db" "$1"; }
# tv RUN KEY: the last value of task sample KEY ("PID.FIELD") in RUN
tv() { q "SELECT CAST(value AS INTEGER) FROM samples s JOIN runs r ON r.id = s.run WHERE r.name = '$1'
	AND s.source = 'task' AND s.key = '$2' ORDER BY s.time_ns DESC LIMIT 1"; }
# pids RUN COMM: the pids named COMM among RUN's accounted tasks, in order
# (the processes table also names the machine's other recent pids, from
# tracefs saved_cmdlines)
pids() { q "SELECT p.pid FROM processes p JOIN runs r ON r.id = p.run
	WHERE r.name = '$1' AND p.comm = '$2' AND EXISTS (SELECT 1 FROM samples s
	WHERE s.run = r.id AND s.source = 'task' AND s.key = p.pid || '.ppid')
	ORDER BY p.pid"; }
# delayacct: kernel.task_delayacct read under the capture lock (another job's
# capture turns it on for its run)
delayacct() { locked cat /proc/sys/kernel/task_delayacct; }
acct0=$(delayacct)

truncate -s 256M "$t/lower.img"
loop_attach "$t/lower.img" --direct-io=on && L=$LOOPDEV || { not_ok "attach loop"; tap_finish; }
loop_attach "/dev/$L" --direct-io=on && U=$LOOPDEV || { not_ok "attach loop"; tap_finish; }
lm=$(cat "/sys/block/$L/dev")
at_exit "echo '$lm 0' > $TG"
echo "$lm 16777216" > "$TG"        # 16 MB/s: 8 MiB of reads wait 0.5 s

# ---- blkio delay against the trace's Q2C, and the sysctl during the run ----
# Under CPU load the kernel gets some tasks' block I/O delay wrong (the clock's
# whole value added; the capture leaves such a field out and counts it in
# task_delays_dropped): up to three runs for one whose dd's delay was kept.
for try in 1 2 3; do
	r=dio.$try
	"$IOTAPE" capture --quiet --db "$db" --run $r -d "/dev/$U" --interval 0.2 \
		--cmd "cat /proc/sys/kernel/task_delayacct > $t/during; dd if=/dev/$U of=/dev/null bs=64k count=128 iflag=direct 2>/dev/null" \
		2> "$t/err" || not_ok "capture $r" "$(tail -n 3 "$t/err")"
	dd=$(pids $r dd)
	[ -z "$dd" ] || [ -n "$(tv $r "$dd.blkio_delay_ns")" ] && break
	diag "$r: the kernel's block I/O delay of dd $dd was wrong (left out); again"
done
check_eq "task_delayacct is 1 during the run" 1 "$(cat "$t/during")"
check_eq "task_delayacct back to $acct0 after the run" "$acct0" "$(delayacct)"
check_eq "the run says it used taskstats" taskstats \
	"$(q "SELECT value FROM settings s JOIN runs ru ON ru.id = s.run
		WHERE ru.name = '$r' AND s.key = 'capture.task_acct'")"
if [ -z "$dd" ]; then
	not_ok "the dd is among the run's processes"
else
	blk=$(tv $r "$dd.blkio_delay_ns")
	q2c=$(q "SELECT sum(q2c_ns) FROM requests rq JOIN runs ru ON ru.id = rq.run
		WHERE ru.name = '$r' AND rq.pid = $dd AND rq.q2c_ns IS NOT NULL")
	life=$(awk -v a="$(tv $r "$dd.exit_ns")" -v b="$(tv $r "$dd.start_ns")" 'BEGIN { print a - b }')
	diag "dd $dd: blkio delay $blk ns, its reads' Q2C $q2c ns, its life $life ns"
	if [ -z "$blk" ]; then
		skip "dd's block I/O delay against its reads' Q2C" \
			"the kernel got it wrong in 3 runs of 3 (task_delays_dropped)"
	else
		if within_pct "$blk" "$q2c" 25; then
			ok "dd's block I/O delay is within 25% of its reads' Q2C"
		else
			not_ok "dd's block I/O delay is within 25% of its reads' Q2C" \
				"blkio_delay_ns $blk, Q2C sum $q2c"
		fi
		awk -v b="$blk" -v l="$life" 'BEGIN { exit !(b > 0.3e9 && b <= l) }' &&
			ok "dd waited over 0.3 s on I/O, within its life" ||
			not_ok "dd waited over 0.3 s on I/O, within its life" "blkio $blk, life $life"
	fi
	# read_bytes also charges dd any page its own start read from disk (its
	# binary, its libraries: seen once, 4 KiB more)
	rb=$(tv $r "$dd.read_bytes")
	[ "${rb:-0}" -ge 8388608 ] && [ "$rb" -le $((8388608 + 1048576)) ] &&
		ok "dd read its 8 MiB ($rb bytes)" ||
		not_ok "dd read its 8 MiB" "read_bytes $rb"
	# the kernel counts a wait only where its clock moved forward
	# (delayacct_end: ns > 0), so where it got the delay wrong the count is
	# short too (CI once: 77 of 128); there only its bounds are checked.
	# As read_bytes, the count takes dd's own start's waits too (a page of
	# its binary or libraries read from disk: CI once 129 for 128 reads)
	n=$(tv $r "$dd.blkio_count")
	if [ -n "$blk" ]; then
		[ "${n:-0}" -ge 100 ] && [ "$n" -le 136 ] &&
			ok "dd's blkio_count: about one per read ($n of 128)" ||
			not_ok "dd's blkio_count: about one per read" "$n for 128 reads"
	else
		[ "${n:-0}" -ge 1 ] && [ "$n" -le 136 ] &&
			ok "dd's blkio_count: at most one per read ($n of 128)" ||
			not_ok "dd's blkio_count: at most one per read" "$n for 128 reads"
		skip "dd's blkio_count: about one per read" \
			"the kernel's delay for dd was wrong in 3 runs of 3"
	fi
	sh=$(tv $r "$dd.ppid")
	check_eq "dd's parent is the workload's shell" sh \
		"$(q "SELECT comm FROM processes p JOIN runs ru ON ru.id = p.run
			WHERE ru.name = '$r' AND p.pid = ${sh:-0}")"
fi
echo "$lm 0" > "$TG"

# ---- families: a shell loop, and xargs -P 2 -------------------------------------
"$IOTAPE" capture --quiet --db "$db" --run fam -d "/dev/$U" --interval 0.1 \
	--cmd "for i in 1 2 3; do dd if=/dev/$U of=/dev/null bs=4k count=200 iflag=direct 2>/dev/null; done" \
	--cmd "printf '0\n100\n200\n300\n' | xargs -P 2 -I@ dd if=/dev/$U of=/dev/null bs=4k count=300 skip=@ iflag=direct" \
	2> "$t/err" || not_ok "capture fam" "$(tail -n 3 "$t/err")"
n=$(pids fam dd | wc -l)
check_eq "all 7 dd processes are accounted" 7 "$n"
xa=$(pids fam xargs)
kids=$(q "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.name = 'fam'
	AND s.source = 'task' AND s.key LIKE '%.ppid' AND s.value = ${xa:-0}")
check_eq "xargs' 4 dd children name it as their parent" 4 "$kids"
# reads are counted by read_bytes (taskstats' I/O accounting, charged when
# the bio is submitted); blkio_count is the kernel's delay accounting, which
# counts a wait only where its clock moved forward: where the first part
# found that clock wrong, a quick dd's count may be 0 (CI: 1 of 7)
bad=0 nob=0
for p in $(pids fam dd); do
	s=$(tv fam "$p.start_ns") e=$(tv fam "$p.exit_ns") rb=$(tv fam "$p.read_bytes")
	b=$(tv fam "$p.blkio_count")
	awk -v s="$s" -v e="$e" -v rb="$rb" 'BEGIN { exit !(s > 0 && e > s && rb >= 819200) }' ||
		{ bad=$((bad + 1)); diag "dd $p: start $s, exit $e, read_bytes $rb"; }
	[ "${b:-0}" -gt 0 ] || nob=$((nob + 1))
done
check_eq "each dd has a start before its exit and read its blocks" 0 "$bad"
if [ -n "$blk" ]; then
	check_eq "each dd's waits on block I/O counted" 0 "$nob"
else
	skip "each dd's waits on block I/O counted" \
		"the kernel's delay for dd was wrong in 3 runs of 3 ($nob of 7 with none)"
fi
lo=$(q "SELECT min(start_ns) FROM commands c JOIN runs r ON r.id = c.run WHERE r.name = 'fam'")
first=$(for p in $(pids fam dd) $(pids fam xargs); do tv fam "$p.start_ns"; done | sort -n | head -n 1)
awk -v a="$first" -v b="$lo" 'BEGIN { d = a - b; exit !(d >= 0 && d < 1e9) }' &&
	ok "starts are on the commands' clock" ||
	not_ok "starts are on the commands' clock" "first task start $first, first command $lo"
other=$(q "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.name = 'fam'
	AND s.source = 'task' AND s.key LIKE '%.ppid' AND s.value NOT IN
	(SELECT CAST(substr(key, 1, instr(key, '.') - 1) AS INTEGER) FROM samples s2
	 WHERE s2.run = s.run AND s2.source = 'task') AND s.value NOT IN (0, 2)")
check_eq "every task's parent is in the run, or is the capture or kthreadd" 2 "$other"

# ---- --mem-limit: the memory cgroup's memory.stat ----------------------------------
"$IOTAPE" capture --quiet --db "$db" --run mem -d "/dev/$U" --interval 0.2 --mem-limit 256M \
	--set vm.dirty_bytes=67108864 \
	--cmd "dd if=/dev/$U of=/dev/null bs=1M count=64 2>/dev/null" \
	2> "$t/err" || not_ok "capture mem" "$(tail -n 3 "$t/err")"
n=$(q "SELECT count(DISTINCT time_ns) FROM samples s JOIN runs r ON r.id = s.run
	WHERE r.name = 'mem' AND s.source = 'memcg' AND s.key = 'pgpgin'")
[ "${n:-0}" -ge 2 ] && ok "memcg memory.stat sampled ($n times)" ||
	not_ok "memcg memory.stat sampled" "pgpgin sampled ${n:-0} times"
lim=$(q "SELECT max(value) FROM samples s JOIN runs r ON r.id = s.run
	WHERE r.name = 'mem' AND s.source = 'memcg' AND s.key = 'hierarchical_memory_limit_bytes'")
[ -z "$lim" ] || check_eq "memcg: the cgroup's limit, in bytes" 268435456 "${lim%.0}"
check_eq "the machine's samples are kept beside it" 1 \
	"$(q "SELECT count(*) > 0 FROM samples s JOIN runs r ON r.id = s.run
		WHERE r.name = 'mem' AND s.source = 'meminfo'")"
check_eq "vm.dirty_bytes back after the run" "$dbytes0 $dratio0" \
	"$(cat /proc/sys/vm/dirty_bytes) $(cat /proc/sys/vm/dirty_ratio)"

# ---- SIGTERM: task_delayacct back ---------------------------------------------------
"$IOTAPE" capture --db "$db" --run term -d "/dev/$U" --interval 0.2 --cmd "sleep 30.25" \
	> /dev/null 2> "$t/err.term" &
pid=$!
at_exit "kill -TERM $pid 2> /dev/null"
for i in $(seq 9000); do
	grep -q "iotape: capturing" "$t/err.term" && break
	kill -0 $pid 2> /dev/null || break
	sleep 0.1
done
sleep 0.5
check_eq "task_delayacct is 1 while the capture runs" 1 "$(cat /proc/sys/kernel/task_delayacct)"
kill -TERM $pid
wait $pid
check_eq "SIGTERM: task_delayacct back to $acct0" "$acct0" "$(delayacct)"
check_eq "SIGTERM: the workload's shell is accounted" 1 \
	"$(q "SELECT count(*) > 0 FROM samples s JOIN runs r ON r.id = s.run
		WHERE r.name = 'term' AND s.source = 'task' AND s.key LIKE '%.cpu_ns'")"
tap_finish
