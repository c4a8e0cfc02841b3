/* The workloads of a capture (see workload.h): starting them in their own
 * process group and memory cgroup, reaping, ending, and their start
 * conditions on the samples. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/workload.h"
#include "lib/util.h"

void workload_init(struct workload *w, const struct capture_cmd *cmd)
{
	size_t len = 0;

	memset(w, 0, sizeof(*w));
	w->cmd = cmd;
	if (cmd->shell) {
		w->line = xstrdup(cmd->shell);
		return;
	}
	for (char *const *a = cmd->argv; *a; a++)
		len += strlen(*a) + 3;
	w->line = xcalloc(1, len + 1);
	for (char *const *a = cmd->argv; *a; a++) {
		if (a != cmd->argv)
			strcat(w->line, " ");
		strcat(w->line, *a);
	}
}

void workload_reset(struct workload *w)
{
	w->pid = 0;
	w->started = w->done = w->status = 0;
	w->start_ns = w->end_ns = 0;
	memset(&w->ru, 0, sizeof(w->ru));
}

void workload_release(struct workload *w)
{
	free(w->line);
	w->line = NULL;
}

static int cond_true(const struct samples *s, const struct capture_cmd *c)
{
	double v;

	if (samples_value(s, c->when_key, &v))
		return 0;
	switch (c->when_op) {
	case CAPTURE_GT: return v > c->when_value;
	case CAPTURE_GE: return v >= c->when_value;
	case CAPTURE_LT: return v < c->when_value;
	case CAPTURE_LE: return v <= c->when_value;
	case CAPTURE_EQ: return v == c->when_value;
	}
	return 0;
}

int workload_due(const struct workload *w, const struct samples *smp,
		 int64_t since_start_ns)
{
	return since_start_ns >= (int64_t)(w->cmd->after_s * 1e9) &&
	       (!w->cmd->has_when || cond_true(smp, w->cmd));
}

int workload_start(struct workload *w, const char *cg_procs)
{
	pid_t pid = fork();

	if (pid < 0)
		return error("cannot start '%s': %s", w->line, strerror(errno));
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);   /* lab_signals() ignores it */
		setpgid(0, 0);
		if (cg_procs) {
			char buf[32];
			int fd = open(cg_procs, O_WRONLY);
			snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
			if (fd < 0 || write(fd, buf, strlen(buf)) < 0) {
				fprintf(stderr, "iotape: cannot join memory cgroup "
					"'%s': %s\n", cg_procs, strerror(errno));
				_exit(126);
			}
			close(fd);
		}
		if (w->cmd->shell)
			execl("/bin/sh", "sh", "-c", w->cmd->shell, (char *)NULL);
		else
			execvp(w->cmd->argv[0], w->cmd->argv);
		fprintf(stderr, "iotape: cannot run '%s': %s\n", w->line,
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	w->pid = pid;
	w->started = 1;
	w->start_ns = now_mono_ns();
	return 0;
}

void workloads_reap(struct workload *w, int n)
{
	for (;;) {
		struct rusage ru;
		int status;
		pid_t pid = wait4(-1, &status, WNOHANG, &ru);

		if (pid <= 0)
			return;
		for (int i = 0; i < n; i++) {
			if (w[i].pid != pid || w[i].done)
				continue;
			w[i].done = 1;
			w[i].end_ns = now_mono_ns();
			w[i].ru = ru;
			w[i].status = WIFEXITED(status) ? WEXITSTATUS(status)
							: 128 + WTERMSIG(status);
		}
	}
}

void workloads_kill(struct workload *w, int n, int sig)
{
	for (int i = 0; i < n; i++)
		if (w[i].started && !w[i].done)
			kill(-w[i].pid, sig);
}

int workloads_alive(const struct workload *w, int n)
{
	int alive = 0;

	for (int i = 0; i < n; i++)
		alive |= w[i].started && !w[i].done;
	return alive;
}

int workload_cgroup(const char *sys, uint64_t limit, struct lab *lab,
		    char *procs, size_t len, char *err, size_t errlen)
{
	char dir[512], file[600], val[32];
	struct stat sb;
	int v2 = stat("/sys/fs/cgroup/memory", &sb) != 0;

	snprintf(dir, sizeof(dir), v2 ? "%s/fs/cgroup/iotape-%d"
				       : "%s/fs/cgroup/memory/iotape-%d",
		 sys, (int)getpid());
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make memory cgroup '%s': %s", dir,
			 strerror(errno));
		return -1;
	}
	lab_note_dir(lab, dir);
	snprintf(val, sizeof(val), "%" PRIu64, limit);
	snprintf(file, sizeof(file), "%s/%s", dir,
		 v2 ? "memory.max" : "memory.limit_in_bytes");
	if (sysfs_write(file, val)) {
		snprintf(err, errlen, "cannot set '%s' to %s: %s", file, val,
			 strerror(errno));
		return -1;
	}
	snprintf(procs, len, "%s/cgroup.procs", dir);
	return 0;
}
