/* Devices to trace and the settings snapshot, read from /proc and /sys. */
#include "machine.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture/lab.h"
#include "lib/util.h"

static int read_u64_file(const char *path, uint64_t *v)
{
	char buf[64];

	if (sysfs_read(path, buf, sizeof(buf)))
		return -1;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

/* The whole disk of block device maj:min: its sysfs name and dev number. */
static int disk_of(const struct machine_paths *mp, unsigned maj, unsigned min,
		   char *name, size_t namelen, uint32_t *dev, char *err,
		   size_t errlen)
{
	char link[PATH_MAX], real[PATH_MAX], part[PATH_MAX + 16], devf[PATH_MAX + 8];
	char buf[64];
	struct stat sb;
	unsigned a, b;

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", mp->sys, maj, min);
	if (!realpath(link, real)) {
		snprintf(err, errlen, "no block device %u:%u (%s)", maj, min, link);
		return -1;
	}
	snprintf(part, sizeof(part), "%s/partition", real);
	if (stat(part, &sb) == 0) {
		char *slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';   /* a partition's folder sits in its disk's */
	}
	snprintf(name, namelen, "%s", basename(real));
	snprintf(devf, sizeof(devf), "%s/dev", real);
	if (sysfs_read(devf, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &a, &b) != 2) {
		snprintf(err, errlen, "cannot read '%s'", devf);
		return -1;
	}
	*dev = (uint32_t)(a << 20 | b);
	return 0;
}

int machine_add_device(const struct machine_paths *mp, const char *spec,
		       int swap, struct capdev *devs, int *n, int cap,
		       char *err, size_t errlen)
{
	unsigned maj, min;
	char name[64], sizef[512];
	uint32_t dev;
	struct stat sb;
	uint64_t sectors;

	if (!dec_devnum(spec, &maj, &min)) {
		/* major:minor */
	} else if (stat(spec, &sb) == 0) {
		dev_t d = S_ISBLK(sb.st_mode) ? sb.st_rdev : sb.st_dev;
		maj = major(d);
		min = minor(d);
		if (maj == 0) {
			snprintf(err, errlen, "'%s' is on no block device (device "
				 "%u:%u); name one with -d", spec, maj, min);
			return -1;
		}
	} else {
		snprintf(err, errlen, "cannot use device '%s': %s", spec,
			 strerror(errno));
		return -1;
	}
	if (disk_of(mp, maj, min, name, sizeof(name), &dev, err, errlen))
		return -1;
	for (int i = 0; i < *n; i++)
		if (devs[i].dev == dev) {
			devs[i].swap |= swap;
			devs[i].data |= !swap;
			return 0;
		}
	if (*n >= cap) {
		snprintf(err, errlen, "too many devices (at most %d)", cap);
		return -1;
	}
	memset(&devs[*n], 0, sizeof(devs[*n]));
	devs[*n].dev = dev;
	snprintf(devs[*n].name, sizeof(devs[*n].name), "%s", name);
	snprintf(sizef, sizeof(sizef), "%s/block/%s/size", mp->sys, name);
	if (!read_u64_file(sizef, &sectors))
		devs[*n].size_bytes = (int64_t)sectors * 512;
	devs[*n].swap = swap;
	devs[*n].data = !swap;
	(*n)++;
	return 0;
}

/* Marks as swap the devices holding an active swap area and no mounted
 * filesystem (proc/swaps, proc/self/mountinfo). */
static void mark_swap(const struct machine_paths *mp, struct capdev *devs, int n)
{
	char path[512], line[1024], name[64], err[256];
	uint32_t dev;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/swaps", mp->proc);
	if ((fp = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), fp)) {
			char file[512];
			struct stat sb;
			dev_t d;
			if (sscanf(line, "%511s", file) != 1 || file[0] != '/' ||
			    stat(file, &sb) < 0)
				continue;
			d = S_ISBLK(sb.st_mode) ? sb.st_rdev : sb.st_dev;
			if (disk_of(mp, major(d), minor(d), name, sizeof(name), &dev,
				    err, sizeof(err)))
				continue;
			for (int i = 0; i < n; i++)
				if (devs[i].dev == dev)
					devs[i].swap = 1;
		}
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/self/mountinfo", mp->proc);
	if ((fp = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), fp)) {
			unsigned ma, mi;
			if (sscanf(line, "%*u %*u %u:%u", &ma, &mi) != 2 || !ma ||
			    disk_of(mp, ma, mi, name, sizeof(name), &dev, err,
				    sizeof(err)))
				continue;
			for (int i = 0; i < n; i++)
				if (devs[i].dev == dev)
					devs[i].mounted = 1;
		}
		fclose(fp);
	}
}

