/* The question an explanation answers (question.h). */
#include "question.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/util.h"

static int has(const char *s, const char *w)
{
	return strstr(s, w) != NULL;
}

static int ends(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

int q_direction(const char *name, const char *unit)
{
	char n[96], u[32];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(n); i++)
		n[i] = (char)tolower((unsigned char)name[i]);
	n[i] = 0;
	for (i = 0; unit && unit[i] && i + 1 < sizeof(u); i++)
		u[i] = (char)tolower((unsigned char)unit[i]);
	u[i] = 0;
	/* rates first: "dd_bytes_per_s" ends in _s but is a rate */
	if (has(u, "/s") || has(u, "/min") || has(u, "tps") || has(u, "iops") ||
	    has(n, "per_s") || has(n, "_mb_s") || has(n, "iops") ||
	    has(n, "tps") || has(n, "bw") || has(n, "throughput") ||
	    has(n, "ops") || has(n, "rate") || has(n, "qps") || has(n, "tpm") ||
	    has(n, "nopm") || has(n, "bandwidth"))
		return 0;
	/* memory left (min_free_mb, MemAvailable): more is better */
	if ((has(n, "free") || has(n, "avail")) && !has(n, "wait"))
		return 0;
	if (!strcmp(u, "s") || !strcmp(u, "ms") || !strcmp(u, "us") ||
	    !strcmp(u, "ns") || ends(n, "_s") || ends(n, "_ms") ||
	    ends(n, "_us") || ends(n, "_ns") || has(n, "lat") ||
	    has(n, "time") || has(n, "real") || has(n, "elapsed") ||
	    has(n, "runtime") || has(n, "duration") || has(n, "swap") ||
	    has(n, "wait") || has(n, "seek") || has(n, "iowait"))
		return 1;
	if (has(n, "bytes") || has(n, "ios"))
		return 0;       /* work done in a fixed time */
	return -1;
}

/* 1 when name is a latency of single I/Os or requests (btt's stages, a
 * percentile, fio's clat/slat/lat): a time, but none the workload took, so
 * no duration whose difference is the workload's (compare explains the
 * time its workload took longer instead) */
static int latency_name(const char *name)
{
	static const char *const stages[] = { "q2c", "d2c", "q2d", "q2g", "g2i",
					      "i2d", "m2d", "q2m", "d2d", "c2c",
					      "lat", "_p50", "_p90", "_p95",
					      "_p99", "_p999", "percentile" };
	char n[160];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(n); i++)
		n[i] = (char)tolower((unsigned char)name[i]);
	n[i] = 0;
	for (i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
		if (has(n, stages[i]))
			return 1;
	return 0;
}

/* seconds per unit of a duration, 0 when unit is no time */
static double time_unit(const char *name, const char *unit)
{
	const char *u = unit && *unit ? unit : NULL;

	if (u) {
		if (!strcmp(u, "s"))
			return 1;
		if (!strcmp(u, "ms"))
			return 1e-3;
		if (!strcmp(u, "us"))
			return 1e-6;
		if (!strcmp(u, "ns"))
			return 1e-9;
		return 0;
	}
	if (ends(name, "_ms"))
		return 1e-3;
	if (ends(name, "_us"))
		return 1e-6;
	if (ends(name, "_ns"))
		return 1e-9;
	if (ends(name, "_s") && !has(name, "per_s") && !has(name, "_mb_s"))
		return 1;
	return 0;
}

static const struct store_metric *metric_of(const struct q_run *r,
					    const char *name)
{
	for (size_t i = 0; i < r->nm; i++)
		if (!strcmp(r->m[i].name, name))
			return &r->m[i];
	return NULL;
}

/* metric_of(), where cmdN_NAME is also NAME of a run whose one command is
 * command N (iotape metric names a lone command's figures without cmdN_:
 * cmd1_dd_bytes_per_s asks for dd_bytes_per_s, as cmd1_real_s for
 * real_s) */
static const struct store_metric *metric_named(const struct q_run *r,
					       const char *name)
{
	const struct store_metric *m = metric_of(r, name);
	int idx, off = 0;

	if (!m && r->nc == 1 && sscanf(name, "cmd%d_%n", &idx, &off) == 1 &&
	    off > 0 && idx == r->c[0].idx + 1)
		m = metric_of(r, name + off);
	return m;
}

