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
	/* its start before the fork: the child's own start (the kernel's,
	 * delay accounting's) is never before it, even when this process
	 * waits for a CPU after the fork (CI saw the child 86 us earlier) */
	int64_t start = now_mono_ns();
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
		if (w->out)
			wl_output_child(w->out);
		if (w->cmd->shell)
			execl("/bin/sh", "sh", "-c", w->cmd->shell, (char *)NULL);
		else
			execvp(w->cmd->argv[0], w->cmd->argv);
		fprintf(stderr, "iotape: cannot run '%s': %s\n", w->line,
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	if (w->out && wl_output_parent(w->out))
		warning("cannot keep the output of '%s'; no metrics read from it",
			w->line);
	w->pid = pid;
	w->started = 1;
	w->start_ns = start;
	return 0;
}

int workload_hook(const char *cmd, struct hook_run *h)
{
	struct rusage ru;
	int status;
	pid_t pid;

	memset(h, 0, sizeof(*h));
	h->start_ns = now_mono_ns();
	if ((pid = fork()) < 0)
		return error("cannot start '%s': %s", cmd, strerror(errno));
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);   /* lab_signals() ignores it */
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		fprintf(stderr, "iotape: cannot run '%s': %s\n", cmd, strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			status = 127 << 8;
			memset(&ru, 0, sizeof(ru));
			break;
		}
	}
	h->ran = 1;
	h->end_ns = now_mono_ns();
	h->ru = ru;
	h->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

int workloads_steps_done(const struct workload *w, int n, int step)
{
	for (int i = 0; i < n; i++)
		if (w[i].cmd->step < step && !w[i].done)
			return 0;
	return 1;
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

/* ---- output and metrics ---- */

void workloads_outputs(struct workload *w, int n, const int *kind, int all)
{
	for (int i = 0; i < n; i++) {
		int rc;

		if (!kind[i] && !all)
			continue;
		w[i].out = xcalloc(1, sizeof(*w[i].out));
		if ((rc = wl_output_open(w[i].out))) {
			warning("cannot keep the output of '%s': %s; no metrics read "
				"from it", w[i].line, strerror(-rc));
			free(w[i].out);
			w[i].out = NULL;
		}
	}
}

void workloads_outputs_release(struct workload *w, int n)
{
	for (int i = 0; i < n; i++)
		if (w[i].out) {
			wl_output_release(w[i].out);
			free(w[i].out);
			w[i].out = NULL;
		}
}

/* Reads a file whole (fio's --output=FILE) into *buf, NUL-ended; *buf NULL
 * when it cannot be opened. Returns its length. */
static size_t slurp(const char *path, char **buf)
{
	FILE *fp = fopen(path, "r");
	size_t len = 0, cap = 65536, n;

	*buf = NULL;
	if (!fp)
		return 0;
	*buf = xmalloc(cap);
	while ((n = fread(*buf + len, 1, cap - len - 1, fp)) > 0) {
		len += n;
		if (len + 1 == cap)
			*buf = xrealloc(*buf, cap *= 2);
	}
	(*buf)[len] = '\0';
	fclose(fp);
	return len;
}

/* Command i's fio and dd metrics into set, after "cmdN_" when n > 1. */
static void command_metrics(const struct workload *w, int i, int n, int kind,
			    const char *fio_out, int quiet, struct wlm_set *set)
{
	const struct wl_output *out = w->out;
	struct wlm_set one = { 0 };
	char err[256];

	if (kind & WLM_FIO_JSON) {
		char *file = NULL;
		size_t len = fio_out[0] ? slurp(fio_out, &file) : 0;
		const char *text = file;

		if (!file && out && out->buf[0]) {
			text = out->buf[0];
			len = out->len[0];
		}
		if (wlm_fio_json(text ? text : "", text ? len : 0, &one, err,
				 sizeof(err)) < 0 && !quiet)
			warning("cmd%d ('%s'): %s", i + 1, w->line, err);
		free(file);
	}
	if ((kind & WLM_DD) && out && out->buf[1])
		wlm_dd(out->buf[1], out->len[1], &one);
	for (size_t k = 0; k < one.n; k++) {
		char name[80];
		if (n > 1)
			snprintf(name, sizeof(name), "cmd%d_%s", i + 1, one.m[k].name);
		else
			snprintf(name, sizeof(name), "%s", one.m[k].name);
		wlm_add(set, name, one.m[k].value, one.m[k].unit, one.m[k].source);
	}
	wlm_free(&one);
}

void workloads_metrics(struct workload *w, int n, const int *kind,
		       char fio_out[][256], const struct wlm_regex *re, int nre,
		       int quiet, struct wlm_set *set)
{
	char err[256];

	for (int i = 0; i < n; i++) {
		command_metrics(&w[i], i, n, kind[i], fio_out[i], quiet, set);
		if (w[i].out && w[i].out->truncated && !quiet)
			warning("cmd%d printed over %u MiB; metrics read from "
				"the first %u MiB", i + 1, WLO_KEEP_MAX >> 20,
				WLO_KEEP_MAX >> 20);
	}
	for (int k = 0; k < nre; k++) {
		int got = 0;
		for (int i = 0; i < n && !got; i++)
			for (int f = 0; f < 2 && w[i].out && !got; f++) {
				double v;
				if (!w[i].out->buf[f])
					continue;
				got = wlm_regex_match(&re[k], w[i].out->buf[f],
						      w[i].out->len[f], &v, err,
						      sizeof(err));
				if (got == 1)
					wlm_add(set, re[k].name, v, NULL, "regex");
				else if (got < 0 && !quiet)
					warning("%s", err);
			}
		if (!got && !quiet)
			warning("--metric %s: no line of the commands' output "
				"matches", re[k].name);
	}
}

/* ---- the reaper (workload.h) ---- */

static pid_t reaper_pid;

int workload_reaper_start(void)
{
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		pid_t groups[256];
		int n = 0, r = pfd[0];
		int32_t v;
		/* nothing of the capture's held here (its lock, tracefs,
		 * the database): they go when the capture goes */
		if ((r > 3 && close_range(3, (unsigned)r - 1, 0)) ||
		    close_range((unsigned)r + 1, ~0U, 0))
			for (int fd = 3; fd < 4096; fd++)
				if (fd != r)
					close(fd);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		for (;;) {
			ssize_t got = read(r, &v, sizeof(v));
			if (got < 0 && errno == EINTR)
				continue;
			if (got != (ssize_t)sizeof(v))
				break;          /* the capture died */
			if (v == 0)
				_exit(0);       /* it ended as it should */
			if (n < (int)(sizeof(groups) / sizeof(groups[0])))
				groups[n++] = (pid_t)v;
		}
		for (int i = 0; i < n; i++)
			kill(-groups[i], SIGKILL);
		_exit(0);
	}
	close(pfd[0]);
	reaper_pid = pid;
	return pfd[1];
}

pid_t workload_reaper_pid(void)
{
	return reaper_pid;
}

void workload_reaper_add(int fd, pid_t pgid)
{
	int32_t v = (int32_t)pgid;

	if (fd >= 0 && pgid > 0 && write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		warning("cannot tell the workloads' reaper of group %d: %s",
			(int)pgid, strerror(errno));
}

void workload_reaper_end(int fd)
{
	int32_t v = 0;

	if (fd < 0)
		return;
	if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		warning("cannot tell the workloads' reaper the run ended: %s",
			strerror(errno));
	close(fd);
	if (reaper_pid > 0)
		while (waitpid(reaper_pid, NULL, 0) < 0 && errno == EINTR)
			;
	reaper_pid = 0;
}
