/* A capture's rows file (see capture_rows.h): written by capture beside its
 * raw trace, read back into the store by capture and by `iotape import`. */
#include "import/capture_rows.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/util.h"

#define MAX_FIELDS 10

void capture_rows_put(FILE *fp, const char *kind, int n, const char *const *f)
{
	fputs(kind, fp);
	for (int i = 0; i < n; i++) {
		fputc('\t', fp);
		for (const char *p = f[i] ? f[i] : ""; *p; p++) {
			if (*p == '\\')
				fputs("\\\\", fp);
			else if (*p == '\t')
				fputs("\\t", fp);
			else if (*p == '\n')
				fputs("\\n", fp);
			else
				fputc(*p, fp);
		}
	}
	fputc('\n', fp);
}

int capture_rows_sniff_file(const char *path)
{
	char head[sizeof(CAPTURE_ROWS_MAGIC) + 1];
	FILE *fp = fopen(path, "r");
	int yes;

	if (!fp)
		return 0;
	yes = fgets(head, sizeof(head), fp) &&
	      !strncmp(head, CAPTURE_ROWS_MAGIC, strlen(CAPTURE_ROWS_MAGIC)) &&
	      (head[strlen(CAPTURE_ROWS_MAGIC)] == '\n' ||
	       !head[strlen(CAPTURE_ROWS_MAGIC)]);
	fclose(fp);
	return yes;
}

