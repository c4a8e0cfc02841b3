/* Importing blkparse(1)'s default text output (as pasted in bug reports):
 * each per-event line becomes one bt_event, with the fields blkparse printed
 * and the payloads (remap, unplug depth, split point, message) rebuilt. */
#include "trace/trace_input.h"
#include "blkparse_lex.h"
#include "lib/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* How the text after the header is laid out, per action. */
enum body_kind {
	B_SECT_PC,  /* Q I D B: "S + N [comm]", "[comm]" or PC "BYTES (hex) [comm]" */
	B_SECT,     /* G M F S: "S + N [comm]" or "[comm]" */
	B_COMPLETE, /* C R: "S + N [err]", "S [err]" or PC "(hex) [err]" */
	B_PLUG,     /* P ZP: "[comm]" */
	B_UNPLUG,   /* U UT ZU: "[comm] depth" */
	B_REMAP,    /* A: "S + N <- (maj,min) from" */
	B_SPLIT,    /* X: "S / new [comm]" */
	B_MESSAGE,  /* m: free text */
};

static const struct act_def {
	const char *name;
	unsigned code;
	enum body_kind kind;
	const char *expect; /* the layout, for error messages */
} act_defs[] = {
	{ "Q", BT_A_QUEUE, B_SECT_PC, "SECTOR + NSECTORS [COMM]" },
	{ "M", BT_A_BACKMERGE, B_SECT, "SECTOR + NSECTORS [COMM]" },
	{ "F", BT_A_FRONTMERGE, B_SECT, "SECTOR + NSECTORS [COMM]" },
	{ "G", BT_A_GETRQ, B_SECT, "SECTOR + NSECTORS [COMM]" },
	{ "S", BT_A_SLEEPRQ, B_SECT, "SECTOR + NSECTORS [COMM]" },
	{ "R", BT_A_REQUEUE, B_COMPLETE, "SECTOR + NSECTORS [ERROR]" },
	{ "D", BT_A_ISSUE, B_SECT_PC, "SECTOR + NSECTORS [COMM]" },
	{ "C", BT_A_COMPLETE, B_COMPLETE, "SECTOR + NSECTORS [ERROR]" },
	{ "P", BT_A_PLUG, B_PLUG, "[COMM]" },
	{ "U", BT_A_UNPLUG_IO, B_UNPLUG, "[COMM] DEPTH" },
	{ "UT", BT_A_UNPLUG_TIMER, B_UNPLUG, "[COMM] DEPTH" },
	{ "I", BT_A_INSERT, B_SECT_PC, "SECTOR + NSECTORS [COMM]" },
	{ "X", BT_A_SPLIT, B_SPLIT, "SECTOR / NEW_SECTOR [COMM]" },
	{ "B", BT_A_BOUNCE, B_SECT_PC, "SECTOR + NSECTORS [COMM]" },
	{ "A", BT_A_REMAP, B_REMAP, "SECTOR + NSECTORS <- (MAJ,MIN) SECTOR" },
	{ "ZP", BT_A_ZONE_PLUG, B_PLUG, "[COMM]" },
	{ "ZU", BT_A_ZONE_UNPLUG, B_UNPLUG, "[COMM] DEPTH" },
	{ "m", BT_N_MESSAGE, B_MESSAGE, "TEXT" },
};

#define HEADER_EXPECT "expected 'maj,min cpu seq time pid action rwbs ...'"

/* Largest PC payload we rebuild from "(hex ...)"; blkparse's own dump buffer
 * is 4096 characters, i.e. at most 1365 bytes. */
#define PC_PDU_MAX 1400

/* Warnings about unrecognised lines stop after this many. */
#define MAX_LINE_WARNINGS 5

/* One (pid, comm) pair already reported to the sink. */
struct pc_entry {
	char *comm; /* NULL: empty slot */
	uint32_t pid;
	uint32_t hash;
};

/* The set of (pid, comm) pairs seen, open addressing, power-of-2 size. */
struct pc_set {
	struct pc_entry *v;
	size_t n, cap;
};

/* State of one read. */
struct reader {
	const char *path;
	const struct event_sink *sink;
	struct input_stats *st;
	FILE *warn;
	char *err;
	size_t errlen;
	unsigned long lineno;
	struct pc_set procs;
	int line_warnings;
	uint8_t pdu[PC_PDU_MAX > 16 ? PC_PDU_MAX : 16];
};

