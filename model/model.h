/* A rotating disk in simulated time, after Ruemmler and Wilkes 1994 ("An
 * introduction to disk drive modeling", IEEE Computer 27(3)): zoned geometry,
 * seek curve, rotation, head switch, command overhead, read cache with
 * readahead, write-back cache, FIFO or SPTF queue. Pure: no I/O, no store. */
#ifndef IOTAPE_MODEL_MODEL_H
#define IOTAPE_MODEL_MODEL_H

#include <stddef.h>
#include <stdint.h>

enum model_queue { MODEL_FIFO = 0, MODEL_SPTF = 1 };

/* One profile's keys, in the order a profile file lists them. */
enum profile_key {
	PK_RPM, PK_CAPACITY, PK_HEADS, PK_ZONES, PK_RATE_OUTER, PK_RATE_INNER,
	PK_SEEK_TRACK, PK_SEEK_AVG, PK_SEEK_FULL, PK_WRITE_SETTLE,
	PK_HEAD_SWITCH, PK_OVERHEAD, PK_BUS, PK_CACHE, PK_SEGMENTS,
	PK_READAHEAD, PK_WRITE_CACHE, PK_QUEUE, PK_QUEUE_DEPTH,
	PK_SEEK_A, PK_SEEK_B, PK_SEEK_C, PK_SEEK_E, PK_SEEK_BOUNDARY,
	PK_HIT_RATE,
	PK_N
};

/* A disk. Times in ms, rates in MB/s (10^6 bytes a second), sizes in
 * 512-byte sectors or KiB as named. */
struct disk_profile {
	char name[64];
	char desc[200];
	double rpm;
	uint64_t capacity_sectors;
	unsigned heads;              /* recording surfaces */
	unsigned zones;              /* constant-density zones, outer to inner */
	double rate_outer_mbs;       /* sustained media read rate, outer zone */
	double rate_inner_mbs;       /* ... inner zone */
	double seek_track_ms;        /* single-cylinder read seek */
	double seek_avg_ms;          /* read seek averaged over all seek pairs */
	double seek_full_ms;         /* full-stroke read seek */
	double write_settle_ms;      /* added to a write's seek */
	double head_switch_ms;       /* head or cylinder change in a transfer */
	double overhead_ms;          /* command overhead, every command */
	double bus_mbs;              /* interface rate, cache to host */
	uint32_t cache_kb;           /* the buffer; half of it holds writes */
	unsigned cache_segments;     /* read segments */
	uint32_t readahead_kb;       /* read past a miss while idle, at most */
	int write_cache;             /* 1: writes complete in the buffer */
	int queue;                   /* enum model_queue */
	unsigned queue_depth;        /* commands the disk holds (NCQ: 32) */
	/* an explicit seek curve in cylinders (model fit writes one); all 0:
	 * derived from seek_track_ms, seek_avg_ms and seek_full_ms */
	double seek_a_ms, seek_b_ms, seek_c_ms, seek_e_ms;
	uint32_t seek_boundary_cyl;
	double hit_rate;             /* fitted: share of requests served from
				      * the buffer whatever the model's cache
				      * says (0: none) */
	char src[PK_N][240];         /* where each value comes from */
};

/* The seek curve of Ruemmler and Wilkes (section "Seek time"): for a seek
 * of d cylinders, a + b * sqrt(d) when d < boundary, c + e * d beyond. */
struct seek_curve {
	double a_ns, b_ns, c_ns, e_ns;
	uint32_t boundary;
	uint32_t cylinders;
};

/* Derives the curve from the data sheet's three figures: single track
 * (d = 1), average and full stroke (d = cylinders - 1). Data sheets define
 * the average as the mean over all (from, to) pairs, each distance d
 * weighted by (cylinders - d) (e.g. Deskstar 7K500 and Travelstar 5K320
 * specifications, 4.4.2.1 "Weighted average"); the curve is fitted so that
 * this weighted mean is the average given, and the boundary is where the
 * two pieces' slopes agree. Returns 0, or -1 when no curve with positive
 * coefficients meets the three figures (they are inconsistent). */
int seek_curve_derive(struct seek_curve *sc, uint32_t cylinders,
		      double track_ms, double avg_ms, double full_ms);

/* The time of a seek of d cylinders (0 for d = 0), ns. */
double seek_curve_ns(const struct seek_curve *sc, uint32_t d);

/* The weighted-average seek of the curve (the data sheets' definition), ns. */
double seek_curve_avg_ns(const struct seek_curve *sc);

enum model_op { MOP_READ = 0, MOP_WRITE = 1, MOP_FLUSH = 2, MOP_DISCARD = 3 };

/* One command to the disk. */
struct model_req {
	uint64_t lba;            /* 512-byte sectors */
	uint32_t sectors;
	uint8_t op;              /* enum model_op */
	uint8_t fua;             /* a write that must reach the medium */
	uint32_t tag;            /* the caller's, given back on completion */
	int64_t arrive_ns;       /* non-decreasing from one submit to the next */
};

