# bash completion for iotape(1): subcommands, their long options, the values an
# option's usage lists (--format png|svg|txt), the runs of the store (a RUN, from
# `iotape runs --names`, with the --db on the line), model profiles, devices (the
# machine's block devices for -d and --target, the runs' major,minor for --dev)
# and plot kinds. All of it is read from the program as you press TAB (`iotape
# --help`, `iotape CMD --help`, `iotape runs --names`, `iotape model list`), so it
# knows every command, option and run of the binary and store it completes and
# needs no update. Installed as $(PREFIX)/share/bash-completion/completions/iotape
# (make install).

# _iotape_commands PROG: the subcommands PROG's --help lists under "commands:"
_iotape_commands()
{
	"$1" --help 2> /dev/null |
		awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }'
}

# _iotape_options HELP: the long options a command's --help text names, and --help
_iotape_options()
{
	{ grep -oE -- '--[a-z][a-z-]+' <<< "$1"; echo --help; } | sort -u
}

# _iotape_option_arg HELP OPT: the argument OPT (--long, or -x as "-x, --long"
# names it) takes as the help first writes it ("FILE", "png|svg|txt"); nothing
# for an option without one
_iotape_option_arg()
{
	local opt=$2
	if [[ $opt != --* ]]; then    # -d: the long option of "  -d, --device DEV"
		opt=$(grep -oE -- "(^|[[ ])$opt, --[a-z-]+" <<< "$1" | head -n 1 | sed 's/.* //')
		[ -n "$opt" ] || return 0
	fi
	grep -oE -- "(^|[[ ])$opt[ =][A-Za-z'][^] )]*" <<< "$1" | head -n 1 |
		sed 's/^.*--[a-z-]*[ =]//; s/,$//'
}

# _iotape_runs PROG [--db FILE]: the names of the runs in the store
_iotape_runs() { "$1" runs "${@:2}" --names 2> /dev/null; }

# _iotape_run_devs PROG [--db FILE]: the runs' devices, major,minor
_iotape_run_devs()
{
	"$1" runs "${@:2}" 2> /dev/null |
		awk '$1 == "dev" { for (i = 2; i <= NF && $i != "src"; i++)
			if ($i ~ /^[0-9]+,[0-9]+$/) print $i }' | sort -u
}

# _iotape_block_devs: this machine's block devices, /dev/NAME
_iotape_block_devs()
{
	local d
	for d in /sys/class/block/*; do
		[ -b "/dev/${d##*/}" ] && echo "/dev/${d##*/}"
	done
}

# _iotape_profiles PROG: the built-in disk profiles and their aliases
_iotape_profiles()
{
	"$1" model list 2> /dev/null | awk 'NR > 2 && !NF { exit } NR > 2 { print $1; print $2 }'
}

# _iotape_kinds HELP: the kinds a command's help lists under "Kinds:"
_iotape_kinds()
{
	awk '/Kinds:$/ { on = 1; next } on && /^  [a-z]+ / { print $1; next }
	     on && !/^   / { exit }' <<< "$1"
}

# _iotape_reply WORDS: COMPREPLY = the lines of WORDS that start with $cur (as
# typed, its backslashes dropped), each quoted for the shell (a run named
# "other run" goes in as other\ run)
_iotape_reply()
{
	local w p=${cur//\\/}
	COMPREPLY=()
	while IFS= read -r w; do
		[ -n "$w" ] && [[ $w == "$p"* ]] && COMPREPLY+=("$(printf '%q' "$w")")
	done <<< "$1"
}

# _iotape_word_db NAME: the value of option NAME (--db, --from) on the line
# before the word being completed, as "--db VALUE" (nothing when absent)
_iotape_word_db()
{
	local i w v
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == "$1="?* ]]; then    # one word, as zsh passes it
			printf -- '--db\n%s\n' "${w#*=}"
			continue
		fi
		[ "$w" = "$1" ] || continue
		v=${COMP_WORDS[i + 1]}
		# bash splits "--db=FILE" into "--db" "=" "FILE"
		[ "$v" = = ] && v=${COMP_WORDS[i + 2]}
		[[ $v == "~/"* ]] && v=$HOME/${v#"~/"}
		[ $((i + 1)) -lt "$COMP_CWORD" ] && [ -n "$v" ] && printf -- '--db\n%s\n' "$v"
	done
}

