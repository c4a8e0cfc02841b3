/* Workload metrics from a workload's output (wlmetric.h): fio's JSON read
 * with jansson, dd's statistics line, and --metric regexes (regex.h). */
#include "capture/wlmetric.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

void wlm_add(struct wlm_set *s, const char *name, double value,
	     const char *unit, const char *source)
{
	struct wlm *m = NULL;

	for (size_t i = 0; i < s->n && !m; i++)
		if (!strncmp(s->m[i].name, name, sizeof(s->m[i].name) - 1))
			m = &s->m[i];
	if (!m) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 32;
			s->m = xrealloc(s->m, s->cap * sizeof(*s->m));
		}
		m = &s->m[s->n++];
	}
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->value = value;
	snprintf(m->unit, sizeof(m->unit), "%s", unit ? unit : "");
	m->source = source;
}

void wlm_free(struct wlm_set *s)
{
	free(s->m);
	memset(s, 0, sizeof(*s));
}

/* ---- which command ---- */

static int word_is(const char *w, size_t len, const char *name)
{
	const char *base = w;

	for (size_t i = 0; i < len; i++)
		if (w[i] == '/')
			base = w + i + 1;
	len -= (size_t)(base - w);
	return len == strlen(name) && !memcmp(base, name, len);
}

/* Whether a --output-format value (a comma list) holds json or json+. */
static int format_has_json(const char *v, size_t len)
{
	while (len) {
		size_t k = 0;
		while (k < len && v[k] != ',')
			k++;
		if ((k == 4 && !memcmp(v, "json", 4)) ||
		    (k == 5 && !memcmp(v, "json+", 5)))
			return 1;
		v += k;
		len -= k;
		if (len) {
			v++;
			len--;
		}
	}
	return 0;
}

int wlm_classify(const char *line, char *fio_output, size_t len)
{
	int kind = 0, in_fio = 0;
	const char *p = line;

	if (len)
		fio_output[0] = '\0';
	while (*p) {
		const char *w;
		size_t wl;

		while (*p && (isspace((unsigned char)*p) || *p == ';' ||
			      *p == '&' || *p == '|'))
			p++;
		w = p;
		while (*p && !isspace((unsigned char)*p) && *p != ';' &&
		       *p != '&' && *p != '|')
			p++;
		if (!(wl = (size_t)(p - w)))
			continue;
		if (word_is(w, wl, "fio"))
			in_fio = 1;
		else if (word_is(w, wl, "dd"))
			kind |= WLM_DD;
		else if (in_fio && wl > 16 && !memcmp(w, "--output-format=", 16) &&
			 format_has_json(w + 16, wl - 16))
			kind |= WLM_FIO_JSON;
		else if (in_fio && wl > 9 && !memcmp(w, "--output=", 9) && len)
			snprintf(fio_output, len, "%.*s", (int)(wl - 9), w + 9);
	}
	return kind;
}

/* ---- fio ---- */

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "99.900000" -> "99.9", "50.000000" -> "50". */
static void trim_pct(const char *key, char *out, size_t len)
{
	char *dot;
	size_t n;

	snprintf(out, len, "%s", key);
	if (!(dot = strchr(out, '.')))
		return;
	n = strlen(out);
	while (n > (size_t)(dot - out) && (out[n - 1] == '0'))
		out[--n] = '\0';
	if (out[n - 1] == '.')
		out[n - 1] = '\0';
}

/* The totals of one direction over the jobs. */
struct fio_dir {
	double iops, bw, bytes, runtime, ios;
	double w_slat, w_clat, w_lat;     /* mean x ios, summed */
	int has_slat, has_clat, has_lat;
};

static void dir_add(struct fio_dir *d, json_t *dj)
{
	double ios = num(dj, "total_ios");
	static const char *const lat[] = { "slat_ns", "clat_ns", "lat_ns" };

	d->iops += num(dj, "iops");
	d->bw += num(dj, "bw_bytes");
	d->bytes += num(dj, "io_bytes");
	if (num(dj, "runtime") > d->runtime)
		d->runtime = num(dj, "runtime");
	d->ios += ios;
	for (int k = 0; k < 3; k++) {
		double mean = num(json_object_get(dj, lat[k]), "mean");
		double *w = k == 0 ? &d->w_slat : k == 1 ? &d->w_clat : &d->w_lat;
		int *has = k == 0 ? &d->has_slat : k == 1 ? &d->has_clat
							  : &d->has_lat;
		if (isfinite(mean) && ios > 0) {
			*w += mean * ios;
			*has = 1;
		}
	}
}