static void warnf(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void errf(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warnf(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->warn)
		return;
	{
		/* the path and a skipped line quoted: their control characters
		 * (a newline, an escape sequence, a bell) as <0xNN>, as
		 * warning() shows them */
		char msg[1024];
		int n = snprintf(msg, sizeof(msg), "%s: line %lu: ", r->path,
				 r->lineno);
		if (n < 0 || (size_t)n >= sizeof(msg))
			n = 0;
		va_start(ap, fmt);
		vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
		va_end(ap);
		fputs("iotape: warning: ", r->warn);
		fput_shown(r->warn, msg, strlen(msg), "\t");
		fputc('\n', r->warn);
	}
}

static void errf(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->err || !r->errlen)
		return;
	n = snprintf(r->err, r->errlen, "%s: line %lu: ", r->path, r->lineno);
	if (n < 0 || (size_t)n >= r->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}















/* blkparse's dump_pdu() text "(xx xx ..) " at p into r->pdu; a trailing
 * ".." stands for the zero bytes after the last printed zero, which the
 * printed bytes reproduce on re-printing. Returns the end or NULL. */
static const char *read_pc_pdu(struct reader *r, const char *p,
			       struct bt_event *ev)
{
	size_t n = 0;

	if (*p != '(')
		return p;
	p++;
	for (;;) {
		int hi = bpl_hexval(p[0]), lo = hi < 0 ? -1 : bpl_hexval(p[1]);

		if (lo < 0 || n >= PC_PDU_MAX)
			return NULL;
		r->pdu[n++] = (uint8_t)(hi << 4 | lo);
		p += 2;
		if (!strncmp(p, " ..)", 4)) {
			p += 4;
			break;
		}
		if (*p == ')') {
			p++;
			break;
		}
		if (*p++ != ' ')
			return NULL;
	}
	if (*p++ != ' ')
		return NULL;
	ev->pdu = r->pdu;
	ev->pdu_len = (uint16_t)n;
	return p;
}



static uint32_t hash_pc(uint32_t pid, const char *comm, size_t len)
{
	uint32_t h = 2166136261u ^ pid;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)comm[i]) * 16777619u;
	return h;
}

/* Adds (pid, comm[0..len)) to the set. Returns 1 and points *stored at the
 * set's NUL-terminated copy when the pair is new, 0 when already seen, or
 * -ENOMEM. */
static int pc_add(struct pc_set *s, uint32_t pid, const char *comm, size_t len,
		  const char **stored)
{
	uint32_t h = hash_pc(pid, comm, len);
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 64;
		struct pc_entry *nv = calloc(ncap, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		for (size_t j = 0; j < s->cap; j++) {
			if (!s->v[j].comm)
				continue;
			i = s->v[j].hash & (ncap - 1);
			while (nv[i].comm)
				i = (i + 1) & (ncap - 1);
			nv[i] = s->v[j];
		}
		free(s->v);
		s->v = nv;
		s->cap = ncap;
	}
	for (i = h & (s->cap - 1); s->v[i].comm; i = (i + 1) & (s->cap - 1)) {
		const struct pc_entry *e = &s->v[i];
		if (e->hash == h && e->pid == pid && !strncmp(e->comm, comm, len) &&
		    e->comm[len] == '\0')
			return 0;
	}
	s->v[i].comm = malloc(len + 1);
	if (!s->v[i].comm)
		return -ENOMEM;
	memcpy(s->v[i].comm, comm, len);
	s->v[i].comm[len] = '\0';
	s->v[i].pid = pid;
	s->v[i].hash = h;
	s->n++;
	*stored = s->v[i].comm;
	return 1;
}

static void pc_free(struct pc_set *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->v[i].comm);
	free(s->v);
}

/* Reports pid's name to the sink the first time the pair is seen; "(null)"
 * (blkparse knew no name) and "" are not names. */
static int learn_name(struct reader *r, uint32_t pid, const char *name,
		      long len)
{
	const char *stored;
	int rc;

	if (len <= 0 || (len == 6 && !memcmp(name, "(null)", 6)) ||
	    !r->sink->process)
		return 0;
	rc = pc_add(&r->procs, pid, name, (size_t)len, &stored);
	if (rc <= 0)
		return rc;
	return r->sink->process(r->sink->ctx, pid, stored);
}


/* Parses the text after the header of a line of kind d->kind into ev
 * (header fields set) and the process name span into *name, *nlen (nlen 0
 * when the line names none). Returns 0, or -1 when the text does not have
 * the action's layout. */
