# bash completion for iotape(1): subcommands, their long options, and the values an
# option's usage lists (--format png|svg|txt). All of it is read from the program's
# own help as you press TAB (`iotape --help`, `iotape CMD --help`), so it knows
# every command and option of the binary it completes and needs no update.
# Installed as $(PREFIX)/share/bash-completion/completions/iotape (make install).

# _iotape_commands PROG: the subcommands PROG's --help lists under "commands:"
_iotape_commands()
{
	"$1" --help 2> /dev/null |
		awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }'
}

# _iotape_options PROG CMD: the long options PROG CMD --help names, and --help
# (nothing when CMD is not a command)
_iotape_options()
{
	local help
	help=$("$1" "$2" --help 2> /dev/null) || return 0
	{ grep -oE -- '--[a-z][a-z-]+' <<< "$help"; echo --help; } | sort -u
}

# _iotape_option_arg PROG CMD OPT: the argument OPT takes as CMD's help first
# writes it ("FILE", "png|svg|txt"); nothing for an option without one
_iotape_option_arg()
{
	"$1" "$2" --help 2> /dev/null |
		grep -oE -- "(^|[[ ])$3[ =][A-Za-z'][^] ,)]*" | head -n 1 | sed 's/^.*--[a-z-]*[ =]//'
}

_iotape()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} cmd opt arg i
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
	# the argument of an option: "--format png" or "--format=png" (bash splits
	# the "=" off as a word of its own)
	opt=${COMP_WORDS[COMP_CWORD - 1]}
	if [ "$opt" = = ] && [ "$COMP_CWORD" -gt 2 ]; then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	elif [ "$cur" = = ]; then
		cur=
	fi
	[[ $opt == --?* ]] && arg=$(_iotape_option_arg "$prog" "$cmd" "$opt")
	if [ -n "$arg" ]; then
		case $arg in
		*DIR*) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
		*FILE* | *PATH*) return 0 ;;    # readline's file names (-o default)
		*'|'*)    # the lower-case words of "png|svg|txt", "start|cmd:N"
			COMPREPLY=($(compgen -W "$(tr '|' '\n' <<< "$arg" | grep -E '^[a-z_]+$')" \
				-- "$cur")) ;;
		esac
		# a NAME, SEC or N, or no value that fits: no file names either
		[ ${#COMPREPLY[@]} = 0 ] && compopt +o default 2> /dev/null
		return 0
	fi
	case $cur in
	-*) COMPREPLY=($(compgen -W "$(_iotape_options "$prog" "$cmd")" -- "$cur")) ;;
	esac
	return 0
}

complete -o default -F _iotape iotape