/* Splits line (no newline) at tabs into f[] in place, unescaping each
 * field; returns the number of fields, or -1 for a bad escape. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *r = line, *w = line;

	f[n++] = w;
	for (; *r; r++) {
		if (*r == '\t') {
			*w++ = '\0';
			if (n == max)
				return -1;
			f[n++] = w;
		} else if (*r == '\\') {
			r++;
			if (*r == '\\')
				*w++ = '\\';
			else if (*r == 't')
				*w++ = '\t';
			else if (*r == 'n')
				*w++ = '\n';
			else
				return -1;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return n;
}

/* An int64 field ("-" when not known: STORE_NO_TIME). */
static int get_i64(const char *s, int64_t *v)
{
	uint64_t u;
	int neg = *s == '-' && s[1];

	if (!strcmp(s, "-")) {
		*v = STORE_NO_TIME;
		return 0;
	}
	if (dec_u64(s + neg, &u, NULL) || u > (uint64_t)INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

/* A double field ("-": NAN). */
static int get_f64(const char *s, double *v)
{
	if (!strcmp(s, "-")) {
		*v = NAN;
		return 0;
	}
	return dec_double(s, DEC_SIGN | DEC_FRAC | DEC_EXP, v, NULL);
}

/* The trace the file names: as written, else the file of that name beside
 * the rows file (both moved together), into out. */
static void trace_path(const char *rows, const char *named, char *out,
		       size_t len)
{
	const char *base = strrchr(named, '/'), *dir = strrchr(rows, '/');
	struct stat sb;

	snprintf(out, len, "%s", named);
	if (stat(out, &sb) == 0)
		return;
	base = base ? base + 1 : named;
	if (dir)
		snprintf(out, len, "%.*s/%s", (int)(dir - rows), rows, base);
	else
		snprintf(out, len, "%s", base);
	if (stat(out, &sb) < 0)
		snprintf(out, len, "%s", named);
}

/* What the rows before the run is made give: name, trace, genesis. */
struct head {
	char name[256];
	char trace[PATH_MAX];
	int64_t genesis;
};

/* Rows files being read, one inside another: a rows file's trace is read
 * by import_one(), which would read a rows file named there (itself, or two
 * naming each other) without end. */
static int rows_nesting;

/* Makes the run: the trace imported into it, or a run with no events. */
static int make_run(struct store *st, const struct import_opts *o,
		    const char *path, const struct head *h, int64_t *run,
		    char *err, size_t errlen)
{
	struct import_opts oo = *o;
	int64_t id;
	int rc;

	if (store_run_find(st, h->name, &id) == 0) {
		snprintf(err, errlen, "%s: a run named '%s' exists; give another "
			 "--run", path, h->name);
		return -EEXIST;
	}
	if (h->trace[0]) {
		oo.label = oo.source = oo.name_base = NULL;
		oo.summary = NULL;
		rows_nesting++;
		rc = import_one(st, &oo, h->trace, h->name, run, err, errlen);
		rows_nesting--;
		return rc;
	}
	{
		struct run_info ri = { .name = h->name, .kind = "capture" };
		if ((rc = store_run_create(st, &ri, run)) ||
		    (rc = run_summaries_open(o->sums, st, *run)) ||
		    (rc = store_run_finish(st, *run, "complete", h->genesis))) {
			import_store_error(st, path, err, errlen);
			return rc;
		}
	}
	return 0;
}

/* One row after the run is made; 0, -EINVAL (a bad row: *bad says what)
 * or a store error. */
static int put_row(struct store *st, int64_t run, char **f, int n,
		   const char **bad)
{
	const char *k = f[0];
	uint64_t u;
	int64_t a, b, c;
	double x, y, z;

	if (!strcmp(k, "kind") || !strcmp(k, "status") || !strcmp(k, "source") ||
	    !strcmp(k, "host") || !strcmp(k, "kernel")) {
		if (n != 2)
			return *bad = "a run column and its value", -EINVAL;
		return store_run_set(st, run, k, f[1]);
	}
	if (!strcmp(k, "setting")) {
		if (n != 4 || (strcmp(f[1], "start") && strcmp(f[1], "end")))
			return *bad = "setting start|end KEY VALUE", -EINVAL;
		return store_setting_add(st, run, f[2], f[3], f[1]);
	}
	if (!strcmp(k, "device")) {
		if (n != 5 || dec_u64(f[1], &u, NULL) || u > UINT32_MAX ||
		    get_i64(f[3], &a))
			return *bad = "device DEV NAME SIZE ROLE", -EINVAL;
		return store_device_add(st, run, (uint32_t)u, f[2][0] ? f[2] : NULL,
					a == STORE_NO_TIME ? 0 : a, f[4]);
	}
	if (!strcmp(k, "command")) {
		struct store_command cmd = { 0 };
		if (n != 9 || dec_u64(f[1], &u, NULL) || u > INT_MAX ||
		    get_i64(f[2], &a) || get_i64(f[3], &b) || get_f64(f[4], &x) ||
		    get_f64(f[5], &y) || get_f64(f[6], &z) || get_i64(f[7], &c) ||
		    c < INT_MIN || c > INT_MAX)
			return *bad = "command IDX START END REAL USER SYS STATUS "
				      "ARGV", -EINVAL;
		cmd = (struct store_command){ .idx = (int)u, .argv = f[8],
			.start_ns = a, .end_ns = b, .real_s = x, .user_s = y,
			.sys_s = z, .status = (int)c };
		return store_command_add(st, run, &cmd);
	}
	if (!strcmp(k, "sample")) {
		if (n != 5 || get_i64(f[1], &a) || a == STORE_NO_TIME ||
		    get_f64(f[4], &x))
			return *bad = "sample TIME SOURCE KEY VALUE", -EINVAL;
		return store_sample_add(st, run, a, f[2], f[3], x);
	}
	if (!strcmp(k, "metric")) {
		if (n != 5 || get_f64(f[2], &x) || !isfinite(x))
			return *bad = "metric NAME VALUE UNIT SOURCE", -EINVAL;
		return store_metric_set(st, run, f[1], x, f[3][0] ? f[3] : NULL, f[4]);
	}
	if (!strcmp(k, "stat")) {
		if (n != 3)
			return *bad = "stat KEY VALUE", -EINVAL;
		return store_stat_set(st, run, f[1], f[2]);
	}
	if (!strcmp(k, "process")) {
		if (n != 3 || dec_u64(f[1], &u, NULL) || u > UINT32_MAX)
			return *bad = "process PID COMM", -EINVAL;
		return store_process_set(st, run, (uint32_t)u, f[2]);
	}
	return *bad = "a row iotape does not know", -EINVAL;
}

int import_capture_rows(struct store *st, const struct import_opts *o,
			const char *path, const char *name, int64_t *run_out,
			char *err, size_t errlen)
{
	FILE *fp;
	struct head h = { .genesis = 0 };
	char *line = NULL, *f[MAX_FIELDS];
	size_t cap = 0;
	ssize_t len;
	uint64_t ln = 0, rows = 0;
	int64_t run = 0;
	int rc = 0;

	if (rows_nesting) {
		snprintf(err, errlen, "%s: a capture-rows file named as the trace "
			 "of another (its trace row must name the capture's "
			 "trace)", path);
		return -EINVAL;
	}
	fp = fopen(path, "r");

	err[0] = '\0';
	if (!fp) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -errno;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		const char *bad = NULL;
		int n;
		ln++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (ln == 1) {
			if (strcmp(line, CAPTURE_ROWS_MAGIC)) {
				bad = "not '" CAPTURE_ROWS_MAGIC "'";
				goto bad_row;
			}
			continue;
		}
		if (!len)
			continue;
		if ((n = split(line, f, MAX_FIELDS)) < 0) {
			bad = "a bad escape (\\\\, \\t and \\n only)";
			goto bad_row;
		}
		if (!run && (!strcmp(f[0], "run") || !strcmp(f[0], "trace") ||
			     !strcmp(f[0], "genesis"))) {
			if (n != 2 || (!strcmp(f[0], "genesis") &&
				       get_i64(f[1], &h.genesis))) {
				bad = "run NAME, trace PATH or genesis NS";
				goto bad_row;
			}
			if (!strcmp(f[0], "run")) {
				snprintf(h.name, sizeof(h.name), "%s", name ? name : f[1]);
				/* a row's name, as a file's: no control
				 * characters (--run refuses them) */
				run_name_clean(h.name);
			}
			else if (!strcmp(f[0], "trace"))
				trace_path(path, f[1], h.trace, sizeof(h.trace));
			continue;
		}
		if (!run) {
			if (!h.name[0] && name)
				snprintf(h.name, sizeof(h.name), "%s", name);
			if (!h.name[0]) {
				bad = "no 'run NAME' before the rows (give --run)";
				goto bad_row;
			}
			if ((rc = make_run(st, o, path, &h, &run, err, errlen)))
				goto out;
		}
		if ((rc = put_row(st, run, f, n, &bad)) == -EINVAL && bad)
			goto bad_row;
		if (rc) {
			import_store_error(st, path, err, errlen);
			goto out;
		}
		rows++;
		continue;
bad_row:
		snprintf(err, errlen, "%s: line %" PRIu64 ": %s", path, ln, bad);
		rc = -EINVAL;
		goto out;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		rc = -EIO;
		goto out;
	}
	if (!run) {
		if (!h.name[0] && name)
			snprintf(h.name, sizeof(h.name), "%s", name);
		if (!h.name[0] || ln == 0) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": %s", path, ln,
				 ln ? "no 'run NAME' (give --run)" : "empty");
			rc = -EINVAL;
			goto out;
		}
		if ((rc = make_run(st, o, path, &h, &run, err, errlen)))
			goto out;
	}
	if (o->summary)
		snprintf(o->summary, o->summary_len, "imported '%s' as run '%s': "
			 "%s%s%s, %" PRIu64 " rows of its capture", path, h.name,
			 h.trace[0] ? "its trace '" : "no trace",
			 h.trace[0] ? h.trace : "", h.trace[0] ? "'" : "", rows);
	if (run_out)
		*run_out = run;
out:
	free(line);
	fclose(fp);
	return rc;
}
