/* The flight recorder's ring of segments (see recring.h): records and
 * sample rows held in mmap()ed segments, dropped oldest first. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture/blktrace_format.h"
#include "capture/recring.h"
#include "lib/util.h"

#define SEG_MIN (64u << 10)
#define SEG_MAX (64u << 20)

/* The bytes a segment takes: its records' room and a quarter more for
 * sample rows. */
static size_t seg_room(const struct recring *r)
{
	return r->seg_bytes + r->seg_bytes / 4;
}

void recring_init(struct recring *r, uint64_t keep_bytes, int64_t window_ns,
		  int lock_mem)
{
	/* 18 segments of room fit in keep: the 16 a window's age cuts it
	 * into (a segment closes after a sixteenth of the window), the one
	 * filling and one more, so age and not room drops them at low rates */
	uint64_t seg = keep_bytes / 18 * 4 / 5;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->mu, NULL);
	if (seg < SEG_MIN)
		seg = SEG_MIN;
	if (seg > SEG_MAX)
		seg = SEG_MAX;
	r->seg_bytes = (size_t)(seg & ~(uint64_t)4095);
	r->keep_bytes = keep_bytes < 4 * (uint64_t)seg_room(r) ?
			4 * (uint64_t)seg_room(r) : keep_bytes;
	r->window_ns = window_ns > 0 ? window_ns : INT64_MAX / 2;
	r->next_id = 1;
	r->mlocked = lock_mem ? 1 : -1;
}

/* Allocates a segment (anonymous memory, so a dropped one goes back to the
 * system at once), locked in memory when asked. */
