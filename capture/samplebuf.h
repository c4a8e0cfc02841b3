/* A capture's /proc samples, kept in memory until the run is stored, with
 * the first and latest value of each key, which --start-when conditions
 * read while the capture runs. */
#ifndef IOTAPE_SAMPLEBUF_H
#define IOTAPE_SAMPLEBUF_H

#include <stddef.h>
#include <stdint.h>

struct sample_key {
	char source[12];      /* "vmstat", "meminfo", "stat", "psi" */
	char key[64];
	double first, last;   /* values at the first and latest sample */
	int seen;
};

struct sample_row {
	int64_t t_ns;
	uint32_t key;         /* index into keys */
	double value;
};

struct samples {
	struct sample_key *keys;
	size_t nkeys, capkeys;
	uint32_t *hash;       /* key index + 1, open addressing */
	size_t hcap;
	struct sample_row *rows;
	size_t nrows, caprows;
};

/* Appends one value (a procstat_sample_fn: ctx is the struct samples, which
 * starts all zero). Never fails (aborts when out of memory); returns 0. */
int samples_add(void *ctx, int64_t t_ns, const char *source, const char *key,
		double value);

/* The value a --start-when key has now: swap_used (kB, SwapTotal -
 * SwapFree); a /proc/vmstat counter as its increase since the capture
 * started (gauges, nr_*, as they are); meminfo and psi values as they are;
 * /proc/stat counters as their increase (procs_* as they are). Returns 0
 * with *v, or -1 when the key was never sampled. */
int samples_value(const struct samples *s, const char *key, double *v);

/* Frees the rows and keys and leaves s all zero. */
void samples_free(struct samples *s);

#endif
