/* queue: device saturation and contention. In one run, its cost is the
 * time I/O waited for a request because the queue was full (Q2G: no free
 * tag or request, nr_requests): something a setting changes. Between runs,
 * it is also the contention a process met: how much longer its I/O took
 * when other processes' I/O was in flight at the device than I/O that found
 * the device free (sharing a device costs nothing by itself in one run:
 * that is the workload). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

/* In one run, queueing among the workload's own processes counts as a
 * cause from this share of its time on (the two readers of a device
 * sharing it, each at half its speed, wait half their time). */
#define QUEUE_CAUSE_SHARE 0.10

#define SIZE_CLASSES 9
#define MIN_BASE 20           /* bios for an unloaded baseline */

struct q_proc {
	uint32_t pid;
	struct ta_pkey k;         /* pairs it with a process of another run */
	double q2g_s;             /* waited for a request (Q2G share) */
	double q2g_shared_s;      /* of it, with other processes' I/O in
				   * flight at its Q or D: a tag their
				   * requests held (the critical path counts
				   * it as queueing) */
	double contention_s;      /* extra time when others' I/O was in flight */
	uint64_t bios, bios_shared;
	double s1, s2;            /* sum and sum of squares of each bio's extra
				   * (contention and Q2G, unscaled, s; 0 for a
				   * bio that met no one): for the noise test */
	double wscale;            /* contention_s's scale to the time it
				   * waited (its waited over its Q2C, 1 when
				   * it waited all of it; 0 for a flusher no
				   * one waited on): its extras too, so the
				   * test compares what contention_s does */
};

struct q_dev {
	uint32_t dev;
	double q2g_p50_us;
	double busy_pct, aqu, avg_inflight;
	unsigned max_inflight;
	double q2g_p99_us;
	int base_low;             /* a baseline from too few unloaded bios */
};

struct q_state {
	struct q_proc *p;
	int np;
	struct q_dev *d;
	int nd;
	int worst;                /* process with most Q2G wait */
};

/* The marks of a bio in flight: it met others' I/O in flight at its Q,
 * at its D */
enum { QM_AT_Q = 1, QM_AT_D = 2 };

static int size_class(uint32_t bytes)
{
	int b = 0;
	while (b < SIZE_CLASSES - 1 && bytes > (4096u << b))
		b++;
	return b;
}

/* A small pid -> in-flight map over the device's processes, grown as
 * they come (one entry a process, not a row). */
struct pcount {
	uint32_t pid;
	int n;
};

static int *pc_of(struct pcount **pc, int *npc, uint32_t pid)
{
	for (int i = 0; i < *npc; i++)
		if ((*pc)[i].pid == pid)
			return &(*pc)[i].n;
	if (!(*npc & (*npc - 1)))       /* 0, 1, 2, 4...: full */
		*pc = xrealloc(*pc, (size_t)(*npc ? 2 * *npc : 1) * sizeof(**pc));
	(*pc)[*npc].pid = pid;
	(*pc)[*npc].n = 0;
	return &(*pc)[(*npc)++].n;
}

/* A device's latency histograms (ns) by direction of the bios that count
 * (a Q, D and C in that order, and data): D2C also by size class, of
 * every bio and of the unloaded ones (that met no other process's I/O at
 * their D, for Q2D at their Q). */
struct q_base {
	struct hist base_d2c[2][SIZE_CLASSES];
	struct hist all_d2c[2][SIZE_CLASSES];
	struct hist base_q2d[2], all_q2d[2];
};

static void q_base_free(struct q_base *b)
{
	for (int w = 0; w < 2; w++) {
		for (int sc = 0; sc < SIZE_CLASSES; sc++) {
			hist_free(&b->base_d2c[w][sc]);
			hist_free(&b->all_d2c[w][sc]);
		}
		hist_free(&b->base_q2d[w]);
		hist_free(&b->all_q2d[w]);
	}
}

/* A process's counting bios on one device, of one direction, size class
 * and marks (QM_*): a bio's extra is its D2C above the unloaded median
 * (at its D) plus its Q2D above it (at its Q) plus its Q2G excess, and
 * the medians are the device's whole run's, known only at the end; so
 * each group keeps the sums the extras' come from: u = the bio's measured
 * part (s), its count, sum and sum of squares (the extra is u less the
 * group's constant median part). */
