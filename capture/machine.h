/* What a capture needs to know of the machine: which disks hold the given
 * devices (partitions and swap files map to the disk the kernel traces), and
 * a snapshot of the settings that shape block I/O and the VM. Paths to /proc
 * and /sys are parameters, so tests can point them at recorded trees. */
#ifndef IOTAPE_MACHINE_H
#define IOTAPE_MACHINE_H

#include <stddef.h>
#include <stdint.h>

struct capdev {
	uint32_t dev;        /* the traced disk, major << 20 | minor */
	char name[64];       /* its sysfs name: "loop0", "vda" */
	int64_t size_bytes;
	int swap;            /* holds an active swap area */
	int data;            /* named with -d, or holds the current folder */
	int mounted;         /* holds a mounted filesystem */
};

struct machine_paths {
	const char *proc;     /* "/proc" */
	const char *sys;      /* "/sys" */
};

/* Resolves spec (a path such as /dev/loop0 or a file on the device, or
 * "major:minor" / "major,minor") to the whole disk the kernel traces for it
 * and appends it to devs (*n of cap) unless there already. Returns 0 or -1
 * with a message in err. */
int machine_add_device(const struct machine_paths *mp, const char *spec,
		       int swap, struct capdev *devs, int *n, int cap,
		       char *err, size_t errlen);

/* Adds the disk holding the current folder and every disk holding an active
 * swap area (proc/swaps). Returns 0 or -1 with a message in err. */
int machine_default_devices(const struct machine_paths *mp, struct capdev *devs,
			    int *n, int cap, char *err, size_t errlen);

/* The role of devs[i] for the store: "swap" when it holds an active swap
 * area and no mounted filesystem, else "data". Call for i = 0 first (it
 * reads proc/swaps and proc/self/mountinfo for all n). */
const char *machine_role(const struct machine_paths *mp, struct capdev *devs,
			 int n, int i);

/* One setting of the snapshot. */
struct setting {
	char key[96];    /* "vm.dirty_ratio", "loop0:queue/scheduler", "kernel.release" */
	char value[160];
};

/* Reads the settings that matter to the analyses: kernel release, CPUs,
 * memory and swap sizes (kB), per disk its size, logical block size,
 * scheduler, read_ahead_kb, nr_requests, max_sectors_kb, rotational,
 * wbt_lat_usec, and the vm sysctls (dirty_*, swappiness, vfs_cache_pressure,
 * page-cluster, min_free_kbytes, laptop_mode). Appends to *out (*n entries,
 * grown with realloc). Missing files are skipped. Returns the number added. */
int machine_settings(const struct machine_paths *mp, const struct capdev *devs,
		     int ndev, struct setting **out, int *n);

/* Maps a --set KEY ("vm.dirty_ratio", "loop0:queue/scheduler") to the file
 * that holds it, into path. Returns 0, or -1 when KEY is neither form. */
int machine_setting_path(const struct machine_paths *mp, const char *key,
			 char *path, size_t len);

#endif
