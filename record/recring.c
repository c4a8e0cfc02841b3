/* The flight recorder's ring of segments (see recring.h): records and
 * sample rows held in mmap()ed segments, dropped oldest first; the closed
 * ones over a memory bound spilled to files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/blktrace_format.h"
#include "record/recring.h"
#include "lib/util.h"

#define SEG_MIN (64u << 10)
#define SEG_MAX (64u << 20)
#define SPARE_MAX 4     /* segment structs kept for reuse */

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
	struct recseg *s = r->spare;
	void *m;

	if (s) {
		r->spare = s->next;
		r->nspare--;
		memset(s, 0, sizeof(*s));
	} else {
		s = xcalloc(1, sizeof(*s));
	}
	m = mmap(NULL, room, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {         /* xmalloc ends the program if this fails */
		m = xmalloc(room);
		s->heap = 1;
	}
	if (r->mlocked == 1 && mlock(m, room) < 0) {
		r->mlocked = 0;
		r->mlock_errno = errno;
	}
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
	r->mem_held += room;
	return s;
}

/* Gives a segment's memory back (not the struct). */
static void seg_unmap(struct recring *r, struct recseg *s)
{
	if (!s->ev)
		return;
	if (s->heap)
		free(s->ev);
	else
		munmap(s->ev, seg_room(r));
	s->ev = NULL;
	s->smp = NULL;
}

static void seg_free(struct recring *r, struct recseg *s)
{
	seg_unmap(r, s);
	if (s->path) {
		unlink(s->path);
		free(s->path);
	}
	if (r->nspare < SPARE_MAX) {
		s->next = r->spare;
		r->spare = s;
		r->nspare++;
	} else {
		free(s);
	}
}

