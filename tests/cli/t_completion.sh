# t_completion.sh: the bash and zsh completions (completion/) complete iotape's
# subcommands and each one's long options. They read the binary's --help as they
# complete; what they offer is checked against docs/iotape.md, a separate source.
. "$(dirname "$0")/../lib.sh"

need_iotape "shell completion"
doc=$REPO_ROOT/docs/iotape.md
bash_comp=$REPO_ROOT/completion/iotape.bash
zsh_comp=$REPO_ROOT/completion/_iotape

# typed as "iotape", found on PATH, as an installed one would be
mkdir -p "$TEST_TMP/bin"
ln -s "$IOTAPE" "$TEST_TMP/bin/iotape"
export PATH=$TEST_TMP/bin:$PATH

# doc_cmds: the subcommands docs/iotape.md has a section for, one a line
doc_cmds() { sed -n 's/^## iotape \([a-z][a-z-]*\)$/\1/p' "$doc" | sort; }

# doc_opts CMD: the long options of CMD's section in docs/iotape.md, and --help
doc_opts() {
	{ awk -v c="$1" '$0 == "## iotape " c { on = 1; next } /^## / { on = 0 } on' "$doc" |
		grep -oE -- '--[a-z][a-z-]+'; echo --help; } | sort -u
}

# bash_complete WORD...: COMPREPLY, sorted, one a line, when TAB is pressed at the
# end of the last WORD (the first is the command), in a bash that sourced the file
bash_complete() {
	bash --norc --noprofile -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_iotape
		printf "%s\n" "${COMPREPLY[@]}"' bash "$bash_comp" "$@" | sed '/^$/d' | sort
}

# ---- bash ---------------------------------------------------------------------
check_eq "bash: the completion is registered for iotape" \
	"complete -o default -F _iotape iotape" \
	"$(bash --norc --noprofile -c '. "$1" && complete -p iotape' bash "$bash_comp")"

cmds=$(doc_cmds)
[ -n "$cmds" ] || not_ok "docs/iotape.md has command sections"
check_eq "bash: iotape <TAB> offers every command" "$cmds" "$(bash_complete iotape '')"
want=$(printf '%s\n' "$cmds" | grep '^rep')
[ -n "$want" ] || not_ok "docs/iotape.md has commands starting 'rep'"
check_eq "bash: iotape rep<TAB>" "$want" "$(bash_complete iotape rep)"
check_eq "bash: iotape report --<TAB>" "$(doc_opts report)" "$(bash_complete iotape report --)"
for c in $cmds; do
	[ "$c" = report ] && continue
	check_eq "bash: iotape $c --<TAB>" "$(doc_opts "$c")" "$(bash_complete iotape "$c" --)"
done
check_eq "bash: iotape report --j<TAB>" "--json" "$(bash_complete iotape report --j)"
check_eq "bash: iotape help rep<TAB>" "$want" "$(bash_complete iotape help rep)"
check_eq "bash: iotape plot --format <TAB> offers its values" "$(printf 'png\nsvg\ntxt')" \
	"$(bash_complete iotape plot --format '')"
check_eq "bash: iotape plot --format=s<TAB>" "svg" "$(bash_complete iotape plot --format = s)"
check_eq "bash: iotape -<TAB>" "$(printf -- '--help\n--version')" "$(bash_complete iotape -)"
check_eq "bash: no options for a command that is not one" "" "$(bash_complete iotape nosuch --)"

# ---- zsh ----------------------------------------------------------------------
if ! command -v zsh > /dev/null; then
	skip "zsh: completion file parses (zsh -n)" "no zsh"
	skip "zsh: completes in an interactive zsh" "no zsh"
	tap_finish
fi
check "zsh: completion file parses (zsh -n)" zsh -n "$zsh_comp"

# zsh_complete LINE: what an interactive zsh (compinit, the completion on its
# fpath) shows after LINE and a TAB, control characters and escapes removed;
# waits until the screen holds PATTERN (an extended regex), at most 15 s
zsh_complete() {
	zsh -f -c '
		zmodload zsh/zpty || exit 1
		zpty z "PS1=\"%% \" TERM=dumb zsh -f -i"
		zpty -w z "bindkey -e; unset zle_bracketed_paste; fpath=($1 \$fpath);" \
			"autoload -Uz compinit; compinit -u -D; print READY"
		zpty -r z out "*READY*"
		zpty -r z out "*%*"
		zpty -w -n z "$2"$'"'\t'"'
		screen= start=$SECONDS
		while (( SECONDS - start < 15 )); do
			if zpty -r -t z out; then screen+=$out
			else [[ $screen =~ $3 ]] && break; sleep 0.05; fi
		done
		zpty -d z
		print -r -- $screen' zsh "$(dirname "$zsh_comp")" "$1" "$2" |
		sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' | tr -d '\r\a'
}

# the list is printed under the line, then the line again
out=$(zsh_complete "iotape rep" ' -- .*% iotape rep$')
got_z=$(printf '%s\n' "$out" | grep -oE '^[a-z][a-z-]* +-- ' | sed 's/ *-- $//' | sort)
check_eq "zsh: iotape rep<TAB> lists the commands, described" "$want" "$got_z"
out=$(zsh_complete "iotape report --" '--json.*% iotape report --$')
got_z=$(printf '%s\n' "$out" | sed -n '2,$p' | grep -v '^%' | tr -s ' ' '\n' | grep -- '^--' | sort -u)
check_eq "zsh: iotape report --<TAB>" "$(doc_opts report)" "$got_z"
out=$(zsh_complete "iotape plot --format=s" 'format=svg')
[[ $out == *"iotape plot --format=svg"* ]] && ok "zsh: iotape plot --format=s<TAB> gives svg" ||
	not_ok "zsh: iotape plot --format=s<TAB> gives svg" "screen: $out"
tap_finish
