/* Replay targets: open with O_DIRECT, size and unit, and the checks before
 * a device is written (mounts, swap, holders, O_EXCL, libblkid). */
#include "target.h"

#include <blkid/blkid.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "lib/util.h"
#include "trace/blktrace_format.h"

/* The open file fd's path in /proc (its magic link): opening it opens the
 * very inode fd has open, whatever its path names now. */
static void fd_path(int fd, char *out, size_t len)
{
	snprintf(out, len, "/proc/self/fd/%d", fd);
}

/* libblkid knows no SQLite database (out_file_sqlite()): 1 with what and
 * type ("sqlite") when fd's file starts with its file header, 0 when not,
 * -errno. */
static int sqlite_signature(int fd, char *what, size_t len, char *type,
			    size_t tlen)
{
	int rc;

	/* through fd: an open of its own would break the replay's lease */
	if ((rc = out_fd_sqlite(fd)) <= 0)
		return rc;
	snprintf(what, len, "an SQLite database (its file header)");
	snprintf(type, tlen, "sqlite");
	return 1;
}

/* Probes the file or device open as fd (not O_DIRECT) with libblkid
 * (superblocks: filesystems, RAID, LVM, swap; partition tables), as
 * util-linux wipefs(8) and blkdiscard(8) do, and for an SQLite header:
 * 1 with a description such as "an ext4 filesystem signature" in what and
 * the type ("ext4", "dos"; "ambiguous" for several) in type, 0 when
 * nothing is found, or -errno. Read through fd: what is probed is what is
 * written. */
/* The signatures on fd, as wipefs lists them (blkid_do_probe() stepped
 * through: each call the next one), "ext4, xfs" into out; "" when none
 * is named. */
static void signature_list(int fd, char *out, size_t len)
{
	blkid_probe pr = blkid_new_probe();
	size_t o = 0;

	out[0] = '\0';
	if (!pr)
		return;
	if (!blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		blkid_probe_enable_partitions(pr, 1);
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_FORCE_GPT);
		for (int n = 0; n < 8 && blkid_do_probe(pr) == 0; n++) {
			const char *ty = NULL;
			if (blkid_probe_lookup_value(pr, "TYPE", &ty, NULL) &&
			    blkid_probe_lookup_value(pr, "PTTYPE", &ty, NULL))
				continue;
			if (o < len)
				o += (size_t)snprintf(out + o, len - o, "%s%s",
						      o ? ", " : "", ty);
		}
	}
	blkid_free_probe(pr);
}

static int signature_fd(int fd, char *what, size_t len, char *type,
			size_t tlen)
{
	blkid_probe pr = blkid_new_probe();
	const char *ty = NULL, *usage = NULL, *pt = NULL;
	int rc;

	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_FORCE_GPT);
	rc = blkid_do_safeprobe(pr);
	if (rc == 1) {
		blkid_free_probe(pr);
		return sqlite_signature(fd, what, len, type, tlen);
	}
	if (rc == -2) {
		char list[160];
		signature_list(fd, list, sizeof(list));
		snprintf(what, len, "several signatures (%s%san ambiguous probe)",
			 list, list[0] ? ": " : "");
		snprintf(type, tlen, "ambiguous");
		blkid_free_probe(pr);
		return 1;
	}
	if (rc < 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_lookup_value(pr, "TYPE", &ty, NULL);
	blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
	blkid_probe_lookup_value(pr, "PTTYPE", &pt, NULL);
	if (ty) {
		int vowel = strchr("aeiouAEIOU", ty[0]) != NULL;
		snprintf(what, len, "a%s %s signature (%s)", vowel ? "n" : "", ty,
			 usage ? usage : "unknown use");
		snprintf(type, tlen, "%s", ty);
	} else if (pt) {
		snprintf(what, len, "a %s partition table", pt);
		snprintf(type, tlen, "%s", pt);
	} else {
		snprintf(what, len, "an unnamed signature");
		snprintf(type, tlen, "unnamed");
	}
	blkid_free_probe(pr);
	return 1;
}

/* Whether /dev/NAME, a loop device, is backed by the file is(stat, ctx)
 * says is the target, told by the device and inode the kernel holds
 * (LOOP_GET_STATUS64's lo_device and lo_inode, linux/loop.h): the path in
 * backing_file no longer names it once the file is unlinked or renamed, or
 * names another file made there since. 1 or 0. */
static int loop_inode(const char *name,
		      int (*is)(const struct stat *o, const void *ctx),
		      const void *ctx)
{
	struct stat o;
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "/dev/%.200s", name);
	return !loop_file_stat(p, &o) && is(&o, ctx);
}

/* Whether a loop device (but skip, 0: none) is backed by a file that
 * is(stat, ctx) says is the target: 1 with "it backs /dev/loopN" in why,
 * else 0
 * (sys/block/loopN/loop/backing_file, the path the loop device was set up
 * with, " (deleted)" when unlinked). */
static int loop_backed(const char *sys,
		       int (*is)(const struct stat *o, const void *ctx),
		       const void *ctx, dev_t skip, char *why, size_t len)
{
	char p[PATH_MAX], line[4096];
	struct stat o;
	struct dirent *de;
	FILE *fp;
	DIR *d;

	snprintf(p, sizeof(p), "%s/block", sys);
	if (!(d = opendir(p)))
		return 0;
	while ((de = readdir(d))) {
		char *nl, *del;
		unsigned ma, mi;
		if (strncmp(de->d_name, "loop", 4))
			continue;
		/* the loop device written through itself (skip): writing
		 * through it is what is asked */
		snprintf(p, sizeof(p), "%s/block/%.200s/dev", sys, de->d_name);
		if (skip && (fp = fopen(p, "r"))) {
			int n = fscanf(fp, "%u:%u", &ma, &mi);
			fclose(fp);
			if (n == 2 && makedev(ma, mi) == skip)
				continue;
		}
		snprintf(p, sizeof(p), "%s/block/%.200s/loop/backing_file", sys,
			 de->d_name);
		if (!(fp = fopen(p, "r")))
			continue;
		if (!fgets(line, sizeof(line), fp))
			line[0] = '\0';
		fclose(fp);
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if ((del = strstr(line, " (deleted)")))
			*del = '\0';
		if ((line[0] && !stat(line, &o) && is(&o, ctx)) ||
		    loop_inode(de->d_name, is, ctx)) {
			snprintf(why, len, "it backs /dev/%.100s", de->d_name);
			closedir(d);
			return 1;
		}
	}
	closedir(d);
	return 0;
}

/* loop_backed()'s test for a regular file: the same inode as ctx's */
static int same_file(const struct stat *o, const void *ctx)
{
	const struct stat *sb = ctx;
	return o->st_dev == sb->st_dev && o->st_ino == sb->st_ino;
}

/* The first field of a /proc/swaps line into out (len bytes), its
 * octal escapes undone: the kernel writes a space in a swap file's path
 * as \040, a tab, newline and backslash likewise (seq_file_path() with
 * " \t\n\\", fs/seq_file.c). Returns 1, or 0 for a line with none. */
static int swaps_path(const char *line, char *out, size_t len)
{
	size_t n = 0;
	const char *s = line;

	while (*s && *s != ' ' && *s != '\t' && *s != '\n' && n + 1 < len) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			out[n++] = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					  (s[3] - '0'));
			s += 4;
		} else
			out[n++] = *s++;
	}
	out[n] = '\0';
	return n > 0;
}

