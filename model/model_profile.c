/* Disk profiles: the built-in ones, each value with its source (data sheets,
 * reviews; "assumed" where none was found), and profile files a user writes
 * (`key = value  # source` lines), parsed by one table of keys. */
#include "model.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

enum ktype { KT_DBL, KT_U64, KT_UINT, KT_U32, KT_BOOL, KT_QUEUE };

struct key_def {
	const char *name;
	enum ktype type;
	size_t off;
	const char *unit;
	double min, max;      /* accepted range (numbers) */
	int required;         /* a profile without base must give it */
	const char *help;
};

#define OFF(f) offsetof(struct disk_profile, f)

static const struct key_def keys[PK_N] = {
	[PK_RPM] = { "rpm", KT_DBL, OFF(rpm), "rpm", 1000, 30000, 1,
		     "spindle speed" },
	[PK_CAPACITY] = { "capacity_sectors", KT_U64, OFF(capacity_sectors),
			  "sectors", 1024, 1e15, 1, "512-byte sectors" },
	[PK_HEADS] = { "heads", KT_UINT, OFF(heads), "", 1, 64, 1,
		       "recording surfaces" },
	[PK_ZONES] = { "zones", KT_UINT, OFF(zones), "", 1, 256, 1,
		       "zones of equal density, outer to inner" },
	[PK_RATE_OUTER] = { "rate_outer_mbs", KT_DBL, OFF(rate_outer_mbs), "MB/s",
			    1, 2000, 1, "sustained read rate, outer zone" },
	[PK_RATE_INNER] = { "rate_inner_mbs", KT_DBL, OFF(rate_inner_mbs), "MB/s",
			    1, 2000, 1, "sustained read rate, inner zone" },
	[PK_SEEK_TRACK] = { "seek_track_ms", KT_DBL, OFF(seek_track_ms), "ms",
			    0.01, 20, 1, "single-track read seek" },
	[PK_SEEK_AVG] = { "seek_avg_ms", KT_DBL, OFF(seek_avg_ms), "ms", 0.1, 50,
			  1, "average read seek (all seek pairs)" },
	[PK_SEEK_FULL] = { "seek_full_ms", KT_DBL, OFF(seek_full_ms), "ms", 0.2,
			   100, 1, "full-stroke read seek" },
	[PK_WRITE_SETTLE] = { "write_settle_ms", KT_DBL, OFF(write_settle_ms), "ms",
			      0, 20, 0, "added to a write's seek" },
	[PK_HEAD_SWITCH] = { "head_switch_ms", KT_DBL, OFF(head_switch_ms), "ms",
			     0, 20, 1, "head or cylinder change in a transfer" },
	[PK_OVERHEAD] = { "overhead_ms", KT_DBL, OFF(overhead_ms), "ms", 0, 50, 1,
			  "command overhead" },
	[PK_BUS] = { "bus_mbs", KT_DBL, OFF(bus_mbs), "MB/s", 1, 100000, 1,
		     "interface rate" },
	[PK_CACHE] = { "cache_kb", KT_U32, OFF(cache_kb), "KiB", 0, 16777216, 1,
		       "buffer (half of it for writes)" },
	[PK_SEGMENTS] = { "cache_segments", KT_UINT, OFF(cache_segments), "", 0,
			  64, 0, "read segments" },
	[PK_READAHEAD] = { "readahead_kb", KT_U32, OFF(readahead_kb), "KiB", 0,
			   1048576, 0, "read on after a miss while idle" },
	[PK_WRITE_CACHE] = { "write_cache", KT_BOOL, OFF(write_cache), "", 0, 1, 0,
			     "on: writes complete in the buffer" },
	[PK_QUEUE] = { "queue", KT_QUEUE, OFF(queue), "", 0, 1, 0,
		       "fifo, or sptf (shortest positioning time first)" },
	[PK_QUEUE_DEPTH] = { "queue_depth", KT_UINT, OFF(queue_depth), "", 1, 256,
			     0, "commands the disk holds (NCQ: 32)" },
	[PK_SEEK_A] = { "seek_a_ms", KT_DBL, OFF(seek_a_ms), "ms", -50, 50, 0,
			"fitted curve: a + b sqrt(d) below the boundary" },
	[PK_SEEK_B] = { "seek_b_ms", KT_DBL, OFF(seek_b_ms), "ms", 0, 50, 0,
			"fitted curve: b" },
	[PK_SEEK_C] = { "seek_c_ms", KT_DBL, OFF(seek_c_ms), "ms", -50, 100, 0,
			"fitted curve: c + e d from the boundary" },
	[PK_SEEK_E] = { "seek_e_ms", KT_DBL, OFF(seek_e_ms), "ms", 0, 1, 0,
			"fitted curve: e (per cylinder)" },
	[PK_SEEK_BOUNDARY] = { "seek_boundary_cyl", KT_U32, OFF(seek_boundary_cyl),
			       "cylinders", 0, 4e9, 0, "fitted curve: boundary" },
	[PK_HIT_RATE] = { "hit_rate", KT_DBL, OFF(hit_rate), "", 0, 1, 0,
			  "fitted: reads served from the buffer besides the "
			  "model's own segments" },
};

