/* Arrays larger than memory should hold: kept in an unlinked temporary
 * file mapped shared, so that a page counts in the process's resident set
 * only while it is touched and not yet released; a released page that is
 * read again comes back from the file (the page cache), unchanged. The
 * replay's plan, results and per-I/O logs use them: their memory stays
 * bounded however long the run (the disk holds the rest, as the import's
 * spool of a piped trace does); arrays under 8 MiB stay in memory. Where
 * no temporary file can be made the
 * array is ordinary anonymous memory and releasing does nothing. */
#ifndef IOTAPE_SPILL_H
#define IOTAPE_SPILL_H

#include <stddef.h>

struct spill {
	void *p;             /* the array; NULL before spill_init() */
	size_t cap;          /* bytes mapped (a multiple of the page size) */
	size_t released;     /* bytes from the start already released */
	int fd;              /* the file, or -1 for anonymous memory */
};

/* Maps an array of at least bytes bytes (one page when 0), zero-filled: of
 * 8 MiB or more in a new unlinked file in $TMPDIR (else /tmp, as the
 * import's spool), smaller ones (and where no file can be made) in
 * anonymous memory: a store into a file's page faults through the file
 * system, which small arrays need not pay. Returns 0, or -errno when
 * neither can be had (*s is then empty). */
int spill_init(struct spill *s, size_t bytes);

/* Grows the array to at least bytes bytes, keeping its contents (s->p may
 * move; an array in memory moves into a file when it reaches 8 MiB).
 * Returns 0 or -errno (s unchanged). */
int spill_grow(struct spill *s, size_t bytes);

/* Tells the kernel the whole pages of [s->released, upto) bytes are not
 * needed resident: they leave the resident set and stay in the file. Does
 * nothing unless at least 1 MiB more than last time can go, or for
 * anonymous memory. Reading or writing them later is correct, only
 * slower. */
void spill_release(struct spill *s, size_t upto);

/* Releases the whole pages inside [from, to) bytes, wherever they lie (a
 * part of the array one reader is done with while others go on). */
void spill_release_range(struct spill *s, size_t from, size_t to);

/* Makes the whole pages of [from, to) bytes resident and writable without
 * changing a byte (MADV_POPULATE_WRITE, Linux 5.14): the first store into
 * a page of a shared file mapping faults through the file system (a
 * mean 6 us on ext4 here, some over 200 us, once 17 ms), which a timed
 * replay's scheduler must not wait on; a thread ahead of it takes those
 * faults; in anonymous memory it spares the scheduler the zeroing of a
 * huge page (2 MiB, some 100 us) at its first store. Nothing where the
 * kernel lacks it. */
void spill_prefault(struct spill *s, size_t from, size_t to);

/* In a pass over an array of elements of sz bytes, at element i: releases
 * what lies behind it, looking every 64k elements. */
static inline void spill_at(struct spill *s, size_t i, size_t sz)
{
	if (!(i & 0xffff))
		spill_release(s, i * sz);
}

/* Starts a new pass over the array: spill_release() counts from its start
 * again (pages an earlier pass released and this one touched are
 * released as it goes on). */
void spill_rewind(struct spill *s);

/* A new unlinked temporary file (O_TMPFILE where it can) in $TMPDIR,
 * else /tmp, opened for reading and writing (close-on-exec): its
 * descriptor, or -1 (errno set). */
int spill_tmpfile(void);

/* Unmaps and closes; s is emptied. Safe on an empty s (zeroed, or after
 * spill_init() failed). */
void spill_free(struct spill *s);

#endif
