/* Replay targets: opening a block device or a regular file with O_DIRECT,
 * its size and O_DIRECT unit, and the safety checks before anything is
 * written (as util-linux blkdiscard does: not mounted, O_EXCL, no
 * signature libblkid can see). */
#ifndef IOTAPE_REPLAY_TARGET_H
#define IOTAPE_REPLAY_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct replay_target {
	char path[1024];
	int fd;              /* -1 when closed */
	int blkdev;          /* 1: block device; 0: regular file */
	int created;         /* the file did not exist */
	dev_t made_dev;      /* the file it made: its file system and inode */
	ino_t made_ino;      /* (target_remove_made()) */
	int ran;             /* set by the caller before target_close(): the
			      * replay issued I/O; 0: an owned file is left as
			      * it was found (size, times, mark) */
	int was_made;        /* an owned file a replay made (its mark held) */
	int had_xattr;       /* an owned file carried TARGET_XATTR */
	uint64_t orig_size;  /* an owned file's size and times when opened */
	struct timespec orig_times[2];
	int owned;           /* a regular file iotape may write without
			      * --allow-write: created now, empty, or made
			      * by a replay and written by nothing since
			      * (TARGET_XATTR); marked again when closed */
	int writable;        /* writes are issued as writes */
	int may_extend;      /* a regular file that may grow (sparse) to
			      * what the run reaches */
	int busy;            /* a regular file whose lease could not be taken
			      * (lease_errno: EAGAIN, another process had it
			      * open; EACCES, another user's file): not the
			      * replay's own, whatever its mark */
	int lease_errno;
	const char *stacked; /* the file system's name where a file may be
			      * written by another name (overlayfs, FUSE,
			      * NFS...): only a file the replay creates there
			      * is its own; NULL elsewhere */
	int lease_lost;      /* its lease broke: another process opened it */
	int lease_said;      /* the replay said so (target_close() not again) */
	int leased;          /* a regular file held with a write lease
			      * (fcntl F_SETLEASE): another process's open
			      * breaks it, and target_close() then does not
			      * mark the file as the replay's own */
	uint32_t dev;        /* major << 20 | minor: the device, or the
			      * device of the file system holding the file */
	char disk[64];       /* sysfs name of the whole disk ("loop3"), "" when
			      * there is none (a file on tmpfs) */
	uint64_t size;       /* bytes */
	unsigned lbs;        /* O_DIRECT offset and length unit, bytes */
	unsigned mem_align;  /* O_DIRECT buffer alignment, bytes */
};

/* The extended attribute that marks a regular file a replay made: its
 * value is "MTIME_NS SIZE INODE MAJ:MIN" as the last replay that wrote it left
 * the file ("" while one writes it), its mtime set a second into the past
 * then (any write since sets it to its own time). A file whose mtime or
 * size differ since was written by something else and holds data; so is
 * one whose ctime is more than 3 s past that mtime (changed since, its
 * mtime put back by touch -d, say); a copy (cp -a) is another inode, a
 * btrfs snapshot another device; one
 * another process opened while a replay wrote it is not marked. */
#define TARGET_XATTR "user.iotape.replay"

/* What may be written, in one place for --help, the man page and the
 * messages (tests/cli/t_help.sh checks the man page says the same). */
#define TARGET_WRITE_RULE \
	"writes are replayed as writes only on a regular file iotape may " \
	"overwrite: a new one it creates, an empty one, or one a replay made " \
	"that nothing has written since; on a block device or any other file " \
	"they are replayed as reads (discards skipped) unless --allow-write, " \
	"and even then a target that is mounted (a file also as an image " \
	"with no loop device), active swap, held by another device, open in " \
	"another process (a file also when the kernel refuses a write lease " \
	"on it), backing a loop device, a loop device over a device or a " \
	"file in such use (down its chain of loops), or the database itself " \
	"is refused, as " \
	"is one holding a filesystem, RAID, LVM, swap or partition-table " \
	"signature (libblkid) or an SQLite database unless " \
	"--overwrite-signature names it"

/* Opens path (a block device, a regular file, or a name that does not
 * exist: a regular file is created) with O_DIRECT. want_write: the replay
 * has writes or discards for it. Writes are issued as writes (t->writable)
 * as TARGET_WRITE_RULE says: on a regular file that is new (created here,
 * marked with TARGET_XATTR), empty, or marked and unchanged since; on
 * anything else only with allow_write, and then the target must not be
 * mounted (a file also as an image), active swap, held by another device
 * (dm, md), open in another process or back a loop device, nor be a loop
 * device over a device so used; a block device must open with O_EXCL; and
 * libblkid must find no filesystem, RAID, LVM, partition table or swap
 * signature on it unless
 * sig_ok names its type (libblkid's TYPE or PTTYPE: "ext4", "swap",
 * "dos", "LVM2_member"). Without writes (or not writable) a target iotape
 * does not own is opened read-only and never grown. sys and proc are where
 * /sys and /proc are. Returns 0, or -1 with a one-line message naming path
 * and what was found in err. */
int target_open(struct replay_target *t, const char *path, int want_write,
		int allow_write, const char *sig_ok, const char *sys,
		const char *proc, char *err, size_t errlen);

/* Grows a regular-file target to at least size bytes (sparse); only one
 * with may_extend. Returns 0 or -1 with a message in err. */
int target_extend(struct replay_target *t, uint64_t size, char *err,
		  size_t errlen);

/* Reads one block at offset 0 with O_DIRECT to see that it works (some
 * file systems accept O_DIRECT at open and fail each I/O). Returns 0 or -1
 * with a message in err. */
int target_check_direct(struct replay_target *t, char *err, size_t errlen);

/* 1 once a lease of a target broke (another process opened or truncated
 * a file the replay writes): the replay stops issuing, lets what is in
 * flight complete, then gives the leases up (target_lease_release()); the
 * opener waits until then. */
int target_lease_broken(void);

/* Gives t's write lease up (if it holds one), noting whether it broke
 * (t->lease_lost). */
void target_lease_release(struct replay_target *t);

/* Closes the target's descriptor (the file, if made, stays); a file the
 * replay owns is marked with TARGET_XATTR as it leaves it, unless its
 * lease broke. */
void target_close(struct replay_target *t);

/* Removes the file t made (t->created) for a replay that never ran, while
 * its path still names that inode: a file another process put under the
 * name meanwhile (the first renamed away) stays. The check and the unlink
 * are two calls: a rename between them, microseconds apart, is not
 * caught. */
void target_remove_made(const struct replay_target *t);

/* Whether the regular file at path is in use so that writing it from
 * another device would destroy what uses it: active swap (/proc/swaps) or
 * the backing file of a loop device (by path, or by the inode the kernel
 * holds). 1 with why ("it backs /dev/loop3", "it is active swap"), 0 when
 * not (or path cannot be stat'ed). For `iotape disk`'s backing file, as for
 * a replay's target. */
int target_file_busy(const char *path, char *why, size_t len);

/* Whether block devices a and b (device numbers) are a disk and one of its
 * partitions, either way round, by their sysfs folders under sys (a
 * partition's folder is inside its disk's): 1 when they are, 0 when not, the
 * same device, or either has no folder. Two targets so nested write one
 * place twice. */
int target_blk_nested(const char *sys, dev_t a, dev_t b);

#endif