/* cmdN_real_s (N from 1) and real_s of a run of one command: that
 * command's index, else -1 */
static int cmd_term(const char *t, const struct q_run *r)
{
	int idx;
	char tail[16];

	if (!strcmp(t, "real_s") && r && r->nc == 1)
		return r->c[0].idx;
	if (sscanf(t, "cmd%d_%15s", &idx, tail) == 2 && idx >= 1 &&
	    !strcmp(tail, "real_s"))
		return idx - 1;
	return -1;
}

double q_commands_s(const struct q_run *r, uint64_t mask)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	double sum = 0;
	int n = 0, timed = 1, overlap = 0;
	int64_t last_end = INT64_MIN;

	for (size_t i = 0; i < r->nc; i++) {
		const struct store_command *c = &r->c[i];
		if (mask && !(c->idx < 64 && (mask >> c->idx) & 1))
			continue;
		if (!isfinite(c->real_s))
			continue;
		n++;
		sum += c->real_s;
		if (c->start_ns == STORE_NO_TIME || c->end_ns == STORE_NO_TIME) {
			timed = 0;
			continue;
		}
		if (c->start_ns < last_end)
			overlap = 1;
		if (c->end_ns > last_end)
			last_end = c->end_ns;
		if (c->start_ns < lo)
			lo = c->start_ns;
		if (c->end_ns > hi)
			hi = c->end_ns;
	}
	if (!n)
		return NAN;
	/* commands at once: the first start to the last end; one after
	 * another: the sum of their times (the gaps between steps are no
	 * one's) */
	if (timed && overlap && hi > lo)
		return (double)(hi - lo) / 1e9;
	return sum;
}

static int all_have_metric(const struct q_run *r, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!metric_of(&r[i], name))
			return 0;
	return n > 0;
}

/* 1 when name has word w (case aside) as a part of its own: at its start
 * or after _ . - or a space, and before one of them or its end ("read" in
 * read_iops and cmd2_read_bw, not in threads or spread). */
static int name_word(const char *name, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = name; (p = strcasestr(p, w)); p++)
		if ((p == name || strchr("_.- ", p[-1])) &&
		    (!p[n] || strchr("_.- ", p[n])))
			return 1;
	return 0;
}

/* q->reads: every term names reads ("read" or "reads" as a word) and none
 * writes, and no command's window holds the figure. */
static void read_figure(struct question *q)
{
	q->reads = !q->cmd_mask && q->nterms > 0;
	for (int k = 0; k < q->nterms; k++)
		if (!(name_word(q->terms[k], "read") ||
		      name_word(q->terms[k], "reads")) ||
		    name_word(q->terms[k], "write") ||
		    name_word(q->terms[k], "writes"))
			q->reads = 0;
}

/* The workload's own result, when every run has it: a metric the user
 * asked for (regex at capture, set by hand) first, then fio's or dd's when
 * the run's only command was fio or dd (a capture's: not dd's figures read
 * back from an imported `time` paste, derived). */
static int workload_metric(struct question *q, const struct q_run *r,
			   size_t n)
{
	static const char *const sources[] = { "regex", "manual", "fio", "dd" };

	for (size_t s = 0; s < 4; s++)
		for (size_t i = 0; i < r[0].nm; i++) {
			const struct store_metric *m = &r[0].m[i];
			int dir;
			/* not dd's figures read back from a pasted `time`
			 * report (derived): its command's real time asks */
			if (strcmp(m->source, sources[s]) || m->derived ||
			    !all_have_metric(r, n, m->name))
				continue;
			/* fio's and dd's results: the result only when they
			 * were the whole workload */
			if (s >= 2) {
				int one = 1;
				for (size_t k = 0; k < n; k++)
					one &= r[k].nc <= 1;
				if (!one)
					continue;
				if (s == 2 && !ends(m->name, "_bw_bytes"))
					continue;
				if (s == 3 && strcmp(m->name, "dd_bytes_per_s"))
					continue;
				/* fio: the direction that moved the most bytes */
				if (s == 2) {
					const char *other = !strncmp(m->name, "read",
							     4) ? "write_io_bytes"
							   : "read_io_bytes";
					char mine[64];
					const struct store_metric *a, *b;
					snprintf(mine, sizeof(mine), "%.*s_io_bytes",
						 (int)(strlen(m->name) - 9), m->name);
					a = metric_of(&r[0], mine);
					b = metric_of(&r[0], other);
					if (a && b && b->value > a->value)
						continue;
				}
			}
			dir = q_direction(m->name, m->unit);
			snprintf(q->key, sizeof(q->key), "%s", m->name);
			snprintf(q->terms[0], sizeof(q->terms[0]), "%s", m->name);
			q->nterms = 1;
			snprintf(q->unit, sizeof(q->unit), "%s", m->unit ? m->unit : "");
			q->lower_better = dir != 0;
			q->assumed = dir < 0;
			q->unit_scale = time_unit(m->name, m->unit);
			q->duration = q->lower_better && q->unit_scale > 0 &&
				      !latency_name(m->name);
			snprintf(q->label, sizeof(q->label), "%s", m->name);
			snprintf(q->why, sizeof(q->why), "the workload's own result "
				 "(%s), which every run has", m->source);
			q->kind = Q_WORKLOAD;
			read_figure(q);
			return 1;
		}
	return 0;
}

