/* Trace inputs: find what a path names (single stream, per-CPU set, blkparse
 * text), map the files, decode records and deliver them to a sink in time
 * order. The one place where per-CPU streams are merged (as perf's
 * ordered-events.c is for perf). */
#include "trace_input.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "import/formats.h"
#include "lib/util.h"

/* A single stream's records may be slightly out of time order across CPUs
 * (tracefs): a reorder window of this many records puts them back in order
 * with bounded memory. */
#define REORDER_WINDOW 4096
/* Records more than this much older than the newest one read mark a step
 * of the trace clock (or traces joined end to end). */
#define CLOCK_STEP_NS 1000000000ull

struct source {
	const char *path;
	const char *name; /* the path as messages give it */
	const uint8_t *map;
	size_t len, off;
	struct bt_stream bs;
	int file_cpu;     /* CPU number from the file name, -1 for a stream */
	int only_cpu;     /* a stream read as one CPU's records: the CPU;
			   * else -1 */
	size_t rec_off;   /* offset of the record source_next() returned last */
	size_t released;  /* pages before this offset were given back */
};

/* Mapped pages of a trace are given back to the kernel behind the reader in
 * steps of this many bytes, so memory stays flat however long the trace. */
#define RELEASE_STEP ((size_t)8 << 20)

/* Drops the pages of s before offset upto (no record before it is needed
 * any more) from this process's memory. */
static void source_release(struct source *s, size_t upto)
{
	static size_t pg;   /* asked once: this runs for every record */
	size_t a;

	if (!pg)
		pg = (size_t)sysconf(_SC_PAGESIZE);
	a = upto & ~(pg - 1);
	if (s->map && a >= s->released + RELEASE_STEP) {
		madvise((void *)(s->map + s->released), a - s->released,
			MADV_DONTNEED);
		s->released = a;
	}
}

/* Adds the len bytes at p (a read-only file mapping) to the hash in 8 MiB
 * steps, giving each step's pages back after it (madvise DONTNEED: they
 * stay in the page cache for the parse), so hashing a 3 GB trace does not
 * hold it in the process's memory. */
static void sha256_mapped(struct sha256_ctx *c, const uint8_t *p, size_t len)
{
	const size_t step = 8u << 20;

	for (size_t o = 0; o < len; o += step) {
		size_t n = len - o < step ? len - o : step;
		sha256_update(c, n, p + o);
		madvise((void *)(p + o), n, MADV_DONTNEED);
	}
}

struct pending {
	struct bt_event ev;
	uint64_t order;   /* arrival order, to keep ties stable */
	size_t off;       /* the record's offset in its source */
	int src;
};

struct heap {
	struct pending *v;
	size_t n, cap;
};

/* Order as blkparse sorts its rb tree: time, then device, then sequence;
 * on a full tie the later arrival goes first, as blkparse's insert sends an
 * equal key to the left (seen on tracefs streams: a C and a P of one
 * nanosecond come out P first). */
static int pending_less(const struct pending *a, const struct pending *b)
{
	if (a->ev.time_ns != b->ev.time_ns)
		return a->ev.time_ns < b->ev.time_ns;
	if (a->ev.dev != b->ev.dev)
		return a->ev.dev < b->ev.dev;
	if (a->ev.sequence != b->ev.sequence)
		return a->ev.sequence < b->ev.sequence;
	return a->order > b->order;
}

static void heap_push(struct heap *h, const struct pending *p)
{
	size_t i;

	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->v = xrealloc(h->v, h->cap * sizeof(*h->v));
	}
	i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (!pending_less(p, &h->v[up]))
			break;
		h->v[i] = h->v[up];
		i = up;
	}
	h->v[i] = *p;
}

