/* A disk's statistics file, mapped shared: the daemon adds each answer's
 * times to histograms (analyze/stats.h's log-linear buckets, so p50 and p99
 * are within 0.8%); `iotape disk stats` maps the same file read-only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"
#include "model/disk_int.h"

struct disk_stats_file *disk_stats_create(const char *path, char *err,
					  size_t errlen)
{
	struct disk_stats_file *f;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || ftruncate(fd, sizeof(*f)) < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED) {
		snprintf(err, errlen, "cannot map '%s': %s", path, strerror(errno));
		return NULL;
	}
	f->magic = DISK_STATS_MAGIC;
	f->version = DISK_STATS_VERSION;
	f->started_mono_ns = now_mono_ns();
	return f;
}

void disk_stats_bind(struct disk_stats_file *f, struct disk_hist_w *w)
{
	for (int i = 0; i < DH_N; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].h.counts = f->counts[i];
		w[i].hdr = &f->h[i];
	}
}

void disk_hist_add(struct disk_hist_w *w, uint64_t v)
{
	hist_add(&w->h, v);
	w->hdr->min = w->h.min;
	w->hdr->max = w->h.max;
	w->hdr->sum = w->h.sum;
	w->hdr->n = w->h.n;
}

void disk_answers_add(struct disk_answers *r, const struct disk_answer *a)
{
	pthread_mutex_lock(&r->mu);
	r->a[r->n % DISK_ANSWERS] = *a;
	r->n++;
	pthread_mutex_unlock(&r->mu);
}

int disk_stats_read(const char *dir, const char *name, struct disk_stats *s,
		    char *err, size_t errlen)
{
	char path[600];
	struct disk_stats_file *f;
	struct stat sb;
	int fd;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/disk/%s/stats", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "no disk '%s' (see 'iotape disk list')",
				 name);
		else
			snprintf(err, errlen, "cannot open '%s': %s", path,
				 strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) < 0 || (size_t)sb.st_size < sizeof(*f)) {
		close(fd);
		snprintf(err, errlen, "'%s' is not a disk's statistics file", path);
		return -1;
	}
	f = mmap(NULL, sizeof(*f), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED) {
		snprintf(err, errlen, "cannot map '%s': %s", path, strerror(errno));
		return -1;
	}
	if (f->magic != DISK_STATS_MAGIC || f->version != DISK_STATS_VERSION) {
		munmap(f, sizeof(*f));
		snprintf(err, errlen, "'%s': not a statistics file of this iotape "
			 "(version %u)", path, f->version);
		return -1;
	}
	memcpy(s->ops, f->ops, sizeof(s->ops));
	memcpy(s->bytes, f->bytes, sizeof(s->bytes));
	s->late = f->late;
	s->errors = f->errors;
	s->ov_unmatched = f->ov_unmatched;
	s->realtime = f->realtime;
	s->compensate = f->compensate;
	s->comp_ns = f->comp_ns;
	s->held_max = f->held_max;
	s->up_ns = now_mono_ns() - f->started_mono_ns;
	snprintf(s->ov_why, sizeof(s->ov_why), "%.*s", (int)sizeof(f->ov_why) - 1,
		 f->ov_why);
	for (int i = 0; i < DH_N; i++) {
		/* a copy of the scalars; the buckets are read in place */
		struct hist h = { f->h[i].n, f->h[i].sum, f->h[i].min, f->h[i].max,
				  (uint64_t *)f->counts[i] };
		s->h[i].n = h.n;
		if (!h.n)
			continue;
		s->h[i].mean = hist_mean(&h);
		s->h[i].p50 = hist_pct(&h, 50);
		s->h[i].p99 = hist_pct(&h, 99);
		s->h[i].max = (double)h.max;
	}
	munmap(f, sizeof(*f));
	return 0;
}
