/* The /proc samplers: parsers of vmstat, meminfo, stat, diskstats and
 * pressure text (bytes in, key/value pairs out) and procstat_sample(), which
 * reads them from a proc root. Formats: proc(5), Documentation/accounting/
 * psi.rst, Documentation/admin-guide/iostats.rst. */
#include "procstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"

/* A view of one line of a buffer: [p, end). */
struct line {
	const char *p, *end;
};

/* Moves *pos past the next line of buf and returns it in *ln; 0 at the end. */
static int next_line(const char *buf, size_t len, size_t *pos, struct line *ln)
{
	const char *nl;

	if (*pos >= len)
		return 0;
	ln->p = buf + *pos;
	nl = memchr(ln->p, '\n', len - *pos);
	ln->end = nl ? nl : buf + len;
	*pos = (size_t)(ln->end - buf) + (nl ? 1 : 0);
	return 1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The next whitespace-separated token of *ln into tok (toklen bytes, cut to
 * fit); returns its length, 0 when the line is used up. */
static size_t next_token(struct line *ln, char *tok, size_t toklen)
{
	const char *s;
	size_t n;

	while (ln->p < ln->end && is_space(*ln->p))
		ln->p++;
	s = ln->p;
	while (ln->p < ln->end && !is_space(*ln->p))
		ln->p++;
	n = (size_t)(ln->p - s);
	if (toklen) {
		size_t c = n < toklen - 1 ? n : toklen - 1;
		memcpy(tok, s, c);
		tok[c] = '\0';
	}
	return n;
}

static int blank(const struct line *ln)
{
	for (const char *p = ln->p; p < ln->end; p++)
		if (!is_space(*p))
			return 0;
	return 1;
}

/* Parses a whole decimal number (digits, one point, a sign) into *v. */
static int number(const char *s, double *v)
{
	char *end;
	int digits = 0;

	for (const char *p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digits++;
		else if (*p != '.' && !(p == s && (*p == '-' || *p == '+')))
			return -1;
	}
	if (!digits)
		return -1;
	*v = strtod(s, &end);
	return *end ? -1 : 0;
}

static int bad(int *bad_line, int lineno)
{
	if (bad_line)
		*bad_line = lineno;
	return -EINVAL;
}

/* "name value" lines (/proc/vmstat, memory.stat): each value to kv under
 * source, its key the name with suffix(name) appended (suffix may be
 * NULL). */
static int parse_pairs(const char *buf, size_t len, const char *source,
		       const char *(*suffix)(const char *name), procstat_kv_fn kv,
		       void *ctx, int *bad_line)
{
	size_t pos = 0;
	struct line ln;
	int lineno = 0, rc;

	while (next_line(buf, len, &pos, &ln)) {
		char name[128], val[64], extra[8], key[144];
		double v;

		lineno++;
		if (blank(&ln))
			continue;
		if (next_token(&ln, name, sizeof(name)) >= sizeof(name) ||
		    next_token(&ln, val, sizeof(val)) >= sizeof(val) ||
		    number(val, &v) || next_token(&ln, extra, sizeof(extra)))
			return bad(bad_line, lineno);
		snprintf(key, sizeof(key), "%s%s", name, suffix ? suffix(name) : "");
		if ((rc = kv(ctx, source, key, v)))
			return rc;
	}
	return 0;
}

int procstat_parse_vmstat(const char *buf, size_t len, procstat_kv_fn kv,
			  void *ctx, int *bad_line)
{
	return parse_pairs(buf, len, "vmstat", NULL, kv, ctx, bad_line);
}

int procstat_parse_meminfo(const char *buf, size_t len, procstat_kv_fn kv,
			   void *ctx, int *bad_line)
{
	size_t pos = 0;
	struct line ln;
	int lineno = 0, rc;

	while (next_line(buf, len, &pos, &ln)) {
		char name[128], val[64], unit[16];
		size_t n;
		double v;

		lineno++;
		if (blank(&ln))
			continue;
		n = next_token(&ln, name, sizeof(name));
		if (n < 2 || n >= sizeof(name) || name[n - 1] != ':')
			return bad(bad_line, lineno);
		name[n - 1] = '\0';
		if (next_token(&ln, val, sizeof(val)) >= sizeof(val) ||
		    number(val, &v))
			return bad(bad_line, lineno);
		n = next_token(&ln, unit, sizeof(unit));
		if (n && strcmp(unit, "kB"))
			return bad(bad_line, lineno);
		if ((rc = kv(ctx, "meminfo", name, v)))
			return rc;
	}
	return 0;
}

int procstat_parse_stat(const char *buf, size_t len, procstat_kv_fn kv,
			void *ctx, int *bad_line)
{
	static const char *const cpu_keys[] = {
		"cpu_user", "cpu_nice", "cpu_system", "cpu_idle", "cpu_iowait",
		"cpu_irq", "cpu_softirq", "cpu_steal", "cpu_guest",
		"cpu_guest_nice",
	};
	static const char *const single[] = {
		"ctxt", "intr", "softirq", "btime", "processes", "procs_running",
		"procs_blocked",
	};
	size_t pos = 0;
	struct line ln;
	int lineno = 0, rc;

	while (next_line(buf, len, &pos, &ln)) {
		char name[64], val[64];
		double v;
		size_t i;

		lineno++;
		if (!next_token(&ln, name, sizeof(name)))
			continue;
		if (!strcmp(name, "cpu")) {
			for (i = 0; i < ARRAY_SIZE(cpu_keys); i++) {
				if (!next_token(&ln, val, sizeof(val)))
					break;
				if (number(val, &v))
					return bad(bad_line, lineno);
				if ((rc = kv(ctx, "stat", cpu_keys[i], v)))
					return rc;
			}
			if (i < 4)   /* user nice system idle are in every kernel */
				return bad(bad_line, lineno);
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(single); i++)
			if (!strcmp(name, single[i]))
				break;
		if (i == ARRAY_SIZE(single))
			continue;
		if (next_token(&ln, val, sizeof(val)) >= sizeof(val) ||
		    number(val, &v))
			return bad(bad_line, lineno);
		if ((rc = kv(ctx, "stat", single[i], v)))
			return rc;
	}
	return 0;
}

int procstat_parse_psi(const char *resource, const char *buf, size_t len,
		       procstat_kv_fn kv, void *ctx, int *bad_line)
{
	size_t pos = 0;
	struct line ln;
	int lineno = 0, rc;

	while (next_line(buf, len, &pos, &ln)) {
		char kind[16], tok[96], key[128];
		double v;

		lineno++;
		if (blank(&ln))
			continue;
		next_token(&ln, kind, sizeof(kind));
		if (strcmp(kind, "some") && strcmp(kind, "full"))
			return bad(bad_line, lineno);
		while (next_token(&ln, tok, sizeof(tok))) {
			char *eq = strchr(tok, '=');
			if (!eq || eq == tok || number(eq + 1, &v))
				return bad(bad_line, lineno);
			*eq = '\0';
			snprintf(key, sizeof(key), "%s_%s_%s", resource, kind, tok);
			if ((rc = kv(ctx, "psi", key, v)))
				return rc;
		}
	}
	return 0;
}

/* The key suffix of a memory.stat field: "" for an event count, "_bytes"
 * for an amount. */
static const char *memcg_suffix(const char *name)
{
	static const char *const counters[] = {
		"pg", "workingset_", "thp_", "pswp", "zswp", "swpin_", "swpout_",
		"numa_",
	};

	if (!strncmp(name, "total_", 6))
		name += 6;
	for (size_t i = 0; i < ARRAY_SIZE(counters); i++)
		if (!strncmp(name, counters[i], strlen(counters[i])))
			return "";
	return "_bytes";
}

int procstat_parse_memcg(const char *buf, size_t len, procstat_kv_fn kv,
			 void *ctx, int *bad_line)
{
	return parse_pairs(buf, len, "memcg", memcg_suffix, kv, ctx, bad_line);
}

/* A file read whole: in .small when it fits (every /proc file a sample reads
 * does, so sampling allocates nothing), else in a malloc'd block. */
struct filebuf {
	char *p;        /* .small or the heap block; NUL-terminated */
	size_t len;     /* bytes read */
	char small[16384];
};

static void filebuf_done(struct filebuf *f)
{
	if (f->p != f->small)
		free(f->p);
	f->p = NULL;
}

/* Reads the whole file dir/name into *f (see struct filebuf; filebuf_done
 * frees it). Returns 0 or -errno (nothing to free then). */
static int slurp(const char *dir, const char *name, struct filebuf *f)
{
	char path[4096];
	size_t cap = sizeof(f->small), n = 0;
	char *b = f->small;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;
		if (n + 1 == cap) {              /* room for the NUL */
			if (b == f->small) {
				b = xmalloc(cap * 2);
				memcpy(b, f->small, n);
			} else {
				b = xrealloc(b, cap * 2);
			}
			cap *= 2;
		}
		r = read(fd, b + n, cap - 1 - n);
		if (r < 0) {
			int e = errno;
			if (e == EINTR)
				continue;
			if (b != f->small)
				free(b);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	f->p = b;
	f->len = n;
	return 0;
}

/* The names of /proc/diskstats' fields after major, minor and name, in
 * order (Documentation/admin-guide/iostats.rst: 1-11 since 2.6, 12-15
 * discards since 4.18, 16-17 flushes since 5.5). */
const char *const procstat_disk_fields[PROCSTAT_DISK_FIELDS] = {
	"reads", "reads_merged", "read_sectors", "read_ms",
	"writes", "writes_merged", "write_sectors", "write_ms",
	"in_flight", "io_ms", "weighted_io_ms",
	"discards", "discards_merged", "discard_sectors", "discard_ms",
	"flushes", "flush_ms",
};

int procstat_parse_diskstats(const char *buf, size_t len, const uint32_t *devs,
			     int ndev, procstat_kv_fn kv, void *ctx,
			     int *bad_line)
{
	size_t pos = 0;
	struct line ln;
	int lineno = 0, rc;

	while (next_line(buf, len, &pos, &ln)) {
		char tok[64], name[64], key[128];
		double maj, min, v;
		uint32_t dev;
		int want = !ndev;
		size_t f, n;

		lineno++;
		if (blank(&ln))
			continue;
		if (next_token(&ln, tok, sizeof(tok)) >= sizeof(tok) || number(tok, &maj) ||
		    next_token(&ln, tok, sizeof(tok)) >= sizeof(tok) || number(tok, &min) ||
		    maj < 0 || min < 0 || maj >= 4096 || min >= 1048576)
			return bad(bad_line, lineno);
		n = next_token(&ln, name, sizeof(name));
		if (!n || n >= sizeof(name))
			return bad(bad_line, lineno);
		dev = (uint32_t)maj << 20 | (uint32_t)min;
		for (int i = 0; i < ndev && !want; i++)
			want = devs[i] == dev;
		for (f = 0; next_token(&ln, tok, sizeof(tok)); f++) {
			if (number(tok, &v) || f >= PROCSTAT_DISK_FIELDS)
				return bad(bad_line, lineno);
			snprintf(key, sizeof(key), "%u,%u:%s", (unsigned)maj, (unsigned)min,
				 procstat_disk_fields[f]);
			if (want && (rc = kv(ctx, "diskstats", key, v)))
				return rc;
		}
		if (f < 11)
			return bad(bad_line, lineno);
	}
	return 0;
}

/* Adapts procstat_kv_fn calls to the sampler's callback with its time. */
struct sample_ctx {
	procstat_sample_fn fn;
	void *ctx;
	int64_t t_ns;
};

static int sample_kv(void *vctx, const char *source, const char *key, double v)
{
	struct sample_ctx *s = vctx;
	return s->fn(s->ctx, s->t_ns, source, key, v);
}

int procstat_sample(const char *proc_root, int64_t t_ns, procstat_sample_fn fn,
		    void *ctx, char *err, size_t errlen)
{
	static const struct {
		const char *file;
		const char *psi;    /* resource name for pressure files */
		int (*parse)(const char *, size_t, procstat_kv_fn, void *, int *);
	} files[] = {
		{ "vmstat", NULL, procstat_parse_vmstat },
		{ "meminfo", NULL, procstat_parse_meminfo },
		{ "stat", NULL, procstat_parse_stat },
		{ "pressure/io", "io", NULL },
		{ "pressure/memory", "memory", NULL },
		{ "pressure/cpu", "cpu", NULL },
	};
	struct sample_ctx sc = { fn, ctx, t_ns };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct filebuf f;
		int line = 0, rc;

		rc = slurp(proc_root, files[i].file, &f);
		if (rc && files[i].psi
		    && (rc == -ENOENT || rc == -EOPNOTSUPP))
			continue;
		if (rc) {
			if (err)
				snprintf(err, errlen, "cannot read '%s/%s': %s",
					 proc_root, files[i].file, strerror(-rc));
			return rc;
		}
		if (files[i].psi)
			rc = procstat_parse_psi(files[i].psi, f.p, f.len,
						sample_kv, &sc, &line);
		else
			rc = files[i].parse(f.p, f.len, sample_kv, &sc, &line);
		filebuf_done(&f);
		if (rc == -EINVAL && line && err)
			snprintf(err, errlen, "%s/%s: line %d: cannot parse",
				 proc_root, files[i].file, line);
		else if (rc && err)
			snprintf(err, errlen, "%s/%s: sample callback failed "
				 "(%d)", proc_root, files[i].file, rc);
		if (rc)
			return rc;
	}
	return 0;
}

int procstat_sample_diskstats(const char *proc_root, int64_t t_ns,
			      const uint32_t *devs, int ndev,
			      procstat_sample_fn fn, void *ctx, char *err,
			      size_t errlen)
{
	struct sample_ctx sc = { fn, ctx, t_ns };
	struct filebuf f;
	int line = 0, rc;
	int64_t t0 = t_ns == PROCSTAT_AT_READ ? now_mono_ns() : 0;

	rc = slurp(proc_root, "diskstats", &f);
	if (t_ns == PROCSTAT_AT_READ)
		sc.t_ns = t0 + (now_mono_ns() - t0) / 2;
	if (rc) {
		if (err)
			snprintf(err, errlen, "cannot read '%s/diskstats': %s",
				 proc_root, strerror(-rc));
		return rc;
	}
	rc = procstat_parse_diskstats(f.p, f.len, devs, ndev, sample_kv, &sc,
				      &line);
	filebuf_done(&f);
	if (rc == -EINVAL && line && err)
		snprintf(err, errlen, "%s/diskstats: line %d: cannot parse",
			 proc_root, line);
	else if (rc && err)
		snprintf(err, errlen, "%s/diskstats: sample callback failed (%d)",
			 proc_root, rc);
	return rc;
}

int procstat_sample_memcg(const char *cgroup_dir, int64_t t_ns,
			  procstat_sample_fn fn, void *ctx, char *err,
			  size_t errlen)
{
	struct sample_ctx sc = { fn, ctx, t_ns };
	static const char *const usage[] = { "memory.usage_in_bytes",
					     "memory.current" };
	struct filebuf f;
	int line = 0, rc;

	if ((rc = slurp(cgroup_dir, "memory.stat", &f))) {
		if (err)
			snprintf(err, errlen, "cannot read '%s/memory.stat': %s",
				 cgroup_dir, strerror(-rc));
		return rc;
	}
	rc = procstat_parse_memcg(f.p, f.len, sample_kv, &sc, &line);
	filebuf_done(&f);
	if (rc) {
		if (err && rc == -EINVAL && line)
			snprintf(err, errlen, "%s/memory.stat: line %d: cannot parse",
				 cgroup_dir, line);
		else if (err)
			snprintf(err, errlen, "%s/memory.stat: sample callback "
				 "failed (%d)", cgroup_dir, rc);
		return rc;
	}
	for (size_t i = 0; i < ARRAY_SIZE(usage); i++) {
		double v;
		if (slurp(cgroup_dir, usage[i], &f))
			continue;
		f.p[strcspn(f.p, "\n")] = '\0';
		rc = number(f.p, &v) ? 0 : fn(ctx, t_ns, "memcg", "usage_bytes", v);
		filebuf_done(&f);
		if (rc)
			return rc;
		break;
	}
	return 0;
}