static void drop_oldest(struct recring *r)
{
	struct recseg *s = r->oldest;

	r->oldest = s->next;
	if (!r->oldest)
		r->newest = NULL;
	r->nseg--;
	r->held_bytes -= seg_room(r);
	if (s->path)
		r->nspilled--;
	else
		r->mem_held -= seg_room(r);
	r->dropped_events += s->nev;
	r->dropped_samples += s->nsmp;
	r->dropped_bytes += s->evlen + s->nsmp * sizeof(*s->smp);
	r->dropped_segs++;
	if (s->ev_max > r->dropped_until_ns)
		r->dropped_until_ns = s->ev_max;
	if (s->busy)
		s->dead = 1;       /* recring_spill() frees it when written */
	else
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

/* A spilled segment's file: this header, its records (evlen bytes), then
 * its sample rows (nsmp struct sample_row, keys indexing r->keys). Only
 * this process reads it back: native byte order. */
struct seghdr {
	char magic[8];            /* "IOTSEG1" */
	uint64_t id, nev, evlen, nsmp;
	int64_t t_min, t_max, ev_max;
};

/* Keeps the in-window records and samples of ev (evlen bytes) and smp
 * (nsmp rows) into out_ev and out_smp. */
static void filter(const uint8_t *ev, size_t evlen, const struct sample_row *smp,
		   size_t nsmp, int64_t from, int64_t to, uint8_t *out_ev,
		   size_t *out_evlen, uint64_t *nev, struct sample_row *out_smp,
		   size_t *out_nsmp)
{
	struct bt_stream bs;
	struct bt_event e;
	size_t off = 0, used;

	if (evlen && !bt_stream_detect(&bs, ev, evlen))
		while (off < evlen &&
		       !bt_decode(&bs, ev + off, evlen - off, &e, &used)) {
			if ((int64_t)e.time_ns >= from && (int64_t)e.time_ns <= to) {
				memcpy(out_ev + *out_evlen, ev + off, used);
				*out_evlen += used;
				(*nev)++;
			}
			off += used;
		}
	for (size_t i = 0; i < nsmp; i++)
		if (smp[i].t_ns >= from && smp[i].t_ns <= to)
			out_smp[(*out_nsmp)++] = smp[i];
}

/* Reads exactly len bytes at off of fd. Returns 0 or -errno (-EIO when the
 * file is short). */
static int read_at(int fd, void *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf = (uint8_t *)buf + n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* Work room of recring_extract(): the output and a spilled segment read. */
struct xbuf {
	uint8_t *ev, *fev;
	struct sample_row *smp, *fsmp;
};

/* Copies the in-window records and samples of the oldest segment whose id
 * is at least id into x's output; returns its id, 0 when none is left, or
 * -errno when a spilled one cannot be read. */
static int64_t copy_seg(struct recring *r, uint64_t id, int64_t from,
			int64_t to, struct xbuf *x, size_t *evlen, uint64_t *nev,
			size_t *nsmp)
{
	struct recseg *s;
	struct seghdr h;
	int fd, rc;

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
	if (s->t_max < from || s->t_min > to) {
		pthread_mutex_unlock(&r->mu);
		return (int64_t)id;
	}
	if (!s->path) {
		filter(s->ev, s->evlen, s->smp, s->nsmp, from, to, x->ev, evlen,
		       nev, x->smp, nsmp);
		pthread_mutex_unlock(&r->mu);
		return (int64_t)id;
	}
	/* open under the lock (the file may go once it is released: the
	 * open fd keeps it), read without */
	fd = open(s->path, O_RDONLY | O_CLOEXEC);
	pthread_mutex_unlock(&r->mu);
	if (fd < 0)
		return -errno;
	rc = read_at(fd, &h, sizeof(h), 0);
	if (!rc && (memcmp(h.magic, "IOTSEG1", 8) || h.evlen > r->seg_bytes ||
		    h.nsmp > (r->seg_bytes / 4) / sizeof(struct sample_row)))
		rc = -EINVAL;
	if (!rc)
		rc = read_at(fd, x->fev, h.evlen, sizeof(h));
	if (!rc)
		rc = read_at(fd, x->fsmp, h.nsmp * sizeof(struct sample_row),
			     (off_t)(sizeof(h) + h.evlen));
	close(fd);
	if (rc)
		return rc;
	filter(x->fev, h.evlen, x->fsmp, h.nsmp, from, to, x->ev, evlen, nev,
	       x->smp, nsmp);
	return (int64_t)id;
}

int recring_extract(struct recring *r, int64_t from_ns, int64_t to_ns,
		    const struct recring_out *out, uint64_t *nev)
{
	size_t smp_room = r->seg_bytes / 4 + sizeof(struct sample_row);
	struct xbuf x = { .ev = xmalloc(r->seg_bytes), .smp = xmalloc(smp_room) };
	uint64_t n, total = 0;
	int64_t id = 0;
	size_t evlen, nsmp;
	int rc = 0;

	if (r->spill_dir) {
		x.fev = xmalloc(r->seg_bytes);
		x.fsmp = xmalloc(smp_room);
	}
	while (!rc && (id = copy_seg(r, (uint64_t)id + 1, from_ns, to_ns, &x,
				     &evlen, &n, &nsmp)) > 0) {
		total += n;
		if (evlen && out->records)
			rc = out->records(out->ctx, x.ev, evlen);
		for (size_t i = 0; !rc && i < nsmp && out->sample; i++) {
			const struct sample_key *k = &r->keys.keys[x.smp[i].key];
			rc = out->sample(out->ctx, x.smp[i].t_ns, k->source, k->key,
					 x.smp[i].value);
		}
	}
	if (!rc && id < 0)
		rc = (int)id;
	free(x.ev);
	free(x.smp);
	free(x.fev);
	free(x.fsmp);
	if (nev)
		*nev = total;
	return rc;
}

/* ---- the spill ---- */

int recring_spill_to(struct recring *r, const char *dir, uint64_t mem_bytes,
		     char *err, size_t errlen)
{
	uint64_t seg = mem_bytes / 18 * 4 / 5;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (mkdir_p(dir, 0700, err, errlen))
		return -1;
	if (!(d = opendir(dir))) {
		snprintf(err, errlen, "cannot read '%s': %s", dir, strerror(errno));
		return -1;
	}
	while (!rc && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char path[4096];
		if (strncmp(de->d_name, "seg-", 4) || n < 9 ||
		    strcmp(de->d_name + n - 5, ".ring"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) < 0) {
			snprintf(err, errlen, "cannot remove the stale segment '%s' "
				 "(left by a recorder that was killed): %s", path,
				 strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	if (rc)
		return -1;
	if (seg < SEG_MIN)
		seg = SEG_MIN;
	if (seg > SEG_MAX)
		seg = SEG_MAX;
	r->seg_bytes = (size_t)(seg & ~(uint64_t)4095);
	r->mem_bytes = mem_bytes < 4 * (uint64_t)seg_room(r) ?
		       4 * (uint64_t)seg_room(r) : mem_bytes;
	if (r->keep_bytes < r->mem_bytes)
		r->keep_bytes = r->mem_bytes;
	free(r->spill_dir);
	r->spill_dir = xstrdup(dir);
	return 0;
}

/* Writes s (closed, so nobody changes it) to path. Returns 0 or -errno. */
static int write_seg(const struct recseg *s, const char *path)
{
	struct seghdr h = {
		.magic = "IOTSEG1", .id = s->id, .nev = s->nev, .evlen = s->evlen,
		.nsmp = s->nsmp, .t_min = s->t_min, .t_max = s->t_max,
		.ev_max = s->ev_max,
	};
	const void *part[3] = { &h, s->ev, s->smp };
	size_t len[3] = { sizeof(h), s->evlen, s->nsmp * sizeof(*s->smp) };
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	for (int i = 0; i < 3; i++) {
		const uint8_t *p = part[i];
		size_t left = len[i];
		while (left) {
			ssize_t w = write(fd, p, left);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				int e = w < 0 ? errno : EIO;
				close(fd);
				return -e;
			}
			p += w;
			left -= (size_t)w;
		}
	}
	/* a full disk can show only at close (NFS) */
	return close(fd) < 0 ? -errno : 0;
}

int recring_spill(struct recring *r, char *err, size_t errlen)
{
	int written = 0;

	if (!r->spill_dir)
		return 0;
	for (;;) {
		struct recseg *s;
		char path[4096];
		int rc, dead;

		pthread_mutex_lock(&r->mu);
		for (s = r->oldest; s && s != r->newest && s->path; s = s->next)
			;
		if (r->mem_held <= r->mem_bytes || !s || s == r->newest) {
			pthread_mutex_unlock(&r->mu);
			return written;
		}
		s->busy = 1;
		pthread_mutex_unlock(&r->mu);

		snprintf(path, sizeof(path), "%s/seg-%llu.ring", r->spill_dir,
			 (unsigned long long)s->id);
		rc = write_seg(s, path);

		pthread_mutex_lock(&r->mu);
		s->busy = 0;
		dead = s->dead;
		if (dead) {          /* dropped meanwhile (age or bytes) */
			s->path = rc ? NULL : xstrdup(path);
			if (rc)
				unlink(path);
			seg_free(r, s);
		} else if (!rc) {
			s->path = xstrdup(path);
			seg_unmap(r, s);
			r->mem_held -= seg_room(r);
			r->nspilled++;
			r->spilled_segs++;
			written++;
		} else {
			/* keep the memory bound: drop oldest first (the files,
			 * then this one and on) until it fits */
			unlink(path);
			r->spill_failed++;
			while (r->mem_held > r->mem_bytes && r->oldest != r->newest)
				drop_oldest(r);
		}
		pthread_mutex_unlock(&r->mu);
		if (rc && !dead) {
			snprintf(err, errlen, "cannot spill the ring to '%s': %s "
				 "(dropped the oldest segments instead)", path,
				 strerror(-rc));
			return rc;
		}
	}
}

void recring_free(struct recring *r)
{
	while (r->oldest) {
		struct recseg *s = r->oldest;
		r->oldest = s->next;
		seg_free(r, s);
	}
	while (r->spare) {
		struct recseg *s = r->spare;
		r->spare = s->next;
		free(s);
	}
	r->nspare = 0;
	r->newest = NULL;
	r->nseg = 0;
	r->held_bytes = 0;
	r->mem_held = 0;
	r->nspilled = 0;
	free(r->spill_dir);
	r->spill_dir = NULL;
	samples_free(&r->keys);
	pthread_mutex_destroy(&r->mu);
}
