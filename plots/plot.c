/* plot_run(): loads the runs, puts them on one time axis (their starts, or
 * a command's start, at 0 s), and has each asked-for kind write its data
 * and script, then runs gnuplot on it; plus the helpers the kinds share. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/util.h"
#include "plots/plot_int.h"

static const struct plot_kind_ops *const kinds[PLOT_NKINDS] = {
	[PLOT_SEEK] = &plot_kind_seek,
	[PLOT_TPUT] = &plot_kind_tput,
	[PLOT_LAT] = &plot_kind_lat,
	[PLOT_QD] = &plot_kind_qd,
	[PLOT_VM] = &plot_kind_vm,
	[PLOT_PROCS] = &plot_kind_procs,
	[PLOT_COMPARE] = &plot_kind_compare,
};

const char *plot_kind_name(enum plot_kind k)
{
	if (k == PLOT_ACROSS)
		return "across";
	return (unsigned)k < PLOT_NKINDS ? kinds[k]->name : NULL;
}

int plot_parse_kinds(const char *list, unsigned *out)
{
	unsigned set = 0;
	const char *p = list;

	for (;;) {
		size_t n = strcspn(p, ",");
		int k, found = 0;
		if (n == 3 && !strncmp(p, "all", 3)) {
			set |= PLOT_ALL;
			found = 1;
		}
		for (k = 0; k < PLOT_NKINDS && !found; k++)
			if (strlen(kinds[k]->name) == n && !strncmp(p, kinds[k]->name, n)) {
				set |= 1u << k;
				found = 1;
			}
		if (!found)
			return error("unknown plot kind '%.*s' (seek, tput, lat, qd,"
				     " vm, procs, compare, all)", (int)n, p);
		if (!p[n])
			break;
		p += n + 1;
	}
	*out = set;
	return 0;
}

void plot_stem(const char *const *runs, size_t nrun, char *out, size_t outlen)
{
	size_t len = 0, cap = outlen < PLOT_STEM_MAX + 1 ? outlen :
						       PLOT_STEM_MAX + 1;
	uint32_t h = 2166136261u;      /* FNV-1a of the names, each with its NUL */
	int lossy = 0;

	for (size_t i = 0; i < nrun; i++) {
		const char *s = runs[i];
		for (const char *c = s; ; c++) {
			h = (h ^ (unsigned char)*c) * 16777619u;
			if (!*c)
				break;
		}
		if (i) {
			for (const char *v = "-vs-"; *v; v++)
				if (len + 1 < cap)
					out[len++] = *v;
				else
					lossy = 1;
		}
		for (; *s; s++) {
			char ch = *s;
			if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
			      ch == '-')) {
				ch = '_';
				lossy = 1;
			}
			if (len + 1 < cap)
				out[len++] = ch;
			else
				lossy = 1;
		}
	}
	/* a name changed or cut could be another's: the names' hash after
	 * it keeps each set of runs its own files */
	if (lossy && cap > 10) {
		if (len > cap - 10)
			len = cap - 10;
		snprintf(out + len, cap - len, "-%08x", h);
		len += 9;
	}
	out[len] = 0;
	if (!len || out[0] == '.')
		out[0] = '_';    /* no hidden files, no empty names */
	if (!len && outlen > 1)
		out[1] = 0;
}

double plot_bin_width(double span, int target, char *text, size_t len)
{
	static const double steps[] = { 1, 2, 5 };
	double w = 1e-6;   /* 1 us at least */

	if (!(span > 0))
		span = 1e-3;
	for (double dec = 1e-6; ; dec *= 10) {
		int done = 0;
		for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
			w = steps[i] * dec;
			if (span / w <= target) {
				done = 1;
				break;
			}
		}
		if (done)
			break;
	}
	if (w < 1e-3)
		snprintf(text, len, "%.0f us", w * 1e6);
	else if (w < 1)
		snprintf(text, len, "%.0f ms", w * 1e3);
	else
		snprintf(text, len, "%.0f s", w);
	return w;
}

double plot_tick_step(double range)
{
	double raw = range / 4, dec;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	dec = pow(10, floor(log10(raw)));
	return raw <= dec ? dec : raw <= 2 * dec ? 2 * dec : raw <= 5 * dec
		? 5 * dec : 10 * dec;
}