/* The question when none was asked (q zeroed): the workload's own result
 * when every run of r[0..n) has it, else the commands' total real time
 * when every run timed them, else the workload's span; in seconds, lower
 * better, for the last two. */
static void question_default(struct question *q, const struct q_run *r,
			     size_t n)
{
	int timed = 1;

	if (workload_metric(q, r, n))
		return;
	for (size_t i = 0; i < n; i++)
		timed &= isfinite(q_commands_s(&r[i], 0));
	if (timed && n) {
		q->kind = Q_COMMANDS;
		snprintf(q->key, sizeof(q->key), "total");
		snprintf(q->terms[0], sizeof(q->terms[0]), "total");
		q->nterms = 1;
	} else {
		size_t traced = 0;
		for (size_t i = 0; i < n; i++)
			traced += r[i].traced != 0;
		q->kind = Q_SPAN;
		snprintf(q->key, sizeof(q->key), "workload_span_s");
		snprintf(q->terms[0], sizeof(q->terms[0]),
			 "workload_span_s");
		q->nterms = 1;
		snprintf(q->label, sizeof(q->label), "the workload's span");
		/* a run that traced no block I/O (a vmstat log alone): its
		 * samples' span (critpath's window), not an I/O's */
		if (!traced)
			snprintf(q->why, sizeof(q->why), "no timed commands "
				 "and no block I/O traced: the samples' first "
				 "to last");
		else if (traced < n)
			snprintf(q->why, sizeof(q->why), "no timed commands: "
				 "the time from the workload's first I/O to its "
				 "last, and in a run that traced no block I/O "
				 "its samples' first to last");
		else
			snprintf(q->why, sizeof(q->why), "no timed commands: "
				 "the time from the workload's first I/O to its "
				 "last");
	}
	snprintf(q->unit, sizeof(q->unit), "s");
	q->lower_better = q->duration = 1;
	if (q->kind == Q_COMMANDS) {
		size_t nc = r[0].nc;
		snprintf(q->label, sizeof(q->label), "%s", nc > 1 ?
			 "total real time of the commands" :
			 "real time of the command");
		snprintf(q->why, sizeof(q->why), "the timed commands' real "
			 "time%s", nc > 1 ? ", all steps (first start to "
			 "last end when they ran at once)" : "");
	}
}

/* Parses --metric's expr ("A+B", NAME:higher or :lower) into q's terms
 * ("elapsed" and "span" as elapsed_s and span_s) and key (expr without
 * the direction); *forced is 0 (higher better), 1 (lower) or -1 (not
 * said). Returns 0, or -1 with a message in err. */