static void percentiles(struct wlm_set *s, const char *dir, const char *lat,
			json_t *dj)
{
	json_t *pct = json_object_get(json_object_get(dj, lat), "percentile");
	const char *key;
	json_t *v;

	json_object_foreach(pct, key, v) {
		char p[32], name[64];
		if (!json_is_number(v))
			continue;
		trim_pct(key, p, sizeof(p));
		snprintf(name, sizeof(name), "%s_%s_p%s", dir, lat, p);
		wlm_add(s, name, json_number_value(v), "ns", "fio");
	}
}

int wlm_fio_json(const char *text, size_t len, struct wlm_set *s, char *err,
		 size_t errlen)
{
	static const char *const dirs[] = { "read", "write", "trim" };
	size_t off = 0, before = s->n;
	json_error_t je;
	json_t *root, *jobs, *job;
	size_t ij;

	/* the object starts a line */
	while (off < len && !(text[off] == '{' && (!off || text[off - 1] == '\n')))
		off++;
	if (off == len) {
		snprintf(err, errlen, "no JSON object in fio's output");
		return -1;
	}
	root = json_loadb(text + off, len - off, JSON_DISABLE_EOF_CHECK, &je);
	if (!root) {
		snprintf(err, errlen, "fio's JSON at offset %zu: %s",
			 off + (size_t)je.position, je.text);
		return -1;
	}
	jobs = json_object_get(root, "jobs");
	if (!json_is_array(jobs) || !json_array_size(jobs)) {
		snprintf(err, errlen, "fio's JSON at offset %zu has no \"jobs\"", off);
		json_decref(root);
		return -1;
	}
	for (int k = 0; k < 3; k++) {
		struct fio_dir d = { 0 };
		char name[64];

		json_array_foreach(jobs, ij, job)
			dir_add(&d, json_object_get(job, dirs[k]));
		if (!(d.ios > 0))
			continue;
#define PUT(suffix, v, unit) do { \
		snprintf(name, sizeof(name), "%s_%s", dirs[k], suffix); \
		if (isfinite(v)) \
			wlm_add(s, name, v, unit, "fio"); \
	} while (0)
		PUT("iops", d.iops, "IO/s");
		PUT("bw_bytes", d.bw, "bytes/s");
		PUT("io_bytes", d.bytes, "bytes");
		PUT("runtime", d.runtime, "ms");
		PUT("total_ios", d.ios, NULL);
		if (d.has_slat)
			PUT("slat_ns_mean", d.w_slat / d.ios, "ns");
		if (d.has_clat)
			PUT("clat_ns_mean", d.w_clat / d.ios, "ns");
		if (d.has_lat)
			PUT("lat_ns_mean", d.w_lat / d.ios, "ns");
#undef PUT
		if (json_array_size(jobs) == 1) {
			json_t *dj = json_object_get(json_array_get(jobs, 0), dirs[k]);
			percentiles(s, dirs[k], "clat_ns", dj);
			percentiles(s, dirs[k], "lat_ns", dj);
		}
	}
	json_decref(root);
	return (int)(s->n - before);
}

/* ---- dd ---- */

/* A number with its unit as dd prints a rate ("700 MB/s", "1.2 GiB/s",
 * "512 B/s") in bytes/s; NAN when it is not one. */
static double dd_rate(const char *p)
{
	static const char prefixes[] = "kMGTPEZY";
	const char *u, *pos;
	double v, mul = 1;

	if (dec_double(p, DEC_FRAC | DEC_EXP, &v, &u))
		return NAN;
	while (*u == ' ')
		u++;
	if (*u && *u != 'B' && (pos = strchr(prefixes, *u == 'K' ? 'k' : *u))) {
		int iec = u[1] == 'i';
		mul = pow(iec ? 1024 : 1000, (double)(pos - prefixes + 1));
		u += iec ? 2 : 1;
	}
	if (strncmp(u, "B/s", 3))
		return NAN;
	return v * mul;
}