void plot_proc_label(const struct runview *rv, uint32_t pid, char *out,
		     size_t len)
{
	const char *comm = runview_comm(rv, pid);

	if (comm && *comm)
		snprintf(out, len, "%.16s %u", comm, pid);
	else
		snprintf(out, len, "pid %u", pid);
}

int plot_proc_colour(const struct plot_ctx *c, size_t r, uint32_t pid)
{
	const struct plot_run *pr = &c->runs[r];
	int f;

	if (!pr->has_fam || (f = family_of(&pr->fam, pid)) < 0)
		return PLOT_NCOLOURS;
	for (int k = 0; k < c->nfam; k++)
		if (!strcmp(c->fam[k], pr->fam.f[f].name))
			return k;
	return PLOT_NCOLOURS;
}

const char *plot_colour_name(const struct plot_ctx *c, int k)
{
	return k >= 0 && k < c->nfam ? c->fam[k] : "other";
}

/* The palette (c->fam): the families with most bytes over all runs, a
 * colour each, by name, so md5sum is the same blue in every run. */
static void make_palette(struct plot_ctx *c)
{
	struct fb { char name[FAM_NAME]; uint64_t bytes; } *all = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->nrun; i++) {
		const struct families *fs = &c->runs[i].fam;
		if (!c->runs[i].has_fam)
			continue;
		for (int k = 0; k < fs->n; k++) {
			size_t j;
			for (j = 0; j < n && strcmp(all[j].name, fs->f[k].name); j++)
				;
			if (j == n) {
				all = xrealloc(all, (n + 1) * sizeof(*all));
				memset(&all[n], 0, sizeof(*all));
				snprintf(all[n].name, sizeof(all[n].name), "%s",
					 fs->f[k].name);
				n++;
			}
			all[j].bytes += fs->f[k].bytes;
		}
	}
	c->nfam = 0;
	/* the largest first: a selection of PLOT_NCOLOURS, ties by name */
	while (c->nfam < PLOT_NCOLOURS) {
		size_t best = n;
		for (size_t j = 0; j < n; j++)
			if (all[j].bytes && (best == n || all[j].bytes > all[best].bytes ||
					     (all[j].bytes == all[best].bytes &&
					      strcmp(all[j].name, all[best].name) < 0)))
				best = j;
		if (best == n)
			break;
		snprintf(c->fam[c->nfam++], FAM_NAME, "%s", all[best].name);
		all[best].bytes = 0;
	}
	free(all);
}

int plot_setting_volatile(const char *k)
{
	return !strncmp(k, "capture.", 8) || !strncmp(k, "record.", 7) ||
	       strstr(k, "total_kb") || !strcmp(k, "date_utc");
}

/* The settings that set c's runs apart, into keys (at most two; returns
 * how many): at the start of every run, with values that differ. In order
 * of preference: pass 0 labels (no '.', ':' or '/'), pass 1 the run's own
 * kernel and host (unless a label has that name), pass 2 the rest. sets
 * and nsets: each run's settings (only the first run's are walked). */
static int label_keys(struct plot_ctx *c, struct store_setting **sets,
		      const size_t *nsets, char keys[2][96])
{
	size_t n = c->nrun;
	int nkeys = 0;

	for (int pass = 0; pass < 3 && nkeys < 2 && n > 1; pass++) {
		const char *cand[2] = { "kernel", "host" };
		size_t ncand = pass == 1 ? 2 : nsets[0];
		for (size_t k = 0; k < ncand && nkeys < 2; k++) {
			const char *key = pass == 1 ? cand[k] : sets[0][k].key;
			char v0[128], v[128], tmp[128];
			int differ = 0, all = 1, lab = !strpbrk(key, ".:/");
			if (pass != 1 && (sets[0][k].at != STORE_AT_START ||
					  lab != (pass == 0) || plot_setting_volatile(key)))
				continue;
			if (nkeys && !strcmp(keys[0], key))
				continue;
			for (size_t i = 0; i < n && all; i++) {
				struct store_run r;
				if (pass == 1) {
					if (store_run_get(c->st, c->runs[i].rv.id, &r))
						all = 0;
					else
						snprintf(v, sizeof(v), "%.127s", k ? r.host
							 : r.kernel);
					if (!v[0] || store_setting_get(c->st,
						c->runs[i].rv.id, key, STORE_AT_START,
						tmp, sizeof(tmp)) > 0)
						all = 0;   /* a label of that name wins */
				} else if (store_setting_get(c->st, c->runs[i].rv.id,
							     key, STORE_AT_START, v,
							     sizeof(v)) <= 0) {
					all = 0;
				}
				if (!i)
					snprintf(v0, sizeof(v0), "%s", v);
				else if (strcmp(v0, v))
					differ = 1;
			}
			if (all && differ)
				snprintf(keys[nkeys++], sizeof(keys[0]), "%s", key);
		}
	}
	return nkeys;
}

