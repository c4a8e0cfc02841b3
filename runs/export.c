/* The exporters of `iotape export` (see export.h). Every read of the
 * stored run is one small function at the end of this file. */
#include "export.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runs/blkparse_print.h"
#include "trace/blktrace_format.h"
#include "lib/util.h"

/* ---- reads of the stored run (one function each) ---- */

/* A read's error message (the reads print nothing). */
static char read_err[256];

/* Calls fn for each device of rv with its stored name (or NULL). Returns 0,
 * or -1 with read_err set. */
static int read_devices(struct runview *rv,
			void (*fn)(void *ctx, uint32_t dev, const char *name),
			void *ctx);

/* One request row as the CSV writes it; times STORE_NO_TIME when NULL. */
struct xrow {
	int64_t id, merged_into, split_from;
	uint32_t dev, bytes, pid, d_bytes, requeues;
	int error, has_d;
	uint64_t sector, d_sector;
	char rwbs[8];
	int64_t q, g, m, i, d, c;
};

/* Calls fn for each request of rv in order of its first time, then id;
 * stops at fn's non-zero result. Returns it, 0, or -1 with read_err set. */
static int read_requests(struct runview *rv,
			 int (*fn)(void *ctx, const struct xrow *r), void *ctx);

enum export_format export_format_parse(const char *name)
{
	static const struct { const char *n; enum export_format f; } t[] = {
		{ "fio", EXPORT_FIO }, { "blktrace", EXPORT_BLKTRACE },
		{ "csv", EXPORT_CSV }, { "blkparse", EXPORT_BLKPARSE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(t[i].n, name))
			return t[i].f;
	return 0;
}

/* ---- fio iolog v3 ---- */

struct fdev {
	uint32_t dev;
	char name[280];         /* the file name fio opens */
	char label[64];         /* the run's name for it (loop0), or "" */
	/* I/O lines by [0] Q, [1] D: reads, writes and the writes' bytes */
	uint64_t reads[2], writes[2], wbytes[2];
};

struct fio_ctx {
	FILE *fp;
	struct export_stats *st;
	struct fdev *devs;
	size_t ndev;
	uint64_t qs;
	int64_t genesis, last_us;
	unsigned code;         /* BT_A_QUEUE, or BT_A_ISSUE when no Q */
};

static struct fdev *fdev_of(struct fio_ctx *f, uint32_t dev)
{
	for (size_t i = 0; i < f->ndev; i++)
		if (f->devs[i].dev == dev)
			return &f->devs[i];
	f->devs = xrealloc(f->devs, (f->ndev + 1) * sizeof(*f->devs));
	memset(&f->devs[f->ndev], 0, sizeof(*f->devs));
	f->devs[f->ndev].dev = dev;
	/* a name that is no device: fio run without --replay_redirect
	 * writes a file of this name in its folder, not whatever disk has
	 * these numbers where it runs (/dev/block/MAJ:MIN once) */
	snprintf(f->devs[f->ndev].name, sizeof(f->devs[0].name), "iotape-dev-%u,%u",
		 BT_MAJOR(dev), BT_MINOR(dev));
	return &f->devs[f->ndev++];
}

static int fio_scan(void *vctx, const struct bt_event *ev)
{
	struct fio_ctx *f = vctx;
	unsigned code = bt_code(ev);

	if (bt_is_notify(ev) || (bt_cats(ev) & BT_C_PC))
		return 0;
	if (code == BT_A_QUEUE)
		f->qs++;
	if (code == BT_A_QUEUE || code == BT_A_ISSUE) {
		struct fdev *d = fdev_of(f, ev->dev);
		int k = code == BT_A_ISSUE;
		uint64_t c = bt_cats(ev);
		/* as fio_line() writes them: data, not discards */
		if (ev->bytes && !(c & BT_C_DISCARD) && (c & BT_C_WRITE)) {
			d->writes[k]++;
			d->wbytes[k] += ev->bytes;
		} else if (ev->bytes && !(c & BT_C_DISCARD))
			d->reads[k]++;
	}
	return 0;
}

static void fio_name(void *vctx, uint32_t dev, const char *name)
{
	struct fio_ctx *f = vctx;

	/* the stored name (loop0, an imported fio log's /dev/sdb) is said
	 * on stderr beside the file's; the file keeps a name that is no
	 * device, for the reason fdev_of() gives */
	for (size_t i = 0; i < f->ndev; i++) {
		if (f->devs[i].dev != dev || !name || !name[0])
			continue;
		snprintf(f->devs[i].label, sizeof(f->devs[i].label), "%s", name);
	}
}

/* What the iolog cannot hold, into st->note for stderr: each file's device
 * and what it holds, and where fio's writes go. (fio's
 * iolog v3 has no comments: a '#' line makes fio say "bad iolog3".) */
static void fio_note(const struct fio_ctx *f)
{
	char *n = f->st->note;
	size_t len = sizeof(f->st->note), o = 0;
	int k = f->code == BT_A_ISSUE;
	uint64_t writes = 0;

	n[0] = '\0';
	for (size_t i = 0; i < f->ndev && o < len; i++) {
		const struct fdev *d = &f->devs[i];
		o += (size_t)snprintf(n + o, len - o, "%s is its device %u,%u%s%s%s: %"
				      PRIu64 " reads, %" PRIu64 " writes (%.2f MB)\n",
				      d->name, BT_MAJOR(d->dev), BT_MINOR(d->dev),
				      d->label[0] ? " (" : "", d->label,
				      d->label[0] ? ")" : "", d->reads[k],
				      d->writes[k], (double)d->wbytes[k] / 1e6);
		writes += d->writes[k];
	}
	if (o < len && writes)
		snprintf(n + o, len - o, "its writes go to a file of that name in "
			 "fio's folder, not a disk; to\n  replay them on a scratch "
			 "device:\n  fio --read_iolog=FILE "
			 "--replay_redirect=/dev/SCRATCH\n");
	else if (o < len)
		snprintf(n + o, len - o, "no writes: fio reads only "
			 "(--replay_redirect=DEV reads DEV)\n");
}

static int fio_line(void *vctx, const struct bt_event *ev)
{
	struct fio_ctx *f = vctx;
	uint64_t c = bt_cats(ev);
	const char *act;
	int64_t us;
	int k;

	if (bt_is_notify(ev) || (bt_cats(ev) & BT_C_PC) || bt_code(ev) != f->code)
		return 0;
	if (!ev->bytes) {
		if (!(c & BT_C_FLUSH)) {
			f->st->skipped++;
			return 0;
		}
		act = "sync";
		f->st->syncs++;
		k = -1;
	} else if (c & BT_C_DISCARD) {
		act = "trim";
		f->st->trims++;
		k = 2;
	} else if (c & BT_C_WRITE) {
		act = "write";
		f->st->writes++;
		k = 1;
	} else {
		act = "read";
		f->st->reads++;
		k = 0;
	}
	us = ((int64_t)ev->time_ns - f->genesis) / 1000;
	if (us < f->last_us)
		us = f->last_us;   /* fio takes no time backwards */
	f->last_us = us;
	if (k >= 0)
		f->st->bytes[k] += ev->bytes;
	f->st->records++;
	fprintf(f->fp, "%" PRId64 " %s %s %" PRIu64 " %u\n", us,
		fdev_of(f, ev->dev)->name, act, k >= 0 ? ev->sector * 512 : 0,
		k >= 0 ? ev->bytes : 0);
	return ferror(f->fp) ? -1 : 0;
}

static int export_fio(struct runview *rv, FILE *fp, struct export_stats *st)
{
	struct fio_ctx f = { .fp = fp, .st = st, .genesis = rv->genesis_ns };
	int rc;

	if ((rc = runview_events(rv, fio_scan, &f)) ||
	    (rc = read_devices(rv, fio_name, &f)))
		goto out;
	f.code = f.qs ? BT_A_QUEUE : BT_A_ISSUE;
	st->from_d = !f.qs;
	fprintf(fp, "fio version 3 iolog\n");
	fio_note(&f);
	for (size_t i = 0; i < f.ndev; i++)
		fprintf(fp, "0 %s add\n", f.devs[i].name);
	for (size_t i = 0; i < f.ndev; i++)
		fprintf(fp, "0 %s open\n", f.devs[i].name);
	if ((rc = runview_events(rv, fio_line, &f)))
		goto out;
	for (size_t i = 0; i < f.ndev; i++)
		fprintf(fp, "%" PRId64 " %s close\n", f.last_us, f.devs[i].name);
out:
	free(f.devs);
	return rc;
}

/* ---- blktrace v7 ---- */

struct bt_ctx {
	FILE *fp;
	struct export_stats *st;
	int be;
	uint64_t shift;        /* added to every time (see export_blktrace) */
	uint8_t buf[BT_V8_SIZE + 65536];
};

static int bt_put(struct bt_ctx *b, const struct bt_event *ev)
{
	long n = bt_encode(ev, 7, b->be, b->buf, sizeof(b->buf));

	if (n < 0)
		return -1;
	if (fwrite(b->buf, (size_t)n, 1, b->fp) != 1)
		return -1;
	b->st->records++;
	return 0;
}

/* The category the kernel gives an action (blktrace_api.h BLK_TA_*), for
 * events stored without one (imported from text): blkparse drops records
 * with no category bit (its act_mask test). The kernel also sets READ or
 * WRITE on every record; READ stands in for it. */
static uint64_t kernel_cat(unsigned code)
{
	switch (code) {
	case BT_A_REQUEUE: return BT_C_REQUEUE;
	case BT_A_ISSUE: return BT_C_ISSUE;
	case BT_A_COMPLETE: return BT_C_COMPLETE;
	case BT_A_SPLIT: case BT_A_BOUNCE: return BT_C_READ;
	case BT_A_DRV_DATA: return BT_C_DRV_DATA;
	default: return BT_C_QUEUE;
	}
}

static int bt_event(void *vctx, const struct bt_event *ev)
{
	struct bt_ctx *b = vctx;
	struct bt_event e = *ev;

	if (!(e.action >> 16))
		e.action |= kernel_cat(bt_code(&e)) << 16;
	e.time_ns += b->shift;
	if (e.action >> 32) {
		/* categories only blk_io_trace2 (v8) has */
		e.action &= 0xffffffffull;
		b->st->skipped++;
	}
	return bt_put(b, &e);
}

static int export_blktrace(struct runview *rv, FILE *fp, struct export_stats *st)
{
	struct bt_ctx *b = xcalloc(1, sizeof(*b));
	int rc = 0;

	b->fp = fp;
	b->st = st;
	b->be = htobe16(1) == 1;
	/* blkparse in pipe mode takes a first time of 0 as "no genesis yet"
	 * and re-bases each batch of records (blkparse.c sort_entries): a run
	 * that starts at 0 (text imports) is written 1 ns later */
	b->shift = rv->genesis_ns == 0 && rv->first_event ? 1 : 0;
	/* when tracing began, as blktrace's start-time record says it
	 * (kernel/trace/blktrace.c trace_note_time: u32 seconds, u32
	 * nanoseconds of the wall clock, in this machine's order; 0 where the
	 * run does not know it): no traced I/O from then to the first event,
	 * which a trace that begins at its first I/O does not say */
	if (rv->first_event && rv->traced_from_ns < rv->genesis_ns) {
		struct bt_event ev = { 0 };
		uint32_t w[2] = {
			(uint32_t)(rv->traced_wall_ns / 1000000000),
			(uint32_t)(rv->traced_wall_ns % 1000000000) };
		ev.time_ns = (uint64_t)rv->traced_from_ns + b->shift;
		ev.action = BT_N_TIMESTAMP | ((uint64_t)BT_C_NOTIFY << 16);
		ev.pdu = (uint8_t *)w;
		ev.pdu_len = sizeof(w);
		rc = bt_put(b, &ev);
	}
	/* process names first, as blktrace sends them and blkparse -d keeps
	 * them: notify records of kind process, the name NUL-padded to the
	 * kernel's 16-byte comm */
	for (size_t i = 0; i < rv->cap && !rc; i++) {
		struct bt_event ev = { 0 };
		uint8_t comm[16] = { 0 };
		if (!rv->comms || !rv->comms[i])
			continue;
		strncpy((char *)comm, rv->comms[i], sizeof(comm) - 1);
		ev.time_ns = (uint64_t)rv->genesis_ns + b->shift;
		ev.action = BT_N_PROCESS | ((uint64_t)BT_C_NOTIFY << 16);
		ev.pid = rv->pids[i];
		ev.pdu = comm;
		ev.pdu_len = sizeof(comm);
		rc = bt_put(b, &ev);
	}
	if (!rc)
		rc = runview_events(rv, bt_event, b);
	free(b);
	return rc;
}

/* ---- CSV of requests ---- */

struct csv_ctx {
	FILE *fp;
	struct export_stats *st;
	struct runview *rv;
	int64_t genesis;
};

#define CSV_HEADER "id,major,minor,sector,bytes,rwbs,pid,comm,q_ns,g_ns,m_ns," \
	"i_ns,d_ns,c_ns,q2g_us,g2i_us,q2m_us,i2d_us,m2d_us,q2d_us,d2c_us," \
	"q2c_us,d_sector,d_bytes,merged_into,split_from,requeues,error"

static void csv_time(FILE *fp, int64_t t, int64_t genesis)
{
	if (t == STORE_NO_TIME)
		fputc(',', fp);
	else
		fprintf(fp, ",%" PRId64, t - genesis);
}

static void csv_stage(FILE *fp, int64_t a, int64_t b)
{
	if (a == STORE_NO_TIME || b == STORE_NO_TIME)
		fputc(',', fp);
	else
		fprintf(fp, ",%.3f", (double)(b - a) / 1e3);
}

/* A comm as a CSV field: quoted when it holds a comma or a quote. */
static void csv_str(FILE *fp, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s == '\n' ? ' ' : *s, fp);
	}
	fputc('"', fp);
}

