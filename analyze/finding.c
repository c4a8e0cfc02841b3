/* Findings: ranking by cost and one emitter for text and JSON (finding.h). */
#include "finding.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/emit.h"

void finding_init(struct finding *f, const char *analyzer)
{
	memset(f, 0, sizeof(*f));
	f->analyzer = analyzer;
	f->mb = -1;
	f->x_part_s = -1;
}

void fd_cat(char *field, size_t size, const char *fmt, ...)
{
	size_t o = strlen(field);
	va_list ap;

	if (o + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(field + o, size - o, fmt, ap);
	va_end(ap);
}

const char *fd_conf_name(enum fd_conf c)
{
	static const char *const names[] = { "none", "low", "medium", "high" };
	return c <= FD_HIGH ? names[c] : "?";
}

static int rank_class(const struct finding *f)
{
	return f->cause ? 0 : f->present ? 1 : 2;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int cx = rank_class(x), cy = rank_class(y);

	if (cx != cy)
		return cx - cy;
	if (x->cost_s != y->cost_s)
		return x->cost_s < y->cost_s ? 1 : -1;
	return strcmp(x->analyzer, y->analyzer);
}

static void mark(struct finding *f, int n, double ref_s, double min_cost_s)
{
	for (int i = 0; i < n; i++) {
		f[i].score = ref_s > 0 ? f[i].cost_s / ref_s : 0;
		if (f[i].score > 1)
			f[i].score = 1;
		f[i].cause = f[i].present && f[i].conf > FD_NONE &&
			     f[i].cost_s >= FD_MIN_S &&
			     f[i].cost_s >= min_cost_s;
		f[i].cause_min_s = fmax(min_cost_s, FD_MIN_S);
	}
}

void finding_rank(struct finding *f, int n, double ref_s, double min_cost_s)
{
	/* the costs are parts of the workload's time that do not overlap
	 * (critpath.h): each counts whole */
	for (int i = 0; i < n; i++)
		f[i].overlap[0] = '\0';
	mark(f, n, ref_s, min_cost_s);
	qsort(f, (size_t)n, sizeof(*f), cmp_rank);
}

/* Starts a line in out (at *o of len bytes): a newline and indent spaces;
 * 0, or -1 when there is no room for them. */
static int line_break(char *out, size_t *o, size_t len, int indent)
{
	if (*o + (size_t)indent + 2 >= len)
		return -1;
	out[(*o)++] = '\n';
	for (int k = 0; k < indent; k++)
		out[(*o)++] = ' ';
	return 0;
}

/* wrap_indent() for text that goes out after col0 columns already on its
 * first line. */
static void wrap_from(const char *text, int width, int indent, int col0,
		      char *out, size_t len)
{
	size_t o = 0;
	int col = col0;
	const char *p = text;

	if (!len)
		return;
	while (*p && o + 1 < len) {
		const char *w = p;
		int wl;
		if (*p == '\n') {
			if (line_break(out, &o, len, indent))
				break;
			col = indent;
			p++;
			continue;
		}
		while (*w && *w != ' ' && *w != '\n')
			w++;
		wl = (int)(w - p);
		if (col > indent && col + 1 + wl > width) {
			if (line_break(out, &o, len, indent))
				break;
			col = indent;
		} else if (col > 0 && p > text && p[-1] == ' ' && o + 1 < len) {
			out[o++] = ' ';
			col++;
		}
		while (p < w && o + 1 < len) {
			/* a word longer than a line (a long run name) is cut
			 * at the margin, not let past it; never inside a
			 * UTF-8 character */
			if (col >= width && wl > width - indent &&
			    ((unsigned char)*p & 0xC0) != 0x80) {
				if (line_break(out, &o, len, indent))
					break;
				col = indent;
			}
			out[o++] = *p++;
			col++;
		}
		while (*p == ' ')
			p++;
	}
	out[o] = '\0';
}

void wrap_indent(const char *text, int width, int indent, char *out,
		 size_t len)
{
	wrap_from(text, width, indent, 0, out, len);
}

void wrap_text(char *text, int width)
{
	int col = 0;
	char *last_space = NULL;

	for (char *p = text; *p; p++) {
		if (*p == '\n') {
			col = 0;
			last_space = NULL;
			continue;
		}
		if (*p == ' ')
			last_space = p;
		if (++col > width && last_space) {
			*last_space = '\n';
			col = (int)(p - last_space);
			last_space = NULL;
		}
	}
}

static void put_par(struct emit *e, const char *lead, const char *text)
{
	char buf[8192], in[6000];

	int pad = 3;

	/* the lead's own indentation goes before the text, not into it (the
	 * wrap drops leading spaces) */
	while (*lead == ' ') {
		lead++;
		pad++;
	}
	snprintf(in, sizeof(in), "%s%s", lead, text);
	wrap_from(in, 78, 5, pad, buf, sizeof(buf));
	emit_text(e, "%*s%s\n", pad, "", buf);
}

static void emit_json(struct emit *e, const struct finding *f, double total_s,
		      double unit_per_s, int shown)
{
	emit_obj_begin(e, NULL);
	emit_str(e, "analyzer", f->analyzer);
	emit_str(e, "title", f->title);
	emit_u64(e, "cause", (uint64_t)f->cause);
	emit_u64(e, "present", (uint64_t)f->present);
	emit_num(e, "cost_s", f->cost_s);
	emit_str(e, "cost_of", f->cost_of);
	emit_str(e, "method", f->counterfactual ? "counterfactual" : "measured");
	emit_str(e, "how", f->how);
	emit_num(e, "score", f->score);
	emit_str(e, "evidence", f->evidence);
	emit_obj_begin(e, "window");
	emit_num(e, "from_s", f->lo_s);
	emit_num(e, "to_s", f->hi_s);
	emit_obj_end(e);
	emit_str(e, "confidence", fd_conf_name(f->conf));
	emit_str(e, "confidence_why", f->why);
	if (f->needs[0])
		emit_str(e, "needs", f->needs);
	if (f->mb >= 0)
		emit_num(e, "mb", f->mb);
	if (f->overlap[0])
		emit_str(e, "overlap", f->overlap);
	if (total_s != 0) {
		emit_num(e, "share", f->cost_s / total_s);
		emit_u64(e, "in_waterfall", (uint64_t)shown);
	}
	if (unit_per_s != 0)
		emit_num(e, "cost_in_figure", f->cost_s * unit_per_s);
	emit_obj_end(e);
}

/* 1 when f's cost is a part of the time its data cannot measure
 * (confidence none, a cost of FD_MIN_S or more). */
static int unmeasured_cost(const struct finding *f)
{
	return f->conf == FD_NONE && fabs(f->cost_s) >= FD_MIN_S;
}

/* One entry of a list of findings under heading (printed before the first,
 * counted in *count): "- title (cost): why", and what would tell. */
static void list_item(struct emit *e, const struct finding *f,
		      const char *heading, int *count)
{
	char line[600], why[700];

	if (!(*count)++)
		emit_text(e, "\n%s:\n", heading);
	snprintf(line, sizeof(line), "- %s (%+.2f s): ", f->title, f->cost_s);
	/* a cost under what a cause needed: said, or "+216.32 s" under a
	 * heading of no cost reads as a contradiction */
	if (f->conf > FD_NONE && f->cost_s > 0 && f->cost_s < f->cause_min_s)
		snprintf(why, sizeof(why), "under the %.2f s a cause needs here; %s",
			 f->cause_min_s, f->why);
	else
		snprintf(why, sizeof(why), "%s", f->why);
	put_par(e, line, why);
	if (f->needs[0])
		put_par(e, "  to know: ", f->needs);
}

/* The details of each cause (numbered as in the waterfall), then the
 * offsets the waterfall shows in the other run's favour (present, no
 * cause, costing off_s or less), then the patterns present and not named
 * (their cost not measurable, under a cause's share, or told apart from
 * no noise), then the ones not seen. */
static void emit_details(struct emit *e, const struct finding *f, int n,
			 int numbered_only, double off_s)
{
	int causes = 0, present = 0, absent = 0, offsets = 0, unmeasured = 0;

	for (int i = 0; i < n; i++) {
		char line[512], buf[1024];
		if (!f[i].cause)
			continue;
		causes++;
		snprintf(line, sizeof(line), "%d. %s", causes, f[i].title);
		wrap_indent(line, 78, 3, buf, sizeof(buf));
		emit_text(e, "\n%s\n", buf);
		snprintf(line, sizeof(line), "cost: %.2f s of %s; %s: ", f[i].cost_s,
			 f[i].cost_of, f[i].counterfactual ? "inferred"
							   : "measured");
		put_par(e, line, f[i].how);
		put_par(e, "evidence: ", f[i].evidence);
		snprintf(line, sizeof(line), "window %+.2f..%+.2f s; confidence "
			 "%s: ", f[i].lo_s, f[i].hi_s, fd_conf_name(f[i].conf));
		put_par(e, line, f[i].why);
	}
	if (numbered_only)
		return;
	/* the present non-causes in three lists: the offsets the waterfall
	 * shows, a part of the time the data cannot measure (confidence
	 * none: not "no measurable cost"), the rest */
	for (int i = 0; i < n; i++)
		if (!f[i].cause && f[i].present && f[i].cost_s <= off_s)
			list_item(e, &f[i], "in the other run's favour (in the "
				  "waterfall)", &offsets);
	for (int i = 0; i < n; i++)
		if (!f[i].cause && f[i].present && f[i].cost_s > off_s &&
		    unmeasured_cost(&f[i]))
			list_item(e, &f[i], "present, its cost not measurable "
				  "from this data", &unmeasured);
	for (int i = 0; i < n; i++)
		if (!f[i].cause && f[i].present && f[i].cost_s > off_s &&
		    !unmeasured_cost(&f[i]))
			list_item(e, &f[i], "present, not named as a cause",
				  &present);
	{
		char list[600] = "not seen:", buf[800];
		for (int i = 0; i < n; i++)
			if (!f[i].present)
				snprintf(list + strlen(list), sizeof(list) -
					 strlen(list), "%s %s", absent++ ? "," : "",
					 f[i].analyzer);
		if (absent) {
			wrap_indent(list, 78, 2, buf, sizeof(buf));
			emit_text(e, "\n%s\n", buf);
		}
	}
}

/* One waterfall row: seconds, share, then the text wrapped under it. */
static void wf_row(struct emit *e, double s, double total, const char *lead,
		   const char *text)
{
	char in[700], buf[1400];

	snprintf(in, sizeof(in), "%s%s", lead, text);
	wrap_from(in, 78, 21, 18, buf, sizeof(buf));
	if (total != 0)
		emit_text(e, "  %+8.2f %5.0f%%  %s\n", s, 100 * s / total, buf);
	else
		emit_text(e, "  %+8.2f         %s\n", s, buf);
}

double finding_offset_min(double total_s)
{
	return fmax(FD_CAUSE_SHARE_DIFF * fabs(total_s), FD_MIN_S);
}

int finding_in_waterfall(const struct finding *f, int n, int i,
			 double total_s)
{
	int causes = 0;

	if (f[i].cause)
		return 1;
	for (int k = 0; k < n; k++)
		causes += f[k].cause;
	return causes && f[i].cost_s <= -finding_offset_min(total_s);
}

void finding_emit_waterfall(struct emit *e, const struct finding *f, int n,
			    const char *heading, double total_s, double rest_s,
			    const char *total_label, const char *rest_label,
			    const char *unit, double unit_per_s)
{
	int causes = 0;
	double min_off = finding_offset_min(total_s);

	for (int i = 0; i < n; i++)
		causes += f[i].cause;
	emit_arr_begin(e, "findings");
	for (int i = 0; i < n; i++)
		emit_json(e, &f[i], total_s, unit_per_s,
			  finding_in_waterfall(f, n, i, total_s));
	emit_arr_end(e);
	/* the rest is text (emit_text, emit_heading: nothing in JSON) */
	emit_heading(e, heading);
	if (!causes || total_s == 0) {
		int big = 0;    /* a part that moved but is not named */
		for (int i = 0; i < n; i++)
			big += f[i].present && fabs(f[i].cost_s) >= min_off;
		if (big && total_s != 0)
			emit_text(e, "no cause named: what moved is below, with "
				  "why it is not named\n");
		else
			emit_text(e, "no cause: nothing here cost a measurable "
				  "share of the %s\n", total_s != 0 ?
				  total_label : "time");
		emit_details(e, f, n, 0, -INFINITY);
		return;
	}
	emit_text(e, "   seconds  share  cause (they add up to the %s)\n",
		  strlen(total_label) <= 38 ? total_label : "total");
	causes = 0;
	for (int i = 0; i < n; i++) {
		char lead[16];
		if (!f[i].cause)
			continue;
		snprintf(lead, sizeof(lead), "%d. ", ++causes);
		wf_row(e, f[i].cost_s, total_s, lead, f[i].title);
	}
	for (int i = 0; i < n; i++) {
		char t[260];
		if (f[i].cause || f[i].cost_s > -min_off)
			continue;
		snprintf(t, sizeof(t), "in the other run's favour: %s",
			 f[i].title);
		wf_row(e, f[i].cost_s, total_s, "   ", t);
	}
	if (rest_s < -min_off) {
		char t[400];
		snprintf(t, sizeof(t), "in the other run's favour, %s", rest_label);
		wf_row(e, rest_s, total_s, "   ", t);
	} else
		wf_row(e, rest_s, total_s, "   ", rest_label);
	emit_text(e, "  %s\n", "--------");
	{
		char t[200];
		if (unit && unit[0] && unit_per_s != 0)
			snprintf(t, sizeof(t), "%s (%.4g %s)", total_label,
				 total_s * unit_per_s, unit);
		else if (unit && unit_per_s != 0)   /* a figure with no unit */
			snprintf(t, sizeof(t), "%s (the figure %+.4g)", total_label,
				 total_s * unit_per_s);
		else
			snprintf(t, sizeof(t), "%s", total_label);
		wf_row(e, total_s, total_s, "   ", t);
	}
	emit_details(e, f, n, 0, -min_off);
}