/* Label each run "key=value" for keys[0..nkeys) (a run without the
 * setting: its own kernel or host); a label longer than PLOT_LABEL_MAX
 * the values alone. */
static void label_by_keys(struct plot_ctx *c, char keys[2][96], int nkeys)
{
	snprintf(c->labels_by_buf, sizeof(c->labels_by_buf), "%s%s%s",
		 keys[0], nkeys > 1 ? ", " : "", nkeys > 1 ? keys[1] : "");
	c->labels_by = c->labels_by_buf;
	for (size_t i = 0; i < c->nrun; i++) {
		char lab[256] = "", v[128];
		for (int k = 0; k < nkeys; k++) {
			struct store_run r;
			if (store_setting_get(c->st, c->runs[i].rv.id, keys[k],
					      STORE_AT_START, v, sizeof(v)) <= 0 &&
			    !store_run_get(c->st, c->runs[i].rv.id, &r))
				snprintf(v, sizeof(v), "%.127s",
					 !strcmp(keys[k], "host") ? r.host : r.kernel);
			snprintf(lab + strlen(lab), sizeof(lab) - strlen(lab),
				 "%s%s=%.60s", k ? " " : "", keys[k], v);
		}
		/* a long pair: the values alone */
		if (strlen(lab) > PLOT_LABEL_MAX) {
			lab[0] = 0;
			for (int k = 0; k < nkeys; k++)
				if (store_setting_get(c->st, c->runs[i].rv.id,
						      keys[k], STORE_AT_START,
						      v, sizeof(v)) > 0)
					snprintf(lab + strlen(lab), sizeof(lab) -
						 strlen(lab), "%s%s", k ? " " : "", v);
		}
		snprintf(c->runs[i].label, sizeof(c->runs[i].label), "%.*s",
			 PLOT_LABEL_MAX, lab);
	}
}

/* Label each run with its name less what all the names share (a prefix
 * and suffix cut at a separator), or its whole name when that leaves one
 * empty; past PLOT_LABEL_MAX cut with "...". */
static void label_by_names(struct plot_ctx *c)
{
	size_t n = c->nrun;
	const char *n0 = c->runs[0].rv.name;
	size_t pre = strlen(n0), suf = strlen(n0), ok = 1;

	for (size_t i = 1; i < n; i++) {
		const char *s = c->runs[i].rv.name;
		size_t ls = strlen(s), k = 0, l0 = strlen(n0);
		while (k < pre && s[k] == n0[k])
			k++;
		pre = k;
		for (k = 0; k < suf && k < ls && k < l0 &&
		     s[ls - 1 - k] == n0[l0 - 1 - k]; k++)
			;
		suf = k;
	}
	while (pre && !strchr("-_.[=", n0[pre - 1]))
		pre--;
	while (suf && !strchr("-_.]", n0[strlen(n0) - suf]))
		suf--;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(c->runs[i].rv.name);
		if (pre + suf >= l)
			ok = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *s = c->runs[i].rv.name;
		size_t l = strlen(s);
		if (ok)
			snprintf(c->runs[i].label, sizeof(c->runs[i].label),
				 "%.*s%s", (int)(l - pre - suf) > PLOT_LABEL_MAX ?
				 PLOT_LABEL_MAX - 3 : (int)(l - pre - suf), s + pre,
				 (int)(l - pre - suf) > PLOT_LABEL_MAX ? "..." : "");
		else
			snprintf(c->runs[i].label, sizeof(c->runs[i].label),
				 "%.*s%s", l > PLOT_LABEL_MAX ? PLOT_LABEL_MAX - 3 :
				 (int)l, s, l > PLOT_LABEL_MAX ? "..." : "");
	}
}

