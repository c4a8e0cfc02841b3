/* What one replay leaves: its fidelity figures (issue error against the
 * schedule, the replayer's own lag, IOPS, MB/s, latencies beside the
 * original's), printed or emitted as JSON, and its run in the store (kind
 * replay, parent the source): replays rows, requests, settings, statistics. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "lib/util.h"
#include "replay/replay_int.h"

#define LATE_NS 1000000          /* an I/O issued over 1 ms late is late */

/* ---- latencies ---- */

/* Latencies of run's requests: Q2C of bios with data (split halves
 * apart), as report pairs them; D2C of dispatches with data (report's D2C
 * is btt's, a bio's: a request merged from bios counts once for each),
 * what a replay issues. */
int replay_lat_load(struct store *st, int64_t run, struct lat *l, char *err,
		    size_t errlen)
{
	struct store_cursor *cur;
	struct store_request rq;
	int rc;

	memset(l, 0, sizeof(*l));
	if (store_requests_open(st, run, STORE_RQ_ALL_ANY, STORE_RQ_Q | STORE_RQ_D |
				STORE_RQ_C | STORE_RQ_BYTES | STORE_RQ_SPLIT | STORE_RQ_D_HEAD |
				STORE_RQ_DISPATCH, &cur)) {
		snprintf(err, errlen, "%s", store_errmsg(st));
		return -1;
	}
	while ((rc = store_requests_next(cur, &rq, NULL)) > 0) {
		int64_t q = rq.q_ns, d = rq.d_ns, cc = rq.c_ns;
		if (cc == STORE_NO_TIME)
			continue;
		if (q != STORE_NO_TIME && rq.bytes > 0 && !rq.split && cc >= q)
			hist_add(&l->q2c, (uint64_t)(cc - q));
		if (d != STORE_NO_TIME && rq.d_head && rq.has_d && rq.d_bytes > 0 &&
		    cc >= d)
			hist_add(&l->d2c, (uint64_t)(cc - d));
	}
	store_cursor_close(cur);
	if (rc < 0) {
		snprintf(err, errlen, "%s", store_errmsg(st));
		return -1;
	}
	return 0;
}

void replay_lat_free(struct lat *l)
{
	hist_free(&l->q2c);
	hist_free(&l->d2c);
}

/* ---- the figures ---- */

/* A pass over the plan and the results in plan order: what lies behind
 * leaves the resident set (spill.h). */
static void pass_begin(struct ctx *c)
{
	spill_rewind(&c->plan.io_mem);
	if (c->res_mem)
		spill_rewind(c->res_mem);
}

static void pass_at(struct ctx *c, size_t i)
{
	spill_at(&c->plan.io_mem, i, sizeof(struct rio));
	if (c->res_mem)
		spill_at(c->res_mem, i, sizeof(struct rio_result));
}


