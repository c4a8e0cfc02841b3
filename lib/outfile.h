/* Output files a command writes (export -o, model -o, plot's and mail's
 * text): made whole or not at all when that is safe, written in place when
 * replacing the path would destroy what it is (a device, a FIFO, a symlink,
 * a file with other names). */
#ifndef IOTAPE_OUTFILE_H
#define IOTAPE_OUTFILE_H

#include <limits.h>
#include <stdio.h>

struct out_file {
	FILE *fp;                   /* write here */
	char path[PATH_MAX];        /* a copy of out_file_open()'s path */
	char tmp[PATH_MAX + 32];    /* the temporary out_file_commit() renames
				     * over path; "" when written in place */
};

/* Opens path for writing into of->fp. When path is absent, or a regular
 * file that is not a symlink and has one link, writes a temporary
 * "PATH.tmp.PID" beside it, with the old file's mode (and owner and group
 * when root), that out_file_commit() renames over path, so a failed write
 * leaves the old file whole. Anything else (a character or block device, a
 * FIFO, a socket, a symlink, a regular file with more than one hard link) is
 * opened and written in place, truncated only when it is a regular file, and
 * never renamed over. Returns 0, or -errno with nothing left behind. */
int out_file_open(struct out_file *of, const char *path);

/* Closes of->fp and, when it was written to a temporary, renames that over
 * path. Returns 0, or -errno of the write, close or rename that failed (-EIO
 * when a write failed and errno is lost), with the temporary removed. */
int out_file_commit(struct out_file *of);

/* Closes of->fp and removes the temporary, if any (a file written in place
 * keeps what was written). For a write given up half-way. */
void out_file_discard(struct out_file *of);

#endif
