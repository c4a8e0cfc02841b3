/* Split bios put back together (splitjoin.h). */
#include "analyze/splitjoin.h"

#include <string.h>

void splitjoin_init(struct splitjoin *s,
		    void (*done)(void *ctx, const struct split_bio *b),
		    void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->done = done;
	s->ctx = ctx;
}

int splitjoin_add(struct splitjoin *s, const struct an_io *x, size_t row)
{
	int free_k = -1, old_k = 0;

	if (!(x->flags & AN_SPLIT) || !x->bytes || x->q == AN_NONE ||
	    x->c == AN_NONE || x->c < x->q)
		return 0;
	s->tick++;
	for (int k = 0; k < SPLITJOIN_OPEN; k++) {
		if (!s->g[k].used) {
			if (free_k < 0)
				free_k = k;
			continue;
		}
		if (s->g[k].dev == x->dev && s->g[k].pid == x->pid &&
		    s->g[k].b.q == x->q) {
			struct split_bio *b = &s->g[k].b;
			b->bytes += x->bytes;
			if (x->c > b->c) {
				b->c = x->c;
				b->row = row;
			}
			s->g[k].age = s->tick;
			return 1;
		}
		if (s->g[k].age < s->g[old_k].age || !s->g[old_k].used)
			old_k = k;
	}
	if (free_k < 0) {
		/* full: the bio longest without a piece is whole */
		s->done(s->ctx, &s->g[old_k].b);
		free_k = old_k;
	}
	s->g[free_k].used = 1;
	s->g[free_k].dev = x->dev;
	s->g[free_k].pid = x->pid;
	s->g[free_k].age = s->tick;
	s->g[free_k].b = (struct split_bio){ x->dev, !!(x->flags & AN_WRITE),
					     x->q, x->c, x->bytes, row };
	return 1;
}

void splitjoin_end(struct splitjoin *s)
{
	for (int k = 0; k < SPLITJOIN_OPEN; k++)
		if (s->g[k].used) {
			s->done(s->ctx, &s->g[k].b);
			s->g[k].used = 0;
		}
}