struct q_group {
	double n, u1, u2;
	double a, b;              /* D2C and Q2D sums (s) */
	double gx_shared;         /* the Q2G excess of the shared (s) */
};

#define NGROUP (2 * SIZE_CLASSES * 4)

struct q_pacc {
	uint32_t pid;
	int phase;                /* 0: seen in a counting bio; 1: in a Q2G
				   * excess only */
	uint64_t first;           /* where it was first seen: the device's
				   * place and the row (phase 0), the row
				   * (phase 1) */
	double q2g_s;
	struct q_group *g;        /* [device's place][NGROUP], or NULL */
};

struct q_dacc {
	int place;                /* in the accounting's devices, -1: none */
	double q2g_med;           /* its median Q2G, ns (in us and back, as
				   * q_dev keeps it) */
	struct pcount *pc;
	int npc, total;
	struct q_base qb;
	struct fold_map fly;      /* counting bios in flight: their marks */
};

struct queue_fold {
	const struct an_run *r;
	struct q_dacc *d;         /* by the run's device index */
	struct q_pacc *p;
	int np, last;
};

static struct q_pacc *pacc_of(struct queue_fold *f, uint32_t pid)
{
	if (f->np && f->p[f->last].pid == pid)
		return &f->p[f->last];
	for (int i = 0; i < f->np; i++)
		if (f->p[i].pid == pid)
			return &f->p[f->last = i];
	f->p = xrealloc(f->p, (size_t)(f->np + 1) * sizeof(*f->p));
	memset(&f->p[f->np], 0, sizeof(*f->p));
	f->p[f->np].pid = pid;
	f->p[f->np].phase = 2;
	f->last = f->np;
	return &f->p[f->np++];
}

static int bio_counts(const struct an_io *x)
{
	return x->q != AN_NONE && x->d != AN_NONE && x->c != AN_NONE &&
	       x->d >= x->q && x->c >= x->d && x->bytes;
}

static void *queue_begin(const struct an_run *r)
{
	const struct rundata *rd = &r->rd;
	struct queue_fold *f;

	if (!rd->n || !r->ta.ndev)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->r = r;
	f->d = xcalloc(rd->ndevs ? rd->ndevs : 1, sizeof(*f->d));
	for (size_t k = 0; k < rd->ndevs; k++) {
		f->d[k].place = -1;
		fold_map_init(&f->d[k].fly, 1);
	}
	for (size_t k = 0; k < r->ta.ndev; k++) {
		const struct ta_dev *td = &r->ta.devs[k];
		int dk = rundata_dev_index(rd, td->dev);
		if (dk < 0)
			continue;
		f->d[dk].place = (int)k;
		f->d[dk].q2g_med = hist_pct(&td->st.h[TA_Q2G], 50) / 1e3 * 1e3;
	}
	return f;
}

/* A counting bio x of device d at its C, its marks m: the baselines'
 * histograms and its process's group. */
