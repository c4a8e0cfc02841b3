# iotape: one binary, one Makefile. `make` builds ./iotape, `make test` runs
# every test (installing missing Debian packages first), `make bench` prints
# speed ratios against blkparse/btt. V=1 shows commands; SANITIZE=address,undefined
# builds with sanitizers.

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
	   -Wstrict-prototypes -Wno-unused-parameter -Wvla
ALL_CFLAGS = -std=gnu11 $(WARNINGS) -I. -I/usr/include/postgresql $(CFLAGS) -D_GNU_SOURCE
LIBS = -lsqlite3 -lm -lpthread -luring -lblkid -lnettle -ljansson -lz
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
BUILD = build-san
else
BUILD = build
endif

ifeq ($(V),1)
Q =
else
Q = @
endif

# Debian packages, by need (installed without their recommends). Each group
# is NAME_PACKAGES and NAME_CHECK, a file of each package: when all of them
# are there, nothing runs. DEB_*: what `make demo` needs (build, capture,
# report, plot); TEST_*: what `make test` adds; FLEET_*, MAN_*, PKG_*: only
# for the targets that use them (make deps-fleet, make man, make deb), and the
# tests that need them skip, naming the target. With CI=true (.ci/run) `make
# test` installs every group, so CI runs every test.
DEB_PACKAGES = gcc make libc6-dev libsqlite3-dev liburing-dev libblkid-dev \
	nettle-dev fio gnuplot-nox util-linux procps
DEB_CHECK = /usr/bin/gcc /usr/include/sqlite3.h /usr/include/liburing.h \
	/usr/include/blkid/blkid.h /usr/include/nettle/sha2.h /usr/bin/fio \
	/usr/bin/gnuplot
# libarchive decompresses gzip/xz/zstd/bzip2 inputs of `import` (loaded then:
# import/archive_dl.c; its header is needed to build, and the unit tests link it).
DEB_PACKAGES += libarchive-dev
# zlib checks a gzip input's CRC-32 and length, which libarchive's gzip
# filter does not (import/import_input.c)
DEB_PACKAGES += zlib1g-dev
DEB_CHECK += /usr/include/zlib.h
DEB_CHECK += /usr/include/archive.h
# jansson reads fio's JSON results into workload metrics (capture/wlmetric.c).
DEB_PACKAGES += libjansson-dev
DEB_CHECK += /usr/include/jansson.h
# libpq is the PostgreSQL store's client (schema/store_pg*.c), loaded when a
# store URL is opened (schema/pq_dl.c), not linked: its header builds it. The
# server is FLEET_PACKAGES.
DEB_PACKAGES += libpq-dev
DEB_CHECK += /usr/include/postgresql/libpq-fe.h
# libfuse3 serves `iotape disk`'s FUSE file (model/disk_fuse.c), loaded when
# a disk starts (model/fuse_dl.c), not linked; fuse3 has fusermount3 and the
# kernel module's udev rule.
DEB_PACKAGES += libfuse3-dev libfuse3-3 fuse3
DEB_CHECK += /usr/include/fuse3/fuse_lowlevel.h /usr/bin/fusermount3

# `make test` adds: cmocka (unit tests), the peers the tests compare with
# (blkparse, btt, iostat, vmstat, time), what they drive (mkfs, sqlite3, jq,
# the compressors of t_import_pipes.sh, zsh for the zsh completion).
TEST_PACKAGES = libcmocka-dev sqlite3 blktrace sysstat time jq e2fsprogs zsh \
	gzip xz-utils zstd bzip2 python3
TEST_CHECK = /usr/include/cmocka.h /usr/bin/sqlite3 /usr/bin/blkparse \
	/usr/bin/btt /usr/bin/iostat /usr/bin/time /usr/bin/jq /sbin/mkfs.ext4 \
	/usr/bin/zsh /usr/bin/xz /usr/bin/zstd /usr/bin/bzip2 /usr/bin/python3

# `make deps-fleet`: a PostgreSQL 15 server for the fleet store (tests/lib.sh
# pg_start runs a private one; README "A fleet's runs in one place").
FLEET_PACKAGES = postgresql
FLEET_CHECK = /usr/lib/postgresql/15/bin/initdb
# `make man`, `make install`: pandoc builds the man page; man-db (groff) reads it.
MAN_PACKAGES = pandoc man-db
MAN_CHECK = /usr/bin/pandoc /usr/bin/man /usr/bin/groff
# `make deb`: debhelper and what dpkg-buildpackage checks for (build-essential).
PKG_PACKAGES = debhelper dpkg-dev build-essential pkg-config
PKG_CHECK = /usr/bin/dh /usr/bin/dpkg-buildpackage /usr/share/build-essential \
	/usr/bin/pkg-config

# in CI every group, so that no test skips for want of a package
ifeq ($(CI),true)
TEST_PACKAGES += $(FLEET_PACKAGES) $(MAN_PACKAGES) $(PKG_PACKAGES)
TEST_CHECK += $(FLEET_CHECK) $(MAN_CHECK) $(PKG_CHECK)
endif

