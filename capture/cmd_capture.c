/* `iotape capture`: record a real run into one run of the store: block
 * events of the chosen disks (tracefs blk tracer, or blktrace's relay path
 * where it works), /proc samples on the events' clock, each workload's
 * timings, and the machine's settings at start and end; with lab controls
 * (settings, cold cache, memory limit, repeats and sweeps) that are put back
 * on success, error, SIGINT and SIGTERM. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/import.h"
#include "capture/lab.h"
#include "capture/machine.h"
#include "capture/procstat.h"
#include "capture/tracefs.h"
#include "commands.h"
#include "lib/util.h"
#include "schema/store.h"

#define MAX_CMDS 16
#define MAX_DEVS 16
#define MAX_SETS 32
#define MAX_CPUS 256

enum cond_op { OP_GT, OP_GE, OP_LT, OP_LE, OP_EQ };

struct workload {
	char *shell;          /* --cmd string, run with /bin/sh -c */
	char **argv;          /* the command after -- */
	char *line;           /* argv as one line, for the store */
	double after_s;       /* --start-after */
	char when_key[64];    /* --start-when KEY OP VALUE */
	enum cond_op when_op;
	double when_value;
	int has_when;
	/* state of one run */
	pid_t pid;
	int started, done, status;
	int64_t start_ns, end_ns;
	struct rusage ru;
};

struct set_opt {
	char key[96];
	char path[512];
	char *values[32];     /* one value, or a sweep's values */
	int nvalues;
};

struct capture_opts {
	const char *db, *run, *raw, *backend, *state_dir;
	struct machine_paths mp;
	const char *tracefs;
	char *devspecs[MAX_DEVS];
	int ndevspec;
	double interval_s, duration_s;
	struct workload cmds[MAX_CMDS];
	int ncmd;
	struct set_opt sets[MAX_SETS];
	int nset;
	int drop_caches;
	uint64_t mem_limit;
	int repeat;
	unsigned buffer_kb;
	int quiet;
};

/* ---- samples kept in memory until the run is stored ---- */

struct sample_key {
	char source[12];
	char key[64];
	double first, last;   /* values at the first and latest sample */
	int seen;
};

struct sample_row {
	int64_t t_ns;
	uint32_t key;
	double value;
};

struct samples {
	struct sample_key *keys;
	size_t nkeys, capkeys;
	uint32_t *hash;       /* key index + 1, open addressing */
	size_t hcap;
	struct sample_row *rows;
	size_t nrows, caprows;
};

static uint32_t str_hash(const char *a, const char *b)
{
	uint32_t h = 2166136261u;
	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 16777619u;
	h = (h ^ '/') * 16777619u;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 16777619u;
	return h;
}

static uint32_t sample_key_id(struct samples *s, const char *source, const char *key)
{
	size_t i;

	if (2 * (s->nkeys + 1) > s->hcap) {
		size_t ncap = s->hcap ? 2 * s->hcap : 1024;
		free(s->hash);
		s->hash = xcalloc(ncap, sizeof(*s->hash));
		s->hcap = ncap;
		for (size_t k = 0; k < s->nkeys; k++) {
			i = str_hash(s->keys[k].source, s->keys[k].key) & (ncap - 1);
			while (s->hash[i])
				i = (i + 1) & (ncap - 1);
			s->hash[i] = (uint32_t)k + 1;
		}
	}
	for (i = str_hash(source, key) & (s->hcap - 1); s->hash[i];
	     i = (i + 1) & (s->hcap - 1)) {
		struct sample_key *k = &s->keys[s->hash[i] - 1];
		if (!strcmp(k->source, source) && !strcmp(k->key, key))
			return s->hash[i] - 1;
	}
	if (s->nkeys == s->capkeys) {
		s->capkeys = s->capkeys ? 2 * s->capkeys : 512;
		s->keys = xrealloc(s->keys, s->capkeys * sizeof(*s->keys));
	}
	memset(&s->keys[s->nkeys], 0, sizeof(s->keys[0]));
	snprintf(s->keys[s->nkeys].source, sizeof(s->keys[0].source), "%s", source);
	snprintf(s->keys[s->nkeys].key, sizeof(s->keys[0].key), "%s", key);
	s->hash[i] = (uint32_t)++s->nkeys;
	return (uint32_t)s->nkeys - 1;
}

static int sample_cb(void *ctx, int64_t t_ns, const char *source,
		     const char *key, double value)
{
	struct samples *s = ctx;
	uint32_t id = sample_key_id(s, source, key);
	struct sample_key *k = &s->keys[id];

	if (!k->seen)
		k->first = value;
	k->seen = 1;
	k->last = value;
	if (s->nrows == s->caprows) {
		s->caprows = s->caprows ? 2 * s->caprows : 4096;
		s->rows = xrealloc(s->rows, s->caprows * sizeof(*s->rows));
	}
	s->rows[s->nrows++] = (struct sample_row){ t_ns, id, value };
	return 0;
}