void replay_fidelity_compute(struct ctx *c, const struct rio_result *res,
			     const struct sched_stats *ss, struct fidelity *f)
{
	struct plan *p = &c->plan;
	double src_s = (double)p->src_span_ns / 1e9;

	pass_begin(c);
	for (size_t i = 0; i < p->n; i++) {
		int64_t e;
		pass_at(c, i);
		if (!res[i].sched_ns)
			continue;
		f->issued++;
		e = res[i].issue_ns - res[i].sched_ns;
		hist_add(&f->err, (uint64_t)(e > 0 ? e : 0));
		if (e > LATE_NS)
			f->late++;
		e = res[i].issue_ns - res[i].free_ns;
		hist_add(&f->own, (uint64_t)(e > 0 ? e : 0));
		if (e > LATE_NS)
			f->own_late++;
		if (res[i].free_ns > res[i].sched_ns)
			f->held++;
		if (res[i].res < 0)
			f->failed++;
		if (p->io[i].op != RIO_FLUSH)
			f->bytes += p->io[i].len;
	}
	f->span_ns = ss->last_complete - ss->first_issue;
	if (f->span_ns > 0) {
		f->iops = (double)f->issued / ((double)f->span_ns / 1e9);
		f->mbs = (double)f->bytes / 1e6 / ((double)f->span_ns / 1e9);
	}
	if (src_s > 0) {
		f->src_iops = (double)p->src_n / src_s;
		f->src_mbs = (double)p->src_bytes / 1e6 / src_s;
	}
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static void emit_row(struct emit *e, const char *label, const char *key,
		     double orig, double rep, int decimals)
{
	char o[32], r[32], q[32];

	emit_obj_begin(e, key);
	emit_num(e, "original", orig);
	emit_num(e, "replay", rep);
	emit_obj_end(e);
	snprintf(o, sizeof(o), "%.*f", decimals, orig);
	snprintf(r, sizeof(r), "%.*f", decimals, rep);
	if (isfinite(ratio(rep, orig)))
		snprintf(q, sizeof(q), "%.2f", ratio(rep, orig));
	else
		snprintf(q, sizeof(q), "-");
	emit_text(e, "  %-16s %14s %14s %14s\n", label, o, r, q);
}

/* The issue error of each I/O against its schedule and against when it
 * was free to go (f's histograms, us): its n, p50, p99, max and how many
 * were late by over 1 ms; none to measure as fast as possible (afap). */
static void emit_issue_error(struct emit *e, const struct fidelity *f,
			     int afap)
{
	emit_obj_begin(e, "issue_error_us");
	emit_u64(e, "n", f->err.n);
	emit_num(e, "p50", afap ? NAN : hist_pct(&f->err, 50) / 1e3);
	emit_num(e, "p99", afap ? NAN : hist_pct(&f->err, 99) / 1e3);
	emit_num(e, "max", afap ? NAN : (double)f->err.max / 1e3);
	emit_u64(e, "late_1ms", afap ? 0 : f->late);
	emit_u64(e, "held", afap ? 0 : f->held);
	emit_obj_end(e);
	emit_obj_begin(e, "own_error_us");
	emit_u64(e, "n", f->own.n);
	emit_num(e, "p50", afap ? NAN : hist_pct(&f->own, 50) / 1e3);
	emit_num(e, "p99", afap ? NAN : hist_pct(&f->own, 99) / 1e3);
	emit_num(e, "max", afap ? NAN : (double)f->own.max / 1e3);
	emit_u64(e, "late_1ms", afap ? 0 : f->own_late);
	emit_obj_end(e);
	if (afap) {
		emit_text(e, "\n  issue error: none to measure (as fast as "
			  "possible)\n");
	} else {
		emit_text(e, "\n  issue error (us)         n        p50        p99"
			  "        max  late >1ms\n");
		emit_text(e, "  vs schedule   %11" PRIu64 " %10.1f %10.1f %10.1f %10"
			  PRIu64 "\n", f->err.n, hist_pct(&f->err, 50) / 1e3,
			  hist_pct(&f->err, 99) / 1e3, (double)f->err.max / 1e3,
			  f->late);
		emit_text(e, "  vs free to go %11" PRIu64 " %10.1f %10.1f %10.1f %10"
			  PRIu64 "\n", f->own.n, hist_pct(&f->own, 50) / 1e3,
			  hist_pct(&f->own, 99) / 1e3, (double)f->own.max / 1e3,
			  f->own_late);
		emit_text(e, "  (%" PRIu64 " I/O%s waited past %s time for %s "
			  "process's previous I/O or\n  a free slot; free to go: "
			  "the later of the schedule and that)\n", f->held,
			  f->held == 1 ? "" : "s", f->held == 1 ? "its" : "their",
			  f->held == 1 ? "its" : "their");
	}
}

/* The replay beside its original: I/Os, span, IOPS, MB/s, Q2C and D2C
 * mean and p99, and their ratio. */
static void emit_vs_original(struct ctx *c, const struct fidelity *f)
{
	struct emit *e = &c->em;
	const struct plan *p = &c->plan;

	emit_text(e, "\n  %-16s %14s %14s %14s\n", "", "original", "replay",
		  "replay/orig");
	emit_row(e, "I/Os", "ios", (double)p->src_n, (double)f->issued, 0);
	emit_row(e, "span s", "span_s", (double)p->src_span_ns / 1e9,
		 (double)f->span_ns / 1e9, 3);
	emit_row(e, "IOPS", "iops", f->src_iops, f->iops, 1);
	emit_row(e, "MB/s", "mb_s", f->src_mbs, f->mbs, 2);
	emit_row(e, "Q2C mean us", "q2c_mean_us", hist_mean(&c->src_lat.q2c) / 1e3,
		 hist_mean(&f->lat.q2c) / 1e3, 1);
	emit_row(e, "Q2C p99 us", "q2c_p99_us", hist_pct(&c->src_lat.q2c, 99) / 1e3,
		 hist_pct(&f->lat.q2c, 99) / 1e3, 1);
	emit_row(e, "D2C/req mean us", "d2c_mean_us", hist_mean(&c->src_lat.d2c) / 1e3,
		 hist_mean(&f->lat.d2c) / 1e3, 1);
	emit_row(e, "D2C/req p99 us", "d2c_p99_us", hist_pct(&c->src_lat.d2c, 99) / 1e3,
		 hist_pct(&f->lat.d2c, 99) / 1e3, 1);
}

void replay_emit_fidelity(struct ctx *c, const char *name, const char *status,
			  const char *tag, const struct fidelity *f,
			  const struct sched_stats *ss)
{
	struct emit *e = &c->em;
	const struct plan *p = &c->plan;
	const char *level = c->o->level == REPLAY_QUEUE ? "queue" : "dispatch";
	int afap = c->o->scale <= 0;

	emit_obj_begin(e, NULL);
	emit_str(e, "run", name);
	emit_str(e, "source", c->src_name);
	emit_str(e, "status", status);
	emit_str(e, "tag", tag);
	emit_str(e, "level", level);
	emit_str(e, "timing", c->timing);
	emit_str(e, "engine", c->eng.ops->name);
	emit_u64(e, "depth", c->depth);
	emit_u64(e, "streams", p->nstreams);
	emit_u64(e, "serial_streams", p->serial_streams);
	emit_str(e, "targets", c->targets_desc);
	emit_u64(e, "ios", f->issued);
	emit_u64(e, "failed", f->failed);
	emit_u64(e, "writes_as_reads", p->as_read);
	emit_u64(e, "flush_writes", p->flush_writes);
	emit_u64(e, "aligned", p->aligned);
	emit_u64(e, "wrapped", p->wrapped);
	emit_u64(e, "discards_skipped", p->discards_skipped);
	emit_u64(e, "dep_waits", ss->dep_waits);
	{
		/* wrapped at 80 columns: long names */
		char head[700], wrapped[800];
		snprintf(head, sizeof(head), "replay '%s' of run '%s': %s, %" PRIu64
			 " I/Os in %.3f s", name, c->src_name, status, f->issued,
			 (double)f->span_ns / 1e9);
		emit_text(e, "%s\n", text_wrap(head, 80, 2, wrapped,
						 sizeof(wrapped)));
	}
	emit_u64(e, "realtime", (uint64_t)c->realtime);
	{
		/* one line, or two when it would pass 78 columns (the
		 * sweep's header indents it by one more) */
		char how[200], what[120];
		snprintf(how, sizeof(how), "%s level, timing %s, %s%s", level,
			 c->timing, c->eng.ops->name,
			 c->realtime ? " (SCHED_FIFO)" : "");
		snprintf(what, sizeof(what), "depth %u, %u stream%s (%u serial)",
			 c->depth, p->nstreams, p->nstreams == 1 ? "" : "s",
			 p->serial_streams);
		emit_text(e, "  %s,%s%s\n", how,
			  strlen(how) + strlen(what) + 4 > 78 ? "\n  " : " ", what);
	}
	emit_text(e, "  on %s\n", c->targets_desc);
	if (c->own_ops)
		c->own_ops->replay_emit(c->own, e);
	emit_text(e, "  writes as reads %" PRIu64 ", flush+writes %" PRIu64
		  ", aligned %" PRIu64 ", wrapped %" PRIu64 ", failed %" PRIu64
		  "\n", p->as_read, p->flush_writes, p->aligned, p->wrapped,
		  f->failed);
	if (p->discards_skipped)
		emit_text(e, "  discards skipped (target not writable) %" PRIu64 "\n",
			  p->discards_skipped);
	emit_num(e, "steal_pct", f->steal_pct >= 0 ? f->steal_pct : NAN);
	if (f->steal_pct >= 1)
		emit_text(e, "  the hypervisor took %.0f%% of this machine's CPU time "
			  "during the replay (steal):\n  timing suffers whatever "
			  "the replayer does\n", f->steal_pct);

	emit_issue_error(e, f, afap);
	emit_vs_original(c, f);
	if (!c->o->trace)
		emit_text(e, "  (the replay's Q2C and D2C are submission to "
			  "completion as iotape saw them;\n  --trace gives the "
			  "block layer's)\n");
	emit_text(e, "\n");
	emit_obj_end(e);
	fflush(e->fp);
}

/* ---- storing ---- */

static void stat_num(struct store *st, int64_t run, const char *key, double v,
		     int decimals)
{
	char b[64];

	if (!isfinite(v))
		return;
	snprintf(b, sizeof(b), "%.*f", decimals, v);
	store_stat_set(st, run, key, b);
}

static void stat_u64(struct store *st, int64_t run, const char *key, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	store_stat_set(st, run, key, b);
}

static int cmp_issue(const void *a, const void *b, void *arg)
{
	const struct rio_result *r = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (r[x].issue_ns != r[y].issue_ns)
		return r[x].issue_ns < r[y].issue_ns ? -1 : 1;
	return (x > y) - (x < y);
}

/* The requests rows of an untraced replay stored without a
 * replay_writer (a --trace replay whose trace came out empty): one per I/O, queued and
 * dispatched when it was issued, with btt's D2D seek distance per target
 * in issue order. */
static int store_requests(struct ctx *c, int64_t run,
			  const struct rio_result *res)
{
	const struct plan *p = &c->plan;
	uint32_t *ord = xmalloc((p->n ? p->n : 1) * sizeof(*ord));
	uint64_t prev_end[REPLAY_MAX_TARGETS];
	int have_prev[REPLAY_MAX_TARGETS] = { 0 };
	size_t n = 0;
	int64_t id;
	int rc;

	pass_begin(c);
	for (size_t i = 0; i < p->n; i++) {
		pass_at(c, i);
		if (res[i].sched_ns)
			ord[n++] = (uint32_t)i;
	}
	qsort_r(ord, n, sizeof(*ord), cmp_issue, (void *)res);
	pass_begin(c);
	if ((rc = store_next_request_id(c->st, &id)))
		goto out;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = ord[k];
		const struct rio *io = &p->io[i];
		struct store_request rq = { 0 };

		pass_at(c, i);
		rq.dev = c->tg[io->target].dev;
		rq.sector = io->off / 512;
		rq.bytes = io->len;
		replay_rwbs(io, rq.rwbs, &rq.cats);
		rq.pid = io->pid;
		rq.q_ns = rq.d_ns = res[i].issue_ns;
		rq.g_ns = rq.m_ns = rq.i_ns = STORE_NO_TIME;
		rq.c_ns = res[i].complete_ns ? res[i].complete_ns : STORE_NO_TIME;
		rq.has_d = 1;
		rq.d_sector = rq.sector;
		rq.d_bytes = rq.bytes;
		rq.d_head = 1;
		rq.error = res[i].res < 0 ? -res[i].res : 0;
		if (io->len && io->op != RIO_DISCARD) {
			uint64_t s = rq.sector, e = s + io->len / 512;
			if (have_prev[io->target]) {
				uint64_t pe = prev_end[io->target];
				rq.has_seek = 1;
				rq.seek_sectors = s >= pe ? (int64_t)(s - pe) :
						  e <= pe ? (int64_t)(pe - s) : 0;
			}
			have_prev[io->target] = 1;
			prev_end[io->target] = e;
		}
		if ((rc = store_request_add(c->st, run, id++, &rq)))
			goto out;
		run_summaries_add(&c->sums, run, &rq);
	}
out:
	free(ord);
	return rc;
}