/* ---- the built-in profiles, as profile files ---- */

static const char *const builtin_text[] = {
"name = deskstar-7k500\n"
"alias = desktop-2006\n"
"desc = Hitachi Deskstar 7K500 (HDS725050KLA360), 500 GB SATA, 7200 rpm, 2005\n"
"rpm = 7200                  # Deskstar 7K500 specification: 7200 rpm, average latency 4.17 ms (spec table in techreport.com review 8752)\n"
"capacity_sectors = 976773168 # 500,107,862,016 bytes: the LBA count of 500 GB ATA disks (IDEMA rule)\n"
"heads = 10                  # five platters (silentpcreview.com, Deskstar 7K1000 review: the 7K500 is a five-platter drive)\n"
"zones = 30                  # Deskstar 7K500 specification table 10 names zones 0 to 29\n"
"rate_outer_mbs = 64.8       # specification table 10: sustained read, zone 0\n"
"rate_inner_mbs = 31.0       # specification table 10: sustained read, zone 29\n"
"seek_track_ms = 1.0         # assumed: no 7K500 figure found; Hitachi data sheets of the time give 1.0 ms read (Travelstar 5K320 and 7K320 specifications 4.4.2.3)\n"
"seek_avg_ms = 8.5           # specification: average read seek 8.5 ms (techreport.com review 8752)\n"
"seek_full_ms = 14.7         # assumed: no 7K500 figure found; Deskstar 60GXP specification 4.3.2.2 gives 14.7 ms read, typical\n"
"write_settle_ms = 1.0       # assumed: Deskstar 7K1000.C specification 4.5.2.1 gives 8.5 ms read, 9.5 ms write\n"
"head_switch_ms = 1.48       # derived: table 10 gives 76.3 MB/s instantaneous and 64.8 sustained in zone 0 (36.5 and 31.0 in zone 29); with formula 4.4.4 a switch costs (76.3 / 64.8 - 1) x 8.33 ms\n"
"overhead_ms = 0.22          # derived: specification 4.4.5.2, 4096 random reads take 55.5 s typical = 1.05 T, T = 4096 (A + 8.5 ms + 4.17 ms + 512/D + 512/E), so A = 0.22 ms\n"
"bus_mbs = 300               # specification table 10: buffer to host 300 MB/s (SATA)\n"
"cache_kb = 16384            # 16 MB buffer (techreport.com review 8752)\n"
"cache_segments = 16         # assumed: Hitachi firmware segments the buffer adaptively (xbitlabs.com, Deskstar 7K400 review)\n"
"readahead_kb = 512          # assumed\n"
"write_cache = on            # ATA disks ship with the write cache on (hdparm -W)\n"
"queue = sptf                # Native Command Queuing (techreport.com review 8752)\n"
"queue_depth = 32            # NCQ: 32 tags (Serial ATA II)\n",

"name = ultrastar-7k4000\n"
"alias = desktop-current\n"
"desc = HGST Ultrastar 7K4000 (HUS724040ALE640), 4 TB SATA, 7200 rpm, 2012\n"
"rpm = 7200                  # HGST Ultrastar 7K4000 specification 4.4 (a 2012 design still sold; newer 7200 rpm data sheets give no seek figures)\n"
"capacity_sectors = 7814037168 # 4,000,787,030,016 bytes: the LBA count of 4 TB disks (IDEMA rule)\n"
"heads = 10                  # five platters (assumed: 800 GB platters)\n"
"zones = 30                  # assumed\n"
"rate_outer_mbs = 171        # assumed: HGST gives 171 MB/s sustained for the 7K4000 family\n"
"rate_inner_mbs = 80         # assumed: inner zone about half the outer (as the 7K500's 31.0/64.8)\n"
"seek_track_ms = 0.8         # assumed\n"
"seek_avg_ms = 8.2           # HGST Ultrastar 7K4000 specification 4.4.1.1: read 8.2 ms, write 8.2 ms, typical\n"
"seek_full_ms = 16.0         # assumed\n"
"write_settle_ms = 0.0       # specification 4.4.1.1: write seek as read\n"
"head_switch_ms = 1.0        # assumed\n"
"overhead_ms = 0.2           # assumed\n"
"bus_mbs = 600               # SATA 6 Gb/s\n"
"cache_kb = 65536            # 64 MB buffer (assumed from the family's data sheet)\n"
"cache_segments = 32         # assumed\n"
"readahead_kb = 1024         # assumed\n"
"write_cache = on            # ATA disks ship with the write cache on (hdparm -W)\n"
"queue = sptf                # Native Command Queuing (SATA)\n"
"queue_depth = 32            # NCQ: 32 tags\n",

"name = travelstar-5k320\n"
"alias = laptop-5400\n"
"desc = Hitachi Travelstar 5K320 (HTS543232L9A300), 320 GB SATA, 5400 rpm, 2008\n"
"rpm = 5400                  # Travelstar 5K320 specification 4.4.2.4: 5400 rpm, 11.1 ms a revolution\n"
"capacity_sectors = 625142448 # 320,072,933,376 bytes: the LBA count of 320 GB disks (IDEMA rule)\n"
"heads = 4                   # assumed: two platters\n"
"zones = 24                  # assumed\n"
"rate_outer_mbs = 70         # assumed: typical of 2.5\" 5400 rpm disks of 2008 in reviews\n"
"rate_inner_mbs = 36         # assumed: about half the outer\n"
"seek_track_ms = 1.0         # specification 4.4.2.3: single track, read 1.0 ms, write 1.1 ms\n"
"seek_avg_ms = 12            # specification 4.4.2.1: average seek, read 12 ms, write 13 ms\n"
"seek_full_ms = 20           # specification 4.4.2.2: full stroke, read 20 ms, write 21 ms\n"
"write_settle_ms = 1.0       # specification 4.4.2.1: write 13 ms against read 12 ms\n"
"head_switch_ms = 1.5        # assumed\n"
"overhead_ms = 0.3           # assumed\n"
"bus_mbs = 300               # SATA 3 Gb/s\n"
"cache_kb = 8192             # assumed: 8 MB buffer\n"
"cache_segments = 16         # assumed\n"
"readahead_kb = 512          # assumed\n"
"write_cache = on            # ATA disks ship with the write cache on (hdparm -W)\n"
"queue = sptf                # NCQ (SATA)\n"
"queue_depth = 32            # NCQ: 32 tags\n",

"name = ultrastar-15k450\n"
"alias = sas-15k\n"
"desc = Hitachi Ultrastar 15K450 (HUS154545VLS300), 450 GB SAS, 15000 rpm, 2008\n"
"rpm = 15000                 # Ultrastar 15K450 specification\n"
"capacity_sectors = 879097968 # 450,098,159,616 bytes: the LBA count of 450 GB disks (IDEMA rule)\n"
"heads = 8                   # assumed: four platters\n"
"zones = 24                  # assumed\n"
"rate_outer_mbs = 164        # assumed: about 164 MB/s outer for 15k rpm disks of 2008 in reviews\n"
"rate_inner_mbs = 100        # assumed\n"
"seek_track_ms = 0.2         # assumed\n"
"seek_avg_ms = 3.3           # Ultrastar 15K450 specification 4.5.1.1: 450 GB, read 3.3 ms, write 3.8 ms, typical\n"
"seek_full_ms = 6.5          # assumed\n"
"write_settle_ms = 0.5       # specification 4.5.1.1: write 3.8 ms against read 3.3 ms\n"
"head_switch_ms = 0.5        # assumed\n"
"overhead_ms = 0.1           # assumed\n"
"bus_mbs = 300               # SAS 3 Gb/s\n"
"cache_kb = 16384            # assumed: 16 MB buffer\n"
"cache_segments = 32         # assumed\n"
"readahead_kb = 512          # assumed\n"
"write_cache = on            # assumed: write cache enabled (SCSI WCE)\n"
"queue = sptf                # SCSI tagged command queuing\n"
"queue_depth = 64            # assumed\n",
};

