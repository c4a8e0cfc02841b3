# t_plot_writes.sh: how `iotape plot` and `iotape mail` write their files: a
# picture gnuplot left cut (a full disk: it exits 0) is an error naming it and
# nothing is left behind; on a full disk no empty .dat or .gp stays and the error
# names the file in its folder; a symlink in -o DIR is written through,
# whole; -o makes one folder level, not its parents; plot's RUNs may be globs,
# as compare's and mail's. The full-disk checks need root (a tmpfs).
. "$(dirname "$0")/../lib.sh"

need_iotape "plot and mail writes"
command -v gnuplot > /dev/null || { skip "plot writes" "no gnuplot (apt-get install gnuplot-nox)"; exit 0; }

t=$TEST_TMP db=$t/t.db
"$IOTAPE" import --db "$db" --quiet "$FIXTURES"/quick/before.bin.gz "$FIXTURES"/quick/after.bin.gz ||
	{ not_ok "import the quick fixtures"; tap_finish; }

# png_whole FILE: 0 when FILE is a PNG that ends with its IEND chunk
png_whole() {
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
	[ "$(tail -c 12 "$1" | od -An -tx1 | tr -d ' \n')" = 0000000049454e44ae426082 ]
}
# left DIR: the files under DIR, one a line
left() { find "$1" -mindepth 1 -printf '%P\n' 2> /dev/null | sort; }

# ---- 6. globs: plot 'b*' is plot before; a glob no run matches is said so --------
if "$IOTAPE" plot --db "$db" -o "$t/glob" 'b*' > "$t/out" 2> "$t/err"; then
	bad=
	for f in $(cat "$t/out"); do png_whole "$f" || bad="$bad $f"; done
	if grep -qx "$t/glob/before.seek.png" "$t/out" && [ -z "$bad" ]; then
		ok "plot 'b*' draws run before, every PNG whole"
	else
		not_ok "plot 'b*' draws run before, every PNG whole" "$(cat "$t/out")" "cut:$bad"
	fi
else
	not_ok "plot 'b*' draws run before" "$(cat "$t/err")"
fi
if ! "$IOTAPE" plot --db "$db" -o "$t/glob2" 'zz*' > /dev/null 2> "$t/err" &&
   grep -q "no run matches 'zz\*'" "$t/err" && [ ! -e "$t/glob2" ]; then
	ok "plot 'zz*': no run matches it, nothing made"
else
	not_ok "plot 'zz*': no run matches it, nothing made" "$(cat "$t/err")"
fi

# ---- 1. a picture gnuplot cut but exited 0 (as on a full disk) -------------------
cat > "$t/cutplot" << 'EOF'
#!/bin/sh
# gnuplot, then every picture it wrote in this folder cut to 100 bytes
gnuplot "$@" || exit
for f in *.png *.png.tmp.*; do [ -f "$f" ] && truncate -s 100 "$f"; done
exit 0
EOF
chmod +x "$t/cutplot"
mkdir "$t/cut"
if IOTAPE_GNUPLOT=$t/cutplot "$IOTAPE" plot --db "$db" -o "$t/cut" --kind qd before \
	> "$t/out" 2> "$t/err"; then
	not_ok "a cut PNG is an error" "exit 0" "$(cat "$t/out")" "$(ls -l "$t/cut")"
elif grep -q "cannot write '$t/cut/before.qd.png': .*not a whole PNG" "$t/err" &&
     [ "$(wc -l < "$t/err")" = 1 ] && [ -z "$(left "$t/cut")" ] && [ ! -s "$t/out" ]; then
	ok "a cut PNG is one error line naming it, nothing left"
else
	not_ok "a cut PNG is one error line naming it, nothing left" "$(cat "$t/err")" \
		"left: $(left "$t/cut" | tr '\n' ' ')" "out: $(cat "$t/out")"
fi

# ---- 4. a symlink in -o DIR is written through, as export -o writes one --------
# (the user's own redirection: t_output_paths' plot txt too), whole: the
# target gets the whole file and the link stays
mkdir "$t/odd" "$t/outside"
for f in o1 o2 o3; do echo "keep me" > "$t/outside/$f"; done
ln -s "$t/outside/o1" "$t/odd/before.seek.dat"
ln -s "$t/outside/o2" "$t/odd/before.seek.png"
ln -s "$t/outside/o3" "$t/odd/before-vs-after.full.txt"
"$IOTAPE" plot --db "$db" -o "$t/odd" --kind seek before > /dev/null 2> "$t/err" ||
	not_ok "plot into a folder with symlinks" "$(cat "$t/err")"