static int csv_row(void *vctx, const struct xrow *r)
{
	struct csv_ctx *x = vctx;
	FILE *fp = x->fp;

	fprintf(fp, "%" PRId64 ",%u,%u,%" PRIu64 ",%u,%s,%u,", r->id,
		BT_MAJOR(r->dev), BT_MINOR(r->dev), r->sector, r->bytes, r->rwbs,
		r->pid);
	csv_str(fp, runview_comm(x->rv, r->pid));
	csv_time(fp, r->q, x->genesis);
	csv_time(fp, r->g, x->genesis);
	csv_time(fp, r->m, x->genesis);
	csv_time(fp, r->i, x->genesis);
	csv_time(fp, r->d, x->genesis);
	csv_time(fp, r->c, x->genesis);
	csv_stage(fp, r->q, r->g);
	csv_stage(fp, r->g, r->i);
	csv_stage(fp, r->q, r->m);
	csv_stage(fp, r->i, r->d);
	csv_stage(fp, r->m, r->d);
	csv_stage(fp, r->q, r->d);
	csv_stage(fp, r->d, r->c);
	csv_stage(fp, r->q, r->c);
	if (r->has_d)
		fprintf(fp, ",%" PRIu64 ",%u", r->d_sector, r->d_bytes);
	else
		fputs(",,", fp);
	if (r->merged_into)
		fprintf(fp, ",%" PRId64, r->merged_into);
	else
		fputc(',', fp);
	if (r->split_from)
		fprintf(fp, ",%" PRId64, r->split_from);
	else
		fputc(',', fp);
	fprintf(fp, ",%u,%d\n", r->requeues, r->error);
	x->st->records++;
	return ferror(fp) ? -1 : 0;
}

