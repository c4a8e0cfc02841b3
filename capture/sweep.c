/* Sweeps for the lab (see sweep.h): the combinations of --set values and
 * repeats, and the run names capture and replay give them. */
#include <stdio.h>
#include <string.h>

#include "capture/sweep.h"

void sweep_init(struct sweep *s, const char *base, int repeat)
{
	memset(s, 0, sizeof(*s));
	s->base = base;
	s->repeat = repeat < 1 ? 1 : repeat;
	s->combo = -1;
}

int sweep_add(struct sweep *s, const char *key, char *const *values,
	      int nvalues)
{
	if (s->nkey == SWEEP_MAX_KEYS)
		return -1;
	s->keys[s->nkey] = key;
	s->values[s->nkey] = values;
	s->nvalues[s->nkey++] = nvalues;
	return 0;
}

static int combinations(const struct sweep *s)
{
	int n = 1;

	for (int i = 0; i < s->nkey; i++)
		n *= s->nvalues[i];
	return n;
}

/* Sets pick[] and tag for combination s->combo. */
static void pick_combination(struct sweep *s)
{
	int rest = s->combo;
	size_t tl = 0;

	s->tag[0] = '\0';
	for (int i = 0; i < s->nkey; i++) {
		s->pick[i] = rest % s->nvalues[i];
		rest /= s->nvalues[i];
		if (s->nvalues[i] > 1 && tl < sizeof(s->tag))
			tl += (size_t)snprintf(s->tag + tl, sizeof(s->tag) - tl,
					       "%s%s=%s", tl ? "," : "", s->keys[i],
					       s->values[i][s->pick[i]]);
	}
}

int sweep_next(struct sweep *s)
{
	if (s->combo < 0 || s->rep == s->repeat) {
		if (s->combo + 1 >= combinations(s))
			return 0;
		s->combo++;
		s->rep = 0;
		pick_combination(s);
	}
	s->rep++;
	snprintf(s->name, sizeof(s->name), "%s%s%s%s", s->base,
		 s->tag[0] ? "[" : "", s->tag, s->tag[0] ? "]" : "");
	if (s->repeat > 1) {
		size_t l = strlen(s->name);
		snprintf(s->name + l, sizeof(s->name) - l, ".%d", s->rep);
	}
	return 1;
}
