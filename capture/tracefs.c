/* The tracefs blk tracer in binary mode, read by a thread (each CPU's raw
 * pages, merged) into a file or a sink. */
#include "tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace/blktrace_format.h"
#include "lib/util.h"

#define READ_CHUNK (1 << 20)
#define RAW_TICK_MS 50             /* the raw reader drains this often */
#define RAW_MIN_GAP_NS 5000000ll   /* and never more often than this */
#define RAW_CYCLE_PAGES 16         /* pages read from a CPU per cycle */
#define RAW_OUT_BYTES (256u << 10) /* records handed to the sink at once */
#define RAW_SLACK_NS 2000000ll     /* a record reserved this long before a
				    * drain began is committed by then */

/* Notes pid's name from /proc the first time the stream shows it. */
static void learn_pid(struct tracefs *t, uint32_t pid)
{
	char path[300], comm[64];

	for (size_t i = t->npid; i > 0; i--)   /* recent pids are likely */
		if (t->pids[i - 1] == pid)
			return;
	if (t->npid == t->cappid) {
		t->cappid = t->cappid ? 2 * t->cappid : 256;
		t->pids = xrealloc(t->pids, t->cappid * sizeof(*t->pids));
		t->comms = xrealloc(t->comms, t->cappid * sizeof(*t->comms));
	}
	snprintf(path, sizeof(path), "%s/%u/comm", t->proc, pid);
	if (pid == 0 || sysfs_read(path, comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "%s", pid ? "" : "swapper");
	t->pids[t->npid] = pid;
	snprintf(t->comms[t->npid], sizeof(t->comms[0]), "%.15s", comm);
	t->npid++;
}

/* Walks the whole records in buf (len bytes) for their pids; returns the
 * bytes used (a record cut by the chunk's end waits for the next). */
static size_t scan_pids(struct tracefs *t, struct bt_stream *bs, int *have_bs,
			const uint8_t *buf, size_t len)
{
	size_t off = 0, used;
	struct bt_event ev;

	if (!*have_bs) {
		if (len < 4 || bt_stream_detect(bs, buf, len))
			return len;   /* not blktrace: nothing to learn */
		*have_bs = 1;
	}
	while (off < len && bt_decode(bs, buf + off, len - off, &ev, &used) == 0) {
		if (!bt_is_notify(&ev))
			learn_pid(t, ev.pid);
		off += used;
	}
	return off;
}

/* Sums "NAME: value" lines of every per_cpu/cpuN/stats file under root.
 * With per_cpu set, fills per[cpu] (at most max) with each CPU's sum. */
static uint64_t per_cpu_sum(const char *root, const char *const *names,
			    uint64_t *per, int max, int *ncpu)
{
	uint64_t total = 0;
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		char path[512], line[256];
		uint64_t sum = 0;
		FILE *fp;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", root, cpu);
		if (!(fp = fopen(path, "r")))
			break;
		while (fgets(line, sizeof(line), fp))
			for (int i = 0; names[i]; i++) {
				size_t l = strlen(names[i]);
				if (!strncmp(line, names[i], l) && line[l] == ':')
					sum += strtoull(line + l + 1, NULL, 10);
			}
		fclose(fp);
		if (per && cpu < max)
			per[cpu] = sum;
		total += sum;
	}
	if (ncpu)
		*ncpu = cpu < max ? cpu : max;
	return total;
}