/* 1 when the regular file sb is active swap (proc/swaps), else 0. */
static int file_is_swap(const char *proc, const struct stat *sb)
{
	char p[PATH_MAX], line[4096], f[2048];
	struct stat o;
	FILE *fp;
	int found = 0;

	snprintf(p, sizeof(p), "%s/swaps", proc);
	if (!(fp = fopen(p, "r")))
		return 0;
	while (!found && fgets(line, sizeof(line), fp))
		found = swaps_path(line, f, sizeof(f)) && f[0] == '/' &&
			!stat(f, &o) && o.st_dev == sb->st_dev &&
			o.st_ino == sb->st_ino;
	fclose(fp);
	return found;
}

/* Whether the regular file sb (at path) is in use so that writing it
 * would destroy what uses it: active swap (proc/swaps), or the backing
 * file of a loop device (sys/block/loopN/loop/backing_file). Returns 1
 * with a reason in why. */
static int file_in_use(const char *sys, const char *proc, const struct stat *sb,
		       char *why, size_t len)
{
	if (file_is_swap(proc, sb)) {
		snprintf(why, len, "it is active swap");
		return 1;
	}
	return loop_backed(sys, same_file, sb, 0, why, len);
}

int target_file_busy(const char *path, char *why, size_t len)
{
	struct stat sb;

	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	return file_in_use("/sys", "/proc", &sb, why, len);
}

/* Whether the regular file sb (open as fd) is one a replay made and
 * nothing has written since: TARGET_XATTR holds its mtime, size and inode
 * (a copy that kept the mtime and the attribute, cp -a, is another
 * inode), and its ctime, which no one can set (stat(2): any write, chmod,
 * utimensat or setxattr sets it to now), is within REPLAY_MARK_CTIME_S of
 * that mtime: target_close() sets the mtime a second back, then the mark,
 * which sets the ctime. A write followed by `touch -d` back to the mark's
 * mtime passed the mark alone. */
/* The mark of a file as sb says it is: "MTIME_NS SIZE INODE MAJ:MIN"
 * into out (the file system's device too: a btrfs snapshot keeps the
 * inode number, ctime and all, on another device; a copy to a fresh file
 * system can get the same inode number). */
static void mark_of(const struct stat *sb, char *out, size_t len)
{
	snprintf(out, len, "%lld.%09ld %lld %llu %u:%u",
		 (long long)sb->st_mtim.tv_sec, sb->st_mtim.tv_nsec,
		 (long long)sb->st_size, (unsigned long long)sb->st_ino,
		 major(sb->st_dev), minor(sb->st_dev));
}

#define REPLAY_MARK_CTIME_S 3

static int replay_made(int fd, const struct stat *sb)
{
	char v[128], want[128];
	ssize_t n = fgetxattr(fd, TARGET_XATTR, v, sizeof(v) - 1);
	long long dc = (long long)sb->st_ctim.tv_sec - (long long)sb->st_mtim.tv_sec;

	if (n <= 0)
		return 0;
	v[n] = '\0';
	mark_of(sb, want, sizeof(want));
	/* changed since the mark: its ctime moved on */
	if (dc < 0 || dc > REPLAY_MARK_CTIME_S)
		return 0;
	return !strcmp(v, want);
}

/* Whether a partition of the partition table on fd holds a signature of
 * its own (a file system, swap, RAID member, or a partition table nested
 * in it: an extended or BSD slice's): 1 with the partition's number, its
 * first sector and what it holds in what, else 0 (no table, nothing
 * inside, or a probe that failed: the table's own check stands then).
 * libblkid's partition list (blkid_probe_get_partitions) gives where each
 * is, 512-byte sectors, and a probe limited to that range
 * (blkid_probe_set_device) what it holds. */
static int partition_contents(int fd, char *what, size_t len)
{
	blkid_probe pr = blkid_new_probe(), in;
	blkid_partlist pl;
	blkid_loff_t dev_size;
	int found = 0;

	if (!pr)
		return 0;
	blkid_probe_enable_partitions(pr, 1);
	/* as signature_fd() found it: a GPT with no protective MBR too */
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_FORCE_GPT);
	if (blkid_probe_set_device(pr, fd, 0, 0) || blkid_do_fullprobe(pr) < 0 ||
	    !(pl = blkid_probe_get_partitions(pr))) {
		blkid_free_probe(pr);
		return 0;
	}
	dev_size = blkid_probe_get_size(pr);
	for (int i = 0; !found && i < blkid_partlist_numof_partitions(pl); i++) {
		blkid_partition par = blkid_partlist_get_partition(pl, i);
		blkid_loff_t start = blkid_partition_get_start(par);
		blkid_loff_t size = blkid_partition_get_size(par);
		const char *ty = NULL, *usage = NULL, *pt = NULL;

		/* an extended partition's own entry is the logical ones'
		 * container: they are listed (and probed) themselves */
		if (blkid_partition_is_extended(par))
			continue;
		int rc = 1;
		/* an entry longer than the device (an image restored onto a
		 * smaller disk): what of it the device holds is probed (its
		 * start holds the superblock); one starting past the end holds
		 * nothing here */
		if (dev_size > 0 && start * 512 >= dev_size)
			continue;
		if (dev_size > 0 && (start + size) * 512 > dev_size)
			size = dev_size / 512 - start;
		if (!(in = blkid_new_probe()))
			break;
		if (!blkid_probe_set_device(in, fd, start * 512, size * 512)) {
			blkid_probe_enable_superblocks(in, 1);
			blkid_probe_set_superblocks_flags(in, BLKID_SUBLKS_TYPE |
							  BLKID_SUBLKS_USAGE);
			blkid_probe_enable_partitions(in, 1);
			blkid_probe_set_partitions_flags(in, 0);
			if ((rc = blkid_do_safeprobe(in)) == 0) {
				blkid_probe_lookup_value(in, "TYPE", &ty, NULL);
				blkid_probe_lookup_value(in, "USAGE", &usage, NULL);
				blkid_probe_lookup_value(in, "PTTYPE", &pt, NULL);
			}
			/* -2: more than one signature (an ext4 with a stale
			 * xfs superblock: mounted as ext4); -1: cannot be
			 * read. Either holds something, or may */
			if (rc < 0)
				snprintf(what, len, "its partition %d (from sector "
					 "%lld) %s", blkid_partition_get_partno(par),
					 (long long)start, rc == -2 ? "holds several "
					 "signatures (an ambiguous probe: wipefs lists "
					 "them)" : "cannot be probed");
			else if (ty)
				snprintf(what, len, "its partition %d (from sector "
					 "%lld) holds a%s %s signature (%s)",
					 blkid_partition_get_partno(par),
					 (long long)start,
					 strchr("aeiouAEIOU", ty[0]) ? "n" : "", ty,
					 usage ? usage : "unknown use");
			else if (pt)
				snprintf(what, len, "its partition %d (from sector "
					 "%lld) holds a %s partition table of its own",
					 blkid_partition_get_partno(par),
					 (long long)start, pt);
			found = ty || pt || rc < 0;
		} else {
			snprintf(what, len, "its partition %d (from sector %lld) "
				 "cannot be probed", blkid_partition_get_partno(par),
				 (long long)start);
			found = 1;
		}
		blkid_free_probe(in);
	}
	blkid_free_probe(pr);
	return found;
}