static void count_bio(struct queue_fold *f, struct q_dacc *d,
		      const struct fold_ev *e, int m)
{
	const struct an_io *x = e->io;
	int w = !!(x->flags & AN_WRITE), sc = size_class(x->bytes);
	struct q_pacc *p = pacc_of(f, x->pid);
	struct q_group *g;
	uint64_t first = (uint64_t)d->place << 32 | e->row;
	double u = 0, gx = 0;

	hist_add(&d->qb.all_d2c[w][sc], (uint64_t)(x->c - x->d));
	hist_add(&d->qb.all_q2d[w], (uint64_t)(x->d - x->q));
	if (!(m & QM_AT_D))
		hist_add(&d->qb.base_d2c[w][sc], (uint64_t)(x->c - x->d));
	if (!(m & QM_AT_Q))
		hist_add(&d->qb.base_q2d[w], (uint64_t)(x->d - x->q));
	if (p->phase != 0 || first < p->first) {
		p->phase = 0;
		p->first = first;
	}
	if (!p->g)
		p->g = xcalloc(f->r->ta.ndev * NGROUP, sizeof(*p->g));
	g = &p->g[(size_t)d->place * NGROUP + (size_t)((w * SIZE_CLASSES + sc) * 4 + m)];
	/* its Q2G beyond the device's usual (queue_end() counts it for the
	 * process), in the moments of its extra */
	if (x->g != AN_NONE && x->g >= x->q &&
	    (double)(x->g - x->q) > 4 * d->q2g_med + 20000)
		gx = ((double)(x->g - x->q) - d->q2g_med) / 1e9;
	if (m & QM_AT_D) {
		g->a += (double)(x->c - x->d) / 1e9;
		u += (double)(x->c - x->d) / 1e9;
	}
	if (m & QM_AT_Q) {
		g->b += (double)(x->d - x->q) / 1e9;
		u += (double)(x->d - x->q) / 1e9;
	}
	u += gx;
	if (m)
		g->gx_shared += gx;
	g->n++;
	g->u1 += u;
	g->u2 += u * u;
}

/* The counting bios' Q, D and C on each device by time (at one time by
 * bio, a bio's Q before its D before its C), in flight counted per
 * process: which met other processes' I/O in flight (D to C) at their Q,
 * at their D. And every bio's Q2G beyond the device's usual, at its Q. */
static void queue_ev(void *state, const struct fold_ev *e)
{
	struct queue_fold *f = state;
	struct q_dacc *d = &f->d[e->devk];
	const struct an_io *x = e->io;
	unsigned char *m;
	int *own;

	if (d->place < 0)
		return;
	if (e->kind == EV_Q && x->g != AN_NONE && x->g >= x->q &&
	    (double)(x->g - x->q) > 4 * d->q2g_med + 20000) {
		struct q_pacc *p = pacc_of(f, x->pid);
		p->q2g_s += ((double)(x->g - x->q) - d->q2g_med) / 1e9;
		if (p->phase == 2 || (p->phase == 1 && e->row < p->first)) {
			p->phase = 1;
			p->first = e->row;
		}
	}
	if (!bio_counts(x))
		return;
	own = pc_of(&d->pc, &d->npc, x->pid);
	if (e->kind == EV_Q) {
		m = fold_map_get(&d->fly, e->row, 1);
		if (d->total - *own > 0)
			*m |= QM_AT_Q;
	} else if (e->kind == EV_D) {
		m = fold_map_get(&d->fly, e->row, 1);
		if (d->total - *own > 0)
			*m |= QM_AT_D;
		d->total++;
		(*own)++;
	} else {
		d->total--;
		(*own)--;
		m = fold_map_get(&d->fly, e->row, 1);
		count_bio(f, d, e, *m);
		fold_map_del(&d->fly, e->row);
	}
}

static int cmp_pacc(const void *a, const void *b)
{
	const struct q_pacc *x = a, *y = b;

	if (x->phase != y->phase)
		return x->phase - y->phase;
	return (x->first > y->first) - (x->first < y->first);
}

/* Process p's numbers from its groups, the devices' baselines known. */
static void proc_end(struct queue_fold *f, const struct q_pacc *pa,
		     struct q_proc *p, struct q_state *s)
{
	const struct rundata *rd = &f->r->rd;