/* Repeats: runs with the same label told apart by their order, " #N". */
static void label_repeats(struct plot_ctx *c)
{
	size_t n = c->nrun;
	int *same = xcalloc(n, sizeof(*same)), *nth = xcalloc(n, sizeof(*nth));

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (!strcmp(c->runs[j].label, c->runs[i].label)) {
				same[i]++;
				nth[i] += j <= i;
			}
	for (size_t i = 0; i < n; i++) {
		char *l = c->runs[i].label;
		size_t len = strlen(l);
		if (same[i] < 2)
			continue;
		if (len > PLOT_LABEL_MAX - 4)
			len = PLOT_LABEL_MAX - 4;
		snprintf(l + len, sizeof(c->runs[i].label) - len, " #%d", nth[i]);
	}
	free(same);
	free(nth);
}

/* c->runs[i].label for every run: what sets the runs apart, so a key reads
 * "kernel=2.6.1-mm4", not a name whose first 20 characters every run
 * shares. In order: the settings whose values differ (labels first: keys
 * such as fs or kernel, then the run's own kernel and host, then other
 * settings; at most two keys); else the part of the names that differs
 * (a shared prefix and suffix cut at '-', '_', '.', '[', ']' or '='); else
 * the names. A label that two runs share (repeats) gets " #N". */
static int label_runs(struct plot_ctx *c)
{
	size_t n = c->nrun;
	struct store_setting **sets = xcalloc(n, sizeof(*sets));
	size_t *nsets = xcalloc(n, sizeof(*nsets));
	char keys[2][96] = { "", "" };
	int nkeys = 0, rc = 0;

	c->labels_by = "names";
	for (size_t i = 0; i < n && n > 1; i++)
		if (store_settings_get(c->st, c->runs[i].rv.id, &sets[i], &nsets[i])) {
			rc = error("%s", store_errmsg(c->st));
			goto out;
		}
	nkeys = label_keys(c, sets, nsets, keys);
	if (nkeys)
		label_by_keys(c, keys, nkeys);
	else if (n > 1)
		label_by_names(c);
	label_repeats(c);
out:
	for (size_t i = 0; i < n; i++)
		free(sets[i]);
	free(sets);
	free(nsets);
	return rc;
}

int plot_label_chars(const struct plot_ctx *c)
{
	size_t n = 0;

	for (size_t i = 0; c->nrun > 1 && i < c->nrun; i++)
		if (strlen(c->runs[i].label) + 1 > n)
			n = strlen(c->runs[i].label) + 1;
	return (int)n;
}

void plot_devname(uint32_t dev, char *out, size_t len)
{
	snprintf(out, len, "%u,%u", BT_MAJOR(dev), BT_MINOR(dev));
}

int plot_make_dir(const char *dir, struct plot_made *made)
{
	struct stat sb;
	char parent[PATH_MAX];
	const char *slash;

	if (!stat(dir, &sb)) {
		if (!S_ISDIR(sb.st_mode))
			return error("'%s' is not a folder", dir);
		return 0;
	}
	if (mkdir(dir, 0777) == 0) {
		plot_made_add(made, dir, PLOT_MADE_DIR);
		return 0;
	}
	if (errno != ENOENT)
		return error("cannot create '%s': %s", dir, strerror(errno));
	/* only the last level is made, as mkdir without -p */
	slash = strrchr(dir, '/');
	if (!slash)
		return error("cannot create '%s': %s", dir, strerror(ENOENT));
	snprintf(parent, sizeof(parent), "%.*s", slash == dir ? 1 :
		 (int)(slash - dir), dir);
	return error("cannot create '%s': its folder '%s' does not exist (make"
		     " it first)", dir, parent);
}

void plot_made_add(struct plot_made *m, const char *path, int what)
{
	if (!m)
		return;
	m->path = xrealloc(m->path, (m->n + 1) * sizeof(*m->path));
	m->what = xrealloc(m->what, (m->n + 1) * sizeof(*m->what));
	m->path[m->n] = xstrdup(path);
	m->what[m->n++] = (unsigned char)what;
}

void plot_made_tmp_clean(struct plot_made *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++) {
		if (m->what[i] == PLOT_MADE_TMP) {
			unlink(m->path[i]);   /* renamed already: ENOENT */
			free(m->path[i]);
			continue;
		}
		m->path[k] = m->path[i];
		m->what[k++] = m->what[i];
	}
	m->n = k;
}

