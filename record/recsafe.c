/* Whether a save or spill path of the recorder lies on a traced disk (see
 * recsafe.h): st_dev followed through partitions and stacked devices. */
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
