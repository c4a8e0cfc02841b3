# t_package.sh: debian/ builds a .deb (`dpkg-buildpackage -us -uc -b` in a copy of
# the tree) holding the binary, the man page and the bash and zsh completions, and
# the packaged binary runs. Skipped without dpkg-buildpackage and debhelper (make
# deps-deb installs them), and in the sanitizer suite (the package is the same build).
. "$(dirname "$0")/../lib.sh"

need_iotape "Debian package"

# debian/changelog's version is the program's
deb_version=$(sed -n '1s/^iotape (\([^)]*\)).*/\1/p' "$REPO_ROOT/debian/changelog")
check_eq "debian/changelog's version is iotape --version's" \
	"$("$IOTAPE" --version)" "iotape $deb_version"

if ! command -v dpkg-buildpackage > /dev/null || ! command -v dh > /dev/null; then
	skip "dpkg-buildpackage builds the .deb" "needs dpkg-dev and debhelper (make deps-deb installs them)"
	tap_finish
fi
if ! command -v pandoc > /dev/null; then
	skip "dpkg-buildpackage builds the .deb" "no pandoc for its man page (make deps-man installs it)"
	tap_finish
fi
case $IOTAPE in
*-san) skip "dpkg-buildpackage builds the .deb" "built in the plain suite already"
	tap_finish ;;
esac
missing=$(cd "$REPO_ROOT" && dpkg-checkbuilddeps 2>&1)
if [ -n "$missing" ]; then
	not_ok "debian/control's Build-Depends are installed" "$missing"
	tap_finish
fi

# the tree as git sees it (tracked and new files, not what .gitignore leaves out:
# no build products), or all of it outside git (dpkg-buildpackage cleans first), in
# a folder of its own: the .deb lands beside it
src=$TEST_TMP/src/iotape-$deb_version
mkdir -p "$src"
if git -C "$REPO_ROOT" rev-parse --git-dir > /dev/null 2>&1; then
	(cd "$REPO_ROOT" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar -cf - --null -T -) | tar -xf - -C "$src"
else
	(cd "$REPO_ROOT" && tar -cf - .) | tar -xf - -C "$src"
fi
# nocheck: the unit tests run in this suite already
if ! (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -b > "$TEST_TMP/build.log" 2>&1); then
	not_ok "dpkg-buildpackage -us -uc -b builds the .deb" "$(tail -n 15 "$TEST_TMP/build.log")"
	tap_finish
fi
deb=$(ls "$TEST_TMP"/src/iotape_"$deb_version"_*.deb 2> /dev/null | head -n 1)
if [ ! -f "$deb" ]; then
	not_ok "dpkg-buildpackage -us -uc -b builds the .deb" "no iotape_${deb_version}_*.deb" \
		"$(ls "$TEST_TMP/src")"
	tap_finish
fi
ok "dpkg-buildpackage -us -uc -b builds $(basename "$deb")"

# what it holds (dpkg-deb -c lines end with the path)
paths=$(dpkg-deb -c "$deb" | awk '{ print $NF }')
for f in ./usr/bin/iotape ./usr/share/man/man1/iotape.1.gz \
	./usr/share/bash-completion/completions/iotape \
	./usr/share/zsh/vendor-completions/_iotape ./usr/share/doc/iotape/copyright; do
	if printf '%s\n' "$paths" | grep -qxF -- "$f"; then ok "the .deb holds $f"
	else not_ok "the .deb holds $f" "dpkg-deb -c:" "$paths"; fi
done
mode=$(dpkg-deb -c "$deb" | awk '$NF == "./usr/bin/iotape" { print $1 }')
check_eq "the .deb's iotape is executable" "-rwxr-xr-x" "$mode"
depends=$(dpkg-deb -f "$deb" Depends)
# libarchive13 and libpq5 are loaded on use (lib/dl.h): dh_shlibdeps cannot
# see them, debian/control names them
for lib in libsqlite3-0 liburing2 libblkid1 libarchive13 libpq5; do
	[[ $depends == *"$lib"* ]] && ok "the .deb depends on $lib" ||
		not_ok "the .deb depends on $lib" "Depends: $depends"
done

# unpacked, the binary runs and the man page reads
root=$TEST_TMP/root
dpkg-deb -x "$deb" "$root"
check_eq "the packaged iotape --version" "iotape $deb_version" "$("$root/usr/bin/iotape" --version 2>&1)"
check "the packaged iotape report --help" "$root/usr/bin/iotape" report --help
if command -v man > /dev/null; then
	check_eq "the packaged man page renders without a warning" "" \
		"$(MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/iotape.1.gz" 2>&1 > /dev/null)"
fi
check_eq "the packaged bash completion is the tree's" "" \
	"$(cmp "$REPO_ROOT/completion/iotape.bash" "$root/usr/share/bash-completion/completions/iotape" 2>&1)"
tap_finish
