/* Arrays in an unlinked temporary file mapped shared (spill.h): resident
 * while touched, released to the file behind the reader. */
#include "lib/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RELEASE_STEP (1u << 20)   /* release in steps of at least 1 MiB */
#define SPILL_FILE_MIN (8u << 20)  /* smaller arrays stay in memory */

static size_t page_round(size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (!bytes)
		bytes = 1;
	return (bytes + pg - 1) / pg * pg;
}

/* A new unlinked file in dir, or -1. */
static int tmp_file(const char *dir)
{
	char path[4096];
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	if (snprintf(path, sizeof(path), "%s/iotape-spill.XXXXXX", dir) >=
	    (int)sizeof(path))
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	return fd;
}

/* The file's blocks for [from, to), so that a full disk is an error here,
 * not a SIGBUS at a store into the mapping later. */
static int reserve(int fd, size_t from, size_t to)
{
	int rc = posix_fallocate(fd, (off_t)from, (off_t)(to - from));

	return rc ? -rc : 0;
}

int spill_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");

	return tmp_file(dir && *dir ? dir : "/tmp");
}

/* A new unlinked file of cap bytes (blocks reserved) mapped shared into
 * *p; returns its descriptor, or -1. */
static int map_file(size_t cap, void **p)
{
	const char *dir = getenv("TMPDIR");
	int fd = tmp_file(dir && *dir ? dir : "/tmp");

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)cap) || reserve(fd, 0, cap) ||
	    (*p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
	    MAP_FAILED) {
		close(fd);
		return -1;
	}
	return fd;
}

int spill_init(struct spill *s, size_t bytes)
{
	size_t cap = page_round(bytes);
	void *p = NULL;

	memset(s, 0, sizeof(*s));
	s->fd = cap >= SPILL_FILE_MIN ? map_file(cap, &p) : -1;
	if (s->fd < 0) {
		p = mmap(NULL, cap, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
	}
	s->p = p;
	s->cap = cap;
	return 0;
}

int spill_grow(struct spill *s, size_t bytes)
{
	size_t cap = page_round(bytes);
	void *p;
	int rc, fd;

	if (cap <= s->cap)
		return 0;
	if (s->fd < 0 && cap >= SPILL_FILE_MIN && (fd = map_file(cap, &p)) >= 0) {
		/* grown out of memory's share: into a file from now on */
		memcpy(p, s->p, s->cap);
		munmap(s->p, s->cap);
		s->p = p;
		s->fd = fd;
		s->cap = cap;
		return 0;
	}
	if (s->fd >= 0) {
		if (ftruncate(s->fd, (off_t)cap))
			return -errno;
		if ((rc = reserve(s->fd, s->cap, cap))) {
			/* the file as it was: nothing of the array changed */
			if (ftruncate(s->fd, (off_t)s->cap)) {
				/* the old size stays mapped and valid */
			}
			return rc;
		}
	}
	p = mremap(s->p, s->cap, cap, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return -errno;
	s->p = p;
	s->cap = cap;
	return 0;
}

void spill_release(struct spill *s, size_t upto)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), end;

	if (s->fd < 0 || !s->p)
		return;
	if (upto > s->cap)
		upto = s->cap;
	end = upto / pg * pg;
	if (end < s->released + RELEASE_STEP)
		return;
	/* a shared file mapping: the pages stay in the file and the page
	 * cache; only this process's mapping of them goes */
	madvise((char *)s->p + s->released, end - s->released, MADV_DONTNEED);
	s->released = end;
}

void spill_release_range(struct spill *s, size_t from, size_t to)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (s->fd < 0 || !s->p)
		return;
	if (to > s->cap)
		to = s->cap;
	from = (from + pg - 1) / pg * pg;
	to = to / pg * pg;
	if (to > from)
		madvise((char *)s->p + from, to - from, MADV_DONTNEED);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void spill_prefault(struct spill *s, size_t from, size_t to)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (!s->p)
		return;
	if (to > s->cap)
		to = s->cap;
	from = from / pg * pg;
	to = (to + pg - 1) / pg * pg;
	if (to > s->cap)
		to = s->cap;
	/* 16 pages a call: the call holds the address space's lock (for
	 * reading) while it faults, and a thread waiting to map memory would
	 * hold every other thread's page fault behind it meanwhile */
	for (size_t a = from; a < to; a += 16 * pg)
		madvise((char *)s->p + a, to - a < 16 * pg ? to - a : 16 * pg,
			MADV_POPULATE_WRITE);
}

void spill_rewind(struct spill *s)
{
	s->released = 0;
}

void spill_free(struct spill *s)
{
	/* an empty s (zeroed, or after a failed init) holds nothing: its fd
	 * of 0 is not ours */
	if (s->p) {
		munmap(s->p, s->cap);
		if (s->fd >= 0)
			close(s->fd);
	}
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