static int metric_terms(struct question *q, const char *expr, int *forced,
			char *err, size_t errlen)
{
	char buf[256], *colon, *tok, *save;

	snprintf(buf, sizeof(buf), "%s", expr);
	if ((colon = strrchr(buf, ':'))) {
		if (!strcasecmp(colon + 1, "higher"))
			*forced = 0;
		else if (!strcasecmp(colon + 1, "lower"))
			*forced = 1;
		else {
			snprintf(err, errlen, "metric '%s': after ':' say 'higher' "
				 "or 'lower' (which is better)", expr);
			return -1;
		}
		*colon = 0;
	}
	/* strtok_r() skips empty terms: "read_mb_s+" and "a++b" would pass
	 * for what they are not */
	{
		int empty = 1;
		for (const char *c = buf; *c; c++)
			if (*c == '+') {
				if (empty)
					break;
				empty = 1;
			} else if (*c != ' ')
				empty = 0;
		if (empty) {
			snprintf(err, errlen, "metric '%s': an empty term", expr);
			return -1;
		}
	}
	for (tok = strtok_r(buf, "+", &save); tok;
	     tok = strtok_r(NULL, "+", &save)) {
		while (*tok == ' ')
			tok++;
		for (char *e = tok + strlen(tok); e > tok && e[-1] == ' ';)
			*--e = 0;
		if (!*tok || q->nterms == Q_MAX_TERMS) {
			snprintf(err, errlen, "metric '%s': %s", expr, *tok ?
				 "at most 8 terms" : "an empty term");
			return -1;
		}
		if (!strcmp(tok, "elapsed"))
			tok = "elapsed_s";
		else if (!strcmp(tok, "span"))
			tok = "span_s";
		snprintf(q->terms[q->nterms++], sizeof(q->terms[0]), "%s", tok);
	}
	if (!q->nterms) {
		snprintf(err, errlen, "metric '%s': no figure named", expr);
		return -1;
	}
	snprintf(q->key, sizeof(q->key), "%s", expr);
	/* the key ends before ":higher"; a key cut to fit already ends
	 * sooner */
	if (colon && (size_t)(colon - buf) < sizeof(q->key))
		q->key[colon - buf] = 0;
	return 0;
}

/* q's unit, scale to seconds and direction from its first term (its
 * metric's unit in r[0], of n runs; "total" in s), forced (0 higher, 1
 * lower better, -1 from the name) over the name's. */
static void metric_unit(struct question *q, const struct q_run *r, size_t n,
			int forced)
{
	const char *t0 = q->terms[0];
	const struct store_metric *m = n ? metric_named(&r[0], t0) : NULL;
	const char *unit = m ? m->unit : NULL;
	int dir;

	if (!strcmp(t0, "total"))
		unit = "s";
	dir = q_direction(t0, unit);
	q->unit_scale = !strcmp(t0, "total") ? 1 : time_unit(t0, unit);
	snprintf(q->unit, sizeof(q->unit), "%s", unit ? unit :
		 q->unit_scale == 1 ? "s" : "");
	q->lower_better = forced >= 0 ? forced : dir != 0;
	q->assumed = forced < 0 && dir < 0;
	q->duration = q->lower_better && q->unit_scale > 0 &&
		      (!strcmp(t0, "total") || !latency_name(t0));
}

/* cmd_term(), cmdN_dd_mb_s, cmdN_dd_bytes_per_s, cmdN_dd_s, cmdN_dd_bytes
 * (dd's own figures of command N) or a workload metric of r named
 * cmdN_NAME (command N's fio or dd result, as capture names them with
 * several commands: cmd2_read_iops): the command's index, else -1 */
static int cmd_window_term(const char *t, const struct q_run *r)
{
	int idx, at = 0;
	char tail[16];

	if (sscanf(t, "cmd%d_%15s", &idx, tail) == 2 && idx >= 1 &&
	    !strncmp(tail, "dd_", 3))
		return idx - 1;
	if (sscanf(t, "cmd%d_%n", &idx, &at) == 1 && at > 0 && idx >= 1 &&
	    t[at] && r && metric_of(r, t))
		return idx - 1;
	return cmd_term(t, r);
}

/* q->cmd_mask: the commands whose times or results q's terms are
 * (cmdN_real_s, cmdN_dd_*, a metric cmdN_NAME, real_s of r[0]'s one
 * command), 0 (the whole run) when a term is no command's or is
 * "total". */
static void metric_window(struct question *q, const struct q_run *r,
			  size_t n)
{
	for (int k = 0; k < q->nterms; k++) {
		int idx = cmd_window_term(q->terms[k], n ? &r[0] : NULL);
		if (!strcmp(q->terms[k], "total"))
			q->cmd_mask = 0;
		else if (idx >= 0 && idx < 64)
			q->cmd_mask |= 1ull << idx;
		else
			q->cmd_mask = 0;
		if (idx < 0 && strcmp(q->terms[k], "total"))
			break;
	}
	/* a term that is no command's: the window is the whole run */
	for (int k = 0; k < q->nterms; k++)
		if (cmd_window_term(q->terms[k], n ? &r[0] : NULL) < 0)
			q->cmd_mask = 0;
}