/* The replays rows of the I/Os issued, in schedule order. Returns 0 or
 * -STORE_E_SQLITE. */
static int store_replays(struct ctx *c, int64_t run, const struct rio_result *res)
{
	const struct plan *p = &c->plan;
	struct store_replay *rows = xcalloc(4096, sizeof(*rows));
	size_t n = 0;
	int rc = 0;

	pass_begin(c);
	for (size_t i = 0; i < p->n && !rc; i++) {
		pass_at(c, i);
		if (res[i].sched_ns)
			replay_row(c, res, i, &rows[n++]);
		if (n == 4096 || (n && i + 1 == p->n)) {
			rc = store_replays_add(c->st, run, rows, n);
			n = 0;
		}
	}
	free(rows);
	return rc;
}

static int add_note_event(struct store *st, int64_t run, int64_t t, uint32_t dev,
			  const char *msg)
{
	struct bt_event ev = {
		.time_ns = (uint64_t)t,
		.action = BT_N_MESSAGE | ((uint64_t)BT_C_NOTIFY << 16),
		.pid = (uint32_t)getpid(), .dev = dev,
		.pdu_len = (uint16_t)strlen(msg), .pdu = (const uint8_t *)msg,
	};
	return store_event_add(st, run, &ev);
}

static void save_settings(struct store *st, int64_t run, struct setting *s,
			  int n, const char *at)
{
	for (int i = 0; i < n; i++)
		store_setting_add(st, run, s[i].key, s[i].value, at);
}