static uint64_t entries_left(const char *root)
{
	static const char *const names[] = { "entries", NULL };
	return per_cpu_sum(root, names, NULL, 0, NULL);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The sink of a capture into a file (tracefs_start): the raw reader's
 * merged records go to t->out_fd as one blktrace stream, their pids' names
 * learnt on the way. */
static int file_sink(void *ctx, const uint8_t *buf, size_t len)
{
	struct tracefs *t = ctx;
	int rc = write_all(t->out_fd, (const char *)buf, len);

	if (!rc)
		scan_pids(t, &t->file_bs, &t->file_have_bs, buf, len);
	return rc;
}

/* The reader: copies trace_pipe to the output until asked to stop and the
 * buffers are empty. */
static void *reader(void *arg)
{
	struct tracefs *t = arg;
	uint8_t *buf = xmalloc(2 * READ_CHUNK);
	size_t carry = 0;          /* bytes of a cut record kept at buf's start */
	struct bt_stream bs;
	int quiet_polls = 0, have_bs = 0;

	for (;;) {
		ssize_t n = read(t->pipe_fd, buf + carry, READ_CHUNK);

		if (n > 0) {
			int rc = t->sink ? 0 : write_all(t->out_fd, (char *)buf + carry,
							 (size_t)n);
			size_t avail = carry + (size_t)n, used;
			if (rc) {
				t->thread_errno = -rc;
				break;
			}
			t->bytes += (uint64_t)n;
			used = scan_pids(t, &bs, &have_bs, buf, avail);
			/* a sink gets whole records only */
			if (t->sink && used && (rc = t->sink(t->sink_ctx, buf, used))) {
				t->thread_errno = -rc;
				break;
			}
			carry = avail - used;
			if (carry > READ_CHUNK)
				carry = 0;   /* not records we understand */
			memmove(buf, buf + used, carry);
			quiet_polls = 0;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			t->thread_errno = errno;
			break;
		}
		if (t->stop) {
			/* drained when nothing is buffered and a few reads
			 * in a row found nothing */
			if (entries_left(t->root) == 0 && ++quiet_polls >= 3)
				break;
		}
		struct pollfd pfd = { .fd = t->pipe_fd, .events = POLLIN };
		poll(&pfd, 1, t->stop ? 20 : 100);
	}
	free(buf);
	return NULL;
}

/* The raw reader (a sink only): each cycle reads every CPU's
 * trace_pipe_raw until it is empty (or RAW_CYCLE_PAGES were read: memory
 * stays bounded), then hands on, merged in time order, the records older
 * than the cycle's start (less RAW_SLACK_NS) and than the newest record
 * read from any CPU not emptied; newer ones wait for the next cycle, when
 * every CPU has been read past them. Waits in poll(), which wakes when a
 * CPU's buffer is buffer_percent full, or after RAW_TICK_MS; not at all
 * while a CPU was left unemptied. Ends when asked to stop and the buffers
 * are empty. */
static void *raw_reader(void *arg)
{
	struct tracefs *t = arg;
	struct rawcpu *cpus = xcalloc((size_t)t->nraw, sizeof(*cpus));
	struct pollfd *pfd = xcalloc((size_t)t->nraw, sizeof(*pfd));
	uint8_t *page = xmalloc(t->page_size), *out = xmalloc(RAW_OUT_BYTES);
	size_t len;
	int quiet = 0, final = 0;

	for (int i = 0; i < t->nraw; i++) {
		pfd[i] = (struct pollfd){ .fd = t->raw_fd[i], .events = POLLIN };
		rawcpu_reserve(&cpus[i], 2 * RAW_CYCLE_PAGES * t->page_size);
	}
	while (!final) {
		int64_t start = now_mono_ns(), upto = start - RAW_SLACK_NS, left;
		int got = 0, more = 0, stopping = t->stop;

		for (int i = 0; i < t->nraw; i++) {
			ssize_t n = 0;
			int pages = 0;
			while (pages < RAW_CYCLE_PAGES &&
			       (n = read(t->raw_fd[i], page, t->page_size)) > 0) {
				rawpage_decode(&cpus[i], page, (size_t)n, &t->raw);
				got = 1;
				pages++;
			}
			if (pages == RAW_CYCLE_PAGES || (n < 0 && errno == EINTR)) {
				more = 1;       /* not emptied: wait for the rest */
				if (cpus[i].newest_ns < upto)
					upto = cpus[i].newest_ns;
			} else if (n < 0 && errno != EAGAIN) {
				t->thread_errno = errno;
				final = 1;
			}
		}
		/* drained when nothing is buffered and two cycles found nothing */
		if (stopping && !got && entries_left(t->root) == 0 && ++quiet >= 2)
			final = 1;
		if (got)
			quiet = 0;
		do {
			int rc;
			len = 0;
			rawcpu_merge(cpus, t->nraw, final ? INT64_MAX : upto, out,
				     RAW_OUT_BYTES, &len);
			if (!len)
				break;
			t->bytes += len;
			if ((rc = t->sink(t->sink_ctx, out, len))) {
				t->thread_errno = -rc;
				final = 1;
			}
		} while (!t->thread_errno);
		if (t->thread_errno)
			break;
		if (more && !final)
			continue;
		if (final)
			break;
		poll(pfd, (nfds_t)t->nraw, stopping ? 20 : RAW_TICK_MS);
		left = start + RAW_MIN_GAP_NS - now_mono_ns();
		if (left > 0) {
			struct timespec ts = { 0, (long)left };
			nanosleep(&ts, NULL);
		}
	}
	for (int i = 0; i < t->nraw; i++)
		rawcpu_free(&cpus[i]);
	free(cpus);
	free(pfd);
	free(page);
	free(out);
	return NULL;
}

/* The ring buffer's page size: the data field's offset + size in
 * events/header_page ("field: char data;\toffset:16;\tsize:4080;"), else
 * the system's page size. */
static size_t raw_page_size(const char *root)
{
	char path[512], line[256];
	size_t size = (size_t)sysconf(_SC_PAGESIZE);
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events/header_page", root);
	if (!(fp = fopen(path, "r")))
		return size;
	while (fgets(line, sizeof(line), fp)) {
		unsigned off, sz;
		const char *f = strstr(line, "char data;");
		if (f && sscanf(f, "char data; offset:%u; size:%u;", &off, &sz) == 2 &&
		    off + sz >= 64)
			size = off + sz;
	}
	fclose(fp);
	return size;
}

static void raw_close(struct tracefs *t)
{
	for (int i = 0; i < t->nraw; i++)
		close(t->raw_fd[i]);
	free(t->raw_fd);
	t->raw_fd = NULL;
	t->nraw = 0;
}

/* Opens per_cpu/cpuN/trace_pipe_raw of every CPU under root. Returns 0, or
 * -1 with a message in err. */
static int raw_open(struct tracefs *t, char *err, size_t errlen)
{
	char path[1024];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/per_cpu", t->root);
	if (!(d = opendir(path))) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		int fd;
		if (strncmp(de->d_name, "cpu", 3) || de->d_name[3] < '0' ||
		    de->d_name[3] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/trace_pipe_raw", t->root,
			 de->d_name);
		if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			snprintf(err, errlen, "cannot open '%s': %s", path,
				 strerror(errno));
			closedir(d);
			raw_close(t);
			return -1;
		}
		t->raw_fd = xrealloc(t->raw_fd, (size_t)(t->nraw + 1) *
				     sizeof(*t->raw_fd));
		t->raw_fd[t->nraw++] = fd;
	}
	closedir(d);
	if (!t->nraw) {
		snprintf(err, errlen, "no per-CPU buffers under '%s/per_cpu'", t->root);
		return -1;
	}
	t->page_size = raw_page_size(t->root);
	return 0;
}