static void samples_free(struct samples *s)
{
	free(s->keys);
	free(s->hash);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

/* The value a --start-when key has now: swap_used (kB, SwapTotal -
 * SwapFree); a /proc/vmstat counter as its increase since the capture
 * started (gauges, nr_*, as they are); meminfo and psi values as they are.
 * Returns 0, or -1 when the key was never sampled. */
static int cond_value(struct samples *s, const char *key, double *v)
{
	static const char *const sources[] = { "vmstat", "meminfo", "psi", "stat" };

	if (!strcmp(key, "swap_used")) {
		double tot, fr;
		if (cond_value(s, "SwapTotal", &tot) || cond_value(s, "SwapFree", &fr))
			return -1;
		*v = tot - fr;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++) {
		for (size_t k = 0; k < s->nkeys; k++) {
			struct sample_key *sk = &s->keys[k];
			if (strcmp(sk->source, sources[i]) || strcmp(sk->key, key))
				continue;
			if ((!strcmp(sources[i], "vmstat") && strncmp(key, "nr_", 3)) ||
			    (!strcmp(sources[i], "stat") && strncmp(key, "procs_", 6)))
				*v = sk->last - sk->first;
			else
				*v = sk->last;
			return 0;
		}
	}
	return -1;
}

static int cond_true(struct samples *s, const struct workload *w)
{
	double v;

	if (cond_value(s, w->when_key, &v))
		return 0;
	switch (w->when_op) {
	case OP_GT: return v > w->when_value;
	case OP_GE: return v >= w->when_value;
	case OP_LT: return v < w->when_value;
	case OP_LE: return v <= w->when_value;
	case OP_EQ: return v == w->when_value;
	}
	return 0;
}

/* ---- option values ---- */

/* "30", "30s", "500ms", "2m", "1h" → seconds. */
static int parse_duration(const char *s, const char *opt, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0) || !isfinite(v))
		return error("invalid duration '%s' for %s", s, opt);
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		v *= 60;
	else if (!strcmp(end, "h"))
		v *= 3600;
	else if (*end && strcmp(end, "s"))
		return error("invalid duration '%s' for %s (units: ms s m h)", s, opt);
	*out = v;
	return 0;
}

/* "512M", "1G", "512MiB", "100000000" → bytes (K, M, G are powers of 1024). */
static int parse_size(const char *s, const char *opt, uint64_t *out)
{
	char *end;
	double v;
	double mult = 1;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return error("invalid size '%s' for %s", s, opt);
	switch (*end) {
	case 'k': case 'K': mult = 1024.0; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case '\0': break;
	default: return error("invalid size '%s' for %s", s, opt);
	}
	if (*end && strcmp(end, "iB") && strcmp(end, "B"))
		return error("invalid size '%s' for %s", s, opt);
	*out = (uint64_t)(v * mult);
	return 0;
}

/* "KEY>VALUE" (also >=, <, <=, ==, =). */
static int parse_cond(const char *s, struct workload *w)
{
	const char *p = s;
	char *end;
	size_t klen;

	while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '(' ||
		      *p == ')'))
		p++;
	klen = (size_t)(p - s);
	if (!klen || klen >= sizeof(w->when_key))
		return error("invalid --start-when '%s' (KEY>VALUE, e.g. swap_used>0)", s);
	memcpy(w->when_key, s, klen);
	w->when_key[klen] = '\0';
	if (!strncmp(p, ">=", 2)) { w->when_op = OP_GE; p += 2; }
	else if (!strncmp(p, "<=", 2)) { w->when_op = OP_LE; p += 2; }
	else if (!strncmp(p, "==", 2)) { w->when_op = OP_EQ; p += 2; }
	else if (*p == '>') { w->when_op = OP_GT; p++; }
	else if (*p == '<') { w->when_op = OP_LT; p++; }
	else if (*p == '=') { w->when_op = OP_EQ; p++; }
	else
		return error("invalid --start-when '%s' (KEY>VALUE, e.g. swap_used>0)", s);
	errno = 0;
	w->when_value = strtod(p, &end);
	if (errno || end == p || *end)
		return error("invalid --start-when '%s': '%s' is not a number", s, p);
	w->has_when = 1;
	return 0;
}

static int parse_set(struct capture_opts *o, const char *arg)
{
	struct set_opt *so;
	const char *eq = strchr(arg, '=');
	char *vals, *tok, *save;

	if (o->nset >= MAX_SETS)
		return error("too many --set options (at most %d)", MAX_SETS);
	so = &o->sets[o->nset];
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(so->key) || !eq[1])
		return error("invalid --set '%s' (KEY=VALUE or KEY=V1,V2,...)", arg);
	memcpy(so->key, arg, (size_t)(eq - arg));
	so->key[eq - arg] = '\0';
	if (machine_setting_path(&o->mp, so->key, so->path, sizeof(so->path)))
		return error("invalid --set key '%s' (a sysctl such as "
			     "vm.dirty_ratio, or DEV:queue/ATTR)", so->key);
	vals = xstrdup(eq + 1);
	for (tok = strtok_r(vals, ",", &save); tok && so->nvalues < 32;
	     tok = strtok_r(NULL, ",", &save))
		so->values[so->nvalues++] = xstrdup(tok);
	free(vals);
	if (!so->nvalues)
		return error("invalid --set '%s'", arg);
	o->nset++;
	return 0;
}