/* The replay's figures into run's run_stats (replay.*): how it was run,
 * what the plan changed, the fidelity of its timing (f) and its latencies
 * beside the source run's, and the engine's own. Like the settings, a
 * figure that cannot be stored is left out. */
static void store_replay_stats(struct ctx *c, struct store *st, int64_t run,
			       const struct outcome *oc, const struct fidelity *f,
			       int traced)
{
	const struct replay_opts *o = c->o;
	int afap = o->scale <= 0;
	const struct plan *p = &c->plan;
	store_stat_set(st, run, "replay.source", c->src_name);
	store_stat_set(st, run, "replay.level",
		       o->level == REPLAY_QUEUE ? "queue" : "dispatch");
	store_stat_set(st, run, "replay.timing", c->timing);
	store_stat_set(st, run, "replay.engine", c->eng.ops->name);
	store_stat_set(st, run, "replay.streams",
		       o->single_stream ? "single" : "pid");
	store_stat_set(st, run, "replay.targets", c->targets_desc);
	store_stat_set(st, run, "replay.traced", traced ? "1" : "0");
	store_stat_set(st, run, "replay.realtime", c->realtime ? "1" : "0");
	if (f->steal_pct >= 0)
		stat_num(st, run, "replay.steal_pct", f->steal_pct, 2);
	stat_u64(st, run, "replay.depth", c->depth);
	stat_u64(st, run, "replay.depth_original", p->depth_orig);
	stat_u64(st, run, "replay.ios", f->issued);
	stat_u64(st, run, "replay.ios_original", p->src_n);
	stat_u64(st, run, "replay.failed", f->failed);
	stat_u64(st, run, "replay.writes_as_reads", p->as_read);
	stat_u64(st, run, "replay.flush_writes", p->flush_writes);
	stat_u64(st, run, "replay.aligned", p->aligned);
	stat_u64(st, run, "replay.wrapped", p->wrapped);
	stat_u64(st, run, "replay.discards_skipped", p->discards_skipped);
	stat_u64(st, run, "replay.dep_waits", oc->ss->dep_waits);
	stat_u64(st, run, "replay.max_gap_ns", (uint64_t)c->o->max_gap_ns);
	stat_u64(st, run, "replay.gaps_shortened", c->gaps);
	stat_u64(st, run, "replay.gap_removed_ns", (uint64_t)c->gap_removed_ns);
	stat_u64(st, run, "replay.streams_n", p->nstreams);
	stat_u64(st, run, "replay.serial_streams", p->serial_streams);
	if (!afap) {
		stat_num(st, run, "replay.issue_err_p50_us",
			 hist_pct(&f->err, 50) / 1e3, 3);
		stat_num(st, run, "replay.issue_err_p99_us",
			 hist_pct(&f->err, 99) / 1e3, 3);
		stat_num(st, run, "replay.issue_err_max_us",
			 (double)f->err.max / 1e3, 3);
		stat_u64(st, run, "replay.late_1ms", f->late);
		stat_u64(st, run, "replay.held", f->held);
		stat_num(st, run, "replay.own_err_p50_us",
			 hist_pct(&f->own, 50) / 1e3, 3);
		stat_num(st, run, "replay.own_err_p99_us",
			 hist_pct(&f->own, 99) / 1e3, 3);
		stat_num(st, run, "replay.own_err_max_us",
			 (double)f->own.max / 1e3, 3);
		stat_u64(st, run, "replay.own_late_1ms", f->own_late);
	}
	stat_num(st, run, "replay.span_s", (double)f->span_ns / 1e9, 6);
	stat_num(st, run, "replay.span_s_original",
		 (double)p->src_span_ns / 1e9, 6);
	stat_num(st, run, "replay.iops", f->iops, 1);
	stat_num(st, run, "replay.iops_original", f->src_iops, 1);
	stat_num(st, run, "replay.mb_s", f->mbs, 3);
	stat_num(st, run, "replay.mb_s_original", f->src_mbs, 3);
	stat_num(st, run, "replay.q2c_mean_us", hist_mean(&f->lat.q2c) / 1e3,
		 3);
	stat_num(st, run, "replay.q2c_p99_us", hist_pct(&f->lat.q2c, 99) / 1e3,
		 3);
	stat_num(st, run, "replay.d2c_mean_us", hist_mean(&f->lat.d2c) / 1e3,
		 3);
	stat_num(st, run, "replay.d2c_p99_us", hist_pct(&f->lat.d2c, 99) / 1e3,
		 3);
	stat_num(st, run, "replay.q2c_mean_us_original",
		 hist_mean(&c->src_lat.q2c) / 1e3, 3);
	stat_num(st, run, "replay.q2c_p99_us_original",
		 hist_pct(&c->src_lat.q2c, 99) / 1e3, 3);
	stat_num(st, run, "replay.d2c_mean_us_original",
		 hist_mean(&c->src_lat.d2c) / 1e3, 3);
	stat_num(st, run, "replay.d2c_p99_us_original",
		 hist_pct(&c->src_lat.d2c, 99) / 1e3, 3);
	if (oc->tag)
		store_stat_set(st, run, "tag", oc->tag);
	if (c->own_ops)
		c->own_ops->replay_store(c->own, st, run);
}