/* Refuses writing over a signature on the target open as dfd (path names
 * it in messages) unless sig_ok names its type; the message names how to.
 * A partition table named by sig_ok is written over only when none of its
 * partitions holds a signature of its own (partition_contents()): naming
 * the table names nothing inside it. libblkid reads through a descriptor
 * of dfd's own inode without O_DIRECT (its reads are not aligned). Returns
 * 0, or -1 with err. */
/* A file system or RAID signature on fd at byte off (libblkid's
 * superblock probe of the area from there), its TYPE into type: 1 when
 * one is there, else 0. */
static int signature_at(int fd, int64_t off, char *type, size_t tlen)
{
	blkid_probe pr = blkid_new_probe();
	const char *ty = NULL;
	int found = 0;

	if (!pr)
		return 0;
	if (!blkid_probe_set_device(pr, fd, off, 0)) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		blkid_probe_enable_partitions(pr, 0);
		if (blkid_do_safeprobe(pr) == 0 &&
		    !blkid_probe_lookup_value(pr, "TYPE", &ty, NULL) && ty) {
			snprintf(type, tlen, "%s", ty);
			found = 1;
		}
	}
	blkid_free_probe(pr);
	return found;
}

static int check_signature(int fd, const char *path, const char *sig_ok,
			   char *err, size_t errlen)
{
	char what[256], type[64];
	int rc, fl = fcntl(fd, F_GETFL);

	/* through the target's own descriptor, buffered meanwhile (libblkid
	 * reads unaligned): an open of its own would break the write lease
	 * the replay holds on a file from its first check to its last write */
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0) {
		rc = -errno;
		goto probe_failed;
	}
	rc = signature_fd(fd, what, sizeof(what), type, sizeof(type));
	if (rc < 0) {
		fcntl(fd, F_SETFL, fl);
		goto probe_failed;
	}
	/* nothing at the start: a partition's contents whose table is gone
	 * (zeroed, or the image of one partition cut with its disk's
	 * alignment), where partitioning tools put the first partition:
	 * sector 63 (DOS cylinders) and 1 MiB */
	for (int k = 0; !rc && k < 2; k++) {
		int64_t off = k ? 1048576 : 63 * 512;
		if (signature_at(fd, off, type, sizeof(type))) {
			int vowel = strchr("aeiouAEIOU", type[0]) != NULL;
			snprintf(what, sizeof(what), "a%s %s signature at byte "
				 "%" PRId64 " (a partition's contents with no "
				 "table to show them)", vowel ? "n" : "", type, off);
			rc = 1;
		}
	}
	if (rc && !(sig_ok && !strcmp(sig_ok, type))) {
		snprintf(err, errlen, "refusing to write to '%s': it holds %s; "
			 "--overwrite-signature %s writes over it%s", path, what, type,
			 sig_ok ? " (not the one named)" : "");
		rc = -1;
	} else if (rc && partition_contents(fd, what, sizeof(what))) {
		snprintf(err, errlen, "refusing to write to '%s': %s; "
			 "--overwrite-signature %s names the partition table only: "
			 "wipe the partition first (wipefs -a) or replay onto it",
			 path, what, type);
		rc = -1;
	} else
		rc = 0;
	if (fcntl(fd, F_SETFL, fl) < 0 && !rc) {
		snprintf(err, errlen, "cannot use '%s' with O_DIRECT again: %s",
			 path, strerror(errno));
		rc = -1;
	}
	return rc;
probe_failed:
	snprintf(err, errlen, "refusing to write to '%s': cannot probe it "
		 "for signatures: %s", path, strerror(-rc));
	return -1;
}

/* The sysfs folder of block device maj:min (resolved), in out. */
static int sysfs_dir(const char *sys, unsigned maj, unsigned min, char *out)
{
	char link[512];

	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys, maj, min);
	return realpath(link, out) ? 0 : -errno;
}

/* Is the device whose sysfs folder is dir, or one of its partitions (their
 * folders are inside the disk's), the device maj:min? */
static int same_disk(const char *sys, const char *dir, unsigned maj,
		     unsigned min)
{
	char other[PATH_MAX];
	size_t l = strlen(dir);

	if (sysfs_dir(sys, maj, min, other))
		return 0;
	return !strcmp(other, dir) || (!strncmp(other, dir, l) && other[l] == '/');
}

int target_blk_nested(const char *sys, dev_t a, dev_t b)
{
	char da[PATH_MAX], db[PATH_MAX];

	if (a == b || sysfs_dir(sys, major(a), minor(a), da) ||
	    sysfs_dir(sys, major(b), minor(b), db))
		return 0;
	return same_disk(sys, da, major(b), minor(b)) ||
	       same_disk(sys, db, major(a), minor(a));
}

/* 1 when o, what a process has open or mapped, is the target sb: the same
 * regular file, or a block device that is it, its disk or a partition of
 * it. */
static int is_target(const char *sys, const struct stat *o,
		     const struct stat *sb)
{
	if (S_ISBLK(sb->st_mode))
		return S_ISBLK(o->st_mode) &&
		       (o->st_rdev == sb->st_rdev ||
			target_blk_nested(sys, o->st_rdev, sb->st_rdev));
	return S_ISREG(o->st_mode) && o->st_dev == sb->st_dev &&
	       o->st_ino == sb->st_ino;
}

/* 1 when process pid holds the target sb: through a descriptor (proc's
 * PID/fd) or a mapping (PID/map_files, proc(5): a shared mapping outlives
 * the descriptor it was made with). */
static int pid_holds(const char *sys, const char *proc, long pid,
		     const struct stat *sb)
{
	static const char *const dirs[] = { "fd", "map_files" };
	char p[PATH_MAX];
	struct dirent *fe;
	int found = 0;
	DIR *fd;

	for (size_t k = 0; !found && k < 2; k++) {
		snprintf(p, sizeof(p), "%s/%ld/%s", proc, pid, dirs[k]);
		if (!(fd = opendir(p)))
			continue;
		while (!found && (fe = readdir(fd))) {
			struct stat o;
			if (fe->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%ld/%s/%.64s", proc, pid,
				 dirs[k], fe->d_name);
			found = !stat(p, &o) && is_target(sys, &o, sb);
		}
		closedir(fd);
	}
	return found;
}

/* The first process but this one holding the target sb (pid_holds()), its
 * name (proc's PID/comm) in comm (clen bytes); 0 when none does. */
static long holder(const char *sys, const char *proc, const struct stat *sb,
		   char *comm, size_t clen)
{
	char p[PATH_MAX];
	struct dirent *de;
	pid_t self = getpid();
	long found = 0;
	FILE *fp;
	DIR *d;

	if (!(d = opendir(proc)))
		return 0;
	while (!found && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self)
			continue;
		if (pid_holds(sys, proc, pid, sb))
			found = pid;
	}
	closedir(d);
	snprintf(comm, clen, "?");
	if (found) {
		snprintf(p, sizeof(p), "%s/%ld/comm", proc, found);
		if ((fp = fopen(p, "r"))) {
			if (fgets(comm, (int)clen, fp))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(fp);
		}
	}
	return found;
}

/* Whether another process has the target open or mapped: a regular file
 * (*sb: its device and inode), or a block device (*sb's rdev) or its disk
 * or one of its partitions (holder()); also a file mounted as an image
 * with no loop device (an erofs or ext4 file-backed mount: mountinfo's
 * source). A holder udev names is waited for (2 s at most). 1 with "it is
 * open in process PID (COMM)" in why, else 0. A file held only through an
 * io_uring's registered files or a descriptor in flight on a socket shows
 * in no proc file: for a file target the write lease sees it. */