void plot_made_undo(struct plot_made *m)
{
	while (m->n) {
		size_t i = --m->n;
		if (m->what[i] == PLOT_MADE_DIR)
			rmdir(m->path[i]);
		else
			unlink(m->path[i]);
		free(m->path[i]);
	}
	plot_made_free(m);
}

void plot_made_free(struct plot_made *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->path[i]);
	free(m->path);
	free(m->what);
	memset(m, 0, sizeof(*m));
}

/* Where run r's time 0 is: its first event (or first sample, for a run of
 * samples only), or the start of its command align_cmd. */
static int place_run(struct plot_ctx *c, struct plot_run *r, int align_cmd)
{
	int64_t first = r->rv.genesis_ns, last = r->rv.last_ns;

	/* a clock step puts events before the first one or after the last:
	 * the plot spans the earliest to the latest */
	if (r->rv.max_ns > r->rv.min_ns) {
		first = r->rv.min_ns;
		last = r->rv.max_ns;
	}
	if (last < first)
		last = first;

	if (!r->rv.first_event) {
		struct store_cursor *cur;
		struct store_sample smp;
		int step = -1;
		first = 0;
		if (!store_samples_open(c->st, r->rv.id, NULL, &cur)) {
			if ((step = store_samples_next(cur, &smp)) > 0)
				first = smp.time_ns;
			store_cursor_close(cur);
		}
		if (step < 0)
			return error("%s", store_errmsg(c->st));
		last = first;
	}
	r->base_ns = first;
	if (align_cmd >= 0) {
		struct store_command *cmd;
		size_t n;
		int found = 0;
		if (store_commands_get(c->st, r->rv.id, &cmd, &n))
			return error("%s", store_errmsg(c->st));
		for (size_t i = 0; i < n && !found; i++)
			if (cmd[i].idx == align_cmd && cmd[i].start_ns != STORE_NO_TIME) {
				r->base_ns = cmd[i].start_ns;
				found = 1;
			}
		free(cmd);
		if (!found)
			return error("run '%s' has no command %d with a start time"
				     " (--align cmd:N counts from 0)", r->rv.name,
				     align_cmd);
	}
	/* a --from/--to window: the time axis shows only it */
	if (r->rv.filtered && r->rv.range.from_ns > first)
		first = r->rv.range.from_ns;
	if (r->rv.filtered && r->rv.range.to_ns < last)
		last = r->rv.range.to_ns;
	if (last < first)
		last = first;
	r->t0 = plot_t(r, first);
	r->t1 = plot_t(r, last);
	snprintf(r->label, sizeof(r->label), "%.*s%s", strlen(r->rv.name) >
		 PLOT_LABEL_MAX ? PLOT_LABEL_MAX - 3 : PLOT_LABEL_MAX, r->rv.name,
		 strlen(r->rv.name) > PLOT_LABEL_MAX ? "..." : "");
	return 0;
}

/* gnuplot's dumb terminal starts each page with a form feed and pads lines
 * with blanks: make the text file plain (pages one blank line apart). The
 * text is read whole first, as the file may be written in place (a symlink:
 * lib/outfile.h). Returns 0, or -1 with the error line in err (errlen
 * bytes). */
int plot_tidy_txt(const char *dir, const char *file, char *err, size_t errlen)
{
	char path[PATH_MAX], *line = NULL, *text = NULL;
	size_t cap = 0, len = 0;
	ssize_t n;
	struct out_file of;
	FILE *in, *mem;
	int page = 0, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(in = fopen(path, "r"))) {
		snprintf(err, errlen, "cannot read '%.400s': %s", path, strerror(errno));
		return -1;
	}
	if (!(mem = open_memstream(&text, &len))) {
		snprintf(err, errlen, "cannot read '%.400s': %s", path, strerror(errno));
		fclose(in);
		return -1;
	}
	while ((n = getline(&line, &cap, in)) >= 0) {
		char *s = line;
		if (*s == '\f') {
			s++;
			if (page++)
				fputc('\n', mem);
			n--;
		}
		while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' ||
				 s[n - 1] == '\f' || s[n - 1] == '\r'))
			n--;
		fprintf(mem, "%.*s\n", (int)n, s);
	}
	free(line);
	rc = ferror(in) ? -EIO : 0;
	fclose(in);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	if (rc) {
		snprintf(err, errlen, "cannot read '%.400s': %s", path, strerror(-rc));
		free(text);
		return -1;
	}
	if (!(rc = out_file_open(&of, path))) {
		if (fwrite(text, 1, len, of.fp) != len) {
			rc = errno ? -errno : -EIO;
			out_file_discard(&of);
		} else {
			rc = out_file_commit(&of);
		}
	}
	free(text);
	if (rc) {
		snprintf(err, errlen, "cannot write '%.400s': %s", path, out_file_error(rc));
		return -1;
	}
	return 0;
}