static struct pending heap_pop(struct heap *h)
{
	struct pending top = h->v[0], last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct pending *mv = &last;
		if (l < h->n && pending_less(&h->v[l], mv)) {
			m = l;
			mv = &h->v[l];
		}
		if (r < h->n && pending_less(&h->v[r], mv))
			m = r;
		if (m == i)
			break;
		h->v[i] = h->v[m];
		i = m;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

struct reader {
	struct sha256_ctx sha;  /* of the members' bytes, in CPU order */
	struct source *src;
	int nsrc;
	const struct input_opts *opts;
	const struct event_sink *sink;
	struct input_stats *st;
	FILE *warn;
	char *err;
	size_t errlen;
	uint64_t order;
	int names_done;   /* process names were read ahead of the merge */
	int demux;        /* a single stream read as one source per CPU */
};

static int map_file(struct source *s, char *err, size_t errlen)
{
	struct stat sb;
	int fd = open(s->path, O_RDONLY);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", s->name, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", s->name);
		close(fd);
		return -EINVAL;
	}
	s->len = (size_t)sb.st_size;
	s->off = 0;
	s->map = NULL;
	if (s->len) {
		void *m = mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			snprintf(err, errlen, "cannot map '%s': %s", s->name,
				 strerror(errno));
			close(fd);
			return -errno;
		}
		madvise(m, s->len, MADV_SEQUENTIAL);
		s->map = m;
	}
	close(fd);
	return 0;
}

static void unmap_file(struct source *s)
{
	if (s->map)
		munmap((void *)s->map, s->len);
	s->map = NULL;
}

/* The text tracefs puts in a stream where events were lost,
 * "CPU:N [LOST M EVENTS]\n" (kernel/trace/trace.c): returns its length and
 * sets *lost to M, or returns 0 when p does not start with one. */
static size_t lost_marker(const uint8_t *p, size_t len, uint64_t *lost)
{
	size_t i = 4;

	if (len < 20 || memcmp(p, "CPU:", 4))
		return 0;
	while (i < len && isdigit(p[i]))
		i++;
	if (i + 7 > len || memcmp(p + i, " [LOST ", 7))
		return 0;
	i += 7;
	*lost = 0;
	while (i < len && isdigit(p[i]))
		*lost = *lost * 10 + (uint64_t)(p[i++] - '0');
	if (i + 8 > len || memcmp(p + i, " EVENTS]", 8))
		return 0;
	i += 8;
	if (i < len && p[i] == '\n')
		i++;
	return i;
}

/* Decodes the next usable record of s into *ev. Returns 1 when one was read,
 * 0 at the end, or a negative code with err set. Skips (and counts) records
 * with unknown action codes. */
