# t_help.sh: each subcommand's --help and docs/iotape.md list the same long
# options, and every subcommand in `iotape --help` has a section in the doc.
. "$(dirname "$0")/../lib.sh"

need_iotape "help and docs agree"
doc=$REPO_ROOT/docs/iotape.md
cmds=$("$IOTAPE" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
[ -n "$cmds" ] || not_ok "iotape --help lists commands"
for c in $cmds; do
	section=$(awk -v c="$c" '$0 == "## iotape " c { on = 1; next } /^## / { on = 0 } on' "$doc")
	if [ -z "$section" ]; then
		not_ok "$c: section in docs/iotape.md"; continue
	fi
	help_opts=$("$IOTAPE" "$c" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u)
	doc_opts=$(printf '%s\n' "$section" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
	# every command has --help, documented once for all at the top
	help_opts=$(printf '%s\n' "$help_opts" | grep -vx -- --help)
	doc_opts=$(printf '%s\n' "$doc_opts" | grep -vx -- --help)
	check_eq "$c: --help and docs/iotape.md list the same options" "$doc_opts" "$help_opts"
	"$IOTAPE" "$c" --help > /dev/null; check_eq "$c --help exits 0" 0 $?
	w=$("$IOTAPE" "$c" --help | awk '{ if (length > m) m = length } END { print m + 0 }')
	[ "$w" -le 80 ] && ok "$c --help fits 80 columns" || not_ok "$c --help fits 80 columns" "$w"
done
tap_finish