static int open_elsewhere(const char *sys, const char *proc,
			  const struct stat *sb, char *why, size_t len)
{
	int blk = S_ISBLK(sb->st_mode), found = 0;
	char line[4096], comm[64], p[PATH_MAX];
	long pid;
	FILE *fp;

	/* udev's probe after a device is written (blkid, read only) holds
	 * it a moment: waited for, up to 2 s, rather than passed by its name
	 * or its program, which any process can take */
	for (int tries = 0; (pid = holder(sys, proc, sb, comm, sizeof(comm)));
	     tries++) {
		if (tries < 40 && (!strcmp(comm, "systemd-udevd") ||
				   !strcmp(comm, "(udev-worker)"))) {
			usleep(50000);
			continue;
		}
		snprintf(why, len, "it is open in process %ld (%.60s): stop it "
			 "first", pid, comm);
		return 1;
	}
	if (blk)
		return 0;
	/* an image mounted straight from the file (no loop device) */
	snprintf(p, sizeof(p), "%s/self/mountinfo", proc);
	if (!(fp = fopen(p, "r")))
		return 0;
	while (!found && fgets(line, sizeof(line), fp)) {
		char *sep = strstr(line, " - "), src[2048], mnt[2048];
		struct stat o;
		if (!sep || sscanf(sep + 3, "%*s %2047s", src) != 1 ||
		    sscanf(line, "%*u %*u %*s %*s %2047s", mnt) != 1 ||
		    src[0] != '/' || stat(src, &o) < 0 || !S_ISREG(o.st_mode))
			continue;
		if (o.st_dev == sb->st_dev && o.st_ino == sb->st_ino) {
			snprintf(why, len, "it is mounted as an image on %.160s",
				 mnt);
			found = 1;
		}
	}
	fclose(fp);
	return found;
}

/* loop_backed()'s test for a block device: ctx's disk folder (struct
 * disk_ctx) is the device o is, holds it (a partition) or is inside its
 * folder (o is the disk of the partition dir). */
struct disk_ctx {
	const char *sys, *dir;
};

static int on_disk(const struct stat *o, const void *ctx)
{
	const struct disk_ctx *dc = ctx;
	char other[PATH_MAX];
	size_t l;

	if (!S_ISBLK(o->st_mode))
		return 0;
	if (same_disk(dc->sys, dc->dir, major(o->st_rdev), minor(o->st_rdev)))
		return 1;
	if (sysfs_dir(dc->sys, major(o->st_rdev), minor(o->st_rdev), other))
		return 0;
	l = strlen(other);
	return !strncmp(dc->dir, other, l) && dc->dir[l] == '/';
}

/* Why the block device (sysfs folder dir) must not be written: mounted,
 * active swap, backing a loop device (when loops; loop device skip apart,
 * 0: none), or held by another device. Returns 1 with a reason. */
static int in_use_as(const char *sys, const char *proc, const char *dir,
		     int loops, dev_t skip, char *why, size_t len)
{
	char path[PATH_MAX], line[4096];
	FILE *fp;
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/self/mountinfo", proc);
	if ((fp = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), fp)) {
			unsigned ma, mi;
			char mnt[2048];
			if (sscanf(line, "%*u %*u %u:%u %*s %2047s", &ma, &mi, mnt) != 3)
				continue;
			if (ma && same_disk(sys, dir, ma, mi)) {
				snprintf(why, len, "it is mounted (device %u:%u on "
					 "%.160s)", ma, mi, mnt);
				fclose(fp);
				return 1;
			}
		}
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/swaps", proc);
	if ((fp = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), fp)) {
			char f[2048];
			struct stat sb;
			if (!swaps_path(line, f, sizeof(f)) || f[0] != '/' ||
			    stat(f, &sb) < 0)
				continue;
			if (S_ISBLK(sb.st_mode) &&
			    same_disk(sys, dir, major(sb.st_rdev), minor(sb.st_rdev))) {
				snprintf(why, len, "it holds active swap (%.160s)", f);
				fclose(fp);
				return 1;
			}
		}
		fclose(fp);
	}
	if (loops) {
		struct disk_ctx dc = { sys, dir };
		/* a loop device over this disk, a partition of it or the
		 * disk it is a partition of (no holders link for a loop) */
		if (loop_backed(sys, on_disk, &dc, skip, why, len))
			return 1;
	}
	snprintf(path, sizeof(path), "%.4000s/holders", dir);
	if ((d = opendir(path))) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(why, len, "it is held by %.100s (device mapper, RAID "
				 "or another stacked device)", de->d_name);
			closedir(d);
			return 1;
		}
		closedir(d);
	}
	return 0;
}

/* in_use_as() with loop devices over it counted. */
static int in_use(const char *sys, const char *proc, const char *dir,
		  char *why, size_t len)
{
	return in_use_as(sys, proc, dir, 1, 0, why, len);
}

/* 1 when block device path cannot be opened exclusively because another
 * holds it so (EBUSY: a mounted file system, a swap device, a device
 * stacked on it, an O_EXCL opener; a partition of it counts for the whole
 * disk), whatever mount namespace it is mounted in. */
static int excl_busy(const char *path)
{
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == EBUSY;
}

/* When the device open as dev_path (major:minor rdev) is a loop device:
 * whether its backing file also backs another loop device that is in use
 * (in_use(): mounted, swap, held; a loop device over it counts, but skip,
 * the target written through: 0 none), which writing through this one
 * would write under (an offset loop over one image, the same file
 * twice). 1 with why, else 0. */
