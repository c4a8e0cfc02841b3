/* blkreplay .load files (schoebel/blkreplay: scripts/conv_blktrace_to_load.sh
 * writes them, src/blkreplay.c parse() reads them): text before a header
 * line "start ; sector; length ; op ;  replay_delay=0 ; replay_duration=0",
 * then "SEC.NSEC ; SECTOR ; SECTORS ; OP ; DELAY ; DURATION" lines (OP R or
 * W, or blkparse's RWBS as the converter leaves it: RA, RS, ...). The
 * time is of the blkparse action named by "INFO: action_char=X" (Q when
 * absent); blkreplay's own result lines (dump_request(): "orig_start ; ..."
 * header) carry the replay's delay and duration, which become Q and C.
 * Pure. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"

/* Does line look like a data line: a decimal time, then ';'? */
static int data_start(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return 0;
	while (isdigit((unsigned char)*s) || *s == '.')
		s++;
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == ';';
}

static int header_line(const char *s)
{
	while (*s == ' ')
		s++;
	return !strncmp(s, "start ; sector", 14) || !strncmp(s, "orig_start ; sector", 19);
}

/* The categories of an op field: blkreplay's parse() reads its first
 * character (sscanf "%c") and takes R or W; the rest is what blkparse's
 * "%3d" printed after it (conv_blktrace_to_load.sh turns WB and WS into W
 * but leaves RA, RS, RM...): A readahead, S sync, M metadata, F FUA, B a
 * barrier (before Linux 2.6.36; nothing now). Lowercase r and w as R and
 * W. Returns 0 for anything else. */
static uint32_t op_cats(const char *op)
{
	uint32_t c;

	if (*op == 'R' || *op == 'r')
		c = BT_C_READ;
	else if (*op == 'W' || *op == 'w')
		c = BT_C_WRITE;
	else
		return 0;
	for (op++; *op; op++) {
		switch (*op) {
		case 'A': c |= BT_C_AHEAD; break;
		case 'S': c |= BT_C_SYNC; break;
		case 'M': c |= BT_C_META; break;
		case 'F': c |= BT_C_FUA; break;
		case 'B': break;
		default: return 0;
		}
	}
	return c;
}

int fmt_blkreplay_sniff(const uint8_t *buf, size_t len)
{
	size_t i = 0;
	int data = 0, lines = 0;

	while (i < len && lines < 200) {
		char line[256];
		size_t n = 0;
		while (i < len && buf[i] != '\n') {
			if (n < sizeof(line) - 1)
				line[n++] = (char)buf[i];
			i++;
		}
		i++;
		lines++;
		line[n] = '\0';
		if (header_line(line))
			return 100;
		if (data_start(line)) {
			char *f[8];
			int nf = fmt_split(line, ';', f, 8);
			if ((nf == 4 || nf == 6) && op_cats(f[3]))
				data++;
			else
				return 0;
			if (data >= 3)
				return 70;
		}
	}
	return 0;
}