static int source_next(struct reader *r, struct source *s, struct bt_event *ev)
{
	while (s->off < s->len) {
		size_t used;
		int rc = bt_decode(&s->bs, s->map + s->off, s->len - s->off, ev, &used);

		if (rc == -BT_E_PDU_LEN) {
			size_t left = s->len - s->off - s->bs.rec_size;
			if (left < ev->pdu_len)
				snprintf(r->err, r->errlen, "%s: offset %zu: pdu_len "
					 "%u runs past the end of the file (%zu "
					 "bytes left)", s->name, s->off,
					 ev->pdu_len, left);
			else
				snprintf(r->err, r->errlen, "%s: offset %zu: pdu_len "
					 "%u runs to offset %zu, where no record "
					 "starts (bad magic)", s->name, s->off,
					 ev->pdu_len,
					 s->off + s->bs.rec_size + ev->pdu_len);
			return -EINVAL;
		}
		if (rc == -BT_E_SHORT) {
			r->st->truncated_bytes += s->len - s->off;
			if (r->opts && r->opts->strict) {
				snprintf(r->err, r->errlen,
					 "%s: offset %zu: record cut short "
					 "(%zu bytes left)", s->name, s->off,
					 s->len - s->off);
				return -EINVAL;
			}
			/* a file of no whole record: its error says so, once */
			if (r->warn && (s->off > 0 || r->st->records > 0))
				fprintf(r->warn, "iotape: warning: %s: offset %zu: "
					"trace ends inside a record (%zu bytes "
					"ignored; capture cut short?)\n",
					s->name, s->off, s->len - s->off);
			s->off = s->len;
			return 0;
		}
		if (rc == -BT_E_MAGIC) {
			uint64_t lost;
			size_t skip = lost_marker(s->map + s->off, s->len - s->off, &lost);
			if (skip) {
				/* tracefs writes this text into the binary stream
				 * when its ring buffer overflowed */
				r->st->lost_events += lost;
				r->st->lost_markers++;
				s->off += skip;
				continue;
			}
		}
		if (rc) {
			snprintf(r->err, r->errlen, "%s: offset %zu: %s", s->name,
				 s->off, bt_strerror(rc));
			return -EINVAL;
		}
		/* the kernel's clock is an s64 of ns; the store keeps an
		 * int64_t, where a larger time would wrap to a negative one */
		if (ev->time_ns > (uint64_t)INT64_MAX) {
			snprintf(r->err, r->errlen, "%s: offset %zu: time %llu ns "
				 "is past the largest time iotape stores (2^63 - 1 "
				 "ns)", s->name, s->off,
				 (unsigned long long)ev->time_ns);
			return -EINVAL;
		}
		s->rec_off = s->off;
		s->off += used;
		if (s->only_cpu >= 0 && ev->cpu != (uint32_t)s->only_cpu)
			continue;
		if (bt_is_notify(ev) && bt_code(ev) > BT_N_MESSAGE) {
			/* no notify blktrace defines (blktrace_api.h:
			 * BLK_TN_PROCESS, _TIMESTAMP, _MESSAGE) */
			if (!r->st->unknown_action++)
				r->st->unknown_off = s->rec_off;
			r->st->skipped++;
			continue;
		}
		if (!bt_is_notify(ev)) {
			unsigned code = bt_code(ev);
			if (code == 0 || code > BT_A_MAX) {
				if (!r->st->unknown_action++)
					r->st->unknown_off = s->rec_off;
				r->st->skipped++;
				continue;
			}
			if (s->file_cpu >= 0 && ev->cpu != (uint32_t)s->file_cpu)
				r->st->cpu_mismatch++;
			/* kept, as blkparse keeps it, and said: no device
			 * reaches it, so the record is damaged */
			if (ev->sector >= (1ULL << 55) && !r->st->far_sector++)
				r->st->far_off = s->rec_off;
		}
		return 1;
	}
	return 0;
}

/* Passes a process-name notify record's pid→name to the sink. */
static int learn_name(struct reader *r, const struct bt_event *ev)
{
	char comm[256];
	uint16_t len;
	const uint8_t *p = bt_pdu_body(ev, &len);
	size_t n = len < sizeof(comm) - 1 ? len : sizeof(comm) - 1;

	if (!len || !r->sink->process)
		return 0;
	memcpy(comm, p, n);
	comm[n] = '\0';
	return r->sink->process(r->sink->ctx, ev->pid, comm);
}

/* Hands one record to the sink, learning process names from notify records. */
static int deliver(struct reader *r, const struct bt_event *ev)
{
	int rc;

	if (bt_is_notify(ev)) {
		r->st->notify++;
		if (bt_code(ev) == BT_N_PROCESS && !r->names_done &&
		    (rc = learn_name(r, ev)))
			return rc;
	}
	r->st->records++;
	return r->sink->event(r->sink->ctx, ev);
}

/* A single stream: records in file order through a bounded reorder window,
 * kept as a sorted ring. Records come almost in order, so an insertion walks
 * back a step or two at most and the window costs O(1) per record. */