static int parse_body(struct reader *r, const struct act_def *d,
		      const struct line_hdr *h, struct bt_event *ev,
		      uint64_t *cats, const char **name, long *nlen)
{
	const char *p = h->body, *tail;
	uint64_t v, from;
	uint32_t maj, min;

	*nlen = 0;
	switch (d->kind) {
	case B_SECT_PC:
		if (*p != '[' && (p = bpl_read_u64(p, UINT64_MAX, &v)) &&
		    strncmp(p, " + ", 3)) {
			/* PC request: "BYTES (hex) [comm]" */
			if (v > UINT32_MAX || *p++ != ' ')
				return -1;
			ev->bytes = (uint32_t)v;
			*cats |= BT_C_PC;
			if (!(p = read_pc_pdu(r, p, ev)))
				return -1;
			break;
		}
		p = h->body;
		/* fall through */
	case B_SECT:
		if (*p == '[')
			break;
		if (!(p = bpl_read_extent(p, ev)) || *p++ != ' ')
			return -1;
		break;
	case B_COMPLETE:
		if (*p == '(' || *p == '[') {
			*cats |= BT_C_PC;
			if (!(p = read_pc_pdu(r, p, ev)))
				return -1;
		} else {
			if (!(p = bpl_read_u64(p, UINT64_MAX, &ev->sector)))
				return -1;
			if (!strncmp(p, " + ", 3)) {
				p = bpl_read_extent(h->body, ev);
				if (!p)
					return -1;
			}
			if (*p++ != ' ')
				return -1;
		}
		if ((*nlen = bpl_read_name(p, name, &tail)) < 0 || *tail ||
		    bpl_read_error(*name, *nlen, ev))
			return -1;
		*nlen = 0;
		return 0;
	case B_PLUG:
	case B_UNPLUG:
		break;
	case B_REMAP:
		if (!(p = bpl_read_extent(p, ev)) || strncmp(p, " <- (", 5) ||
		    !(p = bpl_read_u32(p + 5, &maj)) || *p++ != ',' ||
		    !(p = bpl_read_u32(p, &min)) || strncmp(p, ") ", 2) ||
		    !(p = bpl_read_u64(p + 2, UINT64_MAX, &from)) || *p ||
		    maj > 0xfff || min > 0xfffff)
			return -1;
		bpl_put_be32(r->pdu, BT_MKDEV(maj, min));
		bpl_put_be32(r->pdu + 4, ev->dev);
		bpl_put_be64(r->pdu + 8, from);
		ev->pdu = r->pdu;
		ev->pdu_len = 16;
		return 0;
	case B_SPLIT:
		if (!(p = bpl_read_u64(p, UINT64_MAX, &ev->sector)) ||
		    strncmp(p, " / ", 3) ||
		    !(p = bpl_read_u64(p + 3, UINT64_MAX, &v)) || *p++ != ' ')
			return -1;
		/* the kernel traces the split-off front part (bio_split()):
		 * its size is the distance to the split point */
		if (v > ev->sector && v - ev->sector <= UINT32_MAX >> 9)
			ev->bytes = (uint32_t)((v - ev->sector) << 9);
		bpl_put_be64(r->pdu, v);
		ev->pdu = r->pdu;
		ev->pdu_len = 8;
		break;
	case B_MESSAGE:
		v = strlen(p);
		if (v > UINT16_MAX)
			return -1;
		ev->pdu = v ? (const uint8_t *)p : NULL;
		ev->pdu_len = (uint16_t)v;
		return 0;
	}

	/* what is left is "[comm]", or "[comm] depth" for unplugs */
	if ((*nlen = bpl_read_name(p, name, &tail)) < 0)
		return -1;
	if (d->kind == B_UNPLUG) {
		if (*tail++ != ' ' || !(tail = bpl_read_u64(tail, UINT32_MAX, &v)) ||
		    *tail)
			return -1;
		bpl_put_be64(r->pdu, v);
		ev->pdu = r->pdu;
		ev->pdu_len = 8;
	} else if (*tail) {
		return -1;
	}
	return 0;
}

static const struct act_def *find_act(const char *name)
{
	for (size_t i = 0; i < sizeof(act_defs) / sizeof(act_defs[0]); i++)
		if (!strcmp(act_defs[i].name, name))
			return &act_defs[i];
	return NULL;
}

/* Where a read is in the file. */
struct line_state {
	int seen_event; /* a per-event line was seen */
	int in_summary; /* the closing summary has started */
	int warned_after_summary;
};

/* A line that does not parse although it should: at the end of a file with
 * no final newline it is a cut-short line (warned about and ignored),
 * elsewhere an error. */