# one pattern per folder, in pipeline order (docs/LAYOUT.md says what each
# holds): every .c of a folder is part of the binary
FOLDERS = lib trace import capture record schema analyze runs replay model plots
SRC = $(foreach d,$(FOLDERS),$(sort $(wildcard $(d)/*.c))) \
	$(BUILD)/schema_sql.c $(BUILD)/schema_pg_sql.c
OBJ = $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(BUILD)/%,$(SRC))) \
	$(BUILD)/schema_sql.o $(BUILD)/schema_pg_sql.o
# the schema, written once for both dialects (schema/embed.sh -d)
SQL = $(sort $(wildcard schema/[0-9][0-9][0-9]_*.sql))

UNIT_TESTS = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))

all: iotape$(if $(SANITIZE),-san)

iotape$(if $(SANITIZE),-san): $(OBJ) $(BUILD)/iotape.o
	@echo "  LINK  $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/%.o: %.c $(wildcard */*.h) | $(BUILD)
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/schema_sql.c: $(SQL) schema/embed.sh | $(BUILD)
	@echo "  GEN   $@"
	$(Q)sh schema/embed.sh -d sqlite $(SQL) > $@.tmp && mv $@.tmp $@

$(BUILD)/schema_sql.o: $(BUILD)/schema_sql.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/schema_pg_sql.c: $(SQL) schema/embed.sh | $(BUILD)
	@echo "  GEN   $@"
	$(Q)sh schema/embed.sh -d postgresql -n store_pg_migrations $(SQL) > $@.tmp && mv $@.tmp $@

$(BUILD)/schema_pg_sql.o: $(BUILD)/schema_pg_sql.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD):
	@mkdir -p $(BUILD)

$(BUILD)/tests/%: tests/unit/%.c $(OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(OBJ) $(LIBS) -larchive -lcmocka

# apt-get runs as root: directly for root (a fresh Debian root shell has no
# sudo), through sudo for a user who has it.
SUDO := $(shell [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null && echo sudo)

# $(call apt_install,PACKAGES,CHECK-FILES): apt-get install PACKAGES (no
# recommends) when a file of CHECK-FILES is missing
apt_install = @missing=0; for f in $(2); do [ -e $$f ] || missing=1; done; \
	if [ $$missing = 1 ]; then \
		echo "  DEPS  apt-get install $(1)"; \
		$(SUDO) apt-get update -q >/dev/null && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $(1) >/dev/null || exit 1; \
	fi

# deps-demo: what `make demo` needs; deps: what `make test` needs (all of it
# in CI); the others for their targets
deps-demo:
	$(call apt_install,$(DEB_PACKAGES),$(DEB_CHECK))
deps:
	$(call apt_install,$(DEB_PACKAGES) $(TEST_PACKAGES),$(DEB_CHECK) $(TEST_CHECK))
deps-fleet:
	$(call apt_install,$(FLEET_PACKAGES),$(FLEET_CHECK))
deps-man:
	$(call apt_install,$(MAN_PACKAGES),$(MAN_CHECK))
deps-deb:
	$(call apt_install,$(DEB_PACKAGES) $(PKG_PACKAGES),$(DEB_CHECK) $(PKG_CHECK))

unit: $(UNIT_TESTS)

# the man page when pandoc is here (make deps-man; t_help.sh says so otherwise)
test: deps
	$(Q)$(MAKE) --no-print-directory all unit $(if $(wildcard /usr/bin/pandoc),man)
	$(Q)BUILD=$(BUILD) IOTAPE=$(CURDIR)/iotape$(if $(SANITIZE),-san) \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		bash tests/run.sh $(UNIT_TESTS)

# The main job on a built-in default: capture a workload on a loop device
# (or, without root, import the committed capture), print the report and draw
# it. Builds on every CPU: a first build is most of the demo's time.
demo: deps-demo
	$(Q)$(MAKE) --no-print-directory -j$(shell nproc 2>/dev/null || echo 2) all
	$(Q)bash capture/demo.sh

bench: deps all
	$(Q)IOTAPE=$(CURDIR)/iotape bash bench/bench.sh

# `iotape disk` against the model and the seed reports, for real (root, minutes;
# IOTAPE_DISKSIM_VALID: DiskSim 4.0's valid/ folder for its traces)
validate-disk: deps all
	$(Q)IOTAPE=$(CURDIR)/iotape bash bench/validate_disk.sh
	$(Q)IOTAPE=$(CURDIR)/iotape bash bench/seed_disk.sh

# The blind explanation scoreboard (tests/score; README "How the explanation
# is scored"): captures its scenarios afresh into $(SCORE_DIR) as root (a
# few minutes), copies each run blind (blktrace export and vmstat log) and
# scores both copies; exits 1 when a target is missed. RESCORE=1 re-scores
# the captures already in $(SCORE_DIR); SCORE_ONLY=queue,swap a subset. Not
# part of `make test` (t_score checks the scorer on two quick scenarios).
SCORE_DIR ?= build/score
explain-score: deps all
	$(Q)IOTAPE=$(CURDIR)/iotape SCORE_DIR=$(SCORE_DIR) RESCORE=$(RESCORE) \
		SCORE_ONLY=$(SCORE_ONLY) bash tests/score/score.sh

# Fuzzing (libFuzzer, clang from Debian): make fuzz FUZZ_SECONDS=N runs each
# harness of tests/fuzz for N seconds (FUZZERS=stitch: that one only); their
# corpora stay in build-fuzz/keep-NAME (out of the tree). Not part of `make test`; its crashes
# become fixtures that `make test` replays.
FUZZ_PACKAGES = clang libclang-rt-14-dev
FUZZ_SECONDS ?= 60
FUZZERS = blktrace trace_input blkparse_text vmstat_text stitch fmt_fio fmt_msr \
	fmt_systor fmt_cloudphysics fmt_blkreplay fmt_iostat fmt_time
FUZZ_LIB = lib/util.c lib/timeline.c trace/blktrace_format.c trace/trace_input.c \
	trace/stitch.c import/blkparse_text.c import/blkparse_lex.c import/vmstat_text.c \
	import/formats.c import/time_report.c $(wildcard import/fmt_*.c)
fuzz: deps
	@command -v clang > /dev/null || DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q $(FUZZ_PACKAGES) > /dev/null
	@mkdir -p build-fuzz
	$(Q)for f in $(FUZZERS); do \
		echo "  FUZZ  build-fuzz/fuzz_$$f"; \
		clang -std=gnu11 -g -O1 -I. -D_GNU_SOURCE \
			-fsanitize=fuzzer,address,undefined \
			-o build-fuzz/fuzz_$$f tests/fuzz/fuzz_$$f.c $(FUZZ_LIB) \
			-lnettle || exit 1; \
	done
	$(Q)bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZERS)

# `make install` (PREFIX=/usr/local, DESTDIR to stage) puts the binary, the man
# page iotape(1) and the bash and zsh completions where Debian (FHS) looks for
# them; `make uninstall` removes them. The man page is built by pandoc from
# docs/iotape.md (`make man`), the page tests/cli/t_help.sh holds to each
# command's --help, so a new command's section is in it without an edit. The
# completions ask the binary (`iotape --help`, `iotape CMD --help`) as they
# complete, so they need no build step and never lag the binary.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Debian's zsh reads packages' completions from /usr/share/zsh/vendor-completions
# and the administrator's from /usr/local/share/zsh/site-functions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
INSTALL ?= install
MAN_PAGE = $(BUILD)/iotape.1
IOTAPE_VERSION := $(shell sed -n 's/.*IOTAPE_VERSION "\(.*\)".*/\1/p' commands.h)

man: $(MAN_PAGE)

# docs/man.lua writes code spans' hyphens as roff minus signs; the page is
# left-aligned and not hyphenated, so no option is broken across lines
$(MAN_PAGE): docs/iotape.md docs/man.lua commands.h | $(BUILD)
	@command -v pandoc > /dev/null || { echo "make man: needs pandoc" \
		"(Debian: apt-get install pandoc, or make deps-man)" >&2; exit 1; }
	@echo "  MAN   $@"
	$(Q)pandoc --from gfm --to man --standalone --shift-heading-level-by=-1 \
		--lua-filter docs/man.lua -V hyphenate= -V adjusting=l \
		-M footer="iotape $(IOTAPE_VERSION)" -M header="iotape manual" \
		-o $@.tmp docs/iotape.md && mv $@.tmp $@

install: all man
	$(INSTALL) -D -m 755 iotape$(if $(SANITIZE),-san) $(DESTDIR)$(BINDIR)/iotape
	$(INSTALL) -D -m 644 $(MAN_PAGE) $(DESTDIR)$(MANDIR)/man1/iotape.1
	$(INSTALL) -D -m 644 completion/iotape.bash $(DESTDIR)$(BASHCOMPDIR)/iotape
	$(INSTALL) -D -m 644 completion/_iotape $(DESTDIR)$(ZSHCOMPDIR)/_iotape

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/iotape $(DESTDIR)$(MANDIR)/man1/iotape.1 \
		$(DESTDIR)$(BASHCOMPDIR)/iotape $(DESTDIR)$(ZSHCOMPDIR)/_iotape

# the Debian package (debian/): ../iotape_VERSION_ARCH.deb
deb: deps-deb deps-man
	dpkg-buildpackage -us -uc -b

.PHONY: man install uninstall deb

clean:
	rm -rf build build-san build-fuzz iotape iotape-san

.PHONY: all deps deps-demo deps-fleet deps-man deps-deb unit test bench demo \
	validate-disk fuzz clean explain-score