/* What the disk did with one command. */
struct model_done {
	uint32_t tag;
	int64_t arrive_ns, start_ns, done_ns;
	int64_t service_ns;      /* mechanism time: done - start */
};

struct disk_model;

/* Lays out the disk of profile p (zones, cylinders, seek curve, cache) with
 * its spindle at angle 0 at t0_ns; max_pending: most commands outstanding
 * at once (the host's depth). Returns the model, or NULL with a message in
 * err when the profile does not describe a possible disk. */
struct disk_model *model_new(const struct disk_profile *p, int64_t t0_ns,
			     unsigned max_pending, char *err, size_t errlen);
void model_free(struct disk_model *m);

/* Hands the disk a command at r->arrive_ns. Returns 0, or -EBUSY when
 * max_pending commands are outstanding. */
int model_submit(struct disk_model *m, const struct model_req *r);

/* Runs the disk up to limit ns: commands that finish by then are done, and
 * the next command is started at a time t < limit (t <= limit when
 * inclusive: the caller promises that nothing else arrives at limit). */
void model_run(struct disk_model *m, int64_t limit, int inclusive);

/* When the disk next does something: the command in service finishes, or
 * (idle, or writing back) the next waiting one can start; ns, INT64_MAX
 * when nothing waits. */
int64_t model_busy_until(const struct disk_model *m);

/* Takes the oldest finished command into *out. Returns 1, or 0 when none. */
int model_pop(struct disk_model *m, struct model_done *out);

/* Commands handed over and not yet taken back with model_pop(). */
unsigned model_outstanding(const struct disk_model *m);

/* Finished commands not yet taken back with model_pop(). */
unsigned model_ready(const struct disk_model *m);

/* Where lba sits: cylinder, head, sector in its track and sectors on that
 * track (its zone's). */
struct model_chs {
	uint32_t cyl, head, sector, spt;
	unsigned zone;
};
void model_locate(const struct disk_model *m, uint64_t lba, struct model_chs *out);

/* The disk's derived figures, for tests and `iotape model list`. */
struct model_layout {
	uint32_t cylinders;
	uint32_t spt_outer, spt_inner;
	double rev_ns;
	struct seek_curve seek;
};
void model_layout(const struct disk_model *m, struct model_layout *out);

/* The sustained media rate at lba as the model produces it (sectors per
 * revolution plus one head switch), MB/s. */
double model_rate_mbs(const struct disk_model *m, uint64_t lba);

/* Open loop, for the analyzers: the n dispatched requests reqs (in dispatch
 * order, arrive_ns their original D times) on a fresh disk of profile p,
 * each arriving at its own time whatever the disk did before (so a slower
 * disk queues them). Fills service_ns[i] (mechanism time of request i) and,
 * when d2c_ns is not NULL, d2c_ns[i] (modelled completion minus arrival).
 * Returns 0, or -1 with a message in err. */
int model_device_times(const struct disk_profile *p, const struct model_req *reqs,
		       size_t n, int64_t *service_ns, int64_t *d2c_ns,
		       char *err, size_t errlen);

/* ---- profiles (model_profile.c) ---- */

/* The built-in profiles, each parameter with its source; *n their count. */
const struct disk_profile *profile_builtins(size_t *n);

/* The built-in profile named name (or one of its aliases), or NULL. */
const struct disk_profile *profile_builtin(const char *name);

/* Parses a profile file's text (len bytes; see docs/iotape.md "Profile
 * files") into p; what names the text in messages. Lines are `key = value`
 * with an optional `# source` after the value, blank or `#` comment lines;
 * `base = NAME` first takes a built-in's values to change some. Returns 0,
 * or -1 with "WHAT: line N: ..." in err. */
int profile_parse(struct disk_profile *p, const char *text, size_t len,
		  const char *what, char *err, size_t errlen);

/* Reads and parses the profile file at path. Returns 0, or -1 with a
 * message naming path in err. */
int profile_load_file(struct disk_profile *p, const char *path, char *err,
		      size_t errlen);

/* A built-in named spec, or else the profile file at path spec. Returns 0
 * or -1 with err. */
int profile_resolve(struct disk_profile *p, const char *spec, char *err,
		    size_t errlen);

/* Checks p's values (ranges; the seek figures make a curve). Returns 0 or
 * -1 with the first problem in err. */
int profile_check(const struct disk_profile *p, char *err, size_t errlen);

/* Writes p as a profile file into buf (len bytes, NUL-terminated,
 * truncated when short): every key, its value and its source. Returns the
 * length it needed. */
size_t profile_format(const struct disk_profile *p, char *buf, size_t len);

/* The key's name in profile files and its unit ("ms", "" ...). */
const char *profile_key_name(enum profile_key k);
const char *profile_key_unit(enum profile_key k);

/* The value of key k in p as text ("8.5", "sptf", "on"). */
void profile_value_text(const struct disk_profile *p, enum profile_key k,
			char *buf, size_t len);

#endif
