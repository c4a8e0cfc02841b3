/* What compare says beside its verdict (cmp_notes.h). */
#include "analyze/cmp_notes.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/emit.h"

/* 1 when family f of run r has a name of a process it ran: not "pid N"
 * (a tracefs capture names none), not a kernel thread's role (writeback,
 * journal, reclaim: whoever dirtied the data, they write it, in any
 * workload), not the name import gives the one process of a format that
 * has none (fio-iolog, msr-csv: the run's format). */
static int user_named(const struct an_run *r, const struct family *f)
{
	return strncmp(f->name, "pid ", 4) && !(f->role && f->role[0]) &&
	       strcmp(f->name, r->rd.rv->format);
}

/* The share of run r's bytes (queued) from user_named() families. */
static double named_share(const struct an_run *r)
{
	const struct families *fs = &r->cp.fam;
	uint64_t all = 0, named = 0;

	for (int k = 0; k < fs->n; k++) {
		all += fs->f[k].bytes;
		if (user_named(r, &fs->f[k]))
			named += fs->f[k].bytes;
	}
	return all ? (double)named / (double)all : 0;
}

double cmp_same_work(const struct an_run *a, const struct an_run *b)
{
	const struct families *fa = &a->cp.fam, *fb = &b->cp.fam;
	uint64_t all = 0, same = 0;

	if (named_share(a) < 0.5 || named_share(b) < 0.5)
		return NAN;
	for (int k = 0; k < fa->n; k++) {
		if (!user_named(a, &fa->f[k]))
			continue;
		all += fa->f[k].bytes;
		for (int j = 0; j < fb->n; j++)
			if (fb->f[j].bytes && user_named(b, &fb->f[j]) &&
			    !strcmp(fa->f[k].name, fb->f[j].name)) {
				same += fa->f[k].bytes;
				break;
			}
	}
	return all ? (double)same / (double)all : NAN;
}

/* 1 when question q is a sum of timed commands' real times: the
 * default total, --metric total, or a sum of cmdN_real_s. */
int cmp_commands_sum(const struct question *q)
{
	if (q->kind == Q_COMMANDS)
		return 1;
	if (q->kind != Q_METRIC || !q->nterms)
		return 0;
	for (int k = 0; k < q->nterms; k++) {
		const char *t = q->terms[k];
		size_t l = strlen(t);
		if (strcmp(t, "total") && strcmp(t, "real_s") &&
		    (strncmp(t, "cmd", 3) || l < 10 || strcmp(t + l - 7, "_real_s")))
			return 0;
	}
	return 1;
}

int cmp_cmds_real_s(const struct question *q, const struct rundata *rd,
		    double *sum)
{
	int n = 0;

	*sum = 0;
	for (size_t i = 0; i < rd->ncmd; i++) {
		int idx = rd->cmds[i].idx;
		if (!isfinite(rd->cmds[i].real_s) || (q->cmd_mask &&
		    !(idx >= 0 && idx < 64 && (q->cmd_mask >> idx) & 1)))
			continue;
		*sum += rd->cmds[i].real_s;
		n++;
	}
	return n;
}

int cmp_cmds_past_trace(const struct question *q, const struct run_figs *r,
			struct cmp_past *out)
{
	double sum, span;
	int n;

	out->n = 0;
	/* not when the command line showed which ran at once ("time a &
	 * time b"): the total is then their first start to last end */
	if (!r->rv.last_event || r->rv.cmds_placed < 2 || r->rv.cmds_at_once ||
	    !cmp_commands_sum(q))
		return 0;
	n = cmp_cmds_real_s(q, &r->an.rd, &sum);
	span = (double)runview_span_ns(&r->rv) / 1e9;
	if (n < 2 || span <= 0 || sum <= 1.2 * span)
		return 0;
	*out = (struct cmp_past){ .n = n, .sum_s = sum, .span_s = span };
	return 1;
}

int cmp_run_tail(const struct question *q, const struct run_figs *r,
		 struct tail *t)
{
	if (q->nterms != 1 || !tail_figure(q->terms[0], t))
		return 0;
	tail_measure(&r->an.rd, t);
	return t->n > 0;
}

void cmp_tail_sentence(const struct run_figs *r, const struct tail *t,
		       enum cmp_tail_style style, char *line, size_t size)
{
	const char *dir = t->dir ? "writes" : "reads";
	char who[96] = "", part[4][200] = { "" };
	int full = style == CMP_TAIL_FULL;

	if (style == CMP_TAIL_BRIEF) {
		snprintf(line, size, "the tail: %" PRIu64 " of %s's %" PRIu64
			 " slowest %s (%d%% by %s) had a cache flush in flight "
			 "(%.0f%% of the others), %" PRIu64 " another process's "
			 "writes (%.0f%%)", t->flush_n, r->rv.name, t->n, dir,
			 100 - t->pct, t->d2c ? "D2C" : "Q2C", t->n_rest ? 100.0 *
			 (double)t->flush_rest_n / (double)t->n_rest : 0,
			 t->write_n, t->n_rest ? 100.0 * (double)t->write_rest_n /
			 (double)t->n_rest : 0);
		return;
	}