static int export_csv(struct runview *rv, FILE *fp, struct export_stats *st)
{
	struct csv_ctx x = { .fp = fp, .st = st, .rv = rv, .genesis = rv->genesis_ns };

	fprintf(fp, "%s\n", CSV_HEADER);
	return read_requests(rv, csv_row, &x);
}

/* ---- blkparse text ---- */

struct text_ctx {
	FILE *fp;
	struct runview *rv;
	struct export_stats *st;
};

static int text_line(void *vctx, const struct bt_event *ev)
{
	struct text_ctx *t = vctx;

	/* lines written, not events read: notify records print none */
	t->st->records += (uint64_t)blkparse_print_event(t->fp, ev,
			t->rv->genesis_ns, runview_comm(t->rv, ev->pid));
	return ferror(t->fp) ? -1 : 0;
}

int export_run(struct runview *rv, enum export_format fmt, FILE *fp,
	       struct export_stats *st, char *err, size_t errlen)
{
	struct text_ctx t = { .fp = fp, .rv = rv, .st = st };
	int rc;

	memset(st, 0, sizeof(*st));
	read_err[0] = err[0] = '\0';
	switch (fmt) {
	case EXPORT_FIO: rc = export_fio(rv, fp, st); break;
	case EXPORT_BLKTRACE: rc = export_blktrace(rv, fp, st); break;
	case EXPORT_CSV: rc = export_csv(rv, fp, st); break;
	case EXPORT_BLKPARSE: rc = runview_events(rv, text_line, &t); break;
	default:
		snprintf(err, errlen, "unknown export format");
		return -1;
	}
	if (!rc && fflush(fp))
		rc = -1;
	if (rc && ferror(fp))
		snprintf(err, errlen, "writing run '%s': %s", rv->name,
			 strerror(errno));
	else if (rc && read_err[0])
		snprintf(err, errlen, "%s", read_err);
	/* else runview_events() has said what failed */
	return rc;
}