#define NBUILTIN ARRAY_SIZE(builtin_text)

static struct disk_profile builtins[NBUILTIN];
static char aliases[NBUILTIN][64];
static int builtins_ready;

static void builtins_load(void)
{
	char err[512];

	if (builtins_ready)
		return;
	builtins_ready = 1;
	for (size_t i = 0; i < NBUILTIN; i++) {
		const char *a = strstr(builtin_text[i], "alias = ");
		if (profile_parse(&builtins[i], builtin_text[i],
				  strlen(builtin_text[i]), "built-in profile", err,
				  sizeof(err)))
			abort();    /* a bug in the table above; tests parse it */
		if (a)
			sscanf(a + 8, "%63[^\n]", aliases[i]);
	}
}

const struct disk_profile *profile_builtins(size_t *n)
{
	builtins_load();
	*n = NBUILTIN;
	return builtins;
}

const struct disk_profile *profile_builtin(const char *name)
{
	builtins_load();
	for (size_t i = 0; i < NBUILTIN; i++)
		if (!strcmp(builtins[i].name, name) || !strcmp(aliases[i], name))
			return &builtins[i];
	return NULL;
}

const char *profile_key_name(enum profile_key k) { return keys[k].name; }
const char *profile_key_unit(enum profile_key k) { return keys[k].unit; }

