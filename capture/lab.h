/* Lab controls that change the machine (sysfs and procfs settings, tracefs,
 * cgroups) and put it back: every change is written to a state file before
 * it is made, so a capture killed with SIGKILL leaves a record that the next
 * capture refuses on and `iotape capture --reset` restores. */
#ifndef IOTAPE_LAB_H
#define IOTAPE_LAB_H

#include <stddef.h>

/* Where the lock and the state file live unless --state-dir says. */
#define LAB_DIR_DEFAULT "/run/iotape"

struct lab {
	char dir[256];        /* state folder, e.g. /run/iotape */
	char state[300];      /* dir/capture.state */
	int lock_fd;          /* flock held while a capture runs */
	int tracer_fd;        /* flock on tracefs itself, machine-wide */
	int state_fd;         /* the state file, appended to and fsynced */
	char umount[256];     /* a tracefs mount we made, to undo last */
};

/* Takes the capture lock in dir (creating dir), then the machine's (a
 * flock on tracefs's current_tracer, through a mount of its own: seen by
 * captures in other containers and mount namespaces, whose dir is another
 * file; skipped where tracefs cannot be mounted), waiting while another
 * capture holds either, so captures never overlap (the tracer is one per
 * machine). Fails with a message in err when a state file from a killed
 * capture is there (naming what it left and pointing at --reset). Returns 0
 * or -1. */
int lab_begin(struct lab *lab, const char *dir, char *err, size_t errlen);

/* Without taking the lock or changing anything: fails with lab_begin()'s
 * message when a capture or replay that is no longer running (nobody holds
 * the lock) left its state file in dir: killed (its pid is gone), or what
 * it could not put back (the machine may still run with those settings,
 * so a measurement now would be of them). A state file under a held lock
 * belongs to a capture or replay running now, which puts it back itself:
 * what changes no shared setting may run beside it (0). Returns 0 or -1
 * with err. */
int lab_check(const char *dir, char *err, size_t errlen);

/* 1 when a capture or replay holds the lock in dir (it runs), else 0. */
int lab_busy(const char *dir);

/* Writes value into the file at path (a sysctl, a queue attribute, a tracefs
 * control), first recording its present value in the state file. Values
 * shown as "[choice] other" (schedulers) and "N (expanded: M)" (tracefs
 * buffer sizes) are recorded as the selected choice and M. For a sysctl of
 * a pair (vm.dirty_bytes and vm.dirty_ratio, vm.dirty_background_bytes and
 * vm.dirty_background_ratio: writing one zeroes the other) its partner's
 * value is recorded first, so the pair is put back by writing whichever
 * was not 0. Returns 0, or -1 with "cannot set PATH to 'VALUE': ..." in
 * err. */
int lab_set(struct lab *lab, const char *path, const char *value, char *err,
	    size_t errlen);

/* Records that folder path was made (a cgroup) and is removed on restore. */
int lab_note_dir(struct lab *lab, const char *path);

/* Records a scratch file (the raw trace) that --reset removes. */
int lab_note_file(struct lab *lab, const char *path);

/* Makes an empty scratch file PREFIX.XXXXXX in $TMPDIR (else /var/tmp) for a
 * raw trace, recorded with lab_note_file(); its path goes to path (len
 * bytes). Returns 0, or -1 with a message in err (path then ""). The caller
 * removes it when done. */
int lab_scratch_file(struct lab *lab, const char *prefix, char *path,
		     size_t len, char *err, size_t errlen);

/* Records a tracefs mount point made by the capture (unmounted on restore). */
int lab_note_mount(struct lab *lab, const char *path);

#include <signal.h>

/* Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT (and SIGCHLD when child is
 * set) arrive on a signalfd instead of ending the process, so a caller that
 * changed the machine can put it back whatever arrives. Their dispositions
 * are reset first: a shell starts background jobs with SIGINT and SIGQUIT
 * ignored, and an ignored signal never reaches a signalfd. Fills *mask (for
 * SIG_UNBLOCK later) and returns the signalfd (non-blocking), or -1 with
 * errno set. Also ignores SIGPIPE (a closed stdout or stderr pipe must not
 * end the process before it puts tracefs back): a child must set SIGPIPE to
 * SIG_DFL before exec. */
int lab_signals(sigset_t *mask, int child);

/* Puts back everything recorded, in reverse order of change (tracefs
 * unmounted last), then removes the state file and releases the lock. What
 * could not be put back stays in the state file (the rest removed from it)
 * for `--reset`, each said on stderr with the command that puts it back by
 * hand. Returns the number of entries it could not restore, 0 when all
 * went back. */
int lab_end(struct lab *lab);

/* `--reset`: restores what a killed capture or replay left in dir's state
 * file (if any), as lab_end() does (a tracefs since unmounted is mounted
 * for it, then unmounted), and removes what went back from the file.
 * Prints what it did to stdout and what failed, with the command that puts
 * it back by hand, on stderr; may be run again until the file is gone.
 * Returns 0, or -1 when a capture or replay is running (lock held: its
 * pid named; or, with a state file to restore, the machine's lock held by
 * one in another container) or something could not be restored. */
int lab_reset(const char *dir);

/* Reads the first line of the file at path into out (outlen bytes),
 * without the newline; for "[a] b" choices, the selected one. Returns 0 or
 * -errno. */
int sysfs_read(const char *path, char *out, size_t outlen);

/* Writes value (plus a newline) to the file at path. Returns 0 or -errno. */
int sysfs_write(const char *path, const char *value);

#endif