static int bad_line(struct reader *r, int at_eof, size_t len,
		    const char *what, const char *expect)
{
	if (at_eof) {
		warnf(r, "last line cut short (no newline), ignored");
		r->st->truncated_bytes += len;
		r->st->skipped++;
		return 0;
	}
	errf(r, "malformed %s (expected '%s')", what, expect);
	return -EINVAL;
}

/* Handles one line (NUL-terminated, without its newline); at_eof when the
 * line had no newline. Returns 0 or a negative code with err set. */
static int do_line(struct reader *r, struct line_state *ls, char *line,
		   size_t len, int at_eof)
{
	struct input_stats *st = r->st;
	struct bt_event ev;
	struct line_hdr h;
	const struct act_def *d;
	const char *name = NULL;
	char what[24];
	uint64_t cats = 0;
	long nlen = 0;
	int rc;

	if (*bpl_skip_blanks(line) == '\0' && strlen(line) == len) {
		st->skipped++;
		return 0;
	}
	if (ls->in_summary) {
		if (!ls->warned_after_summary && bpl_looks_like_event(line)) {
			warnf(r, "per-event lines after blkparse's summary are ignored");
			ls->warned_after_summary = 1;
		}
		st->skipped++;
		return 0;
	}
	if (bpl_is_preamble(line)) {
		st->skipped++;
		return 0;
	}
	if (strlen(line) != len || bpl_parse_header(line, &h)) {
		if (!ls->seen_event) {
			errf(r, "not blkparse output (%s)", HEADER_EXPECT);
			return -EINVAL;
		}
		if (bpl_is_summary_start(line)) {
			ls->in_summary = 1;
			st->skipped++;
			return 0;
		}
		if (bpl_looks_like_event(line) || at_eof)
			return bad_line(r, at_eof, len, "per-event line",
					"maj,min cpu seq time pid action rwbs ...");
		if (r->line_warnings < MAX_LINE_WARNINGS)
			warnf(r, "not a blkparse line, skipped: '%.40s'", line);
		else if (r->line_warnings == MAX_LINE_WARNINGS)
			warnf(r, "further lines that are not blkparse's are skipped silently");
		r->line_warnings++;
		st->skipped++;
		return 0;
	}
	ls->seen_event = 1;
	/* the store keeps ns in an int64_t: past 2^63 - 1 ns (292 years) the
	 * time would wrap to a negative one */
	if (h.time_ns > (uint64_t)INT64_MAX) {
		errf(r, "time %llu.%09llu s is past the largest time iotape "
		     "stores (9223372036.854775807 s, 2^63 - 1 ns)",
		     (unsigned long long)(h.time_ns / 1000000000u),
		     (unsigned long long)(h.time_ns % 1000000000u));
		return -EINVAL;
	}
	d = find_act(h.act);
	if (!d) {
		if (!st->unknown_action++)
			st->unknown_off = r->lineno;
		st->skipped++;
		return 0;
	}
	if (d->kind != B_MESSAGE) {
		/* trailing blanks from a paste; a message keeps its text */
		while (len && bpl_is_blank(line[len - 1]))
			line[--len] = '\0';
	}
	snprintf(what, sizeof(what), "'%s' line", d->name);
	memset(&ev, 0, sizeof(ev));
	ev.time_ns = h.time_ns;
	ev.sequence = h.seq;
	ev.pid = h.pid;
	ev.dev = BT_MKDEV(h.maj, h.min);
	ev.cpu = h.cpu;
	if (d->kind == B_MESSAGE)
		cats = BT_C_NOTIFY;
	else if (bpl_rwbs_cats(h.rwbs, &cats))
		return bad_line(r, at_eof, len, "RWBS field",
				"[F]{D|W|R|N}[F][A][S][M]");
	if (parse_body(r, d, &h, &ev, &cats, &name, &nlen))
		return bad_line(r, at_eof, len, what, d->expect);
	ev.action = (uint64_t)d->code | cats << 16;
	/* kept and said, as the binary reader does (trace_input.c): no
	 * device reaches it, so the text is damaged */
	if (d->kind != B_MESSAGE && ev.sector >= (1ULL << 55) &&
	    !st->far_sector++)
		st->far_off = r->lineno;

	if (nlen > 0 && (rc = learn_name(r, h.pid, name, nlen)) < 0) {
		errf(r, "cannot store process name: %s", strerror(-rc));
		return rc;
	}
	if (at_eof && (d->kind == B_REMAP || d->kind == B_UNPLUG ||
		       d->kind == B_MESSAGE))
		warnf(r, "last line has no newline and ends in a number or "
		      "text that may be cut short");
	rc = r->sink->event(r->sink->ctx, &ev);
	if (rc < 0) {
		errf(r, "cannot store event: %s", strerror(-rc));
		return rc;
	}
	st->records++;
	if (d->kind == B_MESSAGE)
		st->notify++;
	return 0;
}

