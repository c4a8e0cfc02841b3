/* Output files written whole through a temporary, or in place when the
 * path is not a plain file of its own (lib/outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int out_file_open(struct out_file *of, const char *path)
{
	struct stat ls, fs;
	int fd, e, have;

	memset(of, 0, sizeof(*of));
	if (strlen(path) >= sizeof(of->path))
		return -ENAMETOOLONG;
	memcpy(of->path, path, strlen(path) + 1);
	have = lstat(path, &ls) == 0;
	if (!have && errno != ENOENT)
		return -errno;
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
		     fchmod(fd, ls.st_mode & 07777) < 0)) {
		e = -errno;
		close(fd);
		unlink(of->tmp);
		of->tmp[0] = '\0';
		return e;
	}
	return as_stream(of, fd);
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
