/* Workload metrics read from what a workload printed (issue 15 item 11):
 * fio's JSON results, dd's final "copied" line, and a user's NAME=REGEX over
 * the output. Pure: text in, numbers out into a struct wlm_set; never
 * prints. capture/capture.c feeds it each command's output and stores the
 * set with store_metric_set(). */
#ifndef IOTAPE_WLMETRIC_H
#define IOTAPE_WLMETRIC_H

#include <regex.h>
#include <stddef.h>

/* One metric as read: name, value in unit, its source ("fio", "dd",
 * "regex"). */
struct wlm {
	char name[64];
	double value;
	char unit[16];          /* "" for a plain number */
	const char *source;     /* a static string */
};

/* A growing set of metrics; a name added twice keeps the later value. */
struct wlm_set {
	struct wlm *m;
	size_t n, cap;
};

/* Adds name = value (unit may be NULL or "") from source to s, replacing a
 * metric of the same name (names longer than 63 bytes are cut). Aborts when
 * out of memory, as xrealloc(). */
void wlm_add(struct wlm_set *s, const char *name, double value,
	     const char *unit, const char *source);

/* Frees the set's rows and empties it. */
void wlm_free(struct wlm_set *s);

/* What a command line is, for reading its output: bits of enum wlm_kind. */
enum wlm_kind {
	WLM_FIO_JSON = 1,       /* fio with --output-format=json or json+ (or a
				 * list holding one) */
	WLM_DD = 2,             /* dd */
};

/* Classifies a command line (argv joined by spaces, or a shell string): a
 * word whose last '/'-part is "fio" or "dd" makes the command one, and
 * fio's words "--output-format=json", "json+" (alone or in a
 * comma list) and "--output=FILE" are looked for after it. FILE (the JSON
 * then goes there, not to stdout) is copied into fio_output (len bytes;
 * "" when none). Returns the enum wlm_kind bits (0: neither). Quoting is
 * not undone: a word is what lies between blanks. */
int wlm_classify(const char *line, char *fio_output, size_t len);

/* Reads fio's JSON output (fio 3.x, --output-format=json or json+; fio's
 * HOWTO "Interpreting the output" and its JSON's field names) from text
 * (len bytes: the JSON object may follow other lines, as with
 * --output-format=normal,json; text after it is ignored). Per direction
 * (read, write, trim) with any I/O (total_ios > 0), as fio names them:
 * DIR_iops (IO/s), DIR_bw_bytes (bytes/s), DIR_io_bytes (bytes),
 * DIR_runtime (ms), DIR_total_ios, DIR_slat_ns_mean, DIR_clat_ns_mean,
 * DIR_lat_ns_mean (ns), and each percentile fio printed for clat_ns or
 * lat_ns as DIR_clat_ns_pP / DIR_lat_ns_pP (ns; P fio's "99.900000" with
 * the trailing zeros cut: p99.9, p50). Several jobs (no group_reporting):
 * iops, bandwidth, bytes and ios summed, runtime the longest, means
 * weighted by each job's ios; percentiles only from a single job entry
 * (they cannot be combined). Returns the number of metrics added to s, or
 * -1 with a message in err (errlen bytes): no JSON object, or fio's JSON
 * lacks "jobs" (jansson's message and the offset given). */
int wlm_fio_json(const char *text, size_t len, struct wlm_set *s, char *err,
		 size_t errlen);

/* Reads dd's last statistics line (coreutils dd(1): "N bytes (S, S)
 * copied, T s, R U/s"; also "1 byte copied" and the older form without the
 * parenthesis) from text (len bytes, dd's stderr): dd_bytes (bytes), dd_s
 * (s) and dd_bytes_per_s (bytes/s: dd's rounded rate with its SI (kB = 1000)
 * or IEC (KiB = 1024) prefix applied). Returns 1 when a line was read, 0
 * when there is none (nothing added). */
int wlm_dd(const char *text, size_t len, struct wlm_set *s);

/* A --metric NAME=REGEX: name and compiled POSIX extended regex. */
struct wlm_regex {
	char name[64];
	regex_t re;
};

/* Compiles spec "NAME=REGEX" (NAME: letters, digits, '_', '.', '-'; REGEX
 * a POSIX extended regular expression, regex(7), with at least one
 * capture group) into r. Returns 0, or -1 with a message in err (errlen
 * bytes). Release with wlm_regex_free(). */
int wlm_regex_compile(struct wlm_regex *r, const char *spec, char *err,
		      size_t errlen);

/* Frees what wlm_regex_compile() made. */
void wlm_regex_free(struct wlm_regex *r);

/* Matches r against text (len bytes; a NUL in it ends the search there)
 * line by line and reads the first capture group of the last line that
 * matches as a number (strtod; a leading '+' and trailing text after the
 * number ignored) into *value. Returns 1 when found, 0 when no line
 * matches, -1 when the last match's group is not a number (the group's
 * text, cut, into err). */
int wlm_regex_match(const struct wlm_regex *r, const char *text, size_t len,
		    double *value, char *err, size_t errlen);

#endif