"$IOTAPE" mail --db "$db" -o "$t/odd" before after > /dev/null 2> "$t/err" ||
	not_ok "mail into a folder with symlinks" "$(cat "$t/err")"
if [ -L "$t/odd/before.seek.dat" ] && [ -L "$t/odd/before.seek.png" ] &&
   [ -L "$t/odd/before-vs-after.full.txt" ] && png_whole "$t/outside/o2" &&
   ! grep -q "keep me" "$t/outside/o1" "$t/outside/o3" &&
   [ -z "$(ls "$t/odd" | grep '\.tmp\.')" ]; then
	ok "plot and mail write through symlinks in -o DIR, whole, the links kept"
else
	not_ok "plot and mail write through symlinks in -o DIR, whole, the links kept" \
		"$(ls -l "$t/odd" "$t/outside")"
fi

# ---- 5. -o makes the last folder level only --------------------------------------
for cmd in "plot before" "mail before after"; do
	if ! "$IOTAPE" $cmd --db "$db" -o "$t/nonexist/dir" > /dev/null 2> "$t/err" &&
	   grep -q "'$t/nonexist' does not exist" "$t/err" && [ ! -e "$t/nonexist" ]; then
		ok "${cmd%% *} -o a folder under a missing one: fails naming the parent"
	else
		not_ok "${cmd%% *} -o a folder under a missing one: fails naming the parent" \
			"$(cat "$t/err")" "$(ls -d "$t/nonexist" 2>&1)"
	fi
done
if "$IOTAPE" plot --db "$db" -o "$t/one/" --kind tput before > "$t/out" 2> "$t/err" &&
   grep -qx "$t/one/before.tput.png" "$t/out"; then
	ok "plot -o a missing folder whose parent exists makes it"
else
	not_ok "plot -o a missing folder whose parent exists makes it" "$(cat "$t/err")"
fi

# ---- 1, 2, 3: on a tmpfs that is nearly full, and full ---------------------------
if [ "$(id -u)" != 0 ]; then
	skip "plot and mail on a full disk" "run as root (mounts a tmpfs)"
	tap_finish
fi
mkdir "$t/small"
mount -t tmpfs -o size=2m none "$t/small" ||
	{ skip "plot and mail on a full disk" "cannot mount a tmpfs"; tap_finish; }
at_exit "umount '$t/small' 2> /dev/null"

# fill FREE_KB: the tmpfs filled but FREE_KB
fill() {
	rm -f "$t/small/filler"
	local avail=$(df -k --output=avail "$t/small" | tail -n 1)
	[ "$avail" -gt "$1" ] &&
		dd if=/dev/zero of="$t/small/filler" bs=1k count=$((avail - $1)) 2> /dev/null
	return 0
}

# nearly full: the data files and scripts fit (about 50 KiB), the pictures do not
fill 96
if "$IOTAPE" plot --db "$db" -o "$t/small/plots/" before > "$t/out" 2> "$t/err"; then
	not_ok "plot on a nearly full disk fails" "exit 0" "$(cat "$t/out")" \
		"$(ls -l "$t/small/plots")"
elif grep -q "^iotape: .*'$t/small/plots/before\.[a-z]*\.[a-z]*'" "$t/err" &&
     [ "$(wc -l < "$t/err")" -le 3 ] && [ -z "$(left "$t/small/plots")" ] &&
     [ ! -s "$t/out" ]; then
	ok "plot on a nearly full disk: an error naming the file, nothing left"
else
	not_ok "plot on a nearly full disk: an error naming the file, nothing left" \
		"$(cat "$t/err")" "left: $(left "$t/small/plots" | tr '\n' ' ')" \
		"out: $(cat "$t/out")"
fi

# full: not a byte free; the -o folder exists and stays empty
rm -rf "$t/small/plots"
mkdir "$t/small/out"
fill 0
dd if=/dev/zero of="$t/small/filler2" bs=1k 2> /dev/null  # what df rounded away
for cmd in "plot before" "mail before after"; do
	if "$IOTAPE" $cmd --db "$db" -o "$t/small/out" > /dev/null 2> "$t/err"; then
		not_ok "${cmd%% *} on a full disk fails" "exit 0"
	elif grep -q "'$t/small/out/before[-.a-z]*': No space left" "$t/err" &&
	     [ -z "$(left "$t/small/out")" ]; then
		ok "${cmd%% *} on a full disk: the error names the file, no empty file left"
	else
		not_ok "${cmd%% *} on a full disk: the error names the file, no empty file left" \
			"$(cat "$t/err")" "left: $(left "$t/small/out" | tr '\n' ' ')"
	fi
	rm -rf "$t/small/out"/*
done
umount "$t/small" || not_ok "umount the tmpfs"
tap_finish
