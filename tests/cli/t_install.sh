# t_install.sh: `make install DESTDIR=...` puts the binary, the man page iotape(1)
# and the bash and zsh completions where Debian's man, bash-completion and zsh look
# (PREFIX=/usr and the default /usr/local), the installed binary runs and completes,
# and `make uninstall` removes exactly what install put there.
. "$(dirname "$0")/../lib.sh"

need_iotape "make install"
command -v make > /dev/null || { skip "make install" "no make"; exit 0; }
# install builds the man page
command -v pandoc > /dev/null || { skip "make install" "no pandoc (make deps-man installs it)"; exit 0; }

# make_in_tree ARG...: make in the repository; under `make test` MAKEFLAGS carries
# SANITIZE, so the binary installed is the one under test
make_in_tree() { make -C "$REPO_ROOT" --no-print-directory "$@"; }

# installed_files DIR: "mode path" of every file under DIR, sorted
installed_files() { (cd "$1" && find . ! -type d -printf '%m %P\n' | sort -k2); }

# check_prefix PREFIX ZSHDIR [MAKE-ARG...]: install into a fresh DESTDIR with the
# make arguments given, check it, uninstall
check_prefix() {
	local prefix=$1 zshdir=$2 d out want got; shift 2
	d=$(mktemp -d "$TEST_TMP/destdir.XXXXXX")
	if ! out=$(make_in_tree install DESTDIR="$d" "$@" 2>&1); then
		not_ok "make install${*:+ $*} exits 0" "$(printf '%s\n' "$out" | tail -n 10)"
		return
	fi
	ok "make install${*:+ $*} exits 0"
	want="755 ${prefix#/}/bin/iotape
644 ${prefix#/}/share/bash-completion/completions/iotape
644 ${prefix#/}/share/man/man1/iotape.1
644 ${prefix#/}/share/zsh/$zshdir/_iotape"
	check_eq "$prefix: binary, man page and completions installed, nothing else" \
		"$want" "$(installed_files "$d")"

	local bin=$d$prefix/bin/iotape
	check_eq "$prefix: the installed binary is the one built" "" \
		"$(cmp "$IOTAPE" "$bin" 2>&1)"
	check_eq "$prefix: the installed iotape --version" "$("$IOTAPE" --version)" \
		"$("$bin" --version 2>&1)"
	check "$prefix: the installed iotape report --help" "$bin" report --help

	# man finds the page under the prefix's man path, and renders it cleanly
	if command -v man > /dev/null; then
		check_eq "$prefix: man -w iotape finds the installed page" \
			"$d$prefix/share/man/man1/iotape.1" \
			"$(man --manpath="$d$prefix/share/man" -w iotape 2>&1)"
		check_eq "$prefix: the installed man page renders without a warning" "" \
			"$(MANWIDTH=80 man --warnings --manpath="$d$prefix/share/man" iotape 2>&1 > /dev/null)"
	else
		skip "$prefix: man finds the installed page" "no man"
	fi

	# the installed bash completion completes with the installed binary
	got=$(PATH=$d$prefix/bin:$PATH bash --norc --noprofile -c '
		. "$1" || exit 1
		COMP_WORDS=(iotape rep); COMP_CWORD=1; _iotape
		printf "%s\n" "${COMPREPLY[@]}"' bash \
		"$d$prefix/share/bash-completion/completions/iotape" | sort)
	check_eq "$prefix: installed bash completion: iotape rep<TAB>" \
		"$(sed -n 's/^## iotape \(rep[a-z-]*\)$/\1/p' "$REPO_ROOT/docs/iotape.md" | sort)" "$got"

	# zsh reads completions from this folder (Debian's zsh fpath)
	if command -v zsh > /dev/null; then
		check "$prefix: installed zsh completion parses" zsh -n "$d$prefix/share/zsh/$zshdir/_iotape"
		if zsh -f -c 'print -l $fpath' | grep -qx "$prefix/share/zsh/$zshdir"; then
			ok "$prefix: $prefix/share/zsh/$zshdir is on zsh's fpath"
		else
			not_ok "$prefix: $prefix/share/zsh/$zshdir is on zsh's fpath" \
				"fpath: $(zsh -f -c 'print $fpath')"
		fi
	else
		skip "$prefix: installed zsh completion" "no zsh"
	fi

	if ! out=$(make_in_tree uninstall DESTDIR="$d" "$@" 2>&1); then
		not_ok "make uninstall${*:+ $*} exits 0" "$(printf '%s\n' "$out" | tail -n 10)"
		return
	fi
	check_eq "make uninstall${*:+ $*} removes every file install put there" "" "$(installed_files "$d")"
}

check_prefix /usr vendor-completions PREFIX=/usr
check_prefix /usr/local site-functions
tap_finish