/* ---- workloads ---- */

static int64_t mono_ns(void)
{
	return now_mono_ns();
}

/* Starts w in its own process group, in the memory cgroup when cg_procs is
 * set (the child adds itself before exec). */
static int start_workload(struct workload *w, const char *cg_procs)
{
	pid_t pid = fork();

	if (pid < 0)
		return error("cannot start '%s': %s", w->line, strerror(errno));
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
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
		if (w->shell)
			execl("/bin/sh", "sh", "-c", w->shell, (char *)NULL);
		else
			execvp(w->argv[0], w->argv);
		fprintf(stderr, "iotape: cannot run '%s': %s\n", w->line,
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	w->pid = pid;
	w->started = 1;
	w->start_ns = mono_ns();
	return 0;
}

static void reap(struct capture_opts *o)
{
	for (;;) {
		struct rusage ru;
		int status;
		pid_t pid = wait4(-1, &status, WNOHANG, &ru);

		if (pid <= 0)
			return;
		for (int i = 0; i < o->ncmd; i++) {
			struct workload *w = &o->cmds[i];
			if (w->pid != pid || w->done)
				continue;
			w->done = 1;
			w->end_ns = mono_ns();
			w->ru = ru;
			w->status = WIFEXITED(status) ? WEXITSTATUS(status)
						      : 128 + WTERMSIG(status);
		}
	}
}

static void kill_workloads(struct capture_opts *o, int sig)
{
	for (int i = 0; i < o->ncmd; i++)
		if (o->cmds[i].started && !o->cmds[i].done)
			kill(-o->cmds[i].pid, sig);
}

/* ---- one run ---- */

struct run_result {
	char name[256];
	int64_t id;
	int interrupted;
};

static int make_cgroup(struct capture_opts *o, struct lab *lab, char *procs,
		       size_t len, char *err, size_t errlen)
{
	char dir[512], file[600], val[32];
	struct stat sb;
	int v2 = stat("/sys/fs/cgroup/memory", &sb) != 0;

	snprintf(dir, sizeof(dir), v2 ? "%s/fs/cgroup/iotape-%d"
				       : "%s/fs/cgroup/memory/iotape-%d",
		 o->mp.sys, (int)getpid());
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make memory cgroup '%s': %s", dir,
			 strerror(errno));
		return -1;
	}
	lab_note_dir(lab, dir);
	snprintf(val, sizeof(val), "%" PRIu64, o->mem_limit);
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

static void save_settings(struct store *st, int64_t run, struct setting *s,
			  int n, const char *at)
{
	for (int i = 0; i < n; i++)
		store_setting_add(st, run, s[i].key, s[i].value, at);
}