/* Stores one replay as run name; fills f (the replay's latencies come from
 * the stored requests). Returns 0 and *run_out, or -1 with err. */
int replay_store_begin(struct ctx *c, const char *name, int64_t *run,
		       char *err, size_t errlen)
{
	struct store *st = c->st;
	char src[1400];
	struct run_info ri = { .name = name, .kind = "replay",
			       .parent = c->src_run, .source = src };

	snprintf(src, sizeof(src), "replay of '%s' on %s", c->src_name,
		 c->targets_desc);
	if (store_begin(st))
		goto fail;
	if (store_run_create(st, &ri, run) ||
	    run_summaries_open(&c->sums, st, *run)) {
		snprintf(err, errlen, "%s: %s", store_shown(db_path_default(c->o->db)),
			 store_errmsg(st));
		store_rollback(st);
		run_summaries_free(&c->sums);
		return -1;
	}
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", store_shown(db_path_default(c->o->db)), store_errmsg(st));
	return -1;
}

int replay_store_one(struct ctx *c, const char *name, const struct outcome *oc,
		     struct fidelity *f, int64_t *run_out, char *err,
		     size_t errlen)
{
	const struct replay_opts *o = c->o;
	struct store *st = c->st;
	struct stat sb;
	int64_t run = 0;
	char src[1400];
	int rc, traced = 0;

	snprintf(src, sizeof(src), "replay of '%s' on %s", c->src_name,
		 c->targets_desc);
	if (!oc->run && (rc = store_begin(st)))
		goto fail;
	if (oc->run) {
		/* made by replay_store_begin(), its rows already written */
		uint32_t dev0 = c->tg[0].dev;
		run = oc->run;
		if ((rc = add_note_event(st, run, oc->ss->t0, dev0,
					 "iotape replay start")) ||
		    (rc = add_note_event(st, run,
					 oc->ss->last_complete > oc->ss->t0 ?
					 oc->ss->last_complete : oc->ss->t0,
					 dev0, "iotape replay end")) ||
		    (rc = store_run_finish(st, run, oc->status, oc->ss->t0)))
			goto fail;
	} else if (oc->raw && stat(oc->raw, &sb) == 0 && sb.st_size > 0) {
		struct import_opts io = { .quiet = 1, .sums = &c->sums };
		if ((rc = import_one(st, &io, oc->raw, name, &run, err, errlen)))
			goto out;
		traced = 1;
		if ((rc = store_run_set(st, run, "kind", "replay")) ||
		    (rc = store_run_set(st, run, "source", src)) ||
		    (rc = store_run_set(st, run, "status", oc->status)))
			goto fail;
	} else {
		struct run_info ri = { .name = name, .kind = "replay",
				       .parent = c->src_run, .source = src };
		uint32_t dev0 = c->tg[0].dev;
		if ((rc = store_run_create(st, &ri, &run)) ||
		    (rc = run_summaries_open(&c->sums, st, run)))
			goto fail;
		if ((rc = add_note_event(st, run, oc->ss->t0, dev0,
					 "iotape replay start")) ||
		    (rc = add_note_event(st, run,
					 oc->ss->last_complete > oc->ss->t0 ?
					 oc->ss->last_complete : oc->ss->t0,
					 dev0, "iotape replay end")) ||
		    (rc = store_run_finish(st, run, oc->status, oc->ss->t0)))
			goto fail;
	}
	if ((rc = store_run_set_parent(st, run, c->src_run)) ||
	    (rc = store_processes_copy(st, run, c->src_run)))
		goto fail;
	for (int i = 0; i < oc->nset0 && !rc; i++) {
		if (!strcmp(oc->set0[i].key, "host"))
			rc = store_run_set(st, run, "host", oc->set0[i].value);
		else if (!strcmp(oc->set0[i].key, "kernel.release"))
			rc = store_run_set(st, run, "kernel", oc->set0[i].value);
	}
	if (rc)
		goto fail;
	save_settings(st, run, oc->set0, oc->nset0, "start");
	save_settings(st, run, oc->set1, oc->nset1, "end");
	for (int i = 0; i < c->ntg; i++) {
		const char *nm = c->tg[i].blkdev && c->tg[i].disk[0] ? c->tg[i].disk
								      : c->tg[i].path;
		if ((rc = store_device_add(st, run, c->tg[i].dev, nm,
					   (int64_t)c->tg[i].size, "data")))
			goto fail;
	}
	if (oc->run) {
		f->lat = *oc->lat;   /* the writer paired them */
		memset(oc->lat, 0, sizeof(*oc->lat));
	} else {
		if ((rc = store_replays(c, run, oc->res)))
			goto fail;
		if (!traced && (rc = store_requests(c, run, oc->res)))
			goto fail;
		if (replay_lat_load(st, run, &f->lat, err, errlen)) {
			rc = -1;
			goto out;
		}
	}
	store_replay_stats(c, st, run, oc, f, traced);
	if ((rc = run_summaries_write(&c->sums, st)) || (rc = store_commit(st)))
		goto fail;
	*run_out = run;
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", store_shown(db_path_default(o->db)), store_errmsg(st));
out:
	store_rollback(st);
	run_summaries_free(&c->sums);
	return -1;
}
