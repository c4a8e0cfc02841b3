/* The flight recorder's check that its saves and spill do not land on a
 * disk it traces (the writes would be traced, and fill the incident's own
 * window with the recorder's I/O). */
#ifndef IOTAPE_RECSAFE_H
#define IOTAPE_RECSAFE_H

#include <stddef.h>

#include "capture/machine.h"

/* Whether path (a file, or when it does not exist yet its folder) lives
 * on one of devs[0..n): the filesystem's st_dev (stat(2)) is a traced disk,
 * a partition of one (sys/dev/block/MAJ:MIN/partition, its parent folder
 * the disk), a device stacked on one (its slaves/, as dm and md list
 * them), or a loop device whose file lives on one (LOOP_GET_STATUS64's
 * lo_device, linux/loop.h), followed 8 deep. Returns 1 with the disk's name in which, 0 when
 * not, -1 with a message in which when path's folder cannot be stat()ed.
 * A filesystem on no block device (tmpfs, btrfs's anonymous st_dev) is 0. */
int recsafe_path_traced(const struct machine_paths *mp, const char *path,
			const struct capdev *devs, int n, char *which,
			size_t len);

#endif