	memset(p, 0, sizeof(*p));
	p->pid = pa->pid;
	ta_pkey_of(&f->r->ta, pa->pid, &p->k);
	p->q2g_s = pa->q2g_s;
	for (size_t dk = 0; pa->g && dk < rd->ndevs; dk++) {
		struct q_dacc *d = &f->d[dk];
		struct q_dev *qd;
		if (d->place < 0)
			continue;
		qd = &s->d[d->place];
		for (int w = 0; w < 2; w++)
			for (int sc = 0; sc < SIZE_CLASSES; sc++)
				for (int m = 0; m < 4; m++) {
					const struct q_group *g = &pa->g[(size_t)d->place *
						NGROUP + (size_t)((w * SIZE_CLASSES + sc) * 4 + m)];
					double bd = 0, bq = 0, cst = 0;
					if (!g->n)
						continue;
					p->bios += (uint64_t)g->n;
					if (m) {
						p->bios_shared += (uint64_t)g->n;
						/* unloaded: bios that found the
						 * device free of others; with too
						 * few of them, the fastest tenth
						 * of all */
						if (d->qb.base_d2c[w][sc].n >= MIN_BASE)
							bd = hist_pct(&d->qb.base_d2c[w][sc], 50);
						else {
							bd = hist_pct(&d->qb.all_d2c[w][sc], 10);
							qd->base_low = 1;
						}
						bq = d->qb.base_q2d[w].n >= MIN_BASE
						     ? hist_pct(&d->qb.base_q2d[w], 50)
						     : hist_pct(&d->qb.all_q2d[w], 10);
						p->q2g_shared_s += g->gx_shared;
					}
					if (m & QM_AT_D) {
						p->contention_s += g->a - g->n * bd / 1e9;
						cst += bd / 1e9;
					}
					if (m & QM_AT_Q) {
						p->contention_s += g->b - g->n * bq / 1e9;
						cst += bq / 1e9;
					}
					/* the extras: u less cst each */
					p->s1 += g->u1 - g->n * cst;
					p->s2 += g->u2 - 2 * cst * g->u1 + g->n * cst * cst;
				}
	}
}

static void *queue_end(const struct an_run *r, void *state)
{
	struct queue_fold *f = state;
	struct q_state *s = xcalloc(1, sizeof(*s));
	double el = rundata_elapsed_s(&r->rd);

	s->d = xcalloc(r->ta.ndev, sizeof(*s->d));
	s->nd = (int)r->ta.ndev;
	for (size_t k = 0; k < r->ta.ndev; k++) {
		const struct ta_dev *td = &r->ta.devs[k];
		struct q_dev *qd = &s->d[k];
		qd->dev = td->dev;
		qd->busy_pct = el > 0 ? 100 * td->busy_s / el : 0;
		qd->avg_inflight = el > 0 ? td->d2c_sum_s / el : 0;
		qd->aqu = el > 0 ? timeacct_aqu_s(td) / el : 0;
		qd->max_inflight = td->max_inflight;
		qd->q2g_p99_us = hist_pct(&td->st.h[TA_Q2G], 99) / 1e3;
		qd->q2g_p50_us = hist_pct(&td->st.h[TA_Q2G], 50) / 1e3;
	}
	/* the processes in the order they were first seen: in a counting
	 * bio, device by device, then in a Q2G excess alone */
	if (f->np)      /* qsort(NULL, 0, ...) is undefined */
		qsort(f->p, (size_t)f->np, sizeof(*f->p), cmp_pacc);
	s->p = xcalloc(f->np ? (size_t)f->np : 1, sizeof(*s->p));
	for (int i = 0; i < f->np; i++)
		if (f->p[i].phase < 2)
			proc_end(f, &f->p[i], &s->p[s->np++], s);
	/* per process: Q2G beyond the device's usual (a tag was free: the
	 * median; waiting for one takes four times that and 20 us more), and
	 * contention, both scaled to its waited time (its own I/Os overlap
	 * when it keeps several queued) */
	for (int i = 0; i < s->np; i++) {
		struct q_proc *p = &s->p[i];
		double waited = 0, q2c = 0;
		for (size_t k = 0; k < r->ta.nrows; k++) {
			const struct ta_row *t = &r->ta.rows[k];
			if (t->pid != p->pid)
				continue;
			waited += t->waited_s;
			q2c += t->st.q2c_s;
		}
		if (p->contention_s < 0)
			p->contention_s = 0;
		p->wscale = 1;
		if (q2c > 0 && waited < q2c) {
			p->wscale = waited / q2c;
			p->contention_s *= waited / q2c;
			p->q2g_s *= waited / q2c;
			p->q2g_shared_s *= waited / q2c;
		}
		if (p->q2g_s > s->p[s->worst].q2g_s)
			s->worst = i;
	}
	for (int i = 0; i < f->np; i++)
		free(f->p[i].g);
	for (size_t k = 0; k < r->rd.ndevs; k++) {
		q_base_free(&f->d[k].qb);
		fold_map_free(&f->d[k].fly);
		free(f->d[k].pc);
	}
	free(f->d);
	free(f->p);
	free(f);
	return s;
}