static int read_stream(struct reader *r)
{
	struct pending *ring = xmalloc(REORDER_WINDOW * sizeof(*ring));
	struct source *s = &r->src[0];
	size_t head = 0, n = 0;
	struct bt_event ev;
	int rc = 0, got;

	while ((got = source_next(r, s, &ev)) > 0) {
		struct pending p = { .ev = ev, .order = r->order++,
				     .off = s->rec_off, .src = 0 };
		size_t i;

		if (n == REORDER_WINDOW) {
			if ((rc = deliver(r, &ring[head].ev)))
				goto out;
			head = (head + 1) % REORDER_WINDOW;
			n--;
			source_release(s, ring[head].off);
		}
		/* A record far older than the newest pending one is a clock
		 * step, not reordering across CPUs: keep the file's order across
		 * the step (flush the window) rather than walk the whole window
		 * for every record after it. */
		if (n && p.ev.time_ns + CLOCK_STEP_NS <
			 ring[(head + n - 1) % REORDER_WINDOW].ev.time_ns) {
			r->st->clock_steps++;
			for (; n; n--, head = (head + 1) % REORDER_WINDOW)
				if ((rc = deliver(r, &ring[head].ev)))
					goto out;
			head = 0;
			/* nothing before this record is needed: give it back
			 * here too, or a trace stepping more often than the
			 * window fills (traces joined end to end) keeps all */
			source_release(s, p.off);
		}
		/* insert before the last entries that sort after it */
		for (i = n; i > 0; i--) {
			struct pending *prev = &ring[(head + i - 1) % REORDER_WINDOW];
			if (!pending_less(&p, prev))
				break;
			ring[(head + i) % REORDER_WINDOW] = *prev;
		}
		ring[(head + i) % REORDER_WINDOW] = p;
		n++;
	}
	if (got < 0) {
		rc = got;
		goto out;
	}
	for (; n; n--, head = (head + 1) % REORDER_WINDOW)
		if ((rc = deliver(r, &ring[head].ev)))
			goto out;
out:
	free(ring);
	return rc;
}

/* A per-CPU set: each file is in time order; merge their heads by time.
 * Process names are read first, file by file in CPU order, so that when two
 * CPUs name one pid differently (pid 0: swapper/0, swapper/1) the lower
 * CPU's name wins, as in blkparse. */
