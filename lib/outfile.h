/* Output files a command writes (export -o, model -o, plot's and mail's
 * text): made whole or not at all when that is safe, written in place when
 * replacing the path would destroy what it is (a device, a FIFO, a symlink,
 * a file with other names). */
#ifndef IOTAPE_OUTFILE_H
#define IOTAPE_OUTFILE_H

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

struct out_file {
	FILE *fp;                   /* write here */
	char path[PATH_MAX];        /* a copy of out_file_open()'s path */
	char tmp[PATH_MAX + 32];    /* the temporary out_file_commit() renames
				     * over path; "" when written in place */
};

/* What out_file_open() returns for a path that is a guarded file (the
 * database a command has open, or its journal): out_file_error() says so. */
#define OUT_FILE_GUARDED (-10001)

/* What out_file_open() and out_file_check() return for a path that holds
 * an SQLite database (an iotape store, any other: its first 16 bytes are
 * SQLite's file header, sqlite.org/fileformat2.html) and for a block device:
 * output never replaces either. */
#define OUT_FILE_SQLITE (-10002)
#define OUT_FILE_BLOCKDEV (-10003)
/* ... and for a file that holds a file system, swap, RAID or LVM signature
 * or a partition table (libblkid: an image) */
#define OUT_FILE_SIGNATURE (-10004)

/* Whether path starts with SQLite's file header, "SQLite format 3" and a
 * NUL (sqlite.org/fileformat.html, 1.3; libblkid knows no such signature):
 * 1, 0 when not (or shorter), -errno when it cannot be read. Reads 16
 * bytes; symlinks followed. */
int out_file_sqlite(const char *path);

/* out_file_sqlite() of the file open as fd (read with pread(2) at 0, not
 * buffered: no O_DIRECT on fd), without opening it again. */
int out_fd_sqlite(int fd);

/* Whether a command may write path (any output: export -o, a capture's
 * --raw trace): 0, or OUT_FILE_GUARDED (the database this process has
 * open or a journal name beside it), OUT_FILE_SQLITE, OUT_FILE_BLOCKDEV or
 * OUT_FILE_SIGNATURE (symlinks followed); out_file_error() gives the
 * reason. A path that does
 * not exist, or cannot be read, is 0: opening it says what is wrong. */
int out_file_check(const char *path);

/* Guards path (a database file this process has open) for the rest of the
 * process: out_file_open() refuses it, and the names SQLite gives its
 * journals beside it (path-journal, -wal, -shm), with OUT_FILE_GUARDED;
 * out_file_guarded() tells a file given by stat. Up to 8 paths; a path
 * that does not exist yet is guarded by its folder and name. Safe to call
 * twice with one path. */
void out_file_guard(const char *path);

/* 1 when sb (stat() of a path, symlinks followed) is a guarded file. */
int out_file_guarded(const struct stat *sb);

/* The message for out_file_open()'s, out_file_check()'s or
 * out_file_commit()'s rc: strerror, or why OUT_FILE_GUARDED,
 * OUT_FILE_SQLITE or OUT_FILE_BLOCKDEV refuses the path. */
const char *out_file_error(int rc);

/* Opens path for writing into of->fp. When path is absent, or a regular
 * file that is not a symlink and has one link, writes a temporary
 * "PATH.tmp.PID" beside it, with the old file's mode (and owner and group
 * when root), that out_file_commit() renames over path, so a failed write
 * leaves the old file whole. Anything else (a character or block device, a
 * FIFO, a socket, a symlink, a regular file with more than one hard link) is
 * opened and written in place, truncated only when it is a regular file, and
 * never renamed over. What out_file_check() refuses is refused. Returns 0,
 * or -errno or out_file_check()'s code with nothing left behind. */
int out_file_open(struct out_file *of, const char *path);

/* Puts the whole file tmp (a command's temporary, beside dest) at dest as
 * out_file_open() would write it: renamed over dest when dest is absent or
 * a regular file with one name; else (a symlink, a device, a file with
 * other hard links) its bytes written through dest in place and tmp
 * removed. Returns 0 or -errno (tmp left for the caller to remove). */
int out_file_move(const char *tmp, const char *dest);

/* Closes of->fp and, when it was written to a temporary, renames that over
 * path. Returns 0, or -errno of the write, close or rename that failed (-EIO
 * when a write failed and errno is lost), with the temporary removed. */
int out_file_commit(struct out_file *of);

/* Closes of->fp and removes the temporary, if any (a file written in place
 * keeps what was written). For a write given up half-way. */
void out_file_discard(struct out_file *of);

#endif
