/* Sweeps for the lab: --set KEY=V1,V2,... x --repeat N, every combination
 * of the swept values, each repeated, and the run names capture and replay
 * give them (NAME[KEY=V,...].R). */
#ifndef IOTAPE_SWEEP_H
#define IOTAPE_SWEEP_H

#define SWEEP_MAX_KEYS 32

struct sweep {
	/* what to sweep: set by sweep_init() and sweep_add() */
	const char *base;                  /* the run name before tag and repeat */
	int repeat;                        /* runs per combination, >= 1 */
	int nkey;
	const char *keys[SWEEP_MAX_KEYS];
	char *const *values[SWEEP_MAX_KEYS];
	int nvalues[SWEEP_MAX_KEYS];
	/* the current run, valid after sweep_next() returned 1 */
	int pick[SWEEP_MAX_KEYS];          /* index into each key's values */
	char tag[1024];                    /* "KEY=V,KEY2=W" of the keys with
					    * more than one value, or "" */
	char name[1400];                   /* BASE, BASE[TAG], BASE.R or
					    * BASE[TAG].R (R with repeat > 1) */
	int rep;                           /* 1 .. repeat */
	int combo;                         /* 0 .. combinations - 1 */
};

/* Starts a sweep of runs named from base (kept by pointer: it must outlive
 * the sweep) with repeat runs per combination (values below 1 count as 1). */
void sweep_init(struct sweep *s, const char *base, int repeat);

/* Adds a key with its nvalues values (kept by pointer); a key with one value
 * is applied to every run but left out of the tag. Returns 0, or -1 when
 * SWEEP_MAX_KEYS keys are there already. */
int sweep_add(struct sweep *s, const char *key, char *const *values,
	      int nvalues);

/* Steps to the next run: the first key's values vary fastest, then the
 * next key's, and each combination's repeats run together (NAME.1 ..
 * NAME.N). Returns 1 with pick, tag, name, rep and combo set, or 0 when
 * every run has been handed out (at once when a key has no value). */
int sweep_next(struct sweep *s);

#endif