_iotape()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} cmd opt arg help usage i w
	local -a db words
	COMPREPLY=()
	[[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}    # as typed: not expanded yet
	if [ "$COMP_CWORD" = 1 ]; then
		case $cur in
		-*) COMPREPLY=($(compgen -W '--help --version' -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "$(_iotape_commands "$prog")" -- "$cur")) ;;
		esac
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	help | --help | -h)
		[ "$COMP_CWORD" = 2 ] &&
			COMPREPLY=($(compgen -W "$(_iotape_commands "$prog")" -- "$cur"))
		return 0 ;;
	-*) return 0 ;;
	esac
	# after a bare "--" (capture's command line): a command, then its files
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then
			[ $((i + 1)) = "$COMP_CWORD" ] && COMPREPLY=($(compgen -c -- "$cur"))
			return 0
		fi
	done
	help=$("$prog" "$cmd" --help 2> /dev/null) || return 0
	mapfile -t db < <(_iotape_word_db --db)
	# the argument of an option: "--format png" or "--format=png" (bash splits
	# the "=" off as a word of its own)
	opt=${COMP_WORDS[COMP_CWORD - 1]}
	if [ "$opt" = = ] && [ "$COMP_CWORD" -gt 2 ]; then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	elif [ "$cur" = = ]; then
		cur=
	fi
	[[ $opt == -?* ]] && arg=$(_iotape_option_arg "$help" "$opt")
	if [ -n "$arg" ]; then
		case $opt:$arg in
		--target:*)    # a device, a file, or model:PROFILE
			COMPREPLY=($(compgen -W "$(_iotape_block_devs)
				$(_iotape_profiles "$prog" | sed 's/^/model:/')" -- "$cur"))
			return 0 ;;
		--run:* ) [ "$cmd" = import ] &&    # joining a log to a run
			_iotape_reply "$(_iotape_runs "$prog" "${db[@]}")" ;;
		*:*DIR*) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
		*:DEV) COMPREPLY=($(compgen -W "$(_iotape_block_devs)" -- "$cur"))
			return 0 ;;    # and file names (-o default): a file's disk
		*:M,m | *:MAJ,MIN) COMPREPLY=($(compgen -W "$(_iotape_run_devs "$prog" "${db[@]}")" -- "$cur")) ;;
		*:PROFILE) COMPREPLY=($(compgen -W "$(_iotape_profiles "$prog")" -- "$cur"))
			return 0 ;;    # and a profile file's name
		*:K[,K*)    # plot's kinds, a comma-separated list
			w=${cur%"${cur##*,}"}
			COMPREPLY=($(compgen -P "$w" -W "$(_iotape_kinds "$help")" -- "${cur##*,}"))
			compopt -o nospace 2> /dev/null ;;
		*:*FILE* | *:*PATH*) return 0 ;;    # readline's file names (-o default)
		*:*'|'*)    # the lower-case words of "png|svg|txt", "start|cmd:N"
			COMPREPLY=($(compgen -W "$(tr '|' '\n' <<< "$arg" | grep -E '^[a-z_]+$')" \
				-- "$cur")) ;;
		esac
		# a NAME, SEC or N, or no value that fits: no file names either
		[ ${#COMPREPLY[@]} = 0 ] && compopt +o default 2> /dev/null
		return 0
	fi
	case $cur in
	-*) COMPREPLY=($(compgen -W "$(_iotape_options "$help")" -- "$cur")); return 0 ;;
	esac
	# a word of its own: which of the command's operands it is (the words
	# before it that are neither options nor their arguments)
	words=()
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -?* ]]; then
			[[ $w != *=* ]] && [ -n "$(_iotape_option_arg "$help" "$w")" ] &&
				[ "${COMP_WORDS[i + 1]}" != = ] && i=$((i + 1))
			[ "${COMP_WORDS[i + 1]}" = = ] && i=$((i + 2))
			continue
		fi
		words+=("$w")
	done
	case $cmd in
	model)
		case ${#words[@]}:${words[0]:-} in
		0:) COMPREPLY=($(compgen -W 'list fit' -- "$cur")) ;;
		1:list) COMPREPLY=($(compgen -W "$(_iotape_profiles "$prog")" -- "$cur")) ;;
		1:fit) _iotape_reply "$(_iotape_runs "$prog" "${db[@]}")" ;;
		esac
		return 0 ;;
	pull)    # the runs of the store they come from
		mapfile -t db < <(_iotape_word_db --from)
		[ ${#db[@]} -gt 0 ] && _iotape_reply "$(_iotape_runs "$prog" "${db[@]}")"
		return 0 ;;
	esac
	# RUN operands, as the usage (its lines up to the first blank one) names
	# them: every one for "RUN...", "RUN [RUN...]", "RUN_A RUN_B [RUN...]",
	# else the first (RUN, mv's OLD)
	usage=$(awk '!NF { exit } { printf "%s ", $0 }' <<< "$help")
	if grep -qE ' RUN(_A)?( RUN(_B)?)? ?(\.\.\.|\[RUN\.\.\.\])' <<< "$usage" ||
	   { [ ${#words[@]} = 0 ] && grep -qE ' (RUN|OLD) ' <<< "$usage"; }; then
		_iotape_reply "$(_iotape_runs "$prog" "${db[@]}")"
		[ ${#COMPREPLY[@]} = 0 ] && compopt +o default 2> /dev/null
	fi
	return 0
}

complete -o default -F _iotape iotape