/* ---- running gnuplot on the scripts, several at once ---- */

struct gp_job {
	const char *dir;
	char script[200], out[200], tmp[240];
	enum plot_format format;
	int is_new;         /* no file named out before: made by this run */
	int kind;
	int rc;             /* 0 once the picture is in place */
};

struct gp_pool {
	struct gp_job *jobs;
	size_t n, next;
	int failed;
	int no_gnuplot;     /* the first failure: gnuplot cannot be run */
	char err[512];      /* the first failure's error line */
	pthread_mutex_t lock;
};

static void *gp_worker(void *arg)
{
	struct gp_pool *p = arg;

	for (;;) {
		struct gp_job *j;
		char err[512];
		int rc;

		pthread_mutex_lock(&p->lock);
		j = p->failed || p->next == p->n ? NULL : &p->jobs[p->next++];
		pthread_mutex_unlock(&p->lock);
		if (!j)
			return NULL;
		rc = plot_picture_draw(j->dir, j->script, j->tmp, j->out,
				       j->format, err, sizeof(err));
		j->rc = rc;
		if (rc) {
			pthread_mutex_lock(&p->lock);
			if (!p->failed++) {
				snprintf(p->err, sizeof(p->err), "%s", err);
				p->no_gnuplot = rc == -2;
			}
			pthread_mutex_unlock(&p->lock);
		}
	}
}

/* Runs gnuplot on jobs[0..n), as many at once as there are CPUs (at most
 * 4): the pictures of a large run take seconds each. Stops starting jobs
 * after a failure. Returns 0, or -1 after one error line (the first
 * failure's), -2 when that is that gnuplot cannot be run. */
static int run_jobs(struct gp_job *jobs, size_t n)
{
	struct gp_pool p = { .jobs = jobs, .n = n };

	for (size_t i = 0; i < n; i++)
		jobs[i].rc = 1;   /* not drawn (yet) */
	pthread_t th[4];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nth = cpus < 1 ? 1 : cpus > 4 ? 4 : (size_t)cpus, started = 0;

	if (nth > n)
		nth = n;
	pthread_mutex_init(&p.lock, NULL);
	for (size_t i = 1; i < nth; i++)
		if (!pthread_create(&th[started], NULL, gp_worker, &p))
			started++;
	gp_worker(&p);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.lock);
	if (p.failed)
		error("%s", p.err);
	return p.failed ? p.no_gnuplot ? -2 : -1 : 0;
}

/* Draws the kinds of want (each one's data and script) for c's pass, and
 * adds a gnuplot job for each into *jobs. Kinds with nothing to draw are
 * noted on stderr (when note) and their half-written files removed; their
 * bits go into *skipped. Returns 0 or -1 after error(). */
