# bench/bench_sizes.sh: how import and report scale with the run. From the
# bench's captured trace, traces of about 1M, 5M and 50M events are made (the
# first 1M events; copies of the trace one after the other, each copy's
# times moved past the one before so the clock runs on, cut at 5M; 18 such
# copies for 50M), cached in $BENCH_DIR. Prints import's events/s against
# blkparse's (taking turns) at 1M and 5M, and report's time and peak RSS
# against btt's at 5M and 50M, with issue 32's rows. Sourced by
# bench/bench.sh after timeit() and median(); BENCH_50M=0 leaves the 50M
# trace out (2.5 GB, and as much again for btt's input and for the store).

# trace_copies IN OUT COPIES MAX: OUT is COPIES copies of blktrace stream IN
# (records as blktrace_api.h's struct blk_io_trace, 48 bytes and pdu_len of
# payload, this machine's byte order), copy k's times moved by k times IN's
# span (the last time less the first, and 1 ms) and its sequence numbers by
# k times IN's records, cut after MAX records (0: none). Perl, which every
# Debian has: 50M records in about a minute.
trace_copies() {
	perl -e '
	use strict; use warnings;
	my ($in, $out, $copies, $max) = @ARGV;
	open(my $fh, "<:raw", $in) or die "bench: $in: $!\n";
	local $/; my $buf = <$fh>; close($fh);
	my ($off, @rec, $t0, $t1) = (0);
	while ($off + 48 <= length($buf)) {
		my ($t, $pdu) = (unpack("Q", substr($buf, $off + 8, 8)),
				 unpack("S", substr($buf, $off + 46, 2)));
		$t0 = $t if !defined($t0) || $t < $t0;
		$t1 = $t if !defined($t1) || $t > $t1;
		push @rec, $off;
		$off += 48 + $pdu;
	}
	die "bench: $in: a record cut short at offset $off\n" if $off != length($buf);
	push @rec, $off;
	my $span = $t1 - $t0 + 1000000;
	open(my $oh, ">:raw", $out) or die "bench: $out: $!\n";
	my $n = 0;
	COPY: for my $k (0 .. $copies - 1) {
		my $copy = $buf;
		for my $i (0 .. $#rec - 1) {
			last COPY if $max && $n >= $max;
			my $o = $rec[$i];
			if ($k) {
				my ($seq, $t) = unpack("LQ", substr($copy, $o + 4, 12));
				substr($copy, $o + 4, 12) = pack("LQ",
					($seq + $k * $#rec) % 4294967296, $t + $k * $span);
			}
			$n++;
			if ($max && $n >= $max) {
				print $oh substr($copy, 0, $rec[$i + 1]);
				last COPY;
			}
		}
		print $oh $copy;
	}
	close($oh) or die "bench: $out: $!\n";
	' "$@"
}

# sized NAME COPIES MAX: makes $BENCH_DIR/NAME.bin and its btt input NAME.btt
# from $TRACE unless cached; prints its events (blkparse's count)
sized() {
	local bin=$BENCH_DIR/$1.bin btt=$BENCH_DIR/$1.btt
	if ! [ -s "$bin" ] || ! [ -s "$btt" ] || ! [ -s "$bin.events" ]; then
		say "making $bin ($2 copies, at most $3 events)..."
		at_exit "rm -f '$bin.tmp' '$btt.tmp'"
		trace_copies "$TRACE" "$bin.tmp" "$2" "$3" || die "cannot make $bin"
		blkparse -q -i - -d "$btt.tmp" -O < "$bin.tmp" > /dev/null ||
			die "blkparse -d failed on $bin"
		blkparse_events "$bin.tmp" | wc -l > "$bin.events.tmp"
		mv "$btt.tmp" "$btt" && mv "$bin.tmp" "$bin" && mv "$bin.events.tmp" "$bin.events"
	fi
	cat "$bin.events"
}

# store_floor SRC DST: SQLite alone writing the events and requests rows of
# SRC's runs into a fresh DST with the same tables, index and settings as
# iotape's writer (store_sqlite.c: 16 KiB pages, 32 MiB of cache, synchronous
# NORMAL); run + 0 keeps SQLite from copying the records whole (its transfer
# shortcut), so each row is made as an INSERT makes it: the floor under
# import's writes (its reading of SRC included)
store_floor() {
	local src=$1 dst=$2 cols
	rm -f "$dst" "$dst-journal"
	cols=$(sqlite3 "$src" "SELECT group_concat(name, ', ') FROM pragma_table_info('requests')")
	sqlite3 "$dst" "PRAGMA page_size = 16384; PRAGMA cache_size = -32768;
	PRAGMA synchronous = NORMAL;
	PRAGMA temp_store = MEMORY;
	$(sqlite3 "$src" ".schema events" ".schema requests")
	ATTACH '$src' AS s; BEGIN;
	INSERT INTO main.events SELECT id, run + 0, time_ns, sequence, sector,
		bytes, action, pid, dev, cpu, error, pdu FROM s.events;
	INSERT INTO main.requests ($cols) SELECT id, run + 0, ${cols#id, run, }
		FROM s.requests;
	COMMIT;"
}

bench_sizes() {
	local ev1 ev5 ev50=0 db=$BENCH_DIR/sizes.db n
	at_exit "rm -f '$db' '$db-journal'"
	ev1=$(sized size1m 1 1000000)
	ev5=$(sized size5m $(((5000000 + EVENTS - 1) / EVENTS)) 5000000)
	[ "${BENCH_50M:-1}" != 0 ] && ev50=$(sized size50m 18 0)
	# import at 1M and 5M, taking turns with blkparse
	for n in 1m 5m; do
		say "timing blkparse and iotape import on size$n, taking turns..."
		for ((rep = 0; rep < REPS; rep++)); do
			KEEP=$rep REPS=1 STDIN=$BENCH_DIR/size$n.bin \
				timeit bp$n blkparse -i - -o /dev/null
			KEEP=$rep REPS=1 PRE="rm -f '$db' '$db-journal'" \
				timeit im$n "$IOTAPE" import --quiet --db "$db" --run s "$BENCH_DIR/size$n.bin"
		done
	done
	# the store's floor under import, on the 5M run the last import left
	say "timing SQLite alone writing the 5M run's rows..."
	command -v sqlite3 > /dev/null || die "needs sqlite3 (make deps)"
	at_exit "rm -f '$db.floor' '$db.floor-journal'"
	timeit floor5m bash -c "$(declare -f store_floor); store_floor '$db' '$db.floor'"
	rm -f "$db.floor"
	# report at 5M (the database the last import left) and 50M
	# taking turns, as import and blkparse do: report runs on two threads
	# and btt on one, so a stretch when the machine gives less than two
	# CPUs falls on report the more; the CPU times are kept beside
	say "timing btt and iotape report on size5m, taking turns..."
	for ((rep = 0; rep < REPS; rep++)); do
		KEEP=$rep REPS=1 timeit btt5m btt -i "$BENCH_DIR/size5m.btt"
		KEEP=$rep REPS=1 timeit rp5m "$IOTAPE" report --db "$db" s
	done
	# the store's floor under report: SQLite alone reading the columns of
	# the run's requests that report reads (analyze/rundata.h RD_COLS), by
	# id as report's readers do, each summed in SQLite's own VM so that no
	# row leaves it (one thread; report reads with two)
	say "timing SQLite alone reading the 5M run's requests..."
	timeit rfloor5m sqlite3 "$db" "SELECT count(*), sum(id), sum(dev),
		sum(sector), sum(bytes), sum(cats), sum(pid), sum(q_ns), sum(g_ns),
		sum(m_ns), sum(i_ns), sum(d_ns), sum(c_ns), sum(d_sector),
		sum(d_bytes), sum(merged_into), sum(d_head), sum(seek_sectors),
		sum(split_from), sum(split) FROM requests WHERE +run =
		(SELECT id FROM runs WHERE name = 's')"
	# compare of two such runs: one run's rows in memory at a time
	say "timing iotape compare of two 5M runs..."
	"$IOTAPE" import --quiet --db "$db" --again --run s2 "$BENCH_DIR/size5m.bin" ||
		die "cannot import size5m a second time"
	timeit cp5m "$IOTAPE" compare --db "$db" s s2
	if [ "$ev50" != 0 ]; then
		say "importing size50m ($ev50 events) once, timing btt and report on it..."
		rm -f "$db"
		REPS=1 timeit im50m "$IOTAPE" import --quiet --db "$db" --run s "$BENCH_DIR/size50m.bin"
		REPS=1 timeit btt50m btt -i "$BENCH_DIR/size50m.btt"
		REPS=1 timeit rp50m "$IOTAPE" report --db "$db" s
	fi
	rm -f "$db"
	awk -v ev1="$ev1" -v ev5="$ev5" -v ev50="$ev50" \
		-v bp1="$(median bp1m 1)" -v im1="$(median im1m 1)" \
		-v bp5="$(median bp5m 1)" -v im5="$(median im5m 1)" -v fl5="$(median floor5m 1)" \
		-v bt5="$(median btt5m 1)" -v bt5m="$(median btt5m 2)" \
		-v rp5="$(median rp5m 1)" -v rp5m="$(median rp5m 2)" \
		-v bt5c="$(median btt5m 3)" -v rp5c="$(median rp5m 3)" \
		-v rf5="$(median rfloor5m 1)" \
		-v cp5="$(median cp5m 1)" -v cp5m="$(median cp5m 2)" \
		-v im50="$( [ "$ev50" != 0 ] && median im50m 1)" \
		-v bt50="$( [ "$ev50" != 0 ] && median btt50m 1)" \
		-v bt50m="$( [ "$ev50" != 0 ] && median btt50m 2)" \
		-v rp50="$( [ "$ev50" != 0 ] && median rp50m 1)" \
		-v rp50m="$( [ "$ev50" != 0 ] && median rp50m 2)" -v rows="$BENCH_ROWS" '
	function m(k) { return k / 1024 }
	function ev_s(n) { return sprintf("%.1fM", n / 1e6) }
	function line(task, n, t, rss) {
		printf "%-34s %10d %8.2f %9.2f %10.1f\n", task, n, t, n / t / 1e6, m(rss) }
	BEGIN {
		printf "\nhow import and report scale (copies of the trace, the clock running on):\n"
		printf "%-34s %10s %8s %9s %10s\n", "task", "events", "wall s", "Mev/s", "peak MiB"
		printf "%-34s %10d %8.2f %9.2f\n", "blkparse -i - -o /dev/null", ev1, bp1, ev1 / bp1 / 1e6
		printf "%-34s %10d %8.2f %9.2f\n", "iotape import (fresh db)", ev1, im1, ev1 / im1 / 1e6
		printf "%-34s %10d %8.2f %9.2f\n", "blkparse -i - -o /dev/null", ev5, bp5, ev5 / bp5 / 1e6
		printf "%-34s %10d %8.2f %9.2f\n", "iotape import (fresh db)", ev5, im5, ev5 / im5 / 1e6
		printf "%-34s %10d %8.2f %9.2f\n", "SQLite alone, the same rows", ev5, fl5, ev5 / fl5 / 1e6
		line("btt -i DUMP", ev5, bt5, bt5m)
		line("iotape report", ev5, rp5, rp5m)
		printf "%-34s %10d %8.2f %9.2f\n", "SQLite alone, reading its requests", ev5, rf5, ev5 / rf5 / 1e6
		line("iotape compare of two runs", 2 * ev5, cp5, cp5m)
		if (ev50) {
			printf "%-34s %10d %8.2f %9.2f\n", "iotape import (fresh db)", ev50, im50, ev50 / im50 / 1e6
			line("btt -i DUMP", ev50, bt50, bt50m)
			line("iotape report", ev50, rp50, rp50m)
		}
		OFS = "\t"
		print "import " ev_s(ev1) " / " ev_s(ev5),
			sprintf("blkparse %.2f / %.2f Mev/s", ev1 / bp1 / 1e6, ev5 / bp5 / 1e6),
			sprintf("%.2f / %.2f Mev/s", ev1 / im1 / 1e6, ev5 / im5 / 1e6),
			sprintf("rate %.2fx / %.2fx", bp1 / im1, bp5 / im5),
			"rate >= 8x blkparse at both (issue 32)" >> rows
		print "import floor " ev_s(ev5), sprintf("SQLite alone writing its rows %.2f s", fl5),
			sprintf("import %.2f s", im5), sprintf("%.2fx the floor; floor %.2fx blkparse",
			im5 / fl5, bp5 / fl5), "what 8x would need of the store" >> rows
		print "report floor " ev_s(ev5), sprintf("SQLite alone reading its requests %.2f s; btt %.2f s", rf5, bt5),
			sprintf("report %.2f s", rp5), sprintf("floor %.2fx btt; report %.2fx the floor",
			rf5 / bt5, rp5 / rf5), "what 0.2x btt would need of the store" >> rows
		print "compare 2 runs of " ev_s(ev5), sprintf("report of one %.0f MiB, %.2f s",
			m(rp5m), rp5), sprintf("%.0f MiB, %.2f s", m(cp5m), cp5),
			sprintf("RSS %.2fx one report", cp5m / rp5m),
			"the rows of one run at a time: RSS <= 1.1x one report" >> rows
		if (ev50)
			print "report RSS " ev_s(ev5) " / " ev_s(ev50),
				sprintf("btt %.0f / %.0f MiB, %.2f / %.2f s", m(bt5m), m(bt50m), bt5, bt50),
				sprintf("%.0f / %.0f MiB, %.2f / %.2f s", m(rp5m), m(rp50m), rp5, rp50),
				sprintf("RSS %.2fx of 5M; time %.2fx / %.2fx btt (CPU %.2fx at 5M)",
					rp50m / rp5m, rp5 / bt5, rp50 / bt50, rp5c / bt5c),
				"RSS at 50M within 1.1x of 5M; time <= 0.2x btt (issue 32)" >> rows
		else
			print "report RSS " ev_s(ev5), sprintf("btt %.0f MiB, %.2f s", m(bt5m), bt5),
				sprintf("%.0f MiB, %.2f s", m(rp5m), rp5),
				sprintf("time %.2fx btt, CPU %.2fx (50M: BENCH_50M=0)",
					rp5 / bt5, rp5c / bt5c),
				"RSS flat 5M to 50M; time <= 0.2x btt (issue 32)" >> rows
	}'
}