/* One line: "N byte(s) [(...)] copied, T s, R U/s". Returns 1 when it is. */
static int dd_line(const char *l, double *bytes, double *secs, double *rate)
{
	const char *end, *c;

	if (dec_double(l, 0, bytes, &end) || strncmp(end, " byte", 5))
		return 0;
	if (!(c = strstr(end, " copied, ")))
		return 0;
	c += 9;
	/* coreutils prints the seconds with %g: 1.5e-05 */
	if (dec_double(c, DEC_FRAC | DEC_EXP, secs, &end) ||
	    strncmp(end, " s, ", 4))
		return 0;
	*rate = dd_rate(end + 4);
	return 1;
}

int wlm_dd(const char *text, size_t len, struct wlm_set *s)
{
	double bytes = 0, secs = 0, rate = NAN;
	int found = 0;
	size_t i = 0;

	while (i < len) {
		size_t j = i;
		char line[512];
		double b, t, r;

		while (j < len && text[j] != '\n' && text[j] != '\r')
			j++;
		if (j - i < sizeof(line)) {
			memcpy(line, text + i, j - i);
			line[j - i] = '\0';
			if (dd_line(line, &b, &t, &r)) {
				bytes = b;
				secs = t;
				rate = r;
				found = 1;
			}
		}
		i = j + 1;
	}
	if (!found)
		return 0;
	wlm_add(s, "dd_bytes", bytes, "bytes", "dd");
	wlm_add(s, "dd_s", secs, "s", "dd");
	if (isfinite(rate))
		wlm_add(s, "dd_bytes_per_s", rate, "bytes/s", "dd");
	return 1;
}

/* ---- --metric NAME=REGEX ---- */

int wlm_regex_compile(struct wlm_regex *r, const char *spec, char *err,
		      size_t errlen)
{
	const char *eq = strchr(spec, '=');
	size_t nl = eq ? (size_t)(eq - spec) : 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!eq || !nl || nl >= sizeof(r->name) || !eq[1]) {
		snprintf(err, errlen, "invalid --metric '%s' (NAME=REGEX)", spec);
		return -1;
	}
	for (size_t i = 0; i < nl; i++)
		if (!isalnum((unsigned char)spec[i]) && !strchr("_.-", spec[i])) {
			snprintf(err, errlen, "invalid --metric name '%.*s' (letters, "
				 "digits, _ . -)", (int)nl, spec);
			return -1;
		}
	memcpy(r->name, spec, nl);
	if ((rc = regcomp(&r->re, eq + 1, REG_EXTENDED | REG_NEWLINE))) {
		char m[160];
		regerror(rc, &r->re, m, sizeof(m));
		regfree(&r->re);
		snprintf(err, errlen, "invalid --metric regex '%s': %s", eq + 1, m);
		return -1;
	}
	if (r->re.re_nsub < 1) {
		regfree(&r->re);
		snprintf(err, errlen, "--metric regex '%s' has no capture group "
			 "(put the number in parentheses)", eq + 1);
		return -1;
	}
	return 0;
}

void wlm_regex_free(struct wlm_regex *r)
{
	if (r->name[0])
		regfree(&r->re);
	r->name[0] = '\0';
}

int wlm_regex_match(const struct wlm_regex *r, const char *text, size_t len,
		    double *value, char *err, size_t errlen)
{
	char *buf = xmalloc(len + 1), group[64];
	const char *p;
	regmatch_t m[2], last[2];
	int found = 0, flags = 0;

	memcpy(buf, text, len);
	buf[len] = '\0';
	p = buf;
	while (!regexec(&r->re, p, 2, m, flags)) {
		if (m[1].rm_so >= 0) {
			last[1].rm_so = (regoff_t)(p - buf) + m[1].rm_so;
			last[1].rm_eo = (regoff_t)(p - buf) + m[1].rm_eo;
			found = 1;
		}
		/* on past this match (and past an empty one) */
		p += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
		if (p > buf + len || !*p)
			break;
		flags = p[-1] == '\n' ? 0 : REG_NOTBOL;
	}
	if (!found) {
		free(buf);
		return 0;
	}
	snprintf(group, sizeof(group), "%.*s",
		 (int)(last[1].rm_eo - last[1].rm_so), buf + last[1].rm_so);
	free(buf);
	if (dec_double(group, DEC_SIGN | DEC_FRAC | DEC_EXP, value, NULL)) {
		snprintf(err, errlen, "--metric %s: '%s' is not a number", r->name,
			 group);
		return -1;
	}
	return 1;
}
