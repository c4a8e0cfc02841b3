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
# end of the last WORD (the first is the command; bash's words: "--db=F" is
# "--db" "=" "F"), in a bash that sourced the file: the function `complete -p
# iotape` names runs as readline would run it
bash_complete() {
	bash --norc --noprofile -c '
		. "$1" || exit 1
		shift
		fn=$(complete -p iotape | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		[ -n "$fn" ] || exit 1
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"$fn" iotape "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
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

# ---- bash: runs, values, profiles, devices -----------------------------------------
# two stores: the default ($IOTAPE_DB) and one named by --db on the line
cd "$TEST_TMP" || exit 1
export IOTAPE_DB=$TEST_TMP/default.db
"$IOTAPE" import --quiet --run before "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" import --quiet --again --run after "$FIXTURES/loop-fio-small.bin"
"$IOTAPE" import --quiet --db other.db --run 'other run' "$FIXTURES/loop-fio-small.bin"
both=$(printf 'after\nbefore')
check_eq "bash: iotape report <TAB>: the runs of \$IOTAPE_DB" "$both" "$(bash_complete iotape report '')"
check_eq "bash: iotape report b<TAB>" "before" "$(bash_complete iotape report b)"
check_eq "bash: iotape report --db other.db <TAB>: that store's runs (a name with a space)" \
	'other\ run' "$(bash_complete iotape report --db other.db '')"
check_eq "bash: iotape dump --db=other.db <TAB>" 'other\ run' \
	"$(bash_complete iotape dump --db = other.db '')"
check_eq "bash: iotape report before <TAB>: one RUN, given" "" "$(bash_complete iotape report before '')"
check_eq "bash: iotape compare before <TAB>: RUN RUN [RUN...]" "$both" \
	"$(bash_complete iotape compare --json before '')"
check_eq "bash: iotape mail -o DIR before a<TAB>" "after" "$(bash_complete iotape mail -o mail before a)"
check_eq "bash: iotape mv <TAB>: OLD is a run" "$both" "$(bash_complete iotape mv '')"
check_eq "bash: iotape mv before <TAB>: NEW is not" "" "$(bash_complete iotape mv before '')"
check_eq "bash: iotape label before <TAB>: KEY=VALUE, not a run" "" "$(bash_complete iotape label before '')"
check_eq "bash: iotape pull --from other.db <TAB>: the runs there" 'other\ run' \
	"$(bash_complete iotape pull --from other.db '')"
check_eq "bash: iotape import --run b<TAB>: a run to join" "before" "$(bash_complete iotape import --run b)"
check_eq "bash: iotape model fit <TAB>" "$both" "$(bash_complete iotape model fit '')"
check_eq "bash: iotape model <TAB>" "$(printf 'fit\nlist')" "$(bash_complete iotape model '')"

# values the usage lists; each checked against docs/iotape.md's own words
doc_has() { grep -qF -- "$1" "$doc"; }
for c in "runs --kind:capture import replay" "export --format:blkparse blktrace csv fio" \
	"replay --timing:afap original" "replay --level:dispatch queue" \
	"replay --engine:io_uring model null sync" "replay --streams:pid single" \
	"vmstat --source:log proc" "iostat --source:log trace" "plot --format:png svg txt"; do
	cmdopt=${c%%:*} vals=${c#*:}
	for v in $vals; do doc_has "$v" || not_ok "docs/iotape.md names $cmdopt's value $v"; done
	check_eq "bash: iotape $cmdopt <TAB>" "$(tr ' ' '\n' <<< "$vals" | sort)" \
		"$(bash_complete iotape ${cmdopt% *} "${cmdopt#* }" '')"
done
check_eq "bash: iotape plot --kind seek,t<TAB>: a kind after the comma" "seek,tput" \
	"$(bash_complete iotape plot --kind seek,t)"
profiles=$("$IOTAPE" model list | awk 'NR > 2 && !NF { exit } NR > 2 { print $1; print $2 }' | sort)
[ "$(wc -l <<< "$profiles")" -ge 4 ] || not_ok "iotape model list lists profiles" "$profiles"
check_eq "bash: iotape report --model <TAB>: the model profiles and aliases" "$profiles" \
	"$(bash_complete iotape report --model '')"
check_eq "bash: iotape replay before --target model:<TAB>" "$(sed 's/^/model:/' <<< "$profiles")" \
	"$(bash_complete iotape replay before --target model:)"
check_eq "bash: iotape report --dev <TAB>: the runs' devices" "7,0" \
	"$(bash_complete iotape report --dev '')"
loops=$(ls /sys/class/block | grep '^loop' | sed 's|^|/dev/|' | while read -r d; do
	[ -b "$d" ] && echo "$d"; done | sort)
if [ -n "$loops" ]; then
	check_eq "bash: iotape capture -d /dev/loop<TAB>: the block devices" "$loops" \
		"$(bash_complete iotape capture -d /dev/loop)"
	check_eq "bash: iotape record --device /dev/loop<TAB>" "$loops" \
		"$(bash_complete iotape record --device /dev/loop)"
else
	skip "bash: iotape capture -d /dev/loop<TAB>" "no loop devices in /sys/class/block"
fi
check_eq "bash: iotape report --from <TAB>: a duration, no value to offer" "" \
	"$(bash_complete iotape report --from '')"

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
out=$(zsh_complete "iotape report --db other.db o" 'other\\ run')
[[ $out == *"iotape report --db other.db other\ run"* ]] &&
	ok "zsh: iotape report --db other.db o<TAB>: that store's run, quoted" ||
	not_ok "zsh: iotape report --db other.db o<TAB>" "screen: $out"
out=$(zsh_complete "iotape compare before a" 'compare before after')
[[ $out == *"iotape compare before after"* ]] && ok "zsh: iotape compare before a<TAB>: \$IOTAPE_DB's run" ||
	not_ok "zsh: iotape compare before a<TAB>" "screen: $out"
out=$(zsh_complete "iotape export --format blkp" 'format blkparse')
[[ $out == *"iotape export --format blkparse"* ]] && ok "zsh: iotape export --format blkp<TAB>" ||
	not_ok "zsh: iotape export --format blkp<TAB>" "screen: $out"
tap_finish
