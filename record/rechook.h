/* The recorder's --hook: a shell command started after each save with the
 * saved run in its environment, never waited for where the recorder
 * drains (started with posix_spawn, reaped later without blocking). */
#ifndef IOTAPE_RECHOOK_H
#define IOTAPE_RECHOOK_H

#include <stddef.h>
#include <sys/types.h>

#define RECHOOK_MAX 8         /* hooks running at once */

struct rechook {
	const char *cmd;            /* run by /bin/sh -c; NULL: none */
	pid_t pid[RECHOOK_MAX];     /* 0: a free slot */
	char run[RECHOOK_MAX][256]; /* the run each was started for */
};

/* What a hook is told, as environment variables of the same names. */
struct rechook_env {
	const char *run;            /* IOTAPE_RUN: the saved run's name */
	const char *trigger;        /* IOTAPE_TRIGGER: the --trigger, or manual */
	const char *threshold;      /* IOTAPE_THRESHOLD */
	const char *value;          /* IOTAPE_VALUE: what it measured */
	const char *db;             /* IOTAPE_DB: the database it is in */
};

/* Starts h->cmd with /bin/sh -c, stdin from /dev/null, stdout and stderr
 * the recorder's, no signal blocked, and the recorder's environment plus
 * e's variables. Does not wait. Returns its pid, or -1 with a message in
 * err (RECHOOK_MAX still running, or posix_spawn(3) failed). */
pid_t rechook_start(struct rechook *h, const struct rechook_env *e, char *err,
		    size_t errlen);

/* Called for a hook that ended: the run it was for and its wait status
 * (wait(2)). */
typedef void (*rechook_done_fn)(void *ctx, const char *run, pid_t pid,
				int status);

/* Reaps every hook that has ended, without waiting (waitpid WNOHANG), and
 * calls done for each. Returns the number still running. */
int rechook_reap(struct rechook *h, rechook_done_fn done, void *ctx);

#endif