static struct recseg *seg_new(struct recring *r)
{
	size_t room = seg_room(r);
	struct recseg *s = xcalloc(1, sizeof(*s));
	void *m = mmap(NULL, room, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {         /* xmalloc ends the program if this fails */
		m = xmalloc(room);
		s->heap = 1;
	}
	if (r->mlocked == 1 && mlock(m, room) < 0)
		r->mlocked = 0;
	s->ev = m;
	s->smp = (struct sample_row *)(s->ev + r->seg_bytes);
	s->capsmp = (r->seg_bytes / 4) / sizeof(*s->smp);
	s->t_min = INT64_MAX;
	s->t_max = INT64_MIN;
	s->id = r->next_id++;
	if (r->newest)
		r->newest->next = s;
	else
		r->oldest = s;
	r->newest = s;
	r->nseg++;
	r->held_bytes += room;
	return s;
}

static void seg_free(struct recring *r, struct recseg *s)
{
	if (s->heap)
		free(s->ev);
	else
		munmap(s->ev, seg_room(r));
	free(s);
}

static void drop_oldest(struct recring *r)
{
	struct recseg *s = r->oldest;

	r->oldest = s->next;
	if (!r->oldest)
		r->newest = NULL;
	r->nseg--;
	r->held_bytes -= seg_room(r);
	r->dropped_events += s->nev;
	r->dropped_samples += s->nsmp;
	r->dropped_bytes += s->evlen + s->nsmp * sizeof(*s->smp);
	r->dropped_segs++;
	if (s->ev_max > r->dropped_until_ns)
		r->dropped_until_ns = s->ev_max;
	seg_free(r, s);
}

/* Drops the oldest segments while over a bound (never the newest). */
static void trim(struct recring *r, int64_t now_ns)
{
	while (r->oldest && r->oldest != r->newest &&
	       (r->held_bytes > r->keep_bytes ||
		(r->oldest->t_max != INT64_MIN &&
		 r->oldest->t_max < now_ns - r->window_ns)))
		drop_oldest(r);
}

/* The segment that takes need more bytes of records (samples: 0) or one
 * more sample row at time t. */
static struct recseg *room_for(struct recring *r, size_t need, int sample,
			       int64_t t)
{
	struct recseg *s = r->newest;

	if (!s || (sample ? s->nsmp == s->capsmp : s->evlen + need > r->seg_bytes) ||
	    (s->t_min != INT64_MAX && t - s->t_min > r->window_ns / 16)) {
		/* make room first, so the bytes held never pass keep_bytes,
		 * not even while a segment is being replaced */
		while (r->oldest && r->held_bytes + seg_room(r) > r->keep_bytes)
			drop_oldest(r);
		s = seg_new(r);
		trim(r, r->newest_ns);
	}
	return s;
}

static void seg_time(struct recring *r, struct recseg *s, int64_t t)
{
	if (t < s->t_min)
		s->t_min = t;
	if (t > s->t_max)
		s->t_max = t;
	if (t > r->newest_ns)
		r->newest_ns = t;
}

int recring_add_records(void *ctx, const uint8_t *buf, size_t len)
{
	struct recring *r = ctx;
	struct bt_stream bs;
	size_t off = 0, used;
	struct bt_event ev;

	if (len < 4 || bt_stream_detect(&bs, buf, len)) {
		pthread_mutex_lock(&r->mu);
		r->skipped_bytes += len;
		pthread_mutex_unlock(&r->mu);
		return 0;
	}
	pthread_mutex_lock(&r->mu);
	while (off < len) {
		struct recseg *s;
		if (bt_decode(&bs, buf + off, len - off, &ev, &used)) {
			r->skipped_bytes += len - off;
			break;
		}
		s = room_for(r, used, 0, (int64_t)ev.time_ns);
		memcpy(s->ev + s->evlen, buf + off, used);
		s->evlen += used;
		s->nev++;
		r->total_events++;
		seg_time(r, s, (int64_t)ev.time_ns);
		if ((int64_t)ev.time_ns > s->ev_max)
			s->ev_max = (int64_t)ev.time_ns;
		off += used;
	}
	trim(r, r->newest_ns);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

int recring_add_sample(void *ctx, int64_t t_ns, const char *source,
		       const char *key, double value)
{
	struct recring *r = ctx;
	struct recseg *s;
	struct sample_row row;

	pthread_mutex_lock(&r->mu);
	/* the key table of samplebuf, without its rows */
	samples_add(&r->keys, t_ns, source, key, value);
	row = r->keys.rows[--r->keys.nrows];
	s = room_for(r, 0, 1, t_ns);
	s->smp[s->nsmp++] = row;
	seg_time(r, s, t_ns);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

void recring_expire(struct recring *r, int64_t now_ns)
{
	pthread_mutex_lock(&r->mu);
	trim(r, now_ns);
	pthread_mutex_unlock(&r->mu);
}

int64_t recring_oldest_ns(struct recring *r)
{
	int64_t t = INT64_MAX;

	pthread_mutex_lock(&r->mu);
	for (struct recseg *s = r->oldest; s; s = s->next)
		if (s->t_min < t)
			t = s->t_min;
	pthread_mutex_unlock(&r->mu);
	return t;
}

/* Copies the in-window records and samples of the oldest segment whose id
 * is at least id into the buffers; returns its id, or 0 when none is left. */
static uint64_t copy_seg(struct recring *r, uint64_t id, int64_t from,
			 int64_t to, uint8_t *ev, size_t *evlen, uint64_t *nev,
			 struct sample_row *smp, size_t *nsmp)
{
	struct recseg *s;
	struct bt_stream bs;
	struct bt_event e;
	size_t off = 0, used;

	*evlen = *nsmp = 0;
	*nev = 0;
	pthread_mutex_lock(&r->mu);
	for (s = r->oldest; s && s->id < id; s = s->next)
		;
	if (!s) {
		pthread_mutex_unlock(&r->mu);
		return 0;
	}
	id = s->id;
	if (s->t_max >= from && s->t_min <= to) {
		if (s->evlen && !bt_stream_detect(&bs, s->ev, s->evlen))
			while (off < s->evlen &&
			       !bt_decode(&bs, s->ev + off, s->evlen - off, &e, &used)) {
				if ((int64_t)e.time_ns >= from && (int64_t)e.time_ns <= to) {
					memcpy(ev + *evlen, s->ev + off, used);
					*evlen += used;
					(*nev)++;
				}
				off += used;
			}
		for (size_t i = 0; i < s->nsmp; i++)
			if (s->smp[i].t_ns >= from && s->smp[i].t_ns <= to)
				smp[(*nsmp)++] = s->smp[i];
	}
	pthread_mutex_unlock(&r->mu);
	return id;
}

int recring_extract(struct recring *r, int64_t from_ns, int64_t to_ns,
		    const struct recring_out *out, uint64_t *nev)
{
	uint8_t *ev = xmalloc(r->seg_bytes);
	struct sample_row *smp = xmalloc(r->seg_bytes / 4 + sizeof(*smp));
	uint64_t id = 0, n, total = 0;
	size_t evlen, nsmp;
	int rc = 0;

	while (!rc && (id = copy_seg(r, id + 1, from_ns, to_ns, ev, &evlen, &n,
				     smp, &nsmp))) {
		total += n;
		if (evlen && out->records)
			rc = out->records(out->ctx, ev, evlen);
		for (size_t i = 0; !rc && i < nsmp && out->sample; i++) {
			const struct sample_key *k = &r->keys.keys[smp[i].key];
			rc = out->sample(out->ctx, smp[i].t_ns, k->source, k->key,
					 smp[i].value);
		}
	}
	free(ev);
	free(smp);
	if (nev)
		*nev = total;
	return rc;
}

void recring_free(struct recring *r)
{
	while (r->oldest) {
		struct recseg *s = r->oldest;
		r->oldest = s->next;
		seg_free(r, s);
	}
	r->newest = NULL;
	r->nseg = 0;
	r->held_bytes = 0;
	samples_free(&r->keys);
	pthread_mutex_destroy(&r->mu);
}