/* Reads blkparse(1)'s default text output from fp; see trace_input.h.
 * Input: lines as blkparse 1.2 prints them (blkparse_fmt.c
 * process_default(), blkparse.c handle_notify() for "m" messages):
 * "maj,min cpu seq sec.nsec pid action rwbs" then the action's text; times
 * are ns relative to the trace start as printed, sizes in 512-byte sectors
 * (bytes = sectors * 512). Lines starting with '#', "Input file ... added",
 * blank lines and everything from the closing summary on are skipped.
 * Output: one sink->event() per per-event line in file order, one
 * sink->process() per new (pid, name) pair; *st is zeroed then filled
 * (records, notify, skipped, unknown_action, far_sector (a sector at or
 * past 2^55: kept), with the first one's line in unknown_off and far_off,
 * truncated_bytes for a cut-short last line, format "blkparse-text",
 * version 0). Returns 0; -EINVAL when the first line that counts is not a
 * per-event line, a later per-event line is malformed or a time is past
 * 2^63 - 1 ns (err: "PATH: line N: ..."); -EIO on a read error; -ENOMEM;
 * or a sink callback's negative code. Warnings (one line each, "iotape:
 * warning: PATH: line N: ...") go to warn when it is not NULL. */
int blkparse_text_read(FILE *fp, const char *path,
		       const struct event_sink *sink, struct input_stats *st,
		       FILE *warn, char *err, size_t errlen)
{
	struct reader r = { .path = path, .sink = sink, .st = st,
			    .warn = warn, .err = err, .errlen = errlen };
	struct line_state ls = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	snprintf(st->format, sizeof(st->format), "blkparse-text");
	st->version = 0;
	if (err && errlen)
		err[0] = '\0';
	while ((n = getline(&line, &cap, fp)) >= 0) {
		size_t len = (size_t)n;
		int at_eof = 1;
		const char *nul;

		r.lineno++;
		if (r.lineno == 1 && utf8_bom(line, len)) {
			memmove(line, line + 3, len - 2);
			len -= 3;
		}
		if (len && line[len - 1] == '\n') {
			line[--len] = '\0';
			at_eof = 0;
		}
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		/* as import/formats.c fmt_line_nul(): a C string ends there */
		if ((nul = memchr(line, '\0', len))) {
			errf(&r, "a NUL byte (byte %ld of the line): not a text line",
			     (long)(nul - line) + 1);
			rc = -EINVAL;
			break;
		}
		rc = do_line(&r, &ls, line, len, at_eof);
		if (rc < 0)
			break;
	}
	if (rc == 0 && ferror(fp)) {
		errf(&r, "read error: %s", strerror(errno));
		rc = -EIO;
	}
	if (rc == 0 && !ls.seen_event) {
		if (err && errlen && r.lineno)
			snprintf(err, errlen, "%s: not blkparse output (no "
				 "per-event line in %lu lines; %s)", path,
				 r.lineno, HEADER_EXPECT);
		else if (err && errlen)
			snprintf(err, errlen, "%s: not blkparse output (empty "
				 "file)", path);
		rc = -EINVAL;
	}
	free(line);
	pc_free(&r.procs);
	return rc;
}

/* Returns 1 when buf (len bytes, the start of a file, not NUL-terminated and
 * possibly cut mid-line) looks like blkparse's default text output: its
 * first line that is not blank, a '#' comment or "Input file ... added"
 * parses as a per-event line header "maj,min cpu seq sec.nsec pid action
 * rwbs" (blkparse_fmt.c process_default()). Returns 0 otherwise. */
int blkparse_text_sniff(const uint8_t *buf, size_t len)
{
	char line[512];
	struct line_hdr h;
	size_t i = utf8_bom(buf, len);

	while (i < len) {
		size_t j = i, n;

		while (j < len && buf[j] != '\n')
			j++;
		n = j - i < sizeof(line) - 1 ? j - i : sizeof(line) - 1;
		if (memchr(buf + i, '\0', n))
			return 0;
		memcpy(line, buf + i, n);
		line[n] = '\0';
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		i = j + 1;
		if (*bpl_skip_blanks(line) == '\0' || bpl_is_preamble(line))
			continue;
		return bpl_parse_header(line, &h) == 0;
	}
	return 0;
}
