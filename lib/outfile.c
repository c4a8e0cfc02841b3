/* Output files written whole through a temporary, or in place when the
 * path is not a plain file of its own (lib/outfile.h). */
#include "outfile.h"

#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The guarded files: the folder (device, inode) and name each is at. */
static struct guard {
	dev_t dir_dev, dev;
	ino_t dir_ino, ino;
	int have;                 /* dev and ino: the file existed */
	char name[NAME_MAX + 1];
} guards[8];
static int nguards;

/* The folder of path into dir (PATH_MAX), its last name into name. */
static int split(const char *path, char *dir, char *name)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash) {
		strcpy(dir, ".");
		slash = path - 1;
	} else {
		n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= PATH_MAX)
			return -1;
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	if (strlen(slash + 1) > NAME_MAX || !slash[1])
		return -1;
	strcpy(name, slash + 1);
	return 0;
}

void out_file_guard(const char *path)
{
	struct guard g;
	struct stat sb;
	char dir[PATH_MAX];

	memset(&g, 0, sizeof(g));
	if (nguards == (int)(sizeof(guards) / sizeof(guards[0])) ||
	    split(path, dir, g.name) || stat(dir, &sb))
		return;
	g.dir_dev = sb.st_dev;
	g.dir_ino = sb.st_ino;
	if (!stat(path, &sb)) {
		g.dev = sb.st_dev;
		g.ino = sb.st_ino;
		g.have = 1;
	}
	for (int i = 0; i < nguards; i++)
		if (guards[i].dir_dev == g.dir_dev && guards[i].dir_ino == g.dir_ino &&
		    !strcmp(guards[i].name, g.name))
			return;
	guards[nguards++] = g;
}

int out_file_guarded(const struct stat *sb)
{
	for (int i = 0; i < nguards; i++)
		if (guards[i].have && guards[i].dev == sb->st_dev &&
		    guards[i].ino == sb->st_ino)
			return 1;
	return 0;
}

/* Whether path is a guarded file, or a name beside one that SQLite gives
 * its journals */
static int is_guarded(const char *path)
{
	static const char *const sfx[] = { "", "-journal", "-wal", "-shm" };
	char dir[PATH_MAX], name[NAME_MAX + 1];
	struct stat sb;

	if (!nguards)
		return 0;
	if (!stat(path, &sb) && out_file_guarded(&sb))
		return 1;
	if (split(path, dir, name) || stat(dir, &sb))
		return 0;
	for (int i = 0; i < nguards; i++) {
		size_t l = strlen(guards[i].name);
		if (guards[i].dir_dev != sb.st_dev || guards[i].dir_ino != sb.st_ino ||
		    strncmp(name, guards[i].name, l))
			continue;
		for (size_t k = 0; k < sizeof(sfx) / sizeof(sfx[0]); k++)
			if (!strcmp(name + l, sfx[k]))
				return 1;
	}
	return 0;
}

/* 1 when libblkid finds a file system, swap, RAID or LVM signature or a
 * partition table on the file at path (an image someone keeps), as
 * wipefs(8) would; 0 when none or the probe fails. */
static int has_signature(const char *path)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	int rc;

	if (!pr)
		return 0;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	blkid_free_probe(pr);
	return rc == 0 || rc == -2;
}

int out_fd_sqlite(int fd)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	ssize_t n = pread(fd, head, sizeof(head), 0);

	if (n < 0)
		return -EIO;
	return n == (ssize_t)sizeof(head) && !memcmp(head, magic, sizeof(head));
}

int out_file_sqlite(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc;

	if (fd < 0)
		return -errno;
	rc = out_fd_sqlite(fd);
	close(fd);
	return rc;
}

int out_file_check(const char *path)
{
	struct stat sb;

	if (is_guarded(path))
		return OUT_FILE_GUARDED;
	if (stat(path, &sb))
		return 0;
	if (S_ISBLK(sb.st_mode))
		return OUT_FILE_BLOCKDEV;
	if (!S_ISREG(sb.st_mode))
		return 0;
	if (out_file_sqlite(path) > 0)
		return OUT_FILE_SQLITE;
	return has_signature(path) ? OUT_FILE_SIGNATURE : 0;
}