/* Reads tracefs saved_cmdlines ("pid comm" lines) into the run. */
static void save_cmdlines(struct store *st, int64_t run, const char *root)
{
	char path[512], line[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", root);
	if (!(fp = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		unsigned pid;
		char comm[256];
		if (sscanf(line, "%u %255[^\n]", &pid, comm) == 2 &&
		    strcmp(comm, "<...>"))
			store_process_set(st, run, pid, comm);
	}
	fclose(fp);
}

static int store_run(struct capture_opts *o, const char *name, const char *raw,
		     const struct tracefs *tf,
		     struct capdev *devs, int ndev, struct samples *smp,
		     struct setting *set0, int nset0, struct setting *set1,
		     int nset1, uint64_t *lost, int ncpu, const char *tag,
		     int interrupted, int64_t t0, struct run_result *res,
		     char *err, size_t errlen)
{
	struct store *st = NULL;
	struct import_opts io = { .quiet = 1 };
	struct stat sb;
	int64_t run;
	uint64_t lost_total = 0;
	int rc;

	if (store_open(&st, db_path_default(o->db), 1)) {
		snprintf(err, errlen, "%s: %s", db_path_default(o->db),
			 store_errmsg(st));
		store_close(st);
		return -1;
	}
	if ((rc = store_begin(st)))
		goto fail;
	if (stat(raw, &sb) == 0 && sb.st_size > 0) {
		if ((rc = import_one(st, &io, raw, name, &run, err, errlen)))
			goto out;
	} else {
		struct run_info ri = { .name = name, .kind = "capture" };
		if ((rc = store_run_create(st, &ri, &run)) ||
		    (rc = store_run_finish(st, run, "complete", t0)))
			goto fail;
	}
	rc = store_run_set(st, run, "kind", "capture");
	if (!rc)
		rc = store_run_set(st, run, "status", interrupted ? "interrupted"
								  : "complete");
	for (int i = 0; i < nset0 && !rc; i++) {
		if (!strcmp(set0[i].key, "host"))
			rc = store_run_set(st, run, "host", set0[i].value);
		else if (!strcmp(set0[i].key, "kernel.release"))
			rc = store_run_set(st, run, "kernel", set0[i].value);
	}
	if (!rc)
		rc = store_run_set(st, run, "source", "tracefs blk tracer");
	if (rc)
		goto fail;
	save_settings(st, run, set0, nset0, "start");
	save_settings(st, run, set1, nset1, "end");
	for (int i = 0; i < ndev; i++)
		store_device_add(st, run, devs[i].dev, devs[i].name,
				 devs[i].size_bytes, machine_role(&o->mp, devs, ndev, i));
	for (size_t i = 0; i < smp->nrows; i++) {
		struct sample_row *r = &smp->rows[i];
		if ((rc = store_sample_add(st, run, r->t_ns, smp->keys[r->key].source,
					   smp->keys[r->key].key, r->value)))
			goto fail;
	}
	for (int i = 0; i < o->ncmd; i++) {
		struct workload *w = &o->cmds[i];
		struct store_command c = {
			.idx = i, .argv = w->line,
			.start_ns = w->started ? w->start_ns : STORE_NO_TIME,
			.end_ns = w->done ? w->end_ns : STORE_NO_TIME,
			.real_s = (double)(w->end_ns - w->start_ns) / 1e9,
			.user_s = (double)w->ru.ru_utime.tv_sec +
				  (double)w->ru.ru_utime.tv_usec / 1e6,
			.sys_s = (double)w->ru.ru_stime.tv_sec +
				 (double)w->ru.ru_stime.tv_usec / 1e6,
			.status = w->started ? w->status : -1,
		};
		if ((rc = store_command_add(st, run, &c)))
			goto fail;
	}
	for (int c = 0; c < ncpu; c++) {
		char key[32], v[32];
		snprintf(key, sizeof(key), "lost_events_cpu%d", c);
		snprintf(v, sizeof(v), "%" PRIu64, lost[c]);
		store_stat_set(st, run, key, v);
		lost_total += lost[c];
	}
	{
		char v[32];
		snprintf(v, sizeof(v), "%" PRIu64, lost_total);
		store_stat_set(st, run, "lost_events", v);
		snprintf(v, sizeof(v), "%" PRId64, t0);
		store_stat_set(st, run, "capture_start_ns", v);
		store_stat_set(st, run, "backend", "tracefs");
		if (tag)
			store_stat_set(st, run, "tag", tag);
	}
	for (size_t i = 0; i < tf->npid; i++)
		if (tf->comms[i][0])
			store_process_set(st, run, tf->pids[i], tf->comms[i]);
	save_cmdlines(st, run, o->tracefs);
	if ((rc = store_commit(st)))
		goto fail;
	res->id = run;
	snprintf(res->name, sizeof(res->name), "%s", name);
	store_close(st);
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", db_path_default(o->db), store_errmsg(st));
out:
	store_rollback(st);
	store_close(st);
	return -1;
}

static volatile sig_atomic_t got_signal;

/* Runs one capture with the --set values chosen by pick[] (index into each
 * set's values). Returns 0, 1 when interrupted, -1 on error. */
static int capture_one(struct capture_opts *o, const int *pick, const char *name,
		       const char *tag, struct run_result *res)
{
	struct capdev devs[MAX_DEVS];
	char devnames[MAX_DEVS][64];
	int ndev = 0, rc = -1, interrupted = 0;
	char err[2048] = "", raw[600], cg_procs[600] = "";
	struct setting *set0 = NULL, *set1 = NULL;
	int nset0 = 0, nset1 = 0, ncpu = 0, sfd = -1;
	uint64_t lost[MAX_CPUS] = { 0 };
	struct samples smp = { 0 };
	struct tracefs tf = { .pipe_fd = -1, .out_fd = -1 };
	struct lab lab;
	sigset_t mask;
	int64_t t0, next_sample, end_at, last_wait_note = 0;
	int lab_on = 0, fatal = 0, nsamples = 0;

	for (int i = 0; i < o->ncmd; i++) {
		struct workload *w = &o->cmds[i];
		w->pid = 0;
		w->started = w->done = w->status = 0;
		w->start_ns = w->end_ns = 0;
		memset(&w->ru, 0, sizeof(w->ru));
	}
	for (int i = 0; i < o->ndevspec; i++)
		if (machine_add_device(&o->mp, o->devspecs[i], 0, devs, &ndev,
				       MAX_DEVS, err, sizeof(err)))
			goto out;
	if (!o->ndevspec &&
	    machine_default_devices(&o->mp, devs, &ndev, MAX_DEVS, err, sizeof(err)))
		goto out;
	for (int i = 0; i < ndev; i++)
		snprintf(devnames[i], sizeof(devnames[i]), "%s", devs[i].name);

	if (lab_begin(&lab, o->state_dir, err, sizeof(err)))
		goto out;
	lab_on = 1;
	/* From the first change on, signals are read from a signalfd, so
	 * whatever arrives, the changes are put back. */
	sfd = lab_signals(&mask, 1);
	for (int i = 0; i < o->nset; i++)
		if (lab_set(&lab, o->sets[i].path, o->sets[i].values[pick[i]], err,
			    sizeof(err)))
			goto out;
	machine_settings(&o->mp, devs, ndev, &set0, &nset0);
	{
		char v[64];
		set0 = xrealloc(set0, (size_t)(nset0 + 3) * sizeof(*set0));
		snprintf(set0[nset0].key, sizeof(set0[0].key), "capture.mem_limit_bytes");
		snprintf(set0[nset0++].value, sizeof(set0[0].value), "%" PRIu64, o->mem_limit);
		snprintf(set0[nset0].key, sizeof(set0[0].key), "capture.drop_caches");
		snprintf(set0[nset0++].value, sizeof(set0[0].value), "%d", o->drop_caches);
		snprintf(v, sizeof(v), "%g", o->interval_s);
		snprintf(set0[nset0].key, sizeof(set0[0].key), "capture.interval_s");
		snprintf(set0[nset0++].value, sizeof(set0[0].value), "%s", v);
	}
	if (o->mem_limit &&
	    make_cgroup(o, &lab, cg_procs, sizeof(cg_procs), err, sizeof(err)))
		goto out;
	if (o->drop_caches) {
		char p[512];
		sync();
		snprintf(p, sizeof(p), "%s/sys/vm/drop_caches", o->mp.proc);
		if (sysfs_write(p, "3")) {
			snprintf(err, sizeof(err), "cannot drop caches (%s): %s", p,
				 strerror(errno));
			goto out;
		}
	}
	if (o->raw)
		snprintf(raw, sizeof(raw), "%s", o->raw);
	else if (lab_scratch_file(&lab, "iotape-capture", raw, sizeof(raw), err,
				  sizeof(err)))
		goto out;

	if (tracefs_start(&tf, &lab, o->tracefs, "/sys/block", devnames, ndev,
			  o->buffer_kb, raw, err, sizeof(err)))
		goto out;
	/* A longer pid→comm table in tracefs for the run's process names. */
	{
		char p[512];
		snprintf(p, sizeof(p), "%s/saved_cmdlines_size", o->tracefs);
		lab_set(&lab, p, "8192", err, sizeof(err));
		err[0] = '\0';
	}
	t0 = mono_ns();
	end_at = o->duration_s > 0 ? t0 + (int64_t)(o->duration_s * 1e9) : INT64_MAX;
	next_sample = t0;
	if (!o->quiet)
		fprintf(stderr, "iotape: capturing %d device%s (%s%s)%s\n", ndev,
			ndev == 1 ? "" : "s", devnames[0], ndev > 1 ? ", ..." : "",
			o->ncmd ? "" : "; Ctrl-C stops");

	for (;;) {
		int64_t now = mono_ns(), wake = end_at;
		int sampled = 0;
		int all_done = o->ncmd > 0, pending = 0;
		struct signalfd_siginfo si;
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };

		if (now >= next_sample) {
			char e2[512];
			if (procstat_sample(o->mp.proc, now, sample_cb, &smp, e2,
					    sizeof(e2)) && !o->quiet)
				warning("sampling: %s", e2);
			next_sample += (int64_t)(o->interval_s * 1e9);
			if (next_sample < now)
				next_sample = now + (int64_t)(o->interval_s * 1e9);
			sampled = 1;
			nsamples++;
		}
		/* a --start-when key the samples never name would wait for
		 * ever: refuse it after the first sample */
		for (int i = 0; sampled && nsamples == 1 && i < o->ncmd; i++) {
			double v;
			if (o->cmds[i].has_when && cond_value(&smp, o->cmds[i].when_key, &v)) {
				snprintf(err, sizeof(err), "unknown --start-when key '%s': "
					 "not swap_used nor a /proc/vmstat, meminfo or psi "
					 "value", o->cmds[i].when_key);
				fatal = 1;
				goto stop;
			}
		}
		if (!o->quiet && now - last_wait_note > 30000000000ll) {
			for (int i = 0; i < o->ncmd; i++) {
				double v = 0;
				struct workload *w = &o->cmds[i];
				if (w->started || !w->has_when || now - t0 < 30000000000ll)
					continue;
				cond_value(&smp, w->when_key, &v);
				fprintf(stderr, "iotape: still waiting to start '%s': %s is "
					"%g; --duration caps the run\n", w->line,
					w->when_key, v);
				last_wait_note = now;
			}
		}
		for (int i = 0; i < o->ncmd; i++) {
			struct workload *w = &o->cmds[i];
			if (!w->started) {
				int go = now - t0 >= (int64_t)(w->after_s * 1e9) &&
					 (!w->has_when || cond_true(&smp, w));
				if (go && start_workload(w, cg_procs[0] ? cg_procs : NULL))
					goto stop;
				if (!w->started) {
					pending = 1;
					int64_t at = t0 + (int64_t)(w->after_s * 1e9);
					if (!w->has_when && at < wake)
						wake = at;
				}
			}
			if (!w->done)
				all_done = 0;
		}
		if (all_done && !pending)
			break;
		if (now >= end_at) {
			kill_workloads(o, SIGTERM);
			break;
		}
		if (next_sample < wake)
			wake = next_sample;
		{
			int64_t ms = (wake - mono_ns()) / 1000000;
			poll(&pfd, 1, ms < 0 ? 0 : ms > 1000 ? 1000 : (int)ms + 1);
		}
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			interrupted = 1;
			got_signal = (sig_atomic_t)si.ssi_signo;
		}
		reap(o);
		if (interrupted)
			goto stop;
	}
stop:
	if (interrupted) {
		kill_workloads(o, SIGTERM);
		if (!o->quiet)
			fprintf(stderr, "iotape: interrupted (%s); storing what was "
				"captured\n", strsignal(got_signal));
	}
	for (int tries = 0; tries < 100; tries++) {
		int alive = 0;
		reap(o);
		for (int i = 0; i < o->ncmd; i++)
			alive |= o->cmds[i].started && !o->cmds[i].done;
		if (!alive)
			break;
		if (tries == 50)
			kill_workloads(o, SIGKILL);
		usleep(20000);
	}
	procstat_sample(o->mp.proc, mono_ns(), sample_cb, &smp, NULL, 0);
	if (tracefs_stop(&tf, lost, MAX_CPUS, &ncpu, err, sizeof(err)))
		goto out;
	machine_settings(&o->mp, devs, ndev, &set1, &nset1);
	/* Everything changed goes back before the (possibly long) import. */
	if (lab_end(&lab))
		warning("some settings were not restored; see above");
	lab_on = 0;
	if (fatal) {
		rc = -1;
		goto out;
	}
	for (int i = 0; i < o->ncmd && !o->quiet; i++) {
		struct workload *w = &o->cmds[i];
		if (w->done && w->status)
			warning("command %d ('%s') exited %d%s", i, w->line, w->status,
				w->status == 137 ? " (killed: out of memory in the "
				"cgroup?)" : w->status > 128 ? " (killed by a signal)" : "");
		else if (!w->started)
			warning("command %d ('%s') never started", i, w->line);
	}
	for (int c = 0; c < ncpu; c++)
		if (lost[c] && !o->quiet)
			warning("CPU %d lost %" PRIu64 " events (tracefs ring buffer "
				"overrun); raise --buffer-kb", c, lost[c]);
	rc = store_run(o, name, raw, &tf, devs, ndev, &smp, set0, nset0, set1, nset1,
		       lost, ncpu, tag, interrupted, t0, res, err, sizeof(err));
	if (!rc)
		rc = interrupted;
out:
	if (tf.running || tf.pipe_fd >= 0 || tf.out_fd >= 0) {
		char e2[256];
		tracefs_stop(&tf, lost, MAX_CPUS, &ncpu, e2, sizeof(e2));
	}
	if (lab_on && lab_end(&lab))
		warning("some settings were not restored; see above");
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_UNBLOCK, &mask, NULL);
	}
	if (raw[0] && !o->raw)
		unlink(raw);
	tracefs_free(&tf);
	free(set0);
	free(set1);
	samples_free(&smp);
	if (rc < 0)
		error("%s", err[0] ? err : "capture failed");
	return rc;
}

