/* A capture's /proc samples kept in memory until the run is stored (see
 * samplebuf.h): rows in time order and a hash of their keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/samplebuf.h"
#include "lib/util.h"

static uint32_t str_hash(const char *a, const char *b)
{
	uint32_t h = 2166136261u;
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 16777619u;
	h = (h ^ '/') * 16777619u;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 16777619u;
	return h;
}

static uint32_t sample_key_id(struct samples *s, const char *source, const char *key)
{
	size_t i;

	if (2 * (s->nkeys + 1) > s->hcap) {
		size_t ncap = s->hcap ? 2 * s->hcap : 1024;
		free(s->hash);
		s->hash = xcalloc(ncap, sizeof(*s->hash));
		s->hcap = ncap;
		for (size_t k = 0; k < s->nkeys; k++) {
			i = str_hash(s->keys[k].source, s->keys[k].key) & (ncap - 1);
			while (s->hash[i])
				i = (i + 1) & (ncap - 1);
			s->hash[i] = (uint32_t)k + 1;
		}
	}
	for (i = str_hash(source, key) & (s->hcap - 1); s->hash[i];
	     i = (i + 1) & (s->hcap - 1)) {
		struct sample_key *k = &s->keys[s->hash[i] - 1];
		if (!strcmp(k->source, source) && !strcmp(k->key, key))
			return s->hash[i] - 1;
	}
	if (s->nkeys == s->capkeys) {
		s->capkeys = s->capkeys ? 2 * s->capkeys : 512;
		s->keys = xrealloc(s->keys, s->capkeys * sizeof(*s->keys));
	}
	memset(&s->keys[s->nkeys], 0, sizeof(s->keys[0]));
	snprintf(s->keys[s->nkeys].source, sizeof(s->keys[0].source), "%s", source);
	snprintf(s->keys[s->nkeys].key, sizeof(s->keys[0].key), "%s", key);
	s->hash[i] = (uint32_t)++s->nkeys;
	return (uint32_t)s->nkeys - 1;
}

int samples_add(void *ctx, int64_t t_ns, const char *source, const char *key,
		double value)
{
	struct samples *s = ctx;
	uint32_t id = sample_key_id(s, source, key);
	struct sample_key *k = &s->keys[id];

	if (!k->seen)
		k->first = value;
	k->seen = 1;
	k->last = value;
	if (s->nrows == s->caprows) {
		s->caprows = s->caprows ? 2 * s->caprows : 4096;
		s->rows = xrealloc(s->rows, s->caprows * sizeof(*s->rows));
	}
	s->rows[s->nrows++] = (struct sample_row){ t_ns, id, value };
	return 0;
}

void samples_free(struct samples *s)
{
	free(s->keys);
	free(s->hash);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

int samples_value(const struct samples *s, const char *key, double *v)
{
	static const char *const sources[] = { "vmstat", "meminfo", "psi", "stat" };

	if (!strcmp(key, "swap_used")) {
		double tot, fr;
		if (samples_value(s, "SwapTotal", &tot) ||
		    samples_value(s, "SwapFree", &fr))
			return -1;
		*v = tot - fr;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++) {
		for (size_t k = 0; k < s->nkeys; k++) {
			const struct sample_key *sk = &s->keys[k];
			if (strcmp(sk->source, sources[i]) || strcmp(sk->key, key))
				continue;
			if ((!strcmp(sources[i], "vmstat") && strncmp(key, "nr_", 3)) ||
			    (!strcmp(sources[i], "stat") && strncmp(key, "procs_", 6)))
				*v = sk->last - sk->first;
			else
				*v = sk->last;
			return 0;
		}
	}
	return -1;
}
