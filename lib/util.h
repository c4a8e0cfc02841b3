/* Small helpers every subcommand uses: one-line errors and warnings in git's
 * style, checked allocation, and number parsing that names the option. */
#ifndef IOTAPE_UTIL_H
#define IOTAPE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Prints "iotape: <message>" on stderr and returns -1, so a subcommand can
 * `return error("cannot open '%s': %s", path, strerror(errno));`. One line
 * unless fmt itself has a newline: the control characters of what it quotes
 * (a run name, an option's value, a path), newlines too, as <0xNN>. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "iotape: warning: <message>" on stderr, as error() does. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "iotape: <message>" on stderr as one line, whatever fmt holds:
 * every control character in it, newlines too, shown as <0xNN>, for a
 * summary that quotes what the user gave ("imported 'a<0x0a>b.bin' as run
 * 'a_b'"). */
void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* malloc/realloc/strdup that abort with a message when memory runs out. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* What a plain decimal number may hold besides its digits, for dec_span()
 * and dec_double(). A plain decimal number is never hex ("0x10", "0x1p4"),
 * octal ("010" is ten), "inf" or "nan", and has no leading blank or '+':
 * every number a user gives (an option, a metric, a value in an imported
 * log) goes through these, not through strtod() or strtoull() alone, which
 * take all of those. */
#define DEC_SIGN 1u  /* a leading '-' */
#define DEC_FRAC 2u  /* one '.', with a digit before or after it */
#define DEC_EXP  4u  /* an exponent after the digits: 'e' or 'E', an optional
		      * sign, digits */

/* The length of the plain decimal number at the start of s, digits and what
 * flags allow (DEC_*); 0 when s does not start with one. */
size_t dec_span(const char *s, unsigned flags);

/* Parses the plain decimal number at the start of s (as dec_span() takes
 * it) into *v. With end, *end is set past it and the caller judges what
 * follows (a unit); without, the number must be all of s. Returns 0, or -1
 * when s does not start with one, more follows (end NULL), or it is beyond
 * a double's range; *v and *end are then unchanged. */
int dec_double(const char *s, unsigned flags, double *v, const char **end);

/* Parses the whole number of decimal digits at the start of s into *v, end
 * as for dec_double(). Returns 0, or -1 when s does not start with a digit,
 * more follows (end NULL) or it is above UINT64_MAX. */
int dec_u64(const char *s, uint64_t *v, const char **end);

/* Parses "MAJOR:MINOR" or "MAJOR,MINOR" (decimal, as the kernel prints
 * device numbers; major below 4096, minor below 2^20) into *maj and *min;
 * returns 0, or -1 when s is not one. Prints nothing. */
int dec_devnum(const char *s, unsigned *maj, unsigned *min);

/* mkdir -p: makes dir and every folder above it that is missing, with
 * mode (less the umask). Returns 0, or -1 with err naming the folder that
 * could not be made, or saying that dir is no folder. */
int mkdir_p(const char *dir, unsigned mode, char *err, size_t errlen);

/* Parses a whole decimal number into *out; returns 0, or prints
 * "invalid value 'S' for OPT" and returns -1. */
int parse_u64(const char *s, const char *opt, uint64_t *out);

/* parse_u64() of a value that must lie in lo .. hi: returns 0, or prints
 * one line, "invalid value 'S' for OPT (LO to HI[ UNIT])" (unit may be
 * NULL), and returns -1. */
int parse_u64_range(const char *s, const char *opt, uint64_t lo, uint64_t hi,
		    const char *unit, uint64_t *out);

/* Parses a whole positive decimal number of seconds ("0.5", "10") into
 * *out; returns 0, or prints "invalid value 'S' for OPT" and returns -1. */
int parse_seconds(const char *s, const char *opt, double *out);

/* Parses a duration, "30", "30s", "500ms", "2m" (or "2min"), "1h", into
 * seconds >= 0 in *out; returns 0, or prints "invalid duration 'S' for OPT"
 * and returns -1. */
int parse_duration(const char *s, const char *opt, double *out);

/* Parses an age, a duration as parse_duration() takes it or N days ("7d",
 * "1.5d"), into seconds >= 0 in *out; returns 0, or prints "invalid
 * duration 'S' for OPT" and returns -1. */
int parse_age(const char *s, const char *opt, double *out);

/* Parses a size, "65536", "512K", "512M", "1G", "512MiB", "1GB" (K, M, G
 * are powers of 1024), > 0, into bytes in *out; returns 0, or prints
 * "invalid size 'S' for OPT" and returns -1. */
int parse_size(const char *s, const char *opt, uint64_t *out);

/* Checks a new run name given by the user: 1 to 200 bytes of UTF-8
 * (utf8_seq()), no control characters, not digits only (a RUN argument
 * that is a number finds the run of that id only when no run has it as its
 * name, so such a name would hide a run: run_name_is_id()), no leading '-'
 * (read as an option where a RUN is an argument). Returns 0, or
 * prints why not and returns -1. */
int check_run_name(const char *name);

/* 1 when name is digits only ("12"), so it would read as a run id; else 0. */
int run_name_is_id(const char *name);

/* The length in bytes (1 to 4) of the well-formed UTF-8 sequence that
 * starts at s, of which n bytes (n >= 1) may be read (SIZE_MAX: s is
 * NUL-terminated, and a NUL ends any sequence), or 0 when none does: a
 * stray continuation byte, an overlong form, a surrogate, a code point past
 * U+10FFFF or a sequence cut short (The Unicode Standard, table 3-7,
 * "Well-Formed UTF-8 Byte Sequences"; RFC 3629). */
size_t utf8_seq(const void *s, size_t n);

/* The length of the longest start of string s of at most max bytes that
 * ends between two UTF-8 characters (a sequence that is not UTF-8 counts
 * a byte at a time): where to cut s to fit max bytes. */
size_t utf8_cut(const char *s, size_t max);

/* NULL when the n bytes at s are UTF-8 (utf8_seq()) and hold no NUL; else
 * a copy (malloc'd, NUL-terminated, its length in *outn) with each byte
 * that is not (or a NUL) as U+FFFD, the replacement character: for a text
 * that must be UTF-8 where it goes (PostgreSQL's text in a UTF8 database
 * refuses the whole row: "invalid byte sequence"). Aborts when memory runs
 * out. */
char *utf8_fixed(const char *s, size_t n, size_t *outn);

/* Replaces in place a leading '-', each control character of name (below
 * 0x20, and 0x7f) and each byte that is not part of well-formed UTF-8
 * (those check_run_name() refuses) by '_', for a name iotape makes from a file's
 * name or contents ("new\nline.bin", "caf\xe9.bin" in Latin-1, an MSR
 * Hostname holding "\e[31m"), which imports under a name a terminal shows
 * as it is and PostgreSQL stores. Returns how many it replaced. */
int run_name_clean(char *name);

/* Checks a run label given by the user (capture --label, iotape label):
 * "KEY=VALUE", KEY 1 to 95 bytes of letters, digits and _ . : / -, not
 * starting with "capture." (the capture's own settings), VALUE 1 to 255
 * bytes without control characters. Returns 0, or prints why not and
 * returns -1. */
int check_label(const char *kv);

/* The database path: --db if given, else $IOTAPE_DB, else "iotape.db". */
const char *db_path_default(const char *opt);

/* Checks stdout for write errors (a full disk while writing a report) and
 * returns 0 or error("..."). Call at the end of a command that printed. */
int close_stdout(void);

/* The Damerau-Levenshtein distance between a and b in its optimal string
 * alignment form (insertions, deletions, substitutions and transpositions
 * of adjacent bytes each cost 1; Damerau 1964, CACM 7(3)), for "did you
 * mean". Strings longer than 63 bytes count as 64 apart. */
int str_distance(const char *a, const char *b);

/* s as one shell word: unchanged when it holds only letters, digits and
 * "%+,-./:=@_", else in single quotes (a quote inside as '\''), into buf
 * (len bytes, cut short when too small). Returns buf. */
const char *shell_quote(const char *s, char *buf, size_t len);

/* 1 when word (a program's name: "dd") is a word of shell command text s:
 * at its start or after a blank, '/', '(', ';', '|' or '&', and at its end
 * or before a blank, ')', ';', '|' or '&' ("patch" of "bzcat p.bz2 |
 * patch -p1"); 0 for an empty word. */
int shell_has_word(const char *s, const char *word);

/* The hint after storing run, runnable as printed: "see 'iotape report
 * RUN'", with "--db FILE" when the store was named by --db (db_opt not
 * NULL: a plain 'iotape report' opens $IOTAPE_DB or iotape.db), each word
 * shell_quote()d; "see: iotape report ..." when a word needed quotes.
 * Into buf (len bytes, cut short when too small). Returns buf. */
const char *see_report(const char *db_opt, const char *run, char *buf,
		       size_t len);

/* The columns a terminal gives the first n bytes of UTF-8 text s (n < 0:
 * all of it): two for a wide or fullwidth character (CJK, Hangul, kana,
 * fullwidth forms, emoji: Unicode's East Asian Width W and F, the ranges
 * of Markus Kuhn's wcwidth.c), none for a combining mark or a UTF-8
 * continuation byte, one for the rest; as wc -L counts in a UTF-8 locale,
 * and independent of the locale. */
int text_cols_n(const char *s, long n);
static inline int text_cols(const char *s) { return text_cols_n(s, -1); }

/* Writes s to fp in at most cols columns (text_cols()): whole when it
 * fits, else its first head columns of whole characters, "…" and its end
 * (a path's file name, a name's numbering, a kernel's flavour tell them
 * apart). Returns the columns written. */
int fput_cut(FILE *fp, const char *s, int cols, int head);

/* Writes s to fp padded with spaces to cols columns (text_cols(); nothing
 * added when s is wider). Returns the columns written. */
int fput_padded(FILE *fp, const char *s, int cols);

/* Wraps text at width columns (text_cols(): a wide character takes two)
 * into out (len bytes, cut short when too small): a space where the next
 * word would pass width becomes a newline and indent spaces; newlines in
 * text are kept (their line continues indented too). A word wider than the
 * line stays whole on a line of its own. Returns out. */
char *text_wrap(const char *text, int width, int indent, char *out, size_t len);

/* printf to fp, then text_wrap() at width columns with indent, and a
 * newline. Returns what fprintf returned for the wrapped text. */
int fprintf_wrapped(FILE *fp, int width, int indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

struct loop_info64;
/* LOOP_GET_STATUS64 (linux/loop.h) of block device dev_path into *li:
 * what a loop device is over (lo_rdevice: a device, 0 for a file; lo_device
 * and lo_inode: the file or node). Opened read-only and non-blocking, no
 * side effect. Returns 0, or -1 when it cannot be opened or is no loop
 * device. */
int loop_status(const char *dev_path, struct loop_info64 *li);

struct stat;
/* The file behind loop device dev_path (/dev/loopN) as the kernel holds it
 * (LOOP_GET_STATUS64's lo_device and lo_inode, linux/loop.h: right however
 * the file was renamed or unlinked since) into *st: st_dev, st_ino and
 * st_mode S_IFREG set, the rest 0. Returns 0, or -1 when dev_path cannot be
 * opened or is no loop device with a file. */
int loop_file_stat(const char *dev_path, struct stat *st);

/* Monotonic and wall clocks in ns. */
int64_t now_mono_ns(void);
int64_t now_real_ns(void);

/* Writes the n bytes of s to fp with each control character (below 0x20,
 * DEL, and the bytes of a C1 control, U+0080 to U+009F) and each byte that
 * is not UTF-8 as <0xNN> but those in keep ("\n\t": newlines and tabs), so an
 * escape sequence or bell from an input (a process name, a file name, a
 * pasted line) never reaches the terminal raw: error(), warning() and
 * notice() write their messages so, emit_text() its text. */
void fput_shown(FILE *fp, const char *s, size_t n, const char *keep);

/* The factor f that turns a value in unit from into one in unit to (v_to =
 * v_from * f), for the units of one quantity iotape knows: times (ns, us,
 * µs, ms, s or sec or seconds, min, h), bytes (B or bytes, as capture
 * stores fio's and dd's; kB or KB, MB, GB, TB: powers of 1000, as SI and
 * dd(1) write them; KiB, MiB, GiB, TiB: of 1024) and bytes per second (the
 * same with "/s": "bytes/s", "MB/s"). Equal strings, and an empty or NULL unit
 * on either side (not said), give 1. Returns 0, or -1 when the two are not
 * one quantity (MB/s and GB are not, nor tps and IOPS). */
int unit_factor(const char *from, const char *to, double *f);

/* 3 when the n bytes at p start with UTF-8's byte order mark (EF BB BF,
 * which Windows editors put before a text file's first line), else 0: the
 * text readers skip it. */
static inline size_t utf8_bom(const void *p, size_t n)
{
	const unsigned char *b = p;

	return n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf ? 3 : 0;
}

#endif
