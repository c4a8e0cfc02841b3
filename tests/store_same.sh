# tests/store_same.sh BEFORE [AFTER]: a change to the store (schema/) keeps what
# the commands print. Imports the corpus traces (../shared/corpus or
# $IOTAPE_CORPUS) into an SQLite file and into a private PostgreSQL server
# (tests/lib.sh pg_start) with the iotape binary BEFORE and again with AFTER
# ($IOTAPE, ./iotape by default), and checks that `dump`, `report --json` and
# `compare --json` of every run (and of pairs of runs) give the same bytes from
# both binaries, on each store; AFTER also reads the stores BEFORE wrote (an
# older binary's file, or server after `fleet --migrate` where AFTER has it, is
# read as it was). Not part of `make test`
# (it needs the binary of the commit before): run it by hand, e.g.
#   git stash; make; cp iotape /tmp/before; git stash pop; make
#   bash tests/store_same.sh /tmp/before
# TAP lines; exit 1 when anything differs. The PostgreSQL half is skipped
# without the server binaries.
. "$(dirname "$0")/lib.sh"

BEFORE=${1:-}
AFTER=${2:-$IOTAPE}
[ -x "$BEFORE" ] || { echo "usage: bash tests/store_same.sh BEFORE-IOTAPE [AFTER-IOTAPE]" >&2; exit 2; }
[ -x "$AFTER" ] || { echo "store_same: no iotape at $AFTER" >&2; exit 2; }
need_corpus "the store keeps what commands print"
t=$TEST_TMP
C=$CORPUS

# the corpus inputs as NAME=PATH (per-CPU sets by their base name)
inputs=(
	"liuzel01=$C/liuzel01-centos7-sda/sda"
	"asif=$C/asifazamali-sda1/sda1"
	"romeus0=$C/romeus-loop-blkparse-d/trace_x_0_y_0.bin"
	"romeus1=$C/romeus-loop-blkparse-d/trace_x_1_y_1.bin"
	"hadoop29=$C/zzunny97-hadoop-40cpu-partial/sdb.blktrace.29"
	"apress=$C/apress-mbpa-blkparse/blktrace.txt"
	"nvme=$C/oxdeadmeat-nvme-dmcrypt/nvme0n1.blktrace.txt"
	"fio=$C/fio-t0038-iolog/t0038.iolog"
	"one=$C/seed-debsums-patch/one-disk/trace.bin"
	"two=$C/seed-debsums-patch/two-disks/trace.bin"
)
# vmstat logs joined to the seed runs, as a bug report brings them
joins=(
	"one=$C/seed-debsums-patch/one-disk/vmstat.log"
	"two=$C/seed-debsums-patch/two-disks/vmstat.log"
)
pairs=("one two" "two one" "liuzel01 asif" "romeus0 romeus1" "apress nvme")

# fill BIN DB: the inputs into store DB with binary BIN
fill() {
	local bin=$1 db=$2 kv
	for kv in "${inputs[@]}"; do
		[ -e "${kv#*=}" ] || [ -e "${kv#*=}.blktrace.0" ] || continue
		"$bin" import --quiet --db "$db" --run "${kv%%=*}" "${kv#*=}" 2>> "$t/import.err" ||
			echo "import ${kv%%=*} failed" >> "$t/import.err"
	done
	for kv in "${joins[@]}"; do
		[ -e "${kv#*=}" ] || continue
		"$bin" import --quiet --db "$db" --run "${kv%%=*}" "${kv#*=}" 2>> "$t/import.err" ||
			echo "join ${kv%%=*} failed" >> "$t/import.err"
	done
}

# outputs BIN DB DIR: every run's dump and report --json, and the pairs'
# compare --json, into DIR (stdout and stderr and the exit status of each)
outputs() {
	local bin=$1 db=$2 dir=$3 kv n p
	mkdir -p "$dir"
	for kv in "${inputs[@]}"; do
		n=${kv%%=*}
		"$bin" dump --db "$db" "$n" > "$dir/dump.$n" 2>&1; echo "exit $?" >> "$dir/dump.$n"
		"$bin" report --json --db "$db" "$n" > "$dir/report.$n" 2>&1
		echo "exit $?" >> "$dir/report.$n"
	done
	for p in "${pairs[@]}"; do
		# shellcheck disable=SC2086
		"$bin" compare --json --db "$db" $p > "$dir/compare.${p// /-}" 2>&1
		echo "exit $?" >> "$dir/compare.${p// /-}"
	done
}

# same LABEL DIR-A DIR-B: every file of A is byte for byte the one of B
same() {
	local label=$1 a=$2 b=$3 f bad=() n=0 bytes=0
	for f in "$a"/*; do
		n=$((n + 1))
		bytes=$((bytes + $(wc -c < "$f")))
		cmp -s "$f" "$b/${f##*/}" || bad+=("${f##*/}")
	done
	if [ ${#bad[@]} = 0 ] && [ $n -gt 0 ]; then
		ok "$label: $n outputs, $bytes bytes, the same"
	else
		not_ok "$label: ${#bad[@]} of $n outputs differ" "${bad[@]}" \
			"$(diff "$a/${bad[0]:-x}" "$b/${bad[0]:-x}" 2>&1 | head -n 6 | cut -c1-160)"
	fi
}

stores=(sqlite)
if [ -x "$PG_BIN/initdb" ] && pg_start; then
	stores+=(pg)
	pg_psql "CREATE DATABASE before_db; CREATE DATABASE after_db" > /dev/null 2>&1 ||
		{ pg_psql "CREATE DATABASE before_db" && pg_psql "CREATE DATABASE after_db"; } > /dev/null
else
	skip "PostgreSQL: the same outputs before and after" "no PostgreSQL server binaries"
fi
for s in "${stores[@]}"; do
	case $s in
	sqlite) dbb=$t/before.db dba=$t/after.db ;;
	pg) dbb="postgresql:///before_db?host=$PG_DIR&user=postgres"
	    dba="postgresql:///after_db?host=$PG_DIR&user=postgres" ;;
	esac
	: > "$t/import.err"
	fill "$BEFORE" "$dbb"
	fill "$AFTER" "$dba"
	grep -q failed "$t/import.err" && not_ok "$s: imports" "$(grep failed "$t/import.err")"
	outputs "$BEFORE" "$dbb" "$t/$s.before"
	outputs "$AFTER" "$dba" "$t/$s.after"
	# a server's store is migrated by its owner (fleet --migrate, schema 8);
	# a file by whoever opens it
	"$AFTER" fleet --migrate --db "$dbb" > /dev/null 2>&1
	outputs "$AFTER" "$dbb" "$t/$s.after-reads-before"
	same "$s: dump, report --json, compare --json before and after" "$t/$s.before" "$t/$s.after"
	same "$s: the new binary reading the old one's store" "$t/$s.before" "$t/$s.after-reads-before"
done
[ ${#stores[@]} = 2 ] && same "SQLite and PostgreSQL give the same bytes (after)" "$t/sqlite.after" "$t/pg.after"
tap_finish