static int draw_pass(struct plot_ctx *c, void **state, unsigned want,
		     const char (*why)[256], int note, struct gp_job **jobs,
		     size_t *njob, unsigned *skipped)
{
	static const char *const ext[] = { "png", "svg", "txt" };

	for (int k = 0; k < PLOT_NKINDS; k++) {
		char whyd[256];
		struct gp_job *j;
		int r = 1;

		if (!(want & (1u << k)))
			continue;
		snprintf(whyd, sizeof(whyd), "%s", why[k]);
		if (!whyd[0])
			r = kinds[k]->draw(state[k], c, whyd, sizeof(whyd));
		if (r < 0)
			return -1;
		if (r > 0) {
			/* leave nothing half-written of a skipped kind */
			for (int e = 0; e < 2; e++) {
				char path[PATH_MAX];
				if (!e && c->dat_written)
					continue;   /* the data is the first pass's */
				snprintf(path, sizeof(path), "%s/%s.%s.%s", c->dir,
					 c->stem, kinds[k]->name, e ? "gp" : "dat");
				unlink(path);
			}
			if (note)
				fprintf(stderr, "iotape: %s: skipped: %s\n",
					kinds[k]->name, whyd[0] ? whyd : "no data");
			*skipped |= 1u << k;
			continue;
		}
		*jobs = xrealloc(*jobs, (*njob + 1) * sizeof(**jobs));
		j = &(*jobs)[(*njob)++];
		memset(j, 0, sizeof(*j));
		j->dir = c->dir;
		j->kind = k;
		j->format = c->format;
		snprintf(j->script, sizeof(j->script), "%s.%s.gp", c->stem,
			 kinds[k]->name);
		snprintf(j->out, sizeof(j->out), "%s.%s.%s", c->stem,
			 kinds[k]->name, ext[c->format]);
		{
			char path[PATH_MAX + 256];
			struct stat sb;
			snprintf(path, sizeof(path), "%s/%s", c->dir, j->out);
			j->is_new = lstat(path, &sb) != 0;
		}
		if (plot_picture_tmp(c->dir, j->out, j->tmp, sizeof(j->tmp),
				     c->made))
			return -1;
	}
	return 0;
}

/* Reads each run once (unless o->rundata has it) and hands it to the
 * kinds of want that read requests, and to the headline figures when
 * c->head wants them; a kind whose add says a run has nothing to draw
 * gets its reason in why[k]. Returns 0 or -1 after error(). */
