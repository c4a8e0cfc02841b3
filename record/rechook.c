/* The recorder's --hook (see rechook.h): posix_spawn(3) of /bin/sh -c CMD
 * with the saved run in the environment, and a reaper that never waits. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "record/rechook.h"
#include "lib/util.h"

extern char **environ;

static const char *const names[] = { "IOTAPE_RUN=", "IOTAPE_TRIGGER=",
	"IOTAPE_THRESHOLD=", "IOTAPE_VALUE=", "IOTAPE_DB=" };

/* environ without our names, then e's: a NULL-ended array whose strings
 * (ours) are freed by free_env(). */
static char **make_env(const struct rechook_env *e, size_t *nours)
{
	const char *vals[] = { e->run, e->trigger, e->threshold, e->value, e->db };
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + ARRAY_SIZE(names) + 1, sizeof(*env));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		size_t len = strlen(names[i]) + strlen(vals[i] ? vals[i] : "") + 1;
		env[k] = xmalloc(len);
		snprintf(env[k++], len, "%s%s", names[i], vals[i] ? vals[i] : "");
	}
	*nours = k;
	for (size_t i = 0; i < n; i++) {
		int ours = 0;
		for (size_t j = 0; j < ARRAY_SIZE(names) && !ours; j++)
			ours = !strncmp(environ[i], names[j], strlen(names[j]));
		if (!ours)
			env[k++] = environ[i];
	}
	env[k] = NULL;
	return env;
}

pid_t rechook_start(struct rechook *h, const struct rechook_env *e, char *err,
		    size_t errlen)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dfl;
	char *argv[] = { "sh", "-c", (char *)h->cmd, NULL };
	char **env;
	size_t nours;
	pid_t pid;
	int slot = -1, rc;

	for (int i = 0; i < RECHOOK_MAX && slot < 0; i++)
		if (!h->pid[i])
			slot = i;
	if (slot < 0) {
		snprintf(err, errlen, "not starting the hook for '%s': %d hooks are "
			 "still running", e->run, RECHOOK_MAX);
		return -1;
	}
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	sigaddset(&dfl, SIGUSR1);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	env = make_env(e, &nours);
	rc = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, env);
	for (size_t i = 0; i < nours; i++)
		free(env[i]);
	free(env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc) {
		snprintf(err, errlen, "cannot start the hook for '%s': %s", e->run,
			 strerror(rc));
		return -1;
	}
	h->pid[slot] = pid;
	snprintf(h->run[slot], sizeof(h->run[slot]), "%s", e->run);
	return pid;
}

int rechook_reap(struct rechook *h, rechook_done_fn done, void *ctx)
{
	int running = 0;

	for (int i = 0; i < RECHOOK_MAX; i++) {
		int status;
		pid_t p;

		if (!h->pid[i])
			continue;
		p = waitpid(h->pid[i], &status, WNOHANG);
		if (p == 0) {
			running++;
			continue;
		}
		if (p == h->pid[i] && done)
			done(ctx, h->run[i], p, status);
		h->pid[i] = 0;     /* ended (or not ours any more: ECHILD) */
	}
	return running;
}