/* q->tunit: each workload-metric term's unit in the first run of r that
 * has it; every run's unit must be one that converts to it (700 MB/s
 * against 0.8 GB/s: compared as 700 and 800; 90 ms, 100 us). Returns 0,
 * or -1 with "metric 'thr' is in MB/s in one run and in tps in another:
 * not one quantity ..." in err. */
static int term_units(struct question *q, const struct q_run *r, size_t n,
		      char *err, size_t errlen)
{
	for (int k = 0; k < q->nterms; k++) {
		size_t first = n;
		q->tunit[k][0] = '\0';
		for (size_t i = 0; i < n; i++) {
			const struct store_metric *m = metric_named(&r[i],
								     q->terms[k]);
			double f;
			if (!m || !m->unit || !*m->unit)
				continue;
			if (first == n) {
				first = i;
				snprintf(q->tunit[k], sizeof(q->tunit[k]), "%s",
					 m->unit);
			} else if (unit_factor(m->unit, q->tunit[k], &f)) {
				snprintf(err, errlen, "metric '%s' is in %s in one "
					 "run and in %s in another: not one quantity "
					 "(set it again with iotape metric in one "
					 "unit)", q->terms[k], q->tunit[k], m->unit);
				return -1;
			}
		}
	}
	return 0;
}

/* The question --metric expr asks, else the default one (question.h). */
int question_choose(struct question *q, const char *expr,
		    const struct q_run *r, size_t n, char *err, size_t errlen)
{
	int forced = -1;

	memset(q, 0, sizeof(*q));
	q->unit_scale = 1;
	if (!expr) {
		question_default(q, r, n);
		return term_units(q, r, n, err, errlen);
	}
	q->kind = Q_METRIC;
	if (metric_terms(q, expr, &forced, err, errlen))
		return -1;
	/* unit and direction from the first term; commands' times mark which
	 * commands the window covers */
	metric_unit(q, r, n, forced);
	metric_window(q, r, n);
	read_figure(q);
	if (term_units(q, r, n, err, errlen))
		return -1;
	if (q->nterms > 1) {
		size_t o = 0;
		for (int k = 0; k < q->nterms && o + 2 < sizeof(q->label); k++)
			o += (size_t)snprintf(q->label + o, sizeof(q->label) - o,
					      "%s%s", k ? " + " : "", q->terms[k]);
	} else
		snprintf(q->label, sizeof(q->label), "%s", !strcmp(q->terms[0],
			 "total") ? "total real time of the commands" : q->terms[0]);
	snprintf(q->why, sizeof(q->why), "--metric %s%s", expr, q->assumed ?
		 "; lower taken as better (the name does not say: add :higher "
		 "if not)" : "");
	return 0;
}

/* The workload metric of r that q's term k reads, or NULL ("total" is
 * the commands' time, another term a command's or a figure): the one place
 * that says which comes first, for question_value() and
 * question_term_source() alike. */
static const struct store_metric *term_metric(const struct question *q,
					      const struct q_run *r, int k)
{
	if (!strcmp(q->terms[k], "total"))
		return NULL;
	return metric_named(r, q->terms[k]);
}

const char *question_term_source(const struct question *q,
				 const struct q_run *r, int k)
{
	const struct store_metric *m;

	if (k < 0 || k >= q->nterms || !(m = term_metric(q, r, k)))
		return NULL;
	return m->source ? m->source : "?";
}

double question_value(const struct question *q, const struct q_run *r,
		      double (*fig)(void *ctx, const char *key), void *ctx)
{
	double sum = 0;

	for (int k = 0; k < q->nterms; k++) {
		const char *t = q->terms[k];
		const struct store_metric *m = term_metric(q, r, k);
		int idx;
		double v = NAN;
		double f;
		if (!strcmp(t, "total"))
			v = q_commands_s(r, 0);
		else if (m)
			/* in the first run's unit (term_units() checked) */
			v = unit_factor(m->unit, q->tunit[k], &f) ? NAN
								  : m->value * f;
		else if ((idx = cmd_term(t, r)) >= 0 && idx < 64)
			v = q_commands_s(r, 1ull << idx);
		else if (fig)
			v = fig(ctx, t);
		if (!isfinite(v))
			return NAN;
		sum += v;
	}
	return sum;
}
