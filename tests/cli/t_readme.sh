# t_readme.sh: every command of README.md and of the man page's EXAMPLES
# (docs/iotape.md) runs as written. Each ```sh block runs, in the order of its
# document, as one bash script (set -e: every command must succeed) in a folder
# that looks like the top of the tree: ./iotape, tests/ beside it and
# ../shared/corpus beside that, `iotape` on PATH, no IOTAPE_DB (so iotape.db).
# A block that needs root and tracefs (losetup, capture) or the corpus
# (../shared/corpus) is skipped, saying so, where they are not. Not here:
# README's first block (make demo, make test: .ci/run runs make test, and
# t_cli_small.sh runs capture/demo.sh, what make demo runs once built), and
# the fleet section's, which starts the system's PostgreSQL cluster
# (pg_ctlcluster); t_pg_store.sh runs its iotape commands on a private server.
. "$(dirname "$0")/../lib.sh"

need_iotape "README and EXAMPLES commands"
t=$TEST_TMP
unset IOTAPE_DB
mkdir -p "$t/bin"
ln -s "$IOTAPE" "$t/bin/iotape"
export PATH=$t/bin:$PATH

# blocks FILE [SECTION]: each ```sh block of FILE (of its "## SECTION" only,
# when given) as "@@ HEADING[, SUBHEADING]" then its lines, then "@@ end"
blocks() {
	awk -v only="${2:-}" '
		/^## / { sec = substr($0, 4); sub3 = "" }
		/^### / { sub3 = ", " substr($0, 5) }
		/^```sh$/ { if (only == "" || sec == only) { on = 1; print "@@ " sec sub3 }; next }
		/^```/ && on { on = 0; print "@@ end"; next }
		on { print }' "$1"
}

# sandbox DIR: DIR/top as the top of a tree: ./iotape, tests/, ../shared/corpus
sandbox() {
	mkdir -p "$1/top" "$1/shared"
	ln -s "$IOTAPE" "$1/top/iotape"
	ln -s "$REPO_ROOT/tests" "$1/top/tests"
	if CORPUS=$(corpus_dir); then ln -s "$CORPUS" "$1/shared/corpus"; fi
	# what a block leaves mounted or attached under DIR, also on failure
	at_exit "unbox '$1'"
}

# unbox DIR: unmount what is mounted under DIR, detach the loop devices of
# its images
unbox() {
	local m f
	for m in $(findmnt -rn -o TARGET | grep "^$1/" | sort -r); do umount "$m" 2> /dev/null; done
	for f in "$1"/top/*.img; do [ -e "$f" ] && loop_detach_file "$f"; done
	return 0
}

# run_blocks LABEL DIR FILE [SECTION]: run FILE's blocks in DIR/top, one ok,
# not ok or skip line each
run_blocks() {
	local label=$1 dir=$2 file=$3 sec=$4 line head= body= n=0 why
	while IFS= read -r line; do
		case $line in
		"@@ end")
			n=$((n + 1))
			why=$(needs "$head" "$body")
			if [ -n "$why" ]; then
				skip "$label, $head: block $n" "$why"
			else
				run_block "$label, $head: block $n" "$dir/top" "$body"
			fi
			body= ;;
		"@@ "*) head=${line#@@ } ;;
		*) body+=$line$'\n' ;;
		esac
	done < <(blocks "$file" "$sec")
	[ $n -gt 0 ] || not_ok "$label: has sh blocks"
}

# needs HEADING BODY: why the block cannot run here, or nothing
needs() {
	case $1 in
	"A fleet's runs in one place"*)
		echo "it starts the system's database cluster (pg_ctlcluster); t_pg_store.sh runs its iotape commands on a private server"
		return ;;
	esac
	if [[ $2 == *losetup* || $2 == *" capture "* ]] && ! tracefs_check; then
		echo "$TRACEFS_WHY"; return
	fi
	if [[ $2 == *../shared/corpus* ]] && ! corpus_dir > /dev/null; then
		echo "corpus absent"; return
	fi
	if [[ $2 == *mkfs.ext4* ]] && ! command -v mkfs.ext4 > /dev/null; then
		echo "no mkfs.ext4"
	fi
}

# run_block DESC DIR BODY: BODY as a bash script in DIR; ok when it exits 0.
# Replays of no --set (a modelled disk) run under the capture lock: on a
# machine where another job captures, a replay refuses while that capture's
# state file is there (a replay with --set takes the lock itself)
run_block() {
	local desc=$1 dir=$2 body=$3 rc lock=()
	printf '%s' "$body" > "$t/block.sh"
	if [[ $body == *" replay "* && $body != *--set* && $body != *" capture "* ]]; then
		lock=(locked)
	fi
	(cd "$dir" && "${lock[@]}" bash -e -o pipefail "$t/block.sh") > "$t/out" 2> "$t/err"
	rc=$?
	if [ $rc = 0 ]; then ok "$desc runs as written"
	else not_ok "$desc runs as written" "exit $rc" "$(tail -n 8 "$t/err")" \
		"block: $(head -n 3 "$t/block.sh")"; fi
}

# ---- README.md: one tree, every block in order -----------------------------------
sandbox "$t/readme"
run_blocks README "$t/readme" "$REPO_ROOT/README.md"
# what the quick start says it leaves
check_eq "README quick start: runs before and after, pictures and the mail" \
	"after before 1 1" "$(cd "$t/readme/top" && { ./iotape runs --names |
		grep -xE 'before|after' | sort | paste -sd' '; ls before-vs-after.tput.png | wc -l
		ls mail/*.mail.txt | wc -l; } | paste -sd' ')"

# ---- the man page's EXAMPLES: before.bin and after.bin in the folder ----------------
sandbox "$t/man"
for r in before after; do
	gzip -dc "$FIXTURES/quick/$r.bin.gz" > "$t/man/top/$r.bin"
done
run_blocks "iotape(1) EXAMPLES" "$t/man" "$REPO_ROOT/docs/iotape.md" EXAMPLES
tap_finish
