# t_help.sh: each subcommand's --help and docs/iotape.md list the same long
# options, and every subcommand in `iotape --help` has a section in the doc; the
# man page iotape(1) built from the doc (make man) has every subcommand and option
# too, and groff renders it without a warning.
. "$(dirname "$0")/../lib.sh"

need_iotape "help and docs agree"
doc=$REPO_ROOT/docs/iotape.md

# the man page as a reader sees it (continuous, 80 columns; roff minus signs and
# hyphens as '-'), or empty when it was not built
man_page=$REPO_ROOT/${BUILD:-build}/iotape.1
man_txt=
if [ ! -s "$man_page" ] && ! command -v pandoc > /dev/null; then
	skip "man page $man_page" "no pandoc to build it (make deps-man installs it; make test then builds the page)"
elif [ ! -s "$man_page" ]; then
	not_ok "man page $man_page is built" "make man (make test builds it)"
elif ! command -v groff > /dev/null; then
	skip "man page renders" "no groff"
else
	man_txt=$(groff -man -Tutf8 -rcR=1 -rLL=80n -P-cbou "$man_page" 2> /dev/null |
		sed 's/\xe2\x88\x92/-/g; s/\xe2\x80\x90/-/g')
	warn=$(groff -ww -man -Tutf8 -z "$man_page" 2>&1)
	check_eq "man page: groff -ww renders it without a warning" "" "$warn"
	if command -v man > /dev/null; then
		warn=$(MANWIDTH=80 man --warnings -l "$man_page" 2>&1 > /dev/null)
		check_eq "man page: man --warnings -l renders it without a warning" "" "$warn"
		# columns, not bytes: a table's rules are UTF-8 box drawing
		w=$(MANWIDTH=80 man -l "$man_page" 2> /dev/null | LC_ALL=C.UTF-8 wc -L)
		[ "$w" -le 80 ] && ok "man page fits 80 columns" || not_ok "man page fits 80 columns" "$w"
	fi
	if command -v lexgrog > /dev/null; then
		name=$(lexgrog "$man_page")
		[[ $name == "$man_page: \"iotape - "?*\" ]] && ok "man page: NAME line for whatis" ||
			not_ok "man page: NAME line for whatis" "lexgrog: $name"
	fi
fi
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
	if [ -n "$man_txt" ]; then
		# a section is a heading at column 0 and the indented lines under it
		man_sec=$(printf '%s\n' "$man_txt" |
			awk -v c="$c" '$0 == "iotape " c { on = 1; next } /^[^ ]/ { on = 0 } on')
		man_opts=$(printf '%s\n' "$man_sec" | grep -oE -- '--[a-z][a-z-]+' | sort -u)
		if [ -z "$man_sec" ]; then
			not_ok "$c: section in the man page iotape(1)"
		else
			check_eq "$c: the man page has every option of --help" "" \
				"$(comm -23 <(printf '%s\n' "$help_opts") <(printf '%s\n' "$man_opts"))"
		fi
	fi
	"$IOTAPE" "$c" --help > /dev/null; check_eq "$c --help exits 0" 0 $?
	w=$("$IOTAPE" "$c" --help | awk '{ if (length > m) m = length } END { print m + 0 }')
	[ "$w" -le 80 ] && ok "$c --help fits 80 columns" || not_ok "$c --help fits 80 columns" "$w"
done
tap_finish