static int read_set(struct reader *r)
{
	struct heap h = { 0 };
	struct bt_event ev;
	int rc = 0, got;

	FILE *warn = r->warn;

	r->warn = NULL;   /* the real pass warns */
	for (int i = 0; i < r->nsrc; i++) {
		struct source s = r->src[i];
		struct input_stats saved = *r->st;
		while ((got = source_next(r, &s, &ev)) > 0)
			if (bt_is_notify(&ev) && bt_code(&ev) == BT_N_PROCESS &&
			    (rc = learn_name(r, &ev)))
				return rc;
		*r->st = saved;   /* the real pass counts */
		if (s.map && s.len)
			madvise((void *)s.map, s.len, MADV_DONTNEED);
		if (got < 0)
			break;
	}
	r->warn = warn;
	r->err[0] = '\0';
	r->names_done = 1;

	for (int i = 0; i < r->nsrc; i++) {
		got = source_next(r, &r->src[i], &ev);
		if (got < 0) {
			rc = got;
			goto out;
		}
		if (got) {
			struct pending p = { .ev = ev, .order = r->order++,
					     .off = r->src[i].rec_off, .src = i };
			heap_push(&h, &p);
		}
	}
	while (h.n) {
		struct pending top = heap_pop(&h);
		if ((rc = deliver(r, &top.ev)))
			goto out;
		got = source_next(r, &r->src[top.src], &ev);
		if (got < 0) {
			rc = got;
			goto out;
		}
		if (got) {
			struct pending p = { .ev = ev, .order = r->order++,
					     .off = r->src[top.src].rec_off,
					     .src = top.src };
			heap_push(&h, &p);
			source_release(&r->src[top.src], p.off);
		}
	}
out:
	free(h.v);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Most CPUs a stream may be split into (chunked_stream()). */
#define MAX_STREAM_CPUS 256

/* Whether the single stream s is what `blktrace -o -` writes: each CPU's
 * relay buffer in turn, so every CPU's records are in time order but the
 * stream goes back in time by more than the reorder window can mend (or
 * by over a second, which read_stream() takes for a clock step).
 * Decodes the whole stream once (giving its pages back as it goes); sets
 * cpus[0 .. *ncpu) to the CPUs seen. A stream with a cut-short tail, a
 * tracefs lost-events marker, any error, a CPU going back in time (a
 * clock step: read_stream() handles those) or one CPU only is not. */
static int chunked_stream(struct source *s, uint32_t *cpus, int *ncpu)
{
	uint64_t last[MAX_STREAM_CPUS], max_t = 0, i = 0, max_i = 0;
	int deep = 0, n = 0;
	size_t off = 0;

	while (off < s->len) {
		struct bt_event ev;
		size_t used;
		int k;

		if (bt_decode(&s->bs, s->map + off, s->len - off, &ev, &used))
			goto no;
		off += used;
		for (k = 0; k < n && cpus[k] != ev.cpu; k++)
			;
		if (k == n) {
			if (n == MAX_STREAM_CPUS)
				goto no;
			cpus[n] = ev.cpu;
			last[n++] = 0;
		}
		if (ev.time_ns < last[k])
			goto no;
		last[k] = ev.time_ns;
		if (ev.time_ns >= max_t) {
			max_t = ev.time_ns;
			max_i = i;
		} else if (i - max_i > REORDER_WINDOW ||
			   max_t - ev.time_ns > CLOCK_STEP_NS) {
			/* beyond the window, or what read_stream() would
			 * take for a clock step although no CPU stepped */
			deep = 1;
		}
		i++;
		source_release(s, off);
	}
	s->released = 0;
	/* in CPU order, so the lower CPU's process name wins (read_set()) */
	qsort(cpus, (size_t)n, sizeof(*cpus), cmp_u32);
	*ncpu = n;
	return deep && n > 1;
no:
	s->released = 0;
	return 0;
}

/* The largest CPU number of a per-CPU set's file (Linux allows 8192 CPUs):
 * "f.blktrace.99999999999" is no blktrace file, and a set of CPUs 0 to a
 * number that large cannot be listed. */
#define MAX_SET_CPU 65535

/* Splits "DIR/NAME.blktrace.N" into its base "DIR/NAME" (into base) and N;
 * returns N, -1 when path is not a member's name, or -2 when N is over
 * MAX_SET_CPU (base is set then too). */
static int member_cpu(const char *path, char *base, size_t baselen)
{
	const char *dot = strrchr(path, '.');
	const char *tag = ".blktrace";
	size_t tl = strlen(tag);
	long cpu = 0;

	if (!dot || !dot[1] || (size_t)(dot - path) < tl ||
	    strncmp(dot - tl, tag, tl))
		return -1;
	for (const char *p = dot + 1; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		if (cpu <= MAX_SET_CPU)
			cpu = cpu * 10 + (*p - '0');
	}
	if (base) {
		size_t n = (size_t)(dot - tl - path);
		if (n >= baselen)
			n = baselen - 1;
		memcpy(base, path, n);
		base[n] = '\0';
	}
	return cpu > MAX_SET_CPU ? -2 : (int)cpu;
}

/* The error of path, whose CPU number member_cpu() found too large, named
 * shown in it. */
static int cpu_too_large(const char *shown, const char *path, char *err,
			 size_t errlen)
{
	snprintf(err, errlen, "%s: offset 0: CPU number '%s' is over %d: not a "
		 "file of a blktrace per-CPU set (NAME.blktrace.CPU); rename or "
		 "move it", shown, strrchr(path, '.') + 1, MAX_SET_CPU);
	return -EINVAL;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct source *x = a, *y = b;
	return x->file_cpu - y->file_cpu;
}

/* Describes CPU numbers 0..max missing from the sorted sources as "1-28,30". */
static void missing_list(const struct source *src, int n, char *out, size_t len)
{
	int max = src[n - 1].file_cpu, k = 0;
	size_t o = 0;

	out[0] = '\0';
	for (int c = 0; c <= max; ) {
		if (k < n && src[k].file_cpu == c) {
			k++;
			c++;
			continue;
		}
		int e = c;
		while (e + 1 <= max && !(k < n && src[k].file_cpu == e + 1))
			e++;
		if (o < len)
			o += (size_t)snprintf(out + o, len - o, "%s%d", o ? "," : "", c);
		if (e > c && o < len)
			o += (size_t)snprintf(out + o, len - o, "-%d", e);
		c = e + 1;
	}
}

static int open_set(struct reader *r, const char *base)
{
	char pat[4200];
	glob_t g;
	int n = 0;

	snprintf(pat, sizeof(pat), "%s.blktrace.*", base);
	if (glob(pat, 0, NULL, &g) != 0) {
		struct stat sb;
		if (stat(base, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			snprintf(r->err, r->errlen, "'%s' is a directory", base);
			return -EISDIR;
		}
		snprintf(r->err, r->errlen, "cannot open '%s': no such file, and no "
			 "per-CPU set '%s.blktrace.N'", base, base);
		return -ENOENT;
	}
	r->src = xcalloc(g.gl_pathc, sizeof(*r->src));
	for (size_t i = 0; i < g.gl_pathc; i++) {
		int cpu = member_cpu(g.gl_pathv[i], NULL, 0);
		if (cpu == -2) {
			int rc = cpu_too_large(g.gl_pathv[i], g.gl_pathv[i],
					       r->err, r->errlen);
			r->nsrc = n;   /* freed by the caller */
			globfree(&g);
			return rc;
		}
		if (cpu < 0)
			continue;
		r->src[n].path = xstrdup(g.gl_pathv[i]);
		r->src[n].name = r->src[n].path;
		r->src[n].file_cpu = cpu;
		r->src[n].only_cpu = -1;
		n++;
	}
	globfree(&g);
	if (!n) {
		snprintf(r->err, r->errlen, "no per-CPU files '%s.blktrace.N'", base);
		return -ENOENT;
	}
	qsort(r->src, (size_t)n, sizeof(*r->src), cmp_cpu);
	r->nsrc = n;
	missing_list(r->src, n, r->st->missing_cpus, sizeof(r->st->missing_cpus));
	return 0;
}

/* Maps each source and decides its byte order and version. An empty member
 * of a set is dropped; an empty single file is an error. */
static int prepare_sources(struct reader *r)
{
	for (int i = 0; i < r->nsrc; i++) {
		struct source *s = &r->src[i];
		int rc = map_file(s, r->err, r->errlen);

		if (rc)
			return rc;
		if (s->len == 0)
			continue;
		/* hashed as mapped: the pages are read from disk once, the
		 * parse finds them cached */
		sha256_mapped(&r->sha, s->map, s->len);
		rc = bt_stream_detect(&s->bs, s->map, s->len);
		if (rc) {
			snprintf(r->err, r->errlen, "%s: offset 0: %s", s->name,
				 bt_strerror(rc));
			return -EINVAL;
		}
		if (r->st->version && (r->st->version != s->bs.version)) {
			snprintf(r->err, r->errlen, "%s: offset 0: blktrace version "
				 "%d, other members have %d", s->name,
				 s->bs.version, r->st->version);
			return -EINVAL;
		}
		r->st->version = s->bs.version;
		r->st->big_endian = s->bs.swap ? !(htobe16(1) == 1) : (htobe16(1) == 1);
	}
	if (!r->st->version) {
		snprintf(r->err, r->errlen, "%s: offset 0: empty trace", r->src[0].name);
		return -EINVAL;
	}
	snprintf(r->st->format, sizeof(r->st->format), "blktrace-v%d", r->st->version);
	return 0;
}

/* The hex of a finished SHA-256 into out (65 bytes). */
static void sha256_hex(struct sha256_ctx *c, char *out)
{
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_digest(c, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static int read_text(const char *path, const char *label,
		     const struct event_sink *sink, struct input_stats *st,
		     FILE *warn, char *err, size_t errlen)
{
	struct source src = { .path = path };
	struct sha256_ctx sha;
	FILE *fp;
	int rc;

	/* hashed through a mapping whose pages go back as they are hashed,
	 * then parsed as a stream (the second pass reads the page cache):
	 * memory stays flat however big the text */
	if ((rc = map_file(&src, err, errlen)))
		return rc;
	sha256_init(&sha);
	sha256_mapped(&sha, src.map, src.len);
	sha256_hex(&sha, st->sha256);
	unmap_file(&src);
	if (!(fp = fopen(path, "r"))) {
		snprintf(err, errlen, "cannot open '%s': %s", label, strerror(errno));
		return -errno;
	}
	snprintf(st->format, sizeof(st->format), "blkparse-text");
	rc = blkparse_text_read(fp, label, sink, st, warn, err, errlen);
	fclose(fp);
	return rc;
}

/* Looks at a file's first bytes: 1 binary, 2 text, 0 neither, <0 error. */
static int sniff(const char *path, const char *label, char *err, size_t errlen)
{
	uint8_t buf[4096];
	struct bt_stream bs;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", label, strerror(errno));
		return -errno;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", label, strerror(errno));
		return -EIO;
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: offset 0: empty trace", label);
		return -EINVAL;
	}
	{
		/* blank lines (or a byte order mark) alone: no record, not a
		 * binary record cut short, as a file under 48 bytes reads */
		size_t k = utf8_bom(buf, (size_t)n);
		while (k < (size_t)n && strchr(" \t\r\n", buf[k]) && buf[k])
			k++;
		if (k == (size_t)n && n < (ssize_t)sizeof(buf)) {
			fmt_unknown(buf, (size_t)n, label, err, errlen);
			return -EINVAL;
		}
	}
	if (bt_stream_detect(&bs, buf, (size_t)n) != -BT_E_MAGIC)
		return 1;
	if (blkparse_text_sniff(buf, (size_t)n))
		return 2;
	fmt_unknown(buf, (size_t)n, label, err, errlen);
	return 0;
}

int trace_input_read(const char *input, const struct input_opts *opts,
		     const struct event_sink *sink, struct input_stats *st,
		     FILE *warn, char *err, size_t errlen)
{
	struct reader r = { .opts = opts, .sink = sink, .st = st, .warn = warn,
			    .err = err, .errlen = errlen };
	const char *label = opts && opts->label ? opts->label : input;
	char base[4096];
	struct stat sb;
	int rc, kind, member;

	memset(st, 0, sizeof(*st));
	sha256_init(&r.sha);
	if ((member = member_cpu(input, base, sizeof(base))) == -2)
		return cpu_too_large(label, input, err, errlen);
	if (stat(input, &sb) == 0 && S_ISREG(sb.st_mode) && member < 0) {
		kind = sniff(input, label, err, errlen);
		if (kind < 0)
			return kind;
		if (kind == 2)
			return read_text(input, label, sink, st, warn, err, errlen);
		if (kind == 0)
			return -EINVAL;    /* sniff() said why */
		r.src = xcalloc(1, sizeof(*r.src));
		r.src[0].path = xstrdup(input);
		r.src[0].name = label;
		r.src[0].file_cpu = -1;
		r.src[0].only_cpu = -1;
		r.nsrc = 1;
	} else {
		if (member < 0)
			snprintf(base, sizeof(base), "%s", input);
		if ((rc = open_set(&r, base)))
			goto out;
	}
	if ((rc = prepare_sources(&r)))
		goto out;
	if (r.src[0].file_cpu < 0) {
		uint32_t cpus[MAX_STREAM_CPUS];
		int ncpu = 0;
		if (chunked_stream(&r.src[0], cpus, &ncpu)) {
			/* blktrace -o -: merge the stream's CPUs by time as a
			 * per-CPU set, each CPU a pass over the stream */
			unmap_file(&r.src[0]);
			r.src = xrealloc(r.src, (size_t)ncpu * sizeof(*r.src));
			for (int i = 1; i < ncpu; i++) {
				r.src[i] = r.src[0];
				r.src[i].path = xstrdup(r.src[0].path);
			}
			for (int i = 0; i < ncpu; i++)
				r.src[i].only_cpu = (int)cpus[i];
			r.nsrc = ncpu;
			r.demux = 1;
			if ((rc = prepare_sources(&r)))
				goto out;
		}
	}
	st->ncpu_files = r.src[0].file_cpu >= 0 ? r.nsrc : 0;
	if (st->missing_cpus[0] && warn)
		fprintf(warn, "iotape: warning: %s: per-CPU set has no file for "
			"CPU %s; importing the %d present\n", base,
			st->missing_cpus, r.nsrc);
	sha256_hex(&r.sha, st->sha256);
	rc = r.src[0].file_cpu >= 0 || r.demux ? read_set(&r) : read_stream(&r);
	if (!rc && st->cpu_mismatch && warn)
		fprintf(warn, "iotape: warning: %s: %llu records name another CPU "
			"than their file; trusting the records\n", base,
			(unsigned long long)st->cpu_mismatch);
out:
	for (int i = 0; i < r.nsrc; i++) {
		unmap_file(&r.src[i]);
		free((void *)r.src[i].path);
	}
	free(r.src);
	return rc;
}