static void capture_usage(FILE *fp)
{
	fprintf(fp,
"usage: iotape capture [--db FILE] [--run NAME] [-d DEV]... [--interval SEC]\n"
"                      [--duration SEC] [--cmd 'SHELL COMMAND']...\n"
"                      [--start-after DUR] [--start-when KEY>VALUE]\n"
"                      [--set KEY=VALUE[,VALUE...]]... [--drop-caches]\n"
"                      [--mem-limit SIZE] [--repeat N] [--raw FILE]\n"
"                      [--buffer-kb KB] [-- CMD [ARG...]]\n"
"       iotape capture --reset\n"
"\n"
"Records block events of the devices, /proc samples, each command's timings\n"
"and the settings at start and end into one run; puts back every setting it\n"
"changed (also on Ctrl-C and SIGTERM).\n"
"  -d, --device DEV  a device to trace (path, or major:minor; a file's path\n"
"                    means the disk holding it); repeatable;\n"
"                    default: the disk of the current folder and every disk\n"
"                    holding active swap; partitions map to their disk\n"
"  --interval SEC    seconds between /proc samples (default 1; 0.1 works)\n"
"  --duration SEC    stop after this long (units ms s m h; default: when the\n"
"                    commands end, or at Ctrl-C without commands)\n"
"  --cmd 'COMMAND'   a workload run with /bin/sh -c; repeatable\n"
"  --start-after DUR start the preceding --cmd this long after the start\n"
"  --start-when KEY>VALUE  start the preceding --cmd when a sample says so:\n"
"                    swap_used (kB), a /proc/vmstat counter (its increase\n"
"                    since the start, e.g. pswpout>0) or gauge (nr_dirty),\n"
"                    a meminfo or psi value; ops > >= < <= ==\n"
"  --set KEY=VALUE   a sysctl (vm.dirty_ratio=10) or a queue attribute\n"
"                    (loop0:queue/scheduler=bfq) for the run, restored after;\n"
"                    V1,V2,... sweeps: one run per value (NAME[KEY=V])\n"
"  --drop-caches     sync and drop the page cache before each run\n"
"  --mem-limit SIZE  run the commands in a memory cgroup of SIZE (512M, 1G)\n"
"  --repeat N        N runs, named NAME.1 .. NAME.N\n"
"  --raw FILE        keep the binary trace in FILE (blkparse -i - < FILE)\n"
"  --buffer-kb KB    tracefs ring buffer per CPU (default 16384)\n"
"  --reset           put back what a killed capture left changed\n"
"  --db FILE         the database (default $IOTAPE_DB or iotape.db)\n"
"  --run NAME        name of the run (default: capture)\n"
"  --quiet           no progress or warnings on stderr\n"
"  --proc DIR, --tracefs DIR, --state-dir DIR  where /proc, tracefs and the\n"
"                    lock and state file are (for tests)\n"
"Needs root. Captures never overlap (a lock in /run/iotape).\n");
}