int machine_default_devices(const struct machine_paths *mp, struct capdev *devs,
			    int *n, int cap, char *err, size_t errlen)
{
	char path[512], line[1024];
	FILE *fp;

	if (machine_add_device(mp, ".", 0, devs, n, cap, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/swaps", mp->proc);
	if (!(fp = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		char file[512];
		if (sscanf(line, "%511s", file) != 1 || file[0] != '/')
			continue;
		/* /proc/swaps escapes spaces as \040; such names are rare */
		if (machine_add_device(mp, file, 1, devs, n, cap, err, errlen)) {
			fclose(fp);
			return -1;
		}
	}
	fclose(fp);
	return 0;
}

const char *machine_role(const struct machine_paths *mp, struct capdev *devs,
			 int n, int i)
{
	if (i == 0)
		mark_swap(mp, devs, n);
	return devs[i].swap && !devs[i].mounted ? "swap" : "data";
}

static void add(struct setting **out, int *n, const char *key, const char *value)
{
	*out = xrealloc(*out, (size_t)(*n + 1) * sizeof(**out));
	snprintf((*out)[*n].key, sizeof((*out)[*n].key), "%s", key);
	snprintf((*out)[*n].value, sizeof((*out)[*n].value), "%s", value);
	(*n)++;
}

static void add_file(struct setting **out, int *n, const char *key,
		     const char *path)
{
	char v[160];

	if (!sysfs_read(path, v, sizeof(v)))
		add(out, n, key, v);
}

static const char *const vm_sysctls[] = {
	"dirty_ratio", "dirty_background_ratio", "dirty_bytes",
	"dirty_background_bytes", "dirty_expire_centisecs",
	"dirty_writeback_centisecs", "swappiness", "vfs_cache_pressure",
	"page-cluster", "min_free_kbytes", "laptop_mode",
};

static const char *const queue_attrs[] = {
	"logical_block_size", "scheduler", "read_ahead_kb", "nr_requests",
	"max_sectors_kb", "rotational", "wbt_lat_usec",
};

int machine_settings(const struct machine_paths *mp, const struct capdev *devs,
		     int ndev, struct setting **out, int *n)
{
	int before = *n;
	struct utsname u;
	char path[512], key[128], v[64], line[256];
	FILE *fp;

	if (uname(&u) == 0) {
		add(out, n, "kernel.release", u.release);
		add(out, n, "kernel.machine", u.machine);
		add(out, n, "host", u.nodename);
	}
	snprintf(v, sizeof(v), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	add(out, n, "cpus", v);
	snprintf(path, sizeof(path), "%s/meminfo", mp->proc);
	if ((fp = fopen(path, "r"))) {
		unsigned long long kb;
		while (fgets(line, sizeof(line), fp)) {
			if (sscanf(line, "MemTotal: %llu", &kb) == 1) {
				snprintf(v, sizeof(v), "%llu", kb);
				add(out, n, "mem.total_kb", v);
			} else if (sscanf(line, "SwapTotal: %llu", &kb) == 1) {
				snprintf(v, sizeof(v), "%llu", kb);
				add(out, n, "swap.total_kb", v);
			}
		}
		fclose(fp);
	}
	for (int d = 0; d < ndev; d++) {
		snprintf(v, sizeof(v), "%lld", (long long)devs[d].size_bytes);
		snprintf(key, sizeof(key), "%s:size_bytes", devs[d].name);
		add(out, n, key, v);
		for (size_t i = 0; i < ARRAY_SIZE(queue_attrs); i++) {
			snprintf(key, sizeof(key), "%s:queue/%s", devs[d].name,
				 queue_attrs[i]);
			snprintf(path, sizeof(path), "%s/block/%s/queue/%s", mp->sys,
				 devs[d].name, queue_attrs[i]);
			add_file(out, n, key, path);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(vm_sysctls); i++) {
		snprintf(key, sizeof(key), "vm.%s", vm_sysctls[i]);
		snprintf(path, sizeof(path), "%s/sys/vm/%s", mp->proc, vm_sysctls[i]);
		add_file(out, n, key, path);
	}
	return *n - before;
}

int machine_setting_path(const struct machine_paths *mp, const char *key,
			 char *path, size_t len)
{
	const char *colon = strchr(key, ':');

	if (colon && colon > key && colon[1] && !strstr(key, "..")) {
		snprintf(path, len, "%s/block/%.*s/%s", mp->sys, (int)(colon - key),
			 key, colon + 1);
		return 0;
	}
	if (!colon && strchr(key, '.') && !strstr(key, "..") && key[0] != '.' &&
	    key[0] != '/') {
		/* sysctl name: dots are folders */
		size_t o = (size_t)snprintf(path, len, "%s/sys/", mp->proc);
		for (const char *p = key; *p && o + 1 < len; p++)
			path[o++] = *p == '.' ? '/' : *p;
		path[o] = '\0';
		return 0;
	}
	return -1;
}