/* Welch's t of the mean extra per bio of sample a (n1, sum s1, sum of
 * squares s2) over sample b's: how many standard errors a's mean is above
 * b's (Welch 1947; the means of thousands of bios are near normal). 0 when
 * either has fewer than two bios. */
static double welch_t(double n1, double s1, double s2, double n2, double t1,
		      double t2)
{
	double m1, m2, v1, v2, se;

	if (n1 < 2 || n2 < 2)
		return 0;
	m1 = s1 / n1;
	m2 = t1 / n2;
	v1 = (s2 - n1 * m1 * m1) / (n1 - 1);
	v2 = (t2 - n2 * m2 * m2) / (n2 - 1);
	se = sqrt((v1 > 0 ? v1 : 0) / n1 + (v2 > 0 ? v2 : 0) / n2);
	return se > 0 ? (m1 - m2) / se : (m1 > m2 ? INFINITY : 0);
}

/* Noise: an unequal part counts only when the victim's mean extra per bio
 * is WELCH_T standard errors above the others' (two-sided p < 0.001) ... */
#define WELCH_T 3.3
/* ... and, between runs, half of its contention in the second: two identical random readers on two CPUs differ by up to 43%
 * from one another and from run to run (CPU placement, who started first,
 * the tracer's own CPU), which no I/O setting changes. */
#define MIN_UNEQUAL 0.50
/* ... and a quarter of the time the process waited on I/O in the second:
 * the contention of two identical random readers moved from 0.006 to
 * 0.155 s between runs of the same setup here (1.5 s each), while a flood
 * of other I/O adds seconds */
#define MIN_WAIT_SHARE 0.25

static void dev_evidence(struct finding *f, const struct q_state *s)
{
	for (int i = 0; i < s->nd && i < 4; i++) {
		const struct q_dev *d = &s->d[i];
		char dev[16];
		an_dev_name(d->dev, dev, sizeof(dev));
		FD_CAT(f, evidence, "%s busy %.0f%% of the elapsed time, %.2f in "
		       "flight on average (max %u), aqu-sz %.2f, Q2G p50 %.1f us, "
		       "p99 %.1f us. ", dev, d->busy_pct, d->avg_inflight,
		       d->max_inflight, d->aqu, d->q2g_p50_us, d->q2g_p99_us);
	}
}

/* One run: contention that fell on one process more than on the others
 * (reads behind a flood of writes), beyond what they met in turn; equal
 * sharing between equals is the workload and costs nothing. */
static int queue_finding(const struct an_run *r, const void *state,
			 struct finding *f)
{
	const struct q_state *s = state;
	const struct q_proc *v = NULL;
	double others = 0, cost, tval;
	int nothers = 0;
	char who[48];