static void workload_line(struct workload *w)
{
	size_t len = 0;

	if (w->shell) {
		w->line = xstrdup(w->shell);
		return;
	}
	for (char **a = w->argv; *a; a++)
		len += strlen(*a) + 3;
	w->line = xcalloc(1, len + 1);
	for (char **a = w->argv; *a; a++) {
		if (a != w->argv)
			strcat(w->line, " ");
		strcat(w->line, *a);
	}
}

int cmd_capture(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'b' },
		{ "run", required_argument, NULL, 'r' },
		{ "device", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'D' },
		{ "cmd", required_argument, NULL, 'c' },
		{ "start-after", required_argument, NULL, 'a' },
		{ "start-when", required_argument, NULL, 'w' },
		{ "set", required_argument, NULL, 's' },
		{ "drop-caches", no_argument, NULL, 'C' },
		{ "mem-limit", required_argument, NULL, 'm' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "raw", required_argument, NULL, 'R' },
		{ "buffer-kb", required_argument, NULL, 'k' },
		{ "reset", no_argument, NULL, 'Z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "tracefs", required_argument, NULL, 'T' },
		{ "proc", required_argument, NULL, 'P' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct capture_opts o = {
		.interval_s = 1, .repeat = 1, .buffer_kb = 16384,
		.mp = { .proc = "/proc", .sys = "/sys" },
		.tracefs = "/sys/kernel/tracing", .state_dir = "/run/iotape",
	};
	struct workload *last = NULL;
	int c, reset = 0, rc = 0, combos = 1, pick[MAX_SETS] = { 0 };
	uint64_t v;
	char base[256];

	optind = 1;
	while ((c = getopt_long(argc, argv, "+hd:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.db = optarg; break;
		case 'r': o.run = optarg; break;
		case 'd':
			if (o.ndevspec >= MAX_DEVS)
				return error("too many devices (at most %d)", MAX_DEVS);
			o.devspecs[o.ndevspec++] = optarg;
			break;
		case 'i':
			if (parse_duration(optarg, "--interval", &o.interval_s) ||
			    o.interval_s < 0.01 || o.interval_s > 3600)
				{ error("--interval takes 0.01 s to 1 h"); return 2; }
			break;
		case 'D':
			if (parse_duration(optarg, "--duration", &o.duration_s))
				return 2;
			break;
		case 'c':
			if (o.ncmd >= MAX_CMDS)
				{ error("too many commands (at most %d)", MAX_CMDS); return 2; }
			last = &o.cmds[o.ncmd++];
			last->shell = optarg;
			break;
		case 'a':
			if (!last)
				{ error("--start-after needs a --cmd before it"); return 2; }
			if (parse_duration(optarg, "--start-after", &last->after_s))
				return 2;
			break;
		case 'w':
			if (!last)
				{ error("--start-when needs a --cmd before it"); return 2; }
			if (parse_cond(optarg, last))
				return 2;
			break;
		case 's':
			if (parse_set(&o, optarg))
				return 2;
			break;
		case 'C': o.drop_caches = 1; break;
		case 'm':
			if (parse_size(optarg, "--mem-limit", &o.mem_limit))
				return 2;
			break;
		case 'n':
			if (parse_u64(optarg, "--repeat", &v) || v < 1 || v > 1000)
				{ error("--repeat takes 1 to 1000"); return 2; }
			o.repeat = (int)v;
			break;
		case 'R': o.raw = optarg; break;
		case 'k':
			if (parse_u64(optarg, "--buffer-kb", &v) || v < 64 || v > 4194304)
				{ error("--buffer-kb takes 64 to 4194304"); return 2; }
			o.buffer_kb = (unsigned)v;
			break;
		case 'Z': reset = 1; break;
		case 'q': o.quiet = 1; break;
		case 'T': o.tracefs = optarg; break;
		case 'P': o.mp.proc = optarg; break;
		case 'S': o.state_dir = optarg; break;
		case 'h': capture_usage(stdout); return 0;
		default: capture_usage(stderr); return 2;
		}
	}
	if (reset)
		return lab_reset(o.state_dir) ? -1 : 0;
	if (o.run && check_run_name(o.run))
		return 2;
	if (optind < argc) {
		if (o.ncmd >= MAX_CMDS)
			return error("too many commands (at most %d)", MAX_CMDS);
		o.cmds[o.ncmd].argv = argv + optind;
		o.ncmd++;
	}
	for (int i = 0; i < o.ncmd; i++)
		workload_line(&o.cmds[i]);
	if (geteuid() != 0)
		return error("capture needs root (tracefs, sysfs settings)");
	for (int i = 0; i < o.nset; i++)
		combos *= o.sets[i].nvalues;
	snprintf(base, sizeof(base), "%s", o.run ? o.run : "capture");
	if (!o.run) {
		/* a free default name */
		struct store *st = NULL;
		if (!store_open(&st, db_path_default(o.db), 1))
			store_run_free_name(st, "capture", base, sizeof(base));
		store_close(st);
	}
	/* every run's name is free before anything runs */
	{
		struct store *st = NULL;
		if (store_open(&st, db_path_default(o.db), 1)) {
			error("%s: %s", db_path_default(o.db), store_errmsg(st));
			store_close(st);
			return -1;
		}
		for (int k = 0; k < combos && !rc; k++) {
			char tag[1024] = "", name[1400];
			int rest = k;
			size_t tl = 0;
			int64_t id;
			for (int i = 0; i < o.nset; i++) {
				int pk = rest % o.sets[i].nvalues;
				rest /= o.sets[i].nvalues;
				if (o.sets[i].nvalues > 1 && tl < sizeof(tag))
					tl += (size_t)snprintf(tag + tl, sizeof(tag) - tl,
						"%s%s=%s", tl ? "," : "", o.sets[i].key,
						o.sets[i].values[pk]);
			}
			for (int r = 1; r <= o.repeat && !rc; r++) {
				snprintf(name, sizeof(name), "%s%s%s%s", base,
					 tag[0] ? "[" : "", tag, tag[0] ? "]" : "");
				if (o.repeat > 1) {
					size_t l = strlen(name);
					snprintf(name + l, sizeof(name) - l, ".%d", r);
				}
				if (!store_run_find(st, name, &id))
					rc = error("%s: a run named '%s' exists; give "
						   "another --run", db_path_default(o.db),
						   name);
			}
		}
		store_close(st);
		if (rc)
			return -1;
	}
	for (int k = 0; k < combos && rc >= 0 && rc != 1; k++) {
		char tag[1024] = "", name[1400];
		int rest = k;
		size_t tl = 0;
		for (int i = 0; i < o.nset; i++) {
			pick[i] = rest % o.sets[i].nvalues;
			rest /= o.sets[i].nvalues;
			if (o.sets[i].nvalues > 1 && tl < sizeof(tag))
				tl += (size_t)snprintf(tag + tl, sizeof(tag) - tl, "%s%s=%s",
						       tl ? "," : "", o.sets[i].key,
						       o.sets[i].values[pick[i]]);
		}
		for (int r = 1; r <= o.repeat && rc >= 0 && rc != 1; r++) {
			struct run_result res = { 0 };
			snprintf(name, sizeof(name), "%s%s%s%s", base, tag[0] ? "[" : "",
				 tag, tag[0] ? "]" : "");
			if (o.repeat > 1) {
				size_t l = strlen(name);
				snprintf(name + l, sizeof(name) - l, ".%d", r);
			}
			rc = capture_one(&o, pick, name, tag[0] ? tag : NULL, &res);
			if (rc >= 0 && !o.quiet)
				fprintf(stderr, "iotape: stored run '%s'%s; see 'iotape "
					"report %s'\n", res.name,
					rc == 1 ? " (interrupted)" : "", res.name);
		}
	}
	for (int i = 0; i < o.ncmd; i++)
		free(o.cmds[i].line);
	for (int i = 0; i < o.nset; i++)
		for (int k = 0; k < o.sets[i].nvalues; k++)
			free(o.sets[i].values[k]);
	return rc < 0 ? -1 : rc == 1 ? 128 + (got_signal ? (int)got_signal : SIGINT) : 0;
}