int fmt_blkreplay_parse(FILE *fp, const char *path, const struct fmt_opts *o,
			const struct fmt_sink *sink, char *err, size_t errlen)
{
	char *buf = NULL, *f[8], action = 'Q';
	size_t cap = 0;
	uint64_t line = 0, ios = 0, text = 0, replayed = 0;
	int rc = 0, cut, noted = 0;
	long len;

	while (!rc && (len = fmt_getline(fp, &buf, &cap, &cut)) >= 0) {
		struct fmt_io io = { 0 };
		int64_t start, delay = 0, dur = 0, t;
		uint64_t sector, sectors;
		const char *bad = NULL, *val = "";
		int nf;

		line++;
		if ((rc = fmt_line_nul(buf, len, path, line, err, errlen)))
			break;
		if (!strncmp(buf, "INFO: action_char=", 18) && !ios) {
			action = (char)toupper((unsigned char)buf[18]);
			if (!action || !strchr("QGID", action)) {
				snprintf(err, errlen, "%s: line %" PRIu64 ": action_char "
					 "'%c' is not Q, G, I or D", path, line, buf[18]);
				rc = -EINVAL;
			}
			continue;
		}
		if (!data_start(buf)) {
			/* blkreplay's INFO, its "-----" and "=====" lines and
			 * its summary go by; after the first I/O, a line whose
			 * start is a mistyped number before a ';' (" -2.5 ; 13
			 * ...", " 3,5 ; 17 ...", " 1.5e0 ; ...") was passed over
			 * as text and its I/O lost */
			const char *p = buf + strspn(buf, " \t");
			size_t num = strspn(p, "+-.,eE0123456789");
			if (ios && num && strcspn(p, "0123456789") < num &&
			    p[num + strspn(p + num, " \t")] == ';' &&
			    !header_line(buf)) {
				snprintf(err, errlen, "%s: line %" PRIu64 ": not 'start "
					 "; sector ; length ; op [; delay ; duration]' "
					 "(a number of seconds, then ';')", path, line);
				rc = -EINVAL;
				break;
			}
			text++;
			continue;
		}
		/* no newline: a length "25" may be "256" cut */
		if (cut) {
			rc = fmt_cut_line(path, line, o, sink);
			break;
		}
		nf = fmt_split(buf, ';', f, 8);
		if (nf != 4 && nf != 6) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": not 'start ; sector "
				 "; length ; op [; delay ; duration]'", path, line);
			rc = -EINVAL;
			break;
		}
		if (fmt_seconds_ns(f[0], &start))
			bad = "start", val = f[0];
		else if (fmt_u64(f[1], 0, &sector) || sector > UINT64_MAX / 512)
			bad = "sector", val = f[1];
		else if (fmt_u64(f[2], 0, &sectors) || sectors > UINT32_MAX / 512)
			bad = "length", val = f[2];
		else if (!op_cats(f[3]))
			bad = "op (R or W, or blkparse's RWBS such as RA or WS)", val = f[3];
		else if (nf == 6 && (fmt_seconds_ns(f[4], &delay) ||
				     fmt_seconds_ns(f[5], &dur)))
			bad = "replay_delay or replay_duration",
			val = fmt_seconds_ns(f[4], &delay) ? f[4] : f[5];
		if (bad) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": bad %s '%.40s'",
				 path, line, bad, val);
			rc = -EINVAL;
			break;
		}
		if (!noted && sink->note) {
			char msg[400];
			noted = 1;
			snprintf(msg, sizeof(msg), "blkreplay load: start is the time of "
				 "blkparse's %c events (INFO: action_char), sector and "
				 "length in 512-byte sectors; lines with a replay_duration "
				 "(blkreplay's results) are a Q at start + replay_delay and "
				 "a C replay_duration later", action);
			if ((rc = sink->note(sink->ctx, msg)))
				break;
		}
		io.device = "blkreplay device";
		io.dev = FMT_DEV(0);
		io.sector = sector;
		io.bytes = (uint32_t)(sectors * 512);
		io.cats = op_cats(f[3]);
		io.q_ns = io.d_ns = io.c_ns = FMT_NO_TIME;
		t = start;
		if (dur > 0) {
			/* a replay result: issued delay behind the schedule */
			io.q_ns = t + delay;
			io.c_ns = io.q_ns + dur;
			replayed++;
		} else if (action == 'D')
			io.d_ns = t;
		else
			io.q_ns = t;
		ios++;
		rc = sink->io(sink->ctx, &io);
	}
	if (!rc && !ios) {
		snprintf(err, errlen, "%s: line %" PRIu64 ": no 'start ; sector ; "
			 "length ; op' lines", path, line);
		rc = -EINVAL;
	}
	if (!rc && sink->stat) {
		char v[32];
		snprintf(v, sizeof(v), "%" PRIu64, text);
		rc = sink->stat(sink->ctx, "blkreplay.text_lines", v);
		snprintf(v, sizeof(v), "%" PRIu64, replayed);
		if (!rc)
			rc = sink->stat(sink->ctx, "blkreplay.replayed", v);
		snprintf(v, sizeof(v), "%c", action);
		if (!rc)
			rc = sink->stat(sink->ctx, "blkreplay.action_char", v);
	}
	free(buf);
	return rc;
}