/* ---- the reads, through the store's read API (schema/store.h) ---- */

static int read_devices(struct runview *rv,
			void (*fn)(void *ctx, uint32_t dev, const char *name),
			void *ctx)
{
	struct store_device *devs;
	size_t n;

	if (store_devices_get(rv->st, rv->id, &devs, &n)) {
		snprintf(read_err, sizeof(read_err), "reading devices: %s",
			 store_errmsg(rv->st));
		return -1;
	}
	for (size_t k = 0; k < n; k++)
		fn(ctx, devs[k].dev, devs[k].name);
	free(devs);
	return 0;
}

static int read_requests(struct runview *rv,
			 int (*fn)(void *ctx, const struct xrow *r), void *ctx)
{
	const unsigned cols = STORE_RQ_DEV | STORE_RQ_SECTOR | STORE_RQ_BYTES |
		STORE_RQ_RWBS | STORE_RQ_PID | STORE_RQ_Q | STORE_RQ_G |
		STORE_RQ_M | STORE_RQ_I | STORE_RQ_D | STORE_RQ_C |
		STORE_RQ_DISPATCH | STORE_RQ_MERGED_INTO | STORE_RQ_SPLIT_FROM |
		STORE_RQ_REQUEUES | STORE_RQ_ERROR;
	struct store_cursor *cur;
	struct store_request q;
	int64_t id;
	int step, rc = 0;

	if (store_requests_open_range(rv->st, rv->id, STORE_RQ_FIRST, cols,
				      rv->filtered ? &rv->range : NULL, &cur)) {
		snprintf(read_err, sizeof(read_err), "reading requests: %s",
			 store_errmsg(rv->st));
		return -1;
	}
	while ((step = store_requests_next(cur, &q, &id)) == 1) {
		struct xrow r = {
			.id = id, .dev = q.dev, .sector = q.sector,
			.bytes = q.bytes, .pid = q.pid, .q = q.q_ns, .g = q.g_ns,
			.m = q.m_ns, .i = q.i_ns, .d = q.d_ns, .c = q.c_ns,
			.has_d = q.has_d, .d_sector = q.d_sector,
			.d_bytes = q.d_bytes, .merged_into = q.merged_into,
			.split_from = q.split_from, .requeues = q.requeues,
			.error = q.error,
		};
		memcpy(r.rwbs, q.rwbs, sizeof(r.rwbs));
		if ((rc = fn(ctx, &r)))
			break;
	}
	if (!rc && step < 0) {
		snprintf(read_err, sizeof(read_err), "reading requests: %s",
			 store_errmsg(rv->st));
		rc = -1;
	}
	store_cursor_close(cur);
	return rc;
}