void profile_value_text(const struct disk_profile *p, enum profile_key k,
			char *buf, size_t len)
{
	const char *base = (const char *)p + keys[k].off;

	switch (keys[k].type) {
	case KT_DBL:
		snprintf(buf, len, "%.6g", *(const double *)base);
		break;
	case KT_U64:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)base);
		break;
	case KT_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)base);
		break;
	case KT_U32:
		snprintf(buf, len, "%u", (unsigned)*(const uint32_t *)base);
		break;
	case KT_BOOL:
		snprintf(buf, len, "%s", *(const int *)base ? "on" : "off");
		break;
	case KT_QUEUE:
		snprintf(buf, len, "%s", *(const int *)base == MODEL_SPTF ? "sptf" : "fifo");
		break;
	}
}

/* Sets key k of p from text v. Returns 0 or -1 with the reason in why. */
static int set_value(struct disk_profile *p, const struct key_def *d, const char *v,
		     char *why, size_t whylen)
{
	char *base = (char *)p + d->off;
	double x;

	if (d->type == KT_BOOL) {
		if (!strcmp(v, "on") || !strcmp(v, "1"))
			*(int *)base = 1;
		else if (!strcmp(v, "off") || !strcmp(v, "0"))
			*(int *)base = 0;
		else
			return snprintf(why, whylen, "'%s' is not on or off", v), -1;
		return 0;
	}
	if (d->type == KT_QUEUE) {
		if (!strcmp(v, "sptf"))
			*(int *)base = MODEL_SPTF;
		else if (!strcmp(v, "fifo"))
			*(int *)base = MODEL_FIFO;
		else
			return snprintf(why, whylen, "'%s' is not fifo or sptf", v), -1;
		return 0;
	}
	if (dec_double(v, DEC_SIGN | DEC_FRAC | DEC_EXP, &x, NULL))
		return snprintf(why, whylen, "'%s' is not a number", v), -1;
	if (x < d->min || x > d->max)
		return snprintf(why, whylen, "%s is out of range (%g to %g %s)", v,
				d->min, d->max, d->unit), -1;
	if (d->type != KT_DBL && x != floor(x))
		return snprintf(why, whylen, "%s is not a whole number", v), -1;
	switch (d->type) {
	case KT_DBL: *(double *)base = x; break;
	case KT_U64: *(uint64_t *)base = (uint64_t)x; break;
	case KT_UINT: *(unsigned *)base = (unsigned)x; break;
	case KT_U32: *(uint32_t *)base = (uint32_t)x; break;
	default: break;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int profile_parse(struct disk_profile *p, const char *text, size_t len,
		  const char *what, char *err, size_t errlen)
{
	char *copy = xmalloc(len + 1), *line, *save = NULL;
	int lineno = 0, rc = -1, have_base = 0, nset = 0, seen[PK_N] = { 0 };

	if (memchr(text, '\0', len)) {
		snprintf(err, errlen, "%s: a NUL byte: not a profile file", what);
		free(copy);
		return -1;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	memset(p, 0, sizeof(*p));
	/* defaults of the optional keys */
	p->queue = MODEL_SPTF;
	p->queue_depth = 32;
	p->write_cache = 1;
	p->cache_segments = 16;
	for (line = copy; line; line = save) {
		char *nl = strchr(line, '\n'), *eq, *hash, *k, *v, why[256];
		int key;

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		k = trim(line);
		if (!*k || *k == '#')
			continue;
		if (!(eq = strchr(k, '='))) {
			snprintf(err, errlen, "%s: line %d: not 'key = value'", what,
				 lineno);
			goto out;
		}
		*eq = '\0';
		v = eq + 1;
		k = trim(k);
		if (!strcmp(k, "desc")) {    /* free text: '#' is kept */
			snprintf(p->desc, sizeof(p->desc), "%s", trim(v));
			continue;
		}
		hash = strchr(v, '#');
		if (hash)
			*hash++ = '\0';
		v = trim(v);
		if (!strcmp(k, "name")) {
			if (!*v || strlen(v) >= sizeof(p->name) || strchr(v, '/')) {
				snprintf(err, errlen, "%s: line %d: a name is 1 to %zu "
					 "characters, no '/'", what, lineno,
					 sizeof(p->name) - 1);
				goto out;
			}
			snprintf(p->name, sizeof(p->name), "%s", v);
			continue;
		}
		if (!strcmp(k, "alias"))
			continue;
		if (!strcmp(k, "base")) {
			const struct disk_profile *b = profile_builtin(v);
			char name[64];
			if (have_base || nset) {
				snprintf(err, errlen, "%s: line %d: base comes once, "
					 "before the keys it changes", what, lineno);
				goto out;
			}
			if (!b) {
				snprintf(err, errlen, "%s: line %d: no built-in profile "
					 "'%s' (see 'iotape model list')", what, lineno, v);
				goto out;
			}
			snprintf(name, sizeof(name), "%s", p->name);
			*p = *b;
			if (name[0])
				snprintf(p->name, sizeof(p->name), "%s", name);
			have_base = 1;
			continue;
		}
		for (key = 0; key < PK_N && strcmp(keys[key].name, k); key++)
			;
		if (key == PK_N) {
			snprintf(err, errlen, "%s: line %d: unknown key '%s'", what,
				 lineno, k);
			goto out;
		}
		if (set_value(p, &keys[key], v, why, sizeof(why))) {
			snprintf(err, errlen, "%s: line %d: %s: %s", what, lineno, k, why);
			goto out;
		}
		seen[key] = 1;
		nset++;
		snprintf(p->src[key], sizeof(p->src[key]), "%s",
			 hash ? trim(hash) : "");
	}
	if (!have_base)
		for (int k = 0; k < PK_N; k++)
			if (keys[k].required && !seen[k]) {
				snprintf(err, errlen, "%s: no %s (and no 'base = "
					 "PROFILE' to take it from)", what, keys[k].name);
				goto out;
			}
	if (!p->name[0])
		snprintf(p->name, sizeof(p->name), "custom");
	rc = profile_check(p, err, errlen);
out:
	free(copy);
	return rc;
}

int profile_check(const struct disk_profile *p, char *err, size_t errlen)
{
	const char *n = p->name[0] ? p->name : "profile";

	if (p->rpm < 1000 || !p->capacity_sectors || !p->heads || !p->zones ||
	    !(p->bus_mbs > 0) || !(p->rate_outer_mbs > 0) || !(p->rate_inner_mbs > 0)) {
		snprintf(err, errlen, "profile '%s': rpm, capacity, heads, zones and "
			 "rates must be given and positive", n);
		return -1;
	}
	if (p->rate_inner_mbs > p->rate_outer_mbs) {
		snprintf(err, errlen, "profile '%s': rate_inner_mbs %.4g is above "
			 "rate_outer_mbs %.4g", n, p->rate_inner_mbs, p->rate_outer_mbs);
		return -1;
	}
	if (!(p->seek_b_ms > 0 || p->seek_e_ms > 0) &&
	    !(p->seek_track_ms < p->seek_avg_ms && p->seek_avg_ms < p->seek_full_ms)) {
		snprintf(err, errlen, "profile '%s': seeks must grow: single track "
			 "%.4g < average %.4g < full stroke %.4g ms", n,
			 p->seek_track_ms, p->seek_avg_ms, p->seek_full_ms);
		return -1;
	}
	if (!p->queue_depth) {
		snprintf(err, errlen, "profile '%s': queue_depth must be 1 or more", n);
		return -1;
	}
	return 0;
}

int profile_load_file(struct disk_profile *p, const char *path, char *err,
		      size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	size_t n;
	int rc;

	if (!fp) {
		snprintf(err, errlen, "cannot open profile '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	buf = xmalloc(65537);
	n = fread(buf, 1, 65537, fp);
	if (ferror(fp) || n > 65536) {
		snprintf(err, errlen, "%s: %s", path, ferror(fp) ? strerror(errno) :
			 "larger than 64 KiB: not a profile");
		fclose(fp);
		free(buf);
		return -1;
	}
	fclose(fp);
	rc = profile_parse(p, buf, n, path, err, errlen);
	free(buf);
	return rc;
}

int profile_resolve(struct disk_profile *p, const char *spec, char *err,
		    size_t errlen)
{
	const struct disk_profile *b = profile_builtin(spec);

	if (b) {
		*p = *b;
		return 0;
	}
	if (!strchr(spec, '/') && !strchr(spec, '.')) {
		snprintf(err, errlen, "no built-in profile '%s' (see 'iotape model "
			 "list'; a profile file needs a '/' or '.' in its path)", spec);
		return -1;
	}
	return profile_load_file(p, spec, err, errlen);
}

size_t profile_format(const struct disk_profile *p, char *buf, size_t len)
{
	size_t l = 0;

#define PUT(...) (l += (size_t)snprintf(buf + (l < len ? l : len), \
					 l < len ? len - l : 0, __VA_ARGS__))
	if (len)
		buf[0] = '\0';
	PUT("name = %s\n", p->name);
	if (p->desc[0])
		PUT("desc = %s\n", p->desc);
	for (int k = 0; k < PK_N; k++) {
		char v[64];
		if (k >= PK_SEEK_A && k <= PK_SEEK_BOUNDARY && !(p->seek_b_ms > 0 ||
								 p->seek_e_ms > 0))
			continue;
		if (k == PK_HIT_RATE && !(p->hit_rate > 0))
			continue;
		profile_value_text(p, (enum profile_key)k, v, sizeof(v));
		PUT("%s = %s%s%s\n", keys[k].name, v, p->src[k][0] ? "  # " : "",
		    p->src[k]);
	}
#undef PUT
	return l;
}
