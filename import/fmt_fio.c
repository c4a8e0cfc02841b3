/* fio iolog versions 2 and 3 (fio's HOWTO "Trace file format"; the reader
 * and writer in fio's iolog.c): one queued I/O per read/write/trim line,
 * zero-length flushes for sync/datasync, files as devices. Pure. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"

#define FIO_V2 "fio version 2 iolog"
#define FIO_V3 "fio version 3 iolog"
#define FIO_MAX_FILES 4096
#define FIO_MAX_NOTES 32

int fmt_fio_sniff(const uint8_t *buf, size_t len)
{
	size_t n = strlen(FIO_V2);

	if (len >= n && (!memcmp(buf, FIO_V2, n) || !memcmp(buf, FIO_V3, n)))
		return 100;
	if (len >= 18 && !memcmp(buf, "fio version ", 12))
		return 60;   /* another version: claimed, to say so */
	return 0;
}

struct fio_state {
	const char *path;
	const struct fmt_sink *sink;
	char *err;
	size_t errlen;
	int version;
	char *files[FIO_MAX_FILES];
	int nfiles;
	int64_t wait_ns;     /* v2: the last wait's target, ns from the start */
	uint64_t since_wait; /* v2: I/O lines since it */
	int64_t last_ns;
	uint64_t n_io, n_sync, n_datasync, n_trim, n_wait, n_file_ops, n_unaligned;
	uint64_t n_backwards;  /* v3 lines stamped before the line before */
	int notes;
};

static int fail(struct fio_state *s, uint64_t line, const char *what, const char *tok)
{
	snprintf(s->err, s->errlen, "%s: line %" PRIu64 ": %s%s%s%s", s->path, line,
		 what, tok ? " '" : "", tok ? tok : "", tok ? "'" : "");
	return -EINVAL;
}

/* The file's minor number (1-based, in order of first appearance). */
static int file_index(struct fio_state *s, const char *name)
{
	for (int i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i], name))
			return i + 1;
	if (s->nfiles == FIO_MAX_FILES)
		return -1;
	s->files[s->nfiles] = strdup(name);
	if (!s->files[s->nfiles])
		return -1;
	return ++s->nfiles;
}

static int note(struct fio_state *s, const char *file, const char *act,
		int64_t t_ns)
{
	char buf[600];

	if (!s->sink->note || ++s->notes > FIO_MAX_NOTES)
		return 0;
	snprintf(buf, sizeof(buf), "fio iolog: %s %s at %.3f ms", file,
		 !strcmp(act, "open") ? "opened" : "closed", (double)t_ns / 1e6);
	return s->sink->note(s->sink->ctx, buf);
}

/* One line's fields after the timestamp (v3) or from the start (v2). */
static int take(struct fio_state *s, uint64_t line, char **f, int n, int64_t t_ns)
{
	const char *file = f[0], *act = f[1];
	struct fmt_io io = { 0 };
	uint64_t off = 0, len = 0;
	int idx;

	if (n == 2) {
		if (strcmp(act, "add") && strcmp(act, "open") && strcmp(act, "close"))
			return fail(s, line, "unknown file action", act);
		if ((idx = file_index(s, file)) < 0)
			return fail(s, line, "too many files", NULL);
		s->n_file_ops++;
		if (!strcmp(act, "add"))
			return 0;
		return note(s, file, act, t_ns == FMT_NO_TIME ? s->wait_ns : t_ns);
	}
	if (n != 4)
		return fail(s, line, "not 'FILE ACTION' or 'FILE ACTION OFFSET "
			    "LENGTH'", NULL);
	if (fmt_u64(f[2], 0, &off))
		return fail(s, line, "bad offset", f[2]);
	if (fmt_u64(f[3], 0, &len) || len > UINT32_MAX)
		return fail(s, line, "bad length", f[3]);
	/* a file position is an off_t: I/O past 2^63 - 1 bytes cannot be
	 * issued (and its sector would not come back as its offset) */
	if (strcmp(act, "wait") && off > (uint64_t)INT64_MAX - len)
		return fail(s, line, "offset beyond the largest file position "
			    "(2^63 - 1 bytes)", f[2]);
	if (!strcmp(act, "wait")) {
		/* fio waits until OFFSET ms after the job started (iolog.c
		 * read_iolog_get: mtime_since_genesis) */
		if (s->version == 3)
			return fail(s, line, "'wait' is not allowed in a version 3 "
				    "iolog", NULL);
		if (off > (uint64_t)INT64_MAX / 1000000)
			return fail(s, line, "bad wait", f[2]);
		if ((int64_t)(off * 1000000) > s->wait_ns) {
			s->wait_ns = (int64_t)(off * 1000000);
			s->since_wait = 0;
		}
		s->n_wait++;
		return 0;
	}
	if (!strcmp(act, "read"))
		io.cats = BT_C_READ;
	else if (!strcmp(act, "write"))
		io.cats = BT_C_WRITE;
	else if (!strcmp(act, "trim")) {
		io.cats = BT_C_DISCARD;
		s->n_trim++;
	} else if (!strcmp(act, "sync") || !strcmp(act, "datasync")) {
		io.cats = BT_C_WRITE | BT_C_FLUSH | BT_C_SYNC;
		len = off = 0;
		if (act[0] == 'd')
			s->n_datasync++;
		else
			s->n_sync++;
	} else
		return fail(s, line, "unknown action", act);
	if ((idx = file_index(s, file)) < 0)
		return fail(s, line, "too many files", NULL);
	if (t_ns == FMT_NO_TIME) {
		/* v2 has no times: issue order, 1 us apart after each wait */
		t_ns = s->wait_ns + (int64_t)s->since_wait++ * 1000;
	} else if (s->n_io && t_ns < s->last_ns) {
		/* fio issues lines in file order and waits only for a time
		 * still ahead (iolog.c iolog_delay()): a line stamped before
		 * the previous one goes at once, after it */
		t_ns = s->last_ns;
		s->n_backwards++;
	}
	if (off % 512)
		s->n_unaligned++;
	io.device = s->files[idx - 1];
	io.dev = FMT_DEV(idx);
	io.sector = off / 512;
	io.bytes = (uint32_t)len;
	io.q_ns = t_ns;
	io.d_ns = io.c_ns = FMT_NO_TIME;
	s->n_io++;
	s->last_ns = t_ns;
	return s->sink->io(s->sink->ctx, &io);
}