const char *out_file_error(int rc)
{
	if (rc == OUT_FILE_GUARDED)
		return "it is the database this command has open, or its journal";
	if (rc == OUT_FILE_SQLITE)
		return "it holds an SQLite database (its file header): output never "
		       "replaces one; remove it first or name another file";
	if (rc == OUT_FILE_SIGNATURE)
		return "it holds a file system or another signature (libblkid): "
		       "output never replaces one; remove it first or name "
		       "another file";
	if (rc == OUT_FILE_BLOCKDEV)
		return "it is a block device: output goes to files, never onto a "
		       "disk (replay writes devices, under its rules)";
	return strerror(rc < 0 ? -rc : rc);
}

/* fd as of->fp; closes fd on failure. Returns 0 or -errno. */
static int as_stream(struct out_file *of, int fd)
{
	int e;

	if ((of->fp = fdopen(fd, "w")))
		return 0;
	e = -errno;
	close(fd);
	if (of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
	return e;
}

/* A temporary given up after errno's failure: fd closed, of->tmp removed
 * and forgotten. Returns -errno (as it was). */
static int tmp_abandon(struct out_file *of, int fd)
{
	int e = -errno;

	close(fd);
	unlink(of->tmp);
	of->tmp[0] = '\0';
	return e;
}

/* The start of out_file_open(): of cleared, path
 * kept in it and checked (out_file_check()), its lstat() into *ls and
 * whether it exists into *have. Returns 0 or a negative errno. */
static int out_file_begin(struct out_file *of, const char *path,
			  struct stat *ls, int *have)
{
	int e;

	memset(of, 0, sizeof(*of));
	if (strlen(path) >= sizeof(of->path))
		return -ENAMETOOLONG;
	memcpy(of->path, path, strlen(path) + 1);
	if ((e = out_file_check(path)))
		return e;
	*have = lstat(path, ls) == 0;
	if (!*have && errno != ENOENT)
		return -errno;
	return 0;
}

int out_file_open(struct out_file *of, const char *path)
{
	struct stat ls, fs;
	int fd, e, have;

	if ((e = out_file_begin(of, path, &ls, &have)))
		return e;
	if (have && (!S_ISREG(ls.st_mode) || ls.st_nlink > 1)) {
		/* renaming over it would replace the device, FIFO or link
		 * with a file, or cut the other names off */
		if ((fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC,
			       0666)) < 0)
			return -errno;
		if (fstat(fd, &fs) < 0 ||
		    (S_ISREG(fs.st_mode) && ftruncate(fd, 0) < 0)) {
			e = -errno;
			close(fd);
			return e;
		}
		return as_stream(of, fd);
	}
	snprintf(of->tmp, sizeof(of->tmp), "%s.tmp.%d", path, (int)getpid());
	if ((fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		       have ? 0600 : 0666)) < 0) {
		of->tmp[0] = '\0';
		return -errno;
	}
	/* the old file's owner first: chown clears set-id bits */
	if (have && ((geteuid() == 0 && fchown(fd, ls.st_uid, ls.st_gid) < 0) ||
		     fchmod(fd, ls.st_mode & 07777) < 0))
		return tmp_abandon(of, fd);
	return as_stream(of, fd);
}

int out_file_move(const char *tmp, const char *dest)
{
	struct stat ls;
	char buf[65536];
	ssize_t n;
	int in, out, e = 0;

	if (lstat(dest, &ls) < 0 || (S_ISREG(ls.st_mode) && ls.st_nlink == 1))
		return rename(tmp, dest) < 0 ? -errno : 0;
	/* a symlink, a device, a file with other names: written in place */
	if ((in = open(tmp, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if ((out = open(dest, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC,
			0666)) < 0) {
		e = -errno;
		close(in);
		return e;
	}
	if (fstat(out, &ls) == 0 && S_ISREG(ls.st_mode) && ftruncate(out, 0) < 0)
		e = -errno;
	while (!e && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 || write(out, buf, (size_t)n) != n)
			e = n < 0 || errno ? -errno : -EIO;
	}
	close(in);
	if (close(out) < 0 && !e)
		e = -errno;
	if (!e)
		unlink(tmp);
	return e;
}

int out_file_commit(struct out_file *of)
{
	int bad = ferror(of->fp), rc = 0;

	if (fclose(of->fp))
		rc = -errno;
	else if (bad)
		rc = -EIO;
	of->fp = NULL;
	if (of->tmp[0]) {
		if (!rc && rename(of->tmp, of->path))
			rc = -errno;
		if (rc)
			unlink(of->tmp);
		of->tmp[0] = '\0';
	}
	return rc;
}

void out_file_discard(struct out_file *of)
{
	if (of->fp)
		fclose(of->fp);
	of->fp = NULL;
	if (of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
}