	for (int i = 0; i < s->np; i++)
		if (s->p[i].bios >= 100 &&
		    (!v || s->p[i].contention_s > v->contention_s))
			v = &s->p[i];
	/* none of them contended: naming the first ("jbd2 waited 0.00 s
	 * behind other processes' I/O", a process of fewer bios the one
	 * that waited 0.17 s) says nothing; the categories' own finding
	 * says what the accounting gave queueing */
	if (!v || v->contention_s <= 0)
		return 0;
	for (int i = 0; i < s->np; i++)
		if (&s->p[i] != v && s->p[i].bios >= 100) {
			others += s->p[i].contention_s;
			nothers++;
		}
	/* one process with 100 bios or more: no contention of its own to
	 * measure; what the critical path gave queueing (behind processes of
	 * fewer bios: a writeback flusher, a background dd) is said by the
	 * categories' own finding (a compare showed "one process, no
	 * contention (+0.90 s)" with no evidence) */
	if (!nothers)
		return 0;
	others /= nothers;
	cost = v->contention_s - others;
	{
		/* each one's extras at the scale its contention_s has (a
		 * flusher's writes, waited on by no one, are no contention:
		 * their raw extras made a reader that waited 6.08 s read "8.4
		 * standard errors below" a flusher that added 0.000 s) */
		double n2 = 0, t1 = 0, t2 = 0, c = v->wscale;
		for (int i = 0; i < s->np; i++)
			if (&s->p[i] != v && s->p[i].bios >= 100) {
				double w = s->p[i].wscale;
				n2 += (double)s->p[i].bios;
				t1 += w * s->p[i].s1;
				t2 += w * w * s->p[i].s2;
			}
		tval = welch_t((double)v->bios, c * v->s1, c * c * v->s2, n2, t1, t2);
	}
	an_proc_name(r, v->pid, who, sizeof(who));
	f->present = v->bios_shared * 10 >= v->bios;
	snprintf(f->title, sizeof(f->title), "queue: %s waited %.2f s behind "
		 "other processes' I/O, they %.2f s behind its", who,
		 v->contention_s, others);
	/* in one run, nothing: sharing a device is the workload, and a share
	 * unequal while both had I/O queued is fairness's finding (two
	 * identical random readers met 2x each other's contention, beyond
	 * Welch's t, in one run of eight: CPU placement, not I/O) */
	f->cost_s = 0;
	snprintf(f->cost_of, sizeof(f->cost_of), "%s's wait on I/O", who);
	f->counterfactual = 1;
	f->victim_pid = v->pid;
	f->stages = 1u << TA_Q2G | 1u << TA_I2D | 1u << TA_D2C;
	f->generic = 1;
	FD_CAT(f, how, "its bios that met other processes' I/O in flight took "
	       "longer (Q2D and D2C) than bios that found the device free of "
	       "others, same direction and size, scaled to its waited time; "
	       "less what the other processes met in turn (%.3f s on average): "
	       "the unequal part of sharing the device.", others);
	dev_evidence(f, s);
	/* the process the title names first, then three others (the title
	 * named patch while the evidence listed four md5sums) */
	for (int i = -1, shown = 0; i < s->np && shown < 4; i++) {
		const struct q_proc *p = i < 0 ? v : &s->p[i];
		char nm[48];
		if (i >= 0 && p == v)
			continue;
		shown++;
		an_proc_name(r, p->pid, nm, sizeof(nm));
		FD_CAT(f, evidence, "%s: %llu of %llu bios met other processes' "
		       "I/O in flight, adding %.3f s; Q2G over the usual %.3f s, "
		       "%.3f s of it with others' I/O in flight. ", nm,
		       (unsigned long long)p->bios_shared,
		       (unsigned long long)p->bios, p->contention_s,
		       p->q2g_s, p->q2g_shared_s);
	}
	FD_CAT(f, evidence, "(Q2G over the usual with others' I/O in flight: "
	       "waiting for a tag their requests held, queueing; behind its own "
	       "requests alone: the device's time.)");
	f->lo_s = 0;
	f->hi_s = rundata_elapsed_s(&r->rd);
	f->conf = v->bios_shared >= 100 && !s->d[0].base_low ? FD_HIGH : FD_MEDIUM;
	snprintf(f->solo, sizeof(f->solo), "in one run sharing the device is "
		 "the workload (an unequal share while all had I/O queued is "
		 "fairness's finding); compare runs to see a process's "
		 "contention grow");
	FD_CAT(f, why, "the unequal part %.3f s, its mean extra per bio %.1f "
	       "standard errors %s the others' (Welch's t); baselines from %s "
	       "bios that found the device free of others", cost > 0 ? cost : 0,
	       fabs(tval),
	       /* "-49.0 standard errors above" read as a contradiction */
	       tval < 0 ? "below" : "above",
	       s->d[0].base_low ? "few (the fastest tenth stood in)" :
	       "the run's own");
	f->conf = FD_NONE;
	/* unless the waiting itself is a tenth of the workload's time or
	 * more (its critical path: beyond the device's mean service time,
	 * the others' share): then the device's sharing is where its time
	 * went, whoever shares it */
	if (r->cp.elapsed_s > 0 &&
	    r->cp.cat[CP_QUEUE] >= QUEUE_CAUSE_SHARE * r->cp.elapsed_s) {
		f->conf = FD_MEDIUM;
		FD_CAT(f, why, "; the waiting beyond the device's mean service "
		       "time is %.0f%% of the workload's time, over %.0f%%: a "
		       "cause even in one run", 100 * r->cp.cat[CP_QUEUE] /
		       r->cp.elapsed_s, 100 * QUEUE_CAUSE_SHARE);
		/* its cost is then that waiting (the category), not the
		 * unequal part the "how" above measures: say so, or the
		 * cost reads against its own text (2.26 s beside "unequal
		 * part 0.059 s") */
		FD_CAT(f, how, " As a cause in one run its cost is all of the "
		       "workload's waiting behind the other processes' I/O on "
		       "its critical path (%.2f s), not that unequal part.",
		       r->cp.cat[CP_QUEUE]);
	}
	return 1;
}