static int put_stats(struct fio_state *s)
{
	const struct { const char *k; uint64_t v; } kv[] = {
		{ "fio_iolog.version", (uint64_t)s->version },
		{ "fio_iolog.ios", s->n_io }, { "fio_iolog.trims", s->n_trim },
		{ "fio_iolog.syncs", s->n_sync },
		{ "fio_iolog.datasyncs", s->n_datasync },
		{ "fio_iolog.waits", s->n_wait },
		{ "fio_iolog.file_actions", s->n_file_ops },
		{ "fio_iolog.files", (uint64_t)s->nfiles },
		{ "fio_iolog.unaligned_offsets", s->n_unaligned },
		{ "fio_iolog.time_backwards", s->n_backwards },
	};
	char v[32];
	int rc = 0;

	for (size_t i = 0; s->sink->stat && i < sizeof(kv) / sizeof(kv[0]) && !rc; i++) {
		snprintf(v, sizeof(v), "%" PRIu64, kv[i].v);
		rc = s->sink->stat(s->sink->ctx, kv[i].k, v);
	}
	return rc;
}

int fmt_fio_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		  const struct fmt_sink *sink, char *err, size_t errlen)
{
	struct fio_state s = { .path = path, .sink = sink, .err = err,
			       .errlen = errlen };
	char *buf = NULL, *f[8];
	size_t cap = 0;
	uint64_t line = 0;
	int rc = 0, cut;
	long n;

	while (!rc && (n = fmt_getline(fp, &buf, &cap, &cut)) >= 0) {
		int nf;
		int64_t t = FMT_NO_TIME;

		line++;
		if ((rc = fmt_line_nul(buf, n, path, line, err, errlen)))
			break;
		if (!s.version) {
			if (!strncmp(buf, FIO_V2, strlen(FIO_V2)))
				s.version = 2;
			else if (!strncmp(buf, FIO_V3, strlen(FIO_V3)))
				s.version = 3;
			else {
				rc = fail(&s, line, "not a fio version 2 or 3 iolog "
					  "(version 1 logs are not read by fio "
					  "either)", NULL);
				break;
			}
			if (sink->note)
				rc = sink->note(sink->ctx, s.version == 3 ?
					"fio iolog v3: one Q per read/write/trim line at "
					"its timestamp (us since the job started); "
					"sync/datasync as zero-length flushes; the log "
					"has no completions (no Q2C)" :
					"fio iolog v2: one Q per read/write/trim line in "
					"issue order, 1 us apart after each wait (a "
					"wait holds I/O until OFFSET ms after the start); "
					"sync/datasync as zero-length flushes; no "
					"completions (no Q2C)");
			continue;
		}
		/* a comment (iotape export's header): fio skips a line it
		 * cannot read ("bad iolog3") and goes on */
		if (!n || buf[0] == '#')
			continue;
		/* "write 4096 40" with no newline: a log copied while fio
		 * wrote it; its length may be 4096's first digits */
		if (cut) {
			rc = fmt_cut_line(path, line, o, sink);
			break;
		}
		for (char *p = buf; *p; p++)
			if (*p == '\t')
				*p = ' ';
		/* fields are separated by blanks (fio reads them with %s) */
		nf = 0;
		for (char *p = strtok(buf, " "); p && nf < 8; p = strtok(NULL, " "))
			f[nf++] = p;
		if (!nf)
			continue;
		if (s.version == 3) {
			uint64_t us;
			if (fmt_u64(f[0], 0, &us) || us > (uint64_t)INT64_MAX / 1000) {
				rc = fail(&s, line, "bad timestamp", f[0]);
				break;
			}
			t = (int64_t)us * 1000;
			rc = take(&s, line, f + 1, nf - 1, t);
		} else
			rc = take(&s, line, f, nf, t);
	}
	if (!rc && !s.version)
		rc = fail(&s, line, "empty: no 'fio version N iolog' line", NULL);
	if (!rc && s.notes > FIO_MAX_NOTES && sink->note) {
		char msg[80];
		snprintf(msg, sizeof(msg), "fio iolog: %d more open/close lines not "
			 "listed", s.notes - FIO_MAX_NOTES);
		rc = sink->note(sink->ctx, msg);
	}
	if (!rc && s.n_backwards && sink->note) {
		char msg[200];
		snprintf(msg, sizeof(msg), "fio iolog: %" PRIu64 " line%s stamped "
			 "before the line before placed at that line's time (fio "
			 "issues them in file order, at once)", s.n_backwards,
			 s.n_backwards == 1 ? "" : "s");
		rc = sink->note(sink->ctx, msg);
	}
	if (!rc)
		rc = put_stats(&s);
	for (int i = 0; i < s.nfiles; i++)
		free(s.files[i]);
	free(buf);
	return rc;
}