static int tset(struct lab *lab, const char *root, const char *file,
		const char *value, char *err, size_t errlen)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, file);
	return lab_set(lab, path, value, err, errlen);
}

/* Both starts: into the file out_path, or (out_path NULL) into sink. */
static int start(struct tracefs *t, struct lab *lab, const char *root,
		 const char *sysblock, char devs[][64], int ndev,
		 unsigned buffer_kb, const char *out_path, tracefs_sink_fn sink,
		 void *ctx, char *err, size_t errlen)
{
	char path[512], cur[256], kb[32];
	struct stat sb;

	memset(t, 0, sizeof(*t));
	t->pipe_fd = t->out_fd = -1;
	t->sink = sink;
	t->sink_ctx = ctx;
	snprintf(t->proc, sizeof(t->proc), "/proc");
	snprintf(t->root, sizeof(t->root), "%s", root);
	snprintf(t->sysblock, sizeof(t->sysblock), "%s", sysblock);
	snprintf(path, sizeof(path), "%s/current_tracer", root);
	if (stat(path, &sb) < 0) {
		if (mount("none", root, "tracefs", 0, NULL) < 0) {
			snprintf(err, errlen, "no tracefs at '%s' and cannot mount "
				 "it: %s", root, strerror(errno));
			return -1;
		}
		lab_note_mount(lab, root);
	}
	if (sysfs_read(path, cur, sizeof(cur)) || strcmp(cur, "nop")) {
		snprintf(err, errlen, "the tracer is in use ('%s' is '%s', not nop)",
			 path, cur);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/available_tracers", root);
	{
		char avail[512] = "";
		FILE *fp = fopen(path, "r");
		if (fp) {
			if (!fgets(avail, sizeof(avail), fp))
				avail[0] = '\0';
			fclose(fp);
		}
		if (!strstr(avail, "blk")) {
			snprintf(err, errlen, "the kernel has no blk tracer (%s: %s)",
				 path, avail);
			return -1;
		}
	}
	if (ndev > TRACEFS_MAX_DEVS)
		ndev = TRACEFS_MAX_DEVS;
	for (int i = 0; i < ndev; i++) {
		snprintf(t->devs[i], sizeof(t->devs[i]), "%s", devs[i]);
		snprintf(path, sizeof(path), "%s/%s/trace/enable", sysblock, devs[i]);
		if (sysfs_read(path, cur, sizeof(cur)) || strcmp(cur, "0")) {
			snprintf(err, errlen, "cannot trace '%s': %s is '%s'", devs[i],
				 path, cur);
			return -1;
		}
	}
	t->ndev = ndev;
	snprintf(kb, sizeof(kb), "%u", buffer_kb);
	if (tset(lab, root, "tracing_on", "0", err, errlen) ||
	    tset(lab, root, "options/context-info", "0", err, errlen) ||
	    tset(lab, root, "trace_clock", "mono", err, errlen) ||
	    tset(lab, root, "current_tracer", "blk", err, errlen) ||
	    tset(lab, root, "options/bin", "1", err, errlen) ||
	    tset(lab, root, "buffer_size_kb", kb, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/trace", root);
	sysfs_write(path, "");       /* drop what is buffered */
	if (out_path)
		t->out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				 0644);
	if (out_path && t->out_fd < 0) {
		snprintf(err, errlen, "cannot make '%s': %s", out_path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/trace_pipe", root);
	/* Each CPU's trace_pipe_raw, also into a file: whole ring-buffer
	 * pages, no per-event formatting in the kernel (trace_pipe's costs a
	 * core's fifth at 50k IOPS, which the traced workload loses); merged
	 * in time order here. trace_pipe where the raw files cannot be read. */
	if (!sink) {
		char e2[256];
		if (raw_open(t, e2, sizeof(e2)) == 0) {
			t->sink = sink = file_sink;
			t->sink_ctx = ctx = t;
		}
	}
	if (sink) {
		if (!t->nraw && raw_open(t, err, errlen))
			return -1;
	} else if ((t->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (tset(lab, root, "tracing_on", "1", err, errlen)) {
		raw_close(t);
		return -1;
	}
	if (pthread_create(&t->thread, NULL, sink ? raw_reader : reader, t)) {
		snprintf(err, errlen, "cannot start the trace reader thread");
		raw_close(t);
		return -1;
	}
	t->running = 1;
	for (int i = 0; i < ndev; i++) {
		snprintf(path, sizeof(path), "%s/%s/trace/enable", sysblock, devs[i]);
		if (lab_set(lab, path, "1", err, errlen))
			return -1;
	}
	return 0;
}

int tracefs_start(struct tracefs *t, struct lab *lab, const char *root,
		  const char *sysblock, char devs[][64], int ndev,
		  unsigned buffer_kb, const char *out_path, char *err,
		  size_t errlen)
{
	return start(t, lab, root, sysblock, devs, ndev, buffer_kb, out_path,
		     NULL, NULL, err, errlen);
}

int tracefs_start_sink(struct tracefs *t, struct lab *lab, const char *root,
		       const char *sysblock, char devs[][64], int ndev,
		       unsigned buffer_kb, tracefs_sink_fn sink, void *ctx,
		       char *err, size_t errlen)
{
	return start(t, lab, root, sysblock, devs, ndev, buffer_kb, NULL, sink,
		     ctx, err, errlen);
}

uint64_t tracefs_lost(const struct tracefs *t, uint64_t *lost, int maxcpu,
		      int *ncpu)
{
	static const char *const lost_names[] = { "overrun", "dropped events", NULL };
	return per_cpu_sum(t->root, lost_names, lost, maxcpu, ncpu);
}

int tracefs_stop(struct tracefs *t, uint64_t *lost, int maxcpu, int *ncpu,
		 char *err, size_t errlen)
{
	static const char *const lost_names[] = { "overrun", "dropped events", NULL };
	char path[512];
	int rc = 0;

	for (int i = 0; i < t->ndev; i++) {
		snprintf(path, sizeof(path), "%s/%s/trace/enable", t->sysblock, t->devs[i]);
		sysfs_write(path, "0");
	}
	if (t->running) {
		t->stop = 1;
		pthread_join(t->thread, NULL);
		t->running = 0;
	}
	per_cpu_sum(t->root, lost_names, lost, maxcpu, ncpu);
	if (t->thread_errno) {
		snprintf(err, errlen, "reading the trace failed: %s",
			 strerror(t->thread_errno));
		rc = -1;
	}
	if (t->pipe_fd >= 0)
		close(t->pipe_fd);
	raw_close(t);
	if (t->out_fd >= 0 && close(t->out_fd) < 0 && !rc) {
		snprintf(err, errlen, "writing the trace failed: %s", strerror(errno));
		rc = -1;
	}
	t->pipe_fd = t->out_fd = -1;
	return rc;
}

void tracefs_free(struct tracefs *t)
{
	free(t->pids);
	free(t->comms);
	t->pids = NULL;
	t->comms = NULL;
	t->npid = t->cappid = 0;
}