static void queue_emit(struct emit *e, const void *state)
{
	const struct q_state *s = state;

	emit_arr_begin(e, "devices");
	for (int i = 0; i < s->nd; i++) {
		char dev[16];
		an_dev_name(s->d[i].dev, dev, sizeof(dev));
		emit_obj_begin(e, NULL);
		emit_str(e, "dev", dev);
		emit_num(e, "busy_pct", s->d[i].busy_pct);
		emit_num(e, "avg_inflight", s->d[i].avg_inflight);
		emit_u64(e, "max_inflight", s->d[i].max_inflight);
		emit_num(e, "aqu_sz", s->d[i].aqu);
		emit_num(e, "q2g_p99_us", s->d[i].q2g_p99_us);
		emit_obj_end(e);
	}
	emit_arr_end(e);
	emit_arr_begin(e, "processes");
	for (int i = 0; i < s->np; i++) {
		emit_obj_begin(e, NULL);
		emit_u64(e, "pid", s->p[i].pid);
		emit_str(e, "match", s->p[i].k.key);
		emit_num(e, "q2g_s", s->p[i].q2g_s);
		emit_num(e, "q2g_shared_s", s->p[i].q2g_shared_s);
		emit_num(e, "contention_s", s->p[i].contention_s);
		emit_u64(e, "bios", s->p[i].bios);
		emit_u64(e, "bios_meeting_others", s->p[i].bios_shared);
		emit_obj_end(e);
	}
	emit_arr_end(e);
}

static void queue_release(void *state)
{
	struct q_state *s = state;
	free(s->p);
	free(s->d);
	free(s);
}

const struct analyzer an_queue = {
	.name = "queue",
	.fold_begin = queue_begin,
	.fold_ev = queue_ev,
	.fold_end = queue_end,
	.fold_kinds = 1u << EV_Q | 1u << EV_D | 1u << EV_C,
	.finding = queue_finding,
	.emit = queue_emit,
	.release = queue_release,
	.cats = 1u << CP_QUEUE,
	.definitions =
"queue: per device, busy % (iostat's %util), in flight, aqu-sz; Q2G\n"
"  beyond the device's median where it took 4x that and 20 us more (every\n"
"  tag was taken): with other processes' I/O queued or in flight, a wait\n"
"  for a tag their requests held (nr_requests, wbt), counted as queueing\n"
"  and, between runs, never given to the device; behind the process's\n"
"  own requests alone, the device's time (shown, not counted).\n"
"  Contention of a process: for each of its bios that met other\n"
"  processes' I/O in flight at its Q or D, its Q2D and D2C above the\n"
"  median of bios that found the device free of others (same direction\n"
"  and size), scaled to its waited time. Cost in one run: the workload's\n"
"  time the accounting counts as queueing (before dispatch while other\n"
"  processes' I/O was queued or in flight, and at the device the others'\n"
"  share of the I/O ahead of its own); the most contended process's\n"
"  contention less the others' mean is its evidence; an unequal share\n"
"  while all had I/O queued is fairness's cost. Between runs: how much\n"
"  its contention and Q2G grew for the process they grew most for\n"
"  (matched by name and start order), counted when its mean extra per bio\n"
"  is 3.3 standard errors (Welch's t) above its own in the first run, and\n"
"  the growth is half its contention and a quarter of its time waiting on\n"
"  I/O.\n",
};
