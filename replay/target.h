/* Replay targets: opening a block device or a regular file with O_DIRECT,
 * its size and O_DIRECT unit, and the safety checks before anything is
 * written (as util-linux blkdiscard does: not mounted, O_EXCL, no
 * signature libblkid can see). */
#ifndef IOTAPE_REPLAY_TARGET_H
#define IOTAPE_REPLAY_TARGET_H

#include <stddef.h>
#include <stdint.h>

struct replay_target {
	char path[1024];
	int fd;              /* -1 when closed */
	int blkdev;          /* 1: block device; 0: regular file */
	int created;         /* the file did not exist */
	int writable;        /* writes are issued as writes */
	uint32_t dev;        /* major << 20 | minor: the device, or the
			      * device of the file system holding the file */
	char disk[64];       /* sysfs name of the whole disk ("loop3"), "" when
			      * there is none (a file on tmpfs) */
	uint64_t size;       /* bytes */
	unsigned lbs;        /* O_DIRECT offset and length unit, bytes */
	unsigned mem_align;  /* O_DIRECT buffer alignment, bytes */
};

/* Opens path (a block device, a regular file, or a name that does not
 * exist: a regular file is created) with O_DIRECT. want_write: the replay
 * has writes or discards for it. A block device is opened read-only, and
 * its writes replayed as reads, unless allow_write; with allow_write it
 * must be unmounted, not swap, not held by another device (dm, md),
 * openable with O_EXCL, and libblkid must find no filesystem, RAID,
 * partition table or swap signature on it. A regular file is always
 * written, unless it already holds such a signature (then only with
 * allow_write). sys and proc are where /sys and /proc are. Returns 0, or
 * -1 with a one-line message naming path and what was found in err. */
int target_open(struct replay_target *t, const char *path, int want_write,
		int allow_write, const char *sys, const char *proc, char *err,
		size_t errlen);

/* Grows a regular-file target to at least size bytes (sparse). Returns 0
 * or -1 with a message in err. */
int target_extend(struct replay_target *t, uint64_t size, char *err,
		  size_t errlen);

/* Reads one block at offset 0 with O_DIRECT to see that it works (some
 * file systems accept O_DIRECT at open and fail each I/O). Returns 0 or -1
 * with a message in err. */
int target_check_direct(struct replay_target *t, char *err, size_t errlen);

/* Closes the target's descriptor (the file, if made, stays). */
void target_close(struct replay_target *t);

/* Probes path with libblkid (superblocks: filesystems, RAID, LVM, swap;
 * partition tables). Returns 1 with a description such as "an ext4
 * filesystem signature" in what, 0 when nothing is found, or -errno. */
int target_signature(const char *path, char *what, size_t len);

#endif