static int read_runs(struct plot_ctx *c, void **state, unsigned want,
		     char (*why)[256])
{
	const struct plot_opts *o = c->o;
	unsigned adds = 0;

	unsigned procs = want & ((1u << PLOT_SEEK) | (1u << PLOT_PROCS));

	for (int k = 0; k < PLOT_NKINDS; k++)
		if ((want & (1u << k)) && kinds[k]->add)
			adds |= 1u << k;
	if (!adds && (!c->head || o->head))
		return 0;
	for (size_t i = 0; i < c->nrun; i++) {
		struct rundata own;
		const struct rundata *rd = o->rundata ? o->rundata[i] : &own;
		int rc = 0;

		if (!o->rundata && rundata_load(&own, &c->runs[i].rv))
			return -1;
		/* the families first: the kinds colour processes by them */
		if (procs) {
			families_build(&c->runs[i].fam, rd, FAM_ALL);
			c->runs[i].has_fam = 1;
		}
		for (int k = 0; k < PLOT_NKINDS && rc >= 0; k++) {
			if (!(adds & (1u << k)) || why[k][0])
				continue;
			rc = kinds[k]->add(state[k], c, i, rd, why[k], sizeof(why[k]));
			if (rc > 0 && !why[k][0])
				snprintf(why[k], sizeof(why[k]), "no data");
		}
		if (rc >= 0 && c->head && !o->head) {
			struct report rep;
			report_build(&rep, rd);
			plot_headline_of(&c->runs[i].rv, rd, &rep, c->head + i * PLOT_NHEAD);
			report_free(&rep);
		}
		if (!o->rundata)
			rundata_free(&own);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int plot_run(const struct plot_opts *o)
{
	struct plot_ctx c;
	struct plot_made own = { 0 };
	void *state[PLOT_NKINDS] = { 0 };
	char why[PLOT_NKINDS][256];
	struct gp_job *jobs = NULL;
	size_t njob = 0, npass0;
	unsigned drawn = 0, also_drawn = 0, skipped = 0, also_skipped = 0;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	memset(why, 0, sizeof(why));
	c.o = o;
	c.format = o->format;
	c.dir = o->dir;
	c.dat_prefix = "";
	c.made = o->made ? o->made : &own;
	if (o->drawn)
		*o->drawn = 0;
	if (o->also_drawn)
		*o->also_drawn = 0;
	if (!o->nrun)
		return error("no run to plot");
	if (store_open_existing(&c.st, o->db)) {
		error("%s", store_errmsg(c.st));
		store_close(c.st);
		return -1;
	}
	c.runs = xcalloc(o->nrun, sizeof(*c.runs));
	for (size_t i = 0; i < o->nrun && !rc; i++) {
		if (runview_load(&c.runs[i].rv, c.st, o->runs[i]) ||
		    (o->filter && runview_set_filter(&c.runs[i].rv, o->filter))) {
			runview_close(&c.runs[i].rv);
			rc = -1;
			break;
		}
		c.nrun++;
		rc = place_run(&c, &c.runs[i], o->align_cmd);
	}
	if (!rc) {
		c.x0 = c.runs[0].t0;
		c.x1 = c.runs[0].t1;
		for (size_t i = 1; i < c.nrun; i++) {
			c.x0 = fmin(c.x0, c.runs[i].t0);
			c.x1 = fmax(c.x1, c.runs[i].t1);
		}
		rc = label_runs(&c);
	}
	if (!rc) {
		if (o->name)
			plot_stem(&o->name, 1, c.stem, sizeof(c.stem));
		else
			plot_stem(o->runs, o->nrun, c.stem, sizeof(c.stem));
		rc = plot_make_dir(o->dir, c.made);
	}
	if (!rc && (o->kinds & (1u << PLOT_COMPARE)) && c.nrun > 1) {
		c.head = xcalloc(c.nrun * PLOT_NHEAD, sizeof(*c.head));
		if (o->head)
			memcpy(c.head, o->head, c.nrun * PLOT_NHEAD * sizeof(*c.head));
	}
	for (int k = 0; k < PLOT_NKINDS && !rc; k++)
		if ((o->kinds & (1u << k)) && kinds[k]->start)
			state[k] = kinds[k]->start(&c);
	if (!rc)
		rc = read_runs(&c, state, o->kinds, why);
	if (!rc)
		make_palette(&c);
	if (!rc)
		rc = draw_pass(&c, state, o->kinds, (const char (*)[256])why,
			       !o->none_ok,
			       &jobs, &njob, &skipped);
	npass0 = njob;
	if (!rc && o->also_dir) {
		unsigned want = 0;
		for (size_t i = 0; i < njob; i++)
			want |= 1u << jobs[i].kind;
		c.format = o->also_format;
		c.dir = o->also_dir;
		c.dat_prefix = "../";
		c.dat_written = 1;
		rc = plot_make_dir(o->also_dir, c.made);
		if (!rc)
			rc = draw_pass(&c, state, want & o->also_kinds,
				       (const char (*)[256])why, 0, &jobs, &njob,
				       &also_skipped);
	}
	if (!rc && njob)
		rc = run_jobs(jobs, njob);   /* -2: no gnuplot */
	for (size_t i = 0; i < njob; i++) {
		char path[PATH_MAX + 256];
		if (jobs[i].rc)
			continue;
		snprintf(path, sizeof(path), "%s/%s", jobs[i].dir, jobs[i].out);
		if (jobs[i].is_new)
			plot_made_add(c.made, path, PLOT_MADE_FILE);
		if (i < npass0)
			drawn |= 1u << jobs[i].kind;
		else
			also_drawn |= 1u << jobs[i].kind;
	}
	plot_made_tmp_clean(c.made);
	if (!rc && o->named_kinds && skipped)
		rc = error("%s of the kinds asked for had no data",
			   skipped & (skipped - 1) ? "some" : "one");
	if (!rc && !drawn && !o->none_ok)
		rc = error("nothing to plot: the runs have no data for the"
			   " kinds asked for");
	/* a failure leaves nothing of this command behind; but without
	 * gnuplot the data and scripts stay, whole, for a later run (the
	 * error line says where) */
	if (rc && rc != -2 && !o->made)
		plot_made_undo(&own);
	else if (!o->made)
		plot_made_free(&own);
	if (rc)
		rc = -1;
	for (size_t i = 0; i < npass0 && !rc && o->list; i++)
		fprintf(o->list, "%s/%s\n", jobs[i].dir, jobs[i].out);
	free(jobs);
	for (int k = 0; k < PLOT_NKINDS; k++)
		if (state[k])
			kinds[k]->release(state[k]);
	free(c.head);
	for (size_t i = 0; i < c.nrun; i++) {
		if (c.runs[i].has_fam)
			families_free(&c.runs[i].fam);
		runview_close(&c.runs[i].rv);
	}
	free(c.runs);
	store_close(c.st);
	if (o->drawn)
		*o->drawn = rc ? 0 : drawn;
	if (o->also_drawn)
		*o->also_drawn = rc ? 0 : also_drawn;
	return rc;
}