	if (t->flush_pid) {
		const char *comm = runview_comm(&r->rv, t->flush_pid);
		if (comm && *comm)
			snprintf(who, sizeof(who), "mostly %s[%u]'s; ", comm,
				 t->flush_pid);
		else
			snprintf(who, sizeof(who), "mostly pid %u's; ", t->flush_pid);
	}
	if (full && t->flush_n)
		snprintf(part[0], sizeof(part[0]), " (%sthe run's %" PRIu64
			 " flushes: D2C mean %.1f ms)", who, t->flushes,
			 t->flush_d2c_mean_us / 1e3);
	if (full && t->n_rest) {
		snprintf(part[1], sizeof(part[1]), ", against %.0f%% of its other "
			 "%s", 100.0 * (double)t->flush_rest_n /
			 (double)t->n_rest, dir);
		snprintf(part[2], sizeof(part[2]), ", against %.0f%%", 100.0 *
			 (double)t->write_rest_n / (double)t->n_rest);
	}
	/* the split only when every one of them was seen dispatched */
	if (full && !t->d2c && t->n_d == t->n && t->q2d_s + t->d2c_s > 0)
		snprintf(part[3], sizeof(part[3]), "; their time %.0f%% before "
			 "dispatch (Q2D), %.0f%% at the device (D2C)",
			 100 * t->q2d_s / (t->q2d_s + t->d2c_s),
			 100 * t->d2c_s / (t->q2d_s + t->d2c_s));
	snprintf(line, size, "%s%s's %" PRIu64 " slowest %s (%d%%, %s %.1f us "
		 "or more): %" PRIu64 " with a cache flush in flight on their "
		 "device%s%s; %" PRIu64 " with another process's writes "
		 "dispatched meanwhile%s%s", full ? "the tail: " : "", r->rv.name,
		 t->n, t->n == 1 ? (t->dir ? "write" : "read") : dir,
		 100 - t->pct, t->d2c ? "D2C" : "Q2C", (double)t->thr_ns / 1e3,
		 t->flush_n, part[0], part[1], t->write_n, part[2], part[3]);
}

void cmp_tail_json(struct emit *e, const struct run_figs *r,
		   const struct tail *t)
{
	const char *comm = t->flush_pid ? runview_comm(&r->rv, t->flush_pid) : NULL;

	emit_obj_begin(e, NULL);
	emit_str(e, "run", r->rv.name);
	emit_num(e, "from_us", (double)t->thr_ns / 1e3);
	emit_u64(e, "requests", t->n);
	emit_u64(e, "with_flush", t->flush_n);
	emit_u64(e, "with_other_writes", t->write_n);
	emit_u64(e, "others", t->n_rest);
	emit_u64(e, "others_with_flush", t->flush_rest_n);
	emit_u64(e, "others_with_other_writes", t->write_rest_n);
	emit_u64(e, "dispatched", t->n_d);
	emit_num(e, "q2d_s", t->q2d_s);
	emit_num(e, "d2c_s", t->d2c_s);
	emit_u64(e, "flushes", t->flushes);
	emit_num(e, "flush_d2c_mean_us", t->flush_d2c_mean_us);
	emit_u64(e, "flush_pid", t->flush_pid);
	emit_str(e, "flush_comm", comm);
	emit_obj_end(e);
}

/* The mean bio of direction w (0 read, 1 write) over r's devices, KiB,
 * counted as figures.c's fig_rates() counts IOPS and MB/s (completions
 * alone on a device with no dispatch traced); NAN with none. *bytes_out
 * and *ios_out: the totals. */
static double mean_kib(const struct run_figs *r, int w, double *bytes_out,
		       double *ios_out)
{
	uint64_t ios = 0, bytes = 0;

	for (size_t d = 0; d < r->rep.ndev; d++) {
		int c_only = !(r->rep.devs[d].dir[0].ios + r->rep.devs[d].dir[1].ios);
		ios += dir_ios(&r->rep.devs[d].dir[w], c_only);
		bytes += dir_bytes(&r->rep.devs[d].dir[w], c_only);
	}
	*bytes_out = (double)bytes;
	*ios_out = (double)ios;
	return ios ? (double)bytes / (double)ios / 1024 : NAN;
}

int cmp_request_size(const struct question *q, const struct run_figs *x,
		     const struct run_figs *y, double kib[2])
{
	int w, iops;
	double bx, by, nx, ny, sx, sy;

	if (q->nterms != 1)
		return 0;
	if (!strcmp(q->terms[0], "read_iops") || !strcmp(q->terms[0], "read_mb_s"))
		w = 0;
	else if (!strcmp(q->terms[0], "write_iops") ||
		 !strcmp(q->terms[0], "write_mb_s"))
		w = 1;
	else
		return 0;
	iops = strstr(q->terms[0], "_iops") != NULL;
	kib[0] = mean_kib(x, w, &bx, &nx);
	kib[1] = mean_kib(y, w, &by, &ny);
	sx = (double)runview_span_ns(&x->rv) / 1e9;
	sy = (double)runview_span_ns(&y->rv) / 1e9;
	if (!(kib[0] > 0) || !(kib[1] > 0) || !(sx > 0) || !(sy > 0))
		return 0;
	/* the other rate held (90% of the better run's or more): the size
	 * alone moved the figure, not a slower device */
	if (iops)
		return kib[1] > 2 * kib[0] && by / sy >= 0.9 * bx / sx;
	return kib[1] * 2 < kib[0] && ny / sy >= 0.9 * nx / sx;
}
