/* Whether a save or spill path of the recorder lies on a traced disk (see
 * recsafe.h): st_dev followed through partitions, stacked devices and
 * loop devices' files. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "capture/lab.h"
#include "record/recsafe.h"
#include "lib/util.h"

/* The device of the file system that holds the file behind loop device
 * maj:min, or 0 when unknown: loop_file_stat() (lib/util.h) of /dev/NAME,
 * NAME from its sysfs uevent's DEVNAME, else stat() of the path in
 * loop/backing_file. */
static dev_t loop_file_dev(const struct machine_paths *mp, unsigned maj,
			   unsigned min)
{
	char path[PATH_MAX], buf[4096], *p;
	struct stat st;

	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/uevent", mp->sys, maj, min);
	if (!sysfs_read(path, buf, sizeof(buf)) && (p = strstr(buf, "DEVNAME="))) {
		p += 8;
		p[strcspn(p, "\n")] = '\0';
		snprintf(path, sizeof(path), "/dev/%.200s", p);
		if (!loop_file_stat(path, &st) && st.st_dev)
			return st.st_dev;
	}
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/loop/backing_file",
		 mp->sys, maj, min);
	if (sysfs_read(path, buf, sizeof(buf)))
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	if ((p = strstr(buf, " (deleted)")))
		*p = '\0';
	return !stat(buf, &st) ? st.st_dev : 0;
}

/* Whether the block device maj:min, or a disk under it, is in devs. */
static int dev_traced(const struct machine_paths *mp, unsigned maj,
		      unsigned min, const struct capdev *devs, int n,
		      char *which, size_t len, int depth)
{
	char path[PATH_MAX], link[PATH_MAX + 300], buf[64];
	DIR *d;
	struct dirent *de;
	int hit = 0;

	for (int i = 0; i < n; i++)
		if (devs[i].dev == (maj << 20 | min)) {
			snprintf(which, len, "%s", devs[i].name);
			return 1;
		}
	if (depth > 8)
		return 0;
	/* a partition: its sysfs folder sits in its disk's */
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/partition", mp->sys, maj, min);
	if (!access(path, F_OK)) {
		snprintf(path, sizeof(path), "%s/dev/block/%u:%u/../dev", mp->sys, maj,
			 min);
		if (!sysfs_read(path, buf, sizeof(buf)) &&
		    sscanf(buf, "%u:%u", &maj, &min) == 2)
			return dev_traced(mp, maj, min, devs, n, which, len, depth + 1);
		return 0;
	}
	/* a loop device: the disk of the file behind it (LOOP_GET_STATUS64's
	 * lo_device, linux/loop.h: the file system that holds the file,
	 * however it was renamed since), so a store on a loop device over a
	 * file on a traced disk is seen for the feedback it is */
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/loop", mp->sys, maj, min);
	if (!access(path, F_OK)) {
		dev_t fdev = loop_file_dev(mp, maj, min);
		return fdev ? dev_traced(mp, major(fdev), minor(fdev), devs, n,
					 which, len, depth + 1) : 0;
	}
	/* a stacked device (dm, md): what it is made of */
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/slaves", mp->sys, maj, min);
	if (!(d = opendir(path)))
		return 0;
	while (!hit && (de = readdir(d))) {
		unsigned a, b;
		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s/dev", path, de->d_name);
		if (!sysfs_read(link, buf, sizeof(buf)) &&
		    sscanf(buf, "%u:%u", &a, &b) == 2)
			hit = dev_traced(mp, a, b, devs, n, which, len, depth + 1);
	}
	closedir(d);
	return hit;
}

int recsafe_path_traced(const struct machine_paths *mp, const char *path,
			const struct capdev *devs, int n, char *which,
			size_t len)
{
	struct stat st;
	char *copy = xstrdup(path), *dir;
	int rc;

	/* a path not made yet (--out is made if missing, folders and
	 * all) will be on the file system of its nearest folder that is */
	dir = copy;
	while (stat(dir, &st) < 0) {
		if (errno != ENOENT || !strcmp(dir, "/") || !strcmp(dir, ".")) {
			snprintf(which, len, "cannot stat '%s': %s", dir,
				 strerror(errno));
			free(copy);
			return -1;
		}
		dir = dirname(dir);
	}
	free(copy);
	rc = major(st.st_dev) ? dev_traced(mp, major(st.st_dev), minor(st.st_dev),
					   devs, n, which, len, 0) : 0;
	return rc;
}