static int loop_sibling_in_use(const char *sys, const char *proc,
			       const char *dev_path, dev_t rdev, dev_t skip,
			       char *why, size_t len)
{
	struct stat bf, o, nb;
	struct dirent *de;
	char p[PATH_MAX], self_dir[PATH_MAX];
	DIR *d;
	int found = 0;

	if (loop_file_stat(dev_path, &bf))
		return 0;       /* not a loop device */
	/* the disk a partition target is in is said as that (a partition 1
	 * beside a mounted partition 2 read "its backing file also backs
	 * /dev/loop0, and it is mounted", as if another loop device) */
	if (sysfs_dir(sys, major(rdev), minor(rdev), self_dir))
		self_dir[0] = '\0';
	snprintf(p, sizeof(p), "%s/block", sys);
	if (!(d = opendir(p)))
		return 0;
	while (!found && (de = readdir(d))) {
		char dir[PATH_MAX], w[200], whose[80];
		int parent = 0;
		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/dev/%.200s", de->d_name);
		if (stat(p, &nb) < 0 || !S_ISBLK(nb.st_mode) || nb.st_rdev == rdev ||
		    loop_file_stat(p, &o) || o.st_dev != bf.st_dev ||
		    o.st_ino != bf.st_ino)
			continue;
		if (self_dir[0] && !sysfs_dir(sys, major(nb.st_rdev),
					      minor(nb.st_rdev), dir)) {
			size_t l = strlen(dir);
			parent = !strncmp(self_dir, dir, l) && self_dir[l] == '/';
		}
		snprintf(whose, sizeof(whose), parent ? "the disk it is a "
			 "partition of, /dev/%.40s," : "its backing file also "
			 "backs /dev/%.40s, and", de->d_name);
		if (!sysfs_dir(sys, major(nb.st_rdev), minor(nb.st_rdev), dir) &&
		    in_use_as(sys, proc, dir, 1, skip, w, sizeof(w))) {
			snprintf(why, len, "%s %.120s", whose, w);
			found = 1;
		} else if (excl_busy(p)) {
			/* held exclusively, as a mount holds its device, in
			 * any mount namespace (a container's, a service's with
			 * PrivateMounts=): this one's mountinfo shows none */
			snprintf(why, len, "%s it is open exclusively (mounted, "
				 "perhaps in another mount namespace, or held)",
				 whose);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/* The node in /dev of block device r (sysfs's uevent DEVNAME), checked to
 * be that device, into out; "" when there is none. */
static void dev_node(const char *sys, dev_t r, char *out, size_t len)
{
	char f[512], line[256];
	struct stat sb;
	FILE *fp;

	out[0] = '\0';
	snprintf(f, sizeof(f), "%s/dev/block/%u:%u/uevent", sys, major(r),
		 minor(r));
	if (!(fp = fopen(f, "r")))
		return;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "/dev/%s", line + 8);
		}
	fclose(fp);
	if (out[0] && (stat(out, &sb) < 0 || !S_ISBLK(sb.st_mode) ||
		       sb.st_rdev != r))
		out[0] = '\0';
}

/* When the device open as dev_path is a loop device over a block device
 * (LOOP_GET_STATUS64's lo_rdevice, linux/loop.h; 0 for a file): whether
 * that device, or the one it is a loop over in turn (depth levels at most),
 * is in use (mounted, swap, held exclusively, a loop sibling in use; a
 * loop device over its disk counts but skip, the target written through
 * itself): writing through this one writes into it, past any --offset
 * that keeps its signature out of view. 1 with why, else 0. */
static int loop_backing_in_use(const char *sys, const char *proc,
			       const char *dev_path, dev_t skip, int depth,
			       char *why, size_t len)
{
	struct loop_info64 li;
	char dir[PATH_MAX], node[300], w[300];
	dev_t r;

	if (loop_status(dev_path, &li) || !li.lo_rdevice)
		return 0;   /* not a loop device, or over a file */
	r = (dev_t)li.lo_rdevice;
	dev_node(sys, r, node, sizeof(node));
	if (!node[0]) {
		snprintf(why, len, "it is a loop device over device %u:%u, which "
			 "has no node in /dev to check", major(r), minor(r));
		return 1;
	}
	if (!sysfs_dir(sys, major(r), minor(r), dir) &&
	    in_use_as(sys, proc, dir, 0, 0, w, sizeof(w))) {
		snprintf(why, len, "it is a loop device over %.100s, and %.160s",
			 node, w);
		return 1;
	}
	if (excl_busy(node)) {
		snprintf(why, len, "it is a loop device over %.100s, and that is "
			 "open exclusively (mounted, perhaps in another mount "
			 "namespace, or held)", node);
		return 1;
	}
	if (loop_sibling_in_use(sys, proc, node, r, skip, w, sizeof(w))) {
		snprintf(why, len, "it is a loop device over %.100s: %.160s",
			 node, w);
		return 1;
	}
	if (depth >= 8) {
		snprintf(why, len, "it is a loop device over %.100s, loops %d "
			 "deep", node, depth);
		return 1;
	}
	if (loop_backing_in_use(sys, proc, node, skip, depth + 1, w, sizeof(w))) {
		snprintf(why, len, "it is a loop device over %.100s: %.160s",
			 node, w);
		return 1;
	}
	return 0;
}

/* The regular file at the bottom of block device dev_path's loop chain (a
 * loop device over a file; over a loop device, or a partition of one, in
 * turn; LOOP_GET_STATUS64's lo_rdevice says a device, linux/loop.h): its
 * device and inode as the kernel holds them in *st (S_IFREG, the rest 0)
 * and the path the last loop device was set up with in file (flen bytes:
 * sys's loop/backing_file, "" when unread). 0, or -1 when dev_path is no
 * loop device (nor a partition of one), the chain ends at another kind of
 * device, or it is over 8 deep. */
static int loop_bottom_file(const char *sys, const char *dev_path,
			    struct stat *st, char *file, size_t flen)
{
	char node[300], dir[PATH_MAX], p[PATH_MAX + 32];
	struct loop_info64 li;
	struct stat nb;
	FILE *fp;

	snprintf(node, sizeof(node), "%.299s", dev_path);
	for (int depth = 0; depth < 8; depth++) {
		if (stat(node, &nb) < 0 || !S_ISBLK(nb.st_mode) ||
		    sysfs_dir(sys, major(nb.st_rdev), minor(nb.st_rdev), dir))
			return -1;
		snprintf(p, sizeof(p), "%s/partition", dir);
		if (!access(p, F_OK)) {
			/* a partition: its disk's chain */
			unsigned ma, mi;
			int n;
			snprintf(p, sizeof(p), "%s/../dev", dir);
			if (!(fp = fopen(p, "r")))
				return -1;
			n = fscanf(fp, "%u:%u", &ma, &mi);
			fclose(fp);
			if (n != 2)
				return -1;
			dev_node(sys, makedev(ma, mi), node, sizeof(node));
			if (!node[0])
				return -1;
			continue;
		}
		if (loop_status(node, &li))
			return -1;
		if (li.lo_rdevice) {
			dev_node(sys, (dev_t)li.lo_rdevice, node, sizeof(node));
			if (!node[0])
				return -1;
			continue;
		}
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFREG;
		st->st_dev = (dev_t)li.lo_device;
		st->st_ino = (ino_t)li.lo_inode;
		file[0] = '\0';
		snprintf(p, sizeof(p), "%s/loop/backing_file", dir);
		if ((fp = fopen(p, "r"))) {
			if (fgets(file, (int)flen, fp))
				file[strcspn(file, "\n")] = '\0';
			fclose(fp);
		}
		return 0;
	}
	return -1;
}

/* When block device dev_path is a loop device over a regular file, at the
 * bottom of a chain of loops (loop_bottom_file()): whether that file is in
 * use so that writing through the chain would destroy what uses it: active
 * swap, open in another process or mounted as an image (open_elsewhere());
 * the database is target_open()'s (loop_of_guarded(), whatever the
 * replay writes). 1 with why, else 0. */
static int loop_file_busy(const char *sys, const char *proc,
			  const char *dev_path, char *why, size_t len)
{
	struct stat st;
	char file[PATH_MAX], w[256];

	if (loop_bottom_file(sys, dev_path, &st, file, sizeof(file)))
		return 0;
	if (file_is_swap(proc, &st))
		snprintf(w, sizeof(w), "it is active swap");
	else if (!open_elsewhere(sys, proc, &st, w, sizeof(w)))
		return 0;
	snprintf(why, len, "it is a loop device over %.80s: %.120s",
		 file[0] ? file : "a file", w);
	return 1;
}

/* Fills t->disk from device maj:min (a partition maps to its disk). */
static void disk_name(const char *sys, struct replay_target *t, unsigned maj,
		      unsigned min)
{
	char dir[PATH_MAX], part[PATH_MAX + 16];
	struct stat sb;

	t->disk[0] = '\0';
	if (!maj || sysfs_dir(sys, maj, min, dir))
		return;
	snprintf(part, sizeof(part), "%s/partition", dir);
	if (stat(part, &sb) == 0) {
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
	}
	snprintf(t->disk, sizeof(t->disk), "%s", basename(dir));
}

/* 1 when the directory path would be made in is /dev or below it, /dev/shm
 * apart (after symlinks: /dev/disk/by-id/..., a relative path from /dev),
 * judged by its nearest folder that exists (/dev/block/7:0 where udev made
 * no /dev/block is under /dev all the same). */
static int under_dev(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	while (!realpath(dir, real)) {
		char *up = strrchr(dir, '/');
		if (errno != ENOENT && errno != ENOTDIR)
			return 0;
		if (!up)
			snprintf(dir, sizeof(dir), ".");
		else if (up == dir)
			dir[1] = '\0';
		else
			*up = '\0';
	}
	/* /dev/shm is a tmpfs where files are made (O_DIRECT works there
	 * since Linux 6.6) */
	if (!strcmp(real, "/dev/shm") || !strncmp(real, "/dev/shm/", 9))
		return 0;
	return !strcmp(real, "/dev") || !strncmp(real, "/dev/", 5);
}

/* For a missing path ending in "block/MAJ:MIN" (udev's /dev/block links),
 * the node that device has on this machine, from sysfs's uevent DEVNAME,
 * in out ("" when none). */
static void dev_block_name(const char *sys, const char *path, char *out,
			   size_t len)
{
	const char *b = strrchr(path, '/');
	unsigned maj, min;
	int end = 0;

	out[0] = '\0';
	if (!b || b - path < 6 || strncmp(b - 6, "/block", 6) ||
	    sscanf(b + 1, "%u:%u%n", &maj, &min, &end) != 2 || b[1 + end])
		return;
	dev_node(sys, makedev(maj, min), out, len);
}

/* A missing target path made as a new file (O_EXCL, O_DIRECT), *sb its
 * stat; refused under /dev (a mistyped device name). Returns 0, or -1
 * with a message in err. */
static int target_create(struct replay_target *t, const char *path,
			 const char *sys, struct stat *sb, char *err,
			 size_t errlen)
{
	if (under_dev(path)) {
		/* a mistyped device name, not a file to make in RAM */
		char node[300];
		dev_block_name(sys, path, node, sizeof(node));
		if (node[0])
			snprintf(err, errlen, "target '%s': no such node (this "
				 "machine has no udev link of that name): that "
				 "device is %s here", path, node);
		else
			snprintf(err, errlen, "target '%s': no such device (a "
				 "missing target is made as a file only outside "
				 "/dev)", path);
		return -1;
	}
	/* made first without O_DIRECT, so its inode is known before the
	 * O_DIRECT open that may fail (and a removal takes only it) */
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	char self[64];

	if (fd < 0) {
		snprintf(err, errlen, "cannot create target '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	t->created = 1;
	if (fstat(fd, sb) < 0) {
		snprintf(err, errlen, "cannot stat '%s': %s", path,
			 strerror(errno));
		close(fd);
		return -1;
	}
	t->made_dev = sb->st_dev;
	t->made_ino = sb->st_ino;
	fd_path(fd, self, sizeof(self));
	t->fd = open(self, O_RDWR | O_DIRECT | O_CLOEXEC);
	close(fd);
	if (t->fd < 0) {
		int e = errno;
		/* made, but O_DIRECT refused: say so, leave nothing */
		target_remove_made(t);
		t->created = 0;
		if (e == EINVAL)
			snprintf(err, errlen, "target '%s' does not support "
				 "O_DIRECT (the file system refuses it)", path);
		else
			snprintf(err, errlen, "cannot open target '%s': %s",
				 path, strerror(e));
		return -1;
	}
	return 0;
}

void target_remove_made(const struct replay_target *t)
{
	struct stat sb;

	if (!t->created || lstat(t->path, &sb) < 0 || sb.st_dev != t->made_dev ||
	    sb.st_ino != t->made_ino)
		return;
	unlink(t->path);
}

/* Block device target path, the device node open as pfd (O_PATH) whose
 * stat is sb: opened (through pfd, so the node checked is the node
 * opened) read-only, or for writing (exclusively) when want_write and
 * allow_write and it is not in use, not read-only and holds no signature
 * but sig_ok; its size and logical block size. Returns 0, or -1 with a
 * message in err. */
static int target_open_blk(struct replay_target *t, const char *path, int pfd,
			   const struct stat *sb, int want_write,
			   int allow_write, const char *sig_ok, const char *sys,
			   const char *proc, char *err, size_t errlen)
{
	char dir[PATH_MAX], what[256], self[64];
	uint64_t size = 0;
	int lbs = 0, ro = 0;
	struct stat o;

	t->blkdev = 1;
	t->dev = BT_MKDEV(major(sb->st_rdev), minor(sb->st_rdev));
	disk_name(sys, t, major(sb->st_rdev), minor(sb->st_rdev));
	fd_path(pfd, self, sizeof(self));
	if (want_write && allow_write) {
		if ((!sysfs_dir(sys, major(sb->st_rdev), minor(sb->st_rdev), dir) &&
		     in_use(sys, proc, dir, what, sizeof(what))) ||
		    loop_sibling_in_use(sys, proc, self, sb->st_rdev, 0, what,
					sizeof(what)) ||
		    loop_backing_in_use(sys, proc, self, sb->st_rdev, 0, what,
					sizeof(what)) ||
		    loop_file_busy(sys, proc, self, what, sizeof(what)) ||
		    open_elsewhere(sys, proc, sb, what, sizeof(what))) {
			snprintf(err, errlen, "refusing to write to '%s': %s",
				 path, what);
			return -1;
		}
		t->fd = open(self, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
		if (t->fd < 0 && errno == EBUSY) {
			snprintf(err, errlen, "refusing to write to '%s': it "
				 "is in use (open exclusively elsewhere)", path);
			return -1;
		}
		if (t->fd < 0 && (errno == EROFS || errno == EACCES)) {
			snprintf(err, errlen, "refusing to write to '%s': it is "
				 "read-only", path);
			return -1;
		}
	} else {
		t->fd = open(self, O_RDONLY | O_DIRECT | O_CLOEXEC);
	}
	if (t->fd < 0) {
		snprintf(err, errlen, errno == EINVAL ?
			 "target '%s' does not support O_DIRECT" :
			 "cannot open target '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(t->fd, &o) < 0 || !S_ISBLK(o.st_mode) ||
	    o.st_rdev != sb->st_rdev) {
		snprintf(err, errlen, "refusing to use '%s': it changed while "
			 "being opened", path);
		return -1;
	}
	if (want_write && allow_write) {
		if (ioctl(t->fd, BLKROGET, &ro) == 0 && ro) {
			snprintf(err, errlen, "refusing to write to '%s': it is "
				 "read-only (blockdev --setrw)", path);
			return -1;
		}
		if (check_signature(t->fd, path, sig_ok, err, errlen))
			return -1;
		t->writable = 1;
	}
	if (ioctl(t->fd, BLKGETSIZE64, &size) < 0 ||
	    ioctl(t->fd, BLKSSZGET, &lbs) < 0 || lbs < 512) {
		snprintf(err, errlen, "cannot read the size of '%s': %s",
			 path, strerror(errno));
		return -1;
	}
	t->size = size;
	t->lbs = (unsigned)lbs;
	t->mem_align = (unsigned)lbs;
	return 0;
}

/* A file target's direct I/O alignment: statx's when it says (a file
 * system with no direct I/O refused), else 4096. Returns 0, or -1 with a
 * message in err. */
static int file_dio_align(struct replay_target *t, const char *path,
			  char *err, size_t errlen)
{
	struct statx sx;

	t->lbs = t->mem_align = 4096;
	if (statx(t->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN)) {
		if (!sx.stx_dio_offset_align) {
			snprintf(err, errlen, "target '%s' does not support "
				 "O_DIRECT (statx: no direct I/O)", path);
			return -1;
		}
		t->lbs = sx.stx_dio_offset_align < 512 ? 512
			 : sx.stx_dio_offset_align;
		t->mem_align = sx.stx_dio_mem_align ? sx.stx_dio_mem_align : 512;
	}
	return 0;
}

/* Set when a lease of a replay's target breaks (fcntl(2) F_SETLEASE,
 * F_SETSIG): another process opens or truncates a file the replay writes.
 * The lease is kept, so the opener waits (up to the kernel's
 * lease-break-time) until the replay has stopped issuing and its I/O in
 * flight is done (target_lease_release()): nothing the opener writes is
 * written over. */
static volatile sig_atomic_t lease_breaks;

static void lease_broken(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	lease_breaks = 1;
}

int target_lease_broken(void)
{
	return lease_breaks != 0;
}

void target_lease_release(struct replay_target *t)
{
	if (t->fd < 0 || !t->leased)
		return;
	if (fcntl(t->fd, F_GETLEASE) != F_WRLCK)
		t->lease_lost = 1;
	fcntl(t->fd, F_SETLEASE, F_UNLCK);
	t->leased = 0;
}

/* A write lease on the file open for writing as fd: 1 when taken, else
 * -errno (EAGAIN: another process has the file open; EACCES: another
 * user's file, without CAP_LEASE; EINVAL: the file system keeps none). */
static int take_lease(int fd)
{
	static int handler;

	if (!handler) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = lease_broken;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGIO, &sa, NULL) < 0)
			return -errno;
		handler = 1;
	}
	if (fcntl(fd, F_SETSIG, SIGIO) < 0 || fcntl(fd, F_SETLEASE, F_WRLCK) < 0)
		return -errno;
	return 1;
}

/* The name of fd's file system when it is one where the file may be
 * written by another name the lease does not watch (overlayfs' upper
 * file, a FUSE file's backing store, another client of a network file
 * system; statfs(2) f_type, linux/magic.h), else NULL. */
static const char *stacked_fs(int fd)
{
	static const struct { unsigned long magic; const char *name; } fs[] = {
		{ 0x794c7630, "overlayfs" }, { 0x65735546, "FUSE" },
		{ 0x6969, "NFS" }, { 0xfe534d42, "SMB" }, { 0xff534d42, "CIFS" },
		{ 0x01021997, "9p" }, { 0x00c36400, "Ceph" },
		{ 0x6b414653, "AFS" }, { 0x5346414f, "AFS" },
		{ 0xf15f, "eCryptfs" },
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if ((unsigned long)sf.f_type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

/* Regular file target path, open as pfd (O_PATH) whose stat is sb, or
 * made by target_create() (t->fd open): writable when iotape made it or
 * may overwrite it (owned), or on request (want_write and allow_write)
 * when not in use and holding no signature but sig_ok; an owned file
 * marked as being written. Whether it is owned is told through a
 * descriptor that holds a write lease, when the file system keeps them,
 * so nothing else opens it unseen until target_close(). Every open is of
 * pfd's inode, whatever path names meanwhile. Returns 0, or -1 with a
 * message in err. */
static int target_open_file(struct replay_target *t, const char *path, int pfd,
			    const struct stat *sb, int want_write,
			    int allow_write, const char *sig_ok, const char *sys,
			    const char *proc, char *err, size_t errlen)
{
	char what[256], self[64];
	struct stat cur = *sb;

	if (out_file_guarded(sb)) {
		snprintf(err, errlen, "refusing to replay on '%s': it is the "
			 "database this replay is stored in", path);
		return -1;
	}
	t->dev = BT_MKDEV(major(sb->st_dev), minor(sb->st_dev));
	disk_name(sys, t, major(sb->st_dev), minor(sb->st_dev));
	fd_path(pfd >= 0 ? pfd : t->fd, self, sizeof(self));
	if (t->fd < 0) {
		/* an existing file: for writing only to take the lease and
		 * tell whether it is ours (nothing is written before it is
		 * known to be); read-only where it cannot be opened so */
		t->fd = open(self, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (t->fd >= 0) {
			int l = take_lease(t->fd);
			t->leased = l > 0;
			t->lease_errno = l < 0 ? -l : 0;
		} else
			t->fd = open(self, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (t->fd < 0) {
			snprintf(err, errlen, errno == EINVAL ?
				 "target '%s' does not support O_DIRECT (the file "
				 "system refuses it)" : "cannot open target '%s': %s",
				 path, strerror(errno));
			return -1;
		}
		if (fstat(t->fd, &cur) < 0 || cur.st_dev != sb->st_dev ||
		    cur.st_ino != sb->st_ino) {
			snprintf(err, errlen, "refusing to use '%s': it changed "
				 "while being opened", path);
			return -1;
		}
		/* ours only through a descriptor that may write it, holding a
		 * lease (no other process has it open, and none opens it
		 * unseen), on a file system where no other name writes it */
		t->stacked = stacked_fs(t->fd);
		t->busy = !t->leased && !t->stacked &&
			  (fcntl(t->fd, F_GETFL) & O_ACCMODE) == O_RDWR;
		t->owned = t->leased && !t->stacked &&
			   (cur.st_size == 0 || replay_made(t->fd, &cur));
		/* not ours: no lease kept, but on one to be written on
		 * request, held from here to the last write (the checks below
		 * open it no more): whoever opens it meanwhile is seen */
		if (!t->owned && !(want_write && allow_write))
			target_lease_release(t);
	} else {
		t->owned = 1;
		t->leased = take_lease(t->fd) > 0;
	}
	if (want_write && !t->owned && allow_write) {
		/* a file holding data, written on request: as a device is,
		 * and not under another process using it (an SQLite WAL, an
		 * image fuse2fs serves) */
		if (file_in_use(sys, proc, &cur, what, sizeof(what)) ||
		    open_elsewhere(sys, proc, &cur, what, sizeof(what))) {
			snprintf(err, errlen, "refusing to write to '%s': %s", path,
				 what);
			return -1;
		}
		/* another open of it none of the above names: a process's
		 * shared mapping whose descriptor is closed, an overlayfs
		 * file over it, a descriptor of this process's own (fcntl(2):
		 * a write lease is refused while the file is open elsewhere) */
		if (t->lease_errno == EAGAIN || t->lease_errno == EBUSY) {
			snprintf(err, errlen, "refusing to write to '%s': it is "
				 "open elsewhere (a mapping, an overlayfs file over "
				 "it, a registered or passed descriptor: the kernel "
				 "refused a write lease)", path);
			return -1;
		}
		if ((fcntl(t->fd, F_GETFL) & O_ACCMODE) != O_RDWR) {
			snprintf(err, errlen, "cannot open target '%s' for writing",
				 path);
			return -1;
		}
		if (check_signature(t->fd, path, sig_ok, err, errlen))
			return -1;
		if (target_lease_broken()) {
			snprintf(err, errlen, "refusing to write to '%s': another "
				 "process opened it while it was checked", path);
			return -1;
		}
	}
	t->writable = t->owned || (want_write && allow_write);
	/* a file of the user's keeps its size: a run reaching past its end
	 * is refused or wrapped (--wrap) as on a device */
	t->may_extend = t->owned;
	if (!t->writable && (fcntl(t->fd, F_GETFL) & O_ACCMODE) == O_RDWR) {
		/* not to be written: held read-only from here on */
		int fd = open(self, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "cannot open target '%s': %s", path,
				 strerror(errno));
			return -1;
		}
		target_lease_release(t);
		close(t->fd);
		t->fd = fd;
	}
	/* as found, for target_close() to put back when the replay never
	 * ran (refused after the targets opened: a run name taken) */
	if (t->owned && !t->created) {
		t->was_made = cur.st_size > 0;
		t->had_xattr = fgetxattr(t->fd, TARGET_XATTR, NULL, 0) >= 0;
		t->orig_size = (uint64_t)cur.st_size;
		t->orig_times[0] = cur.st_atim;
		t->orig_times[1] = cur.st_mtim;
	}
	/* marked as being written until target_close() marks it done: a
	 * replay killed half way leaves a file that reads as holding data */
	if (t->owned && fsetxattr(t->fd, TARGET_XATTR, "", 0, 0) < 0)
		t->owned = t->created;   /* no xattrs there: not marked */
	t->size = (uint64_t)cur.st_size;
	return file_dio_align(t, path, err, errlen);
}

/* 1 when block device path is a loop device whose file, at the bottom of
 * a chain of loops over loops or their partitions (loop_bottom_file()), is
 * a guarded one (out_file_guard(): the database this process has open),
 * told by the device and inode the kernel holds (LOOP_GET_STATUS64,
 * linux/loop.h); else 0. */
static int loop_of_guarded(const char *sys, const char *path)
{
	struct stat o;
	char file[PATH_MAX];

	return !loop_bottom_file(sys, path, &o, file, sizeof(file)) &&
	       out_file_guarded(&o);
}

int target_open(struct replay_target *t, const char *path, int want_write,
		int allow_write, const char *sig_ok, const char *sys,
		const char *proc, char *err, size_t errlen)
{
	struct stat sb;
	char self[64];
	int pfd, rc;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	snprintf(t->path, sizeof(t->path), "%s", path);
	/* the database, and the names of its journals whether or not one
	 * exists now (out_file_guard(); SQLite makes and removes them) */
	if (out_file_check(path) == OUT_FILE_GUARDED) {
		snprintf(err, errlen, "refusing to replay on '%s': it is the "
			 "database this replay is stored in, or its journal", path);
		return -1;
	}
	/* the inode path names now, held (O_PATH: nothing opened, no
	 * device's open side effects) so that every check and every open
	 * below is of it, whatever path is renamed to meanwhile */
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "cannot use target '%s': %s", path,
				 strerror(errno));
			return -1;
		}
		if (target_create(t, path, sys, &sb, err, errlen))
			return -1;
	} else if (fstat(pfd, &sb) < 0) {
		snprintf(err, errlen, "cannot stat '%s': %s", path, strerror(errno));
		close(pfd);
		return -1;
	}
	if (pfd >= 0)
		fd_path(pfd, self, sizeof(self));
	if (S_ISBLK(sb.st_mode) && loop_of_guarded(sys, self)) {
		/* whatever --overwrite-signature says: the file behind it is
		 * the store this replay writes its rows to */
		snprintf(err, errlen, "refusing to replay on '%s': it is a loop "
			 "device over the database this replay is stored in", path);
		rc = -1;
	} else if (S_ISBLK(sb.st_mode)) {
		rc = target_open_blk(t, path, pfd, &sb, want_write, allow_write,
				     sig_ok, sys, proc, err, errlen);
	} else if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "target '%s' is neither a block device nor a "
			 "regular file", path);
		rc = -1;
	} else {
		rc = target_open_file(t, path, pfd, &sb, want_write, allow_write,
				      sig_ok, sys, proc, err, errlen);
	}
	if (pfd >= 0)
		close(pfd);
	return rc;
}

int target_extend(struct replay_target *t, uint64_t size, char *err,
		  size_t errlen)
{
	if (t->blkdev || !t->may_extend || size <= t->size)
		return 0;
	if (ftruncate(t->fd, (off_t)size) < 0) {
		snprintf(err, errlen, "cannot extend '%s' to %llu bytes: %s",
			 t->path, (unsigned long long)size, strerror(errno));
		return -1;
	}
	t->size = size;
	return 0;
}

int target_check_direct(struct replay_target *t, char *err, size_t errlen)
{
	size_t align = t->mem_align > 4096 ? t->mem_align : 4096;
	void *buf;
	ssize_t n;

	if (t->size < t->lbs)
		return 0;
	if (posix_memalign(&buf, align, t->lbs)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = pread(t->fd, buf, t->lbs, 0);
	free(buf);
	if (n < 0) {
		snprintf(err, errlen, "O_DIRECT reads fail on '%s': %s", t->path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

void target_close(struct replay_target *t)
{
	struct stat sb;

	if (t->fd < 0)
		return;
	if (!t->blkdev && t->owned && !t->ran && !t->created) {
		/* a replay that never ran (refused after the targets opened)
		 * leaves the file as it found it: its size, and an empty
		 * file's times and want of a mark; a replay-made file is
		 * marked again (the mark's ctime moved) */
		if ((uint64_t)lseek(t->fd, 0, SEEK_END) != t->orig_size &&
		    ftruncate(t->fd, (off_t)t->orig_size) < 0)
			warning("cannot put '%s' back to %llu bytes: %s", t->path,
				(unsigned long long)t->orig_size, strerror(errno));
		if (!t->was_made) {
			if (!t->had_xattr)
				fremovexattr(t->fd, TARGET_XATTR);
			futimens(t->fd, t->orig_times);
			target_lease_release(t);
			close(t->fd);
			t->fd = -1;
			return;
		}
	}
	if (!t->blkdev && t->owned && fsync(t->fd) == 0) {
		/* What this replay left, marked so a later one may write it
		 * again while nothing else has (replay_made()). Not when
		 * another process opened it meanwhile (the lease is gone: it
		 * may have written; the file stays marked as being written,
		 * that is, holding data). Its mtime is set a second before
		 * now first: any later write sets it to now, so a write is
		 * seen even where the file system keeps whole seconds. */
		struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT } };

		/* marked while the lease is held: one who opens it now waits
		 * for the release below, and what it writes then moves the
		 * mtime and ctime past the mark (released first, an open and
		 * a write in between were marked as the replay's) */
		if (t->leased && fcntl(t->fd, F_GETLEASE) != F_WRLCK)
			t->lease_lost = 1;     /* being broken: another opened it */
		clock_gettime(CLOCK_REALTIME, &ts[1]);
		ts[1].tv_sec -= 1;
		ts[1].tv_nsec = 0;
		if (t->lease_lost) {
			if (!t->lease_said)
				warning("'%s' was opened by another process during "
					"the replay: it is no longer taken for a "
					"replay's own (a later replay only reads it, as "
					"a file holding data)", t->path);
		} else if (futimens(t->fd, ts) == 0 && fstat(t->fd, &sb) == 0) {
			char v[128];
			mark_of(&sb, v, sizeof(v));
			fsetxattr(t->fd, TARGET_XATTR, v, strlen(v), 0);
		}
		target_lease_release(t);
	}
	target_lease_release(t);
	close(t->fd);
	t->fd = -1;
}
