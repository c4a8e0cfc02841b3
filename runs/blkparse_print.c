/* blkparse's default per-event line (see blkparse_print.h), moved here from
 * cmd_dump.c so the export can write the same text. */
#include "blkparse_print.h"

#include <inttypes.h>
#include <string.h>

/* blkparse's hex dump of a PC payload: bytes as "%02x" separated by spaces,
 * stopping with " .." where the rest is all zero. */
static void dump_pdu(FILE *fp, const uint8_t *p, unsigned len)
{
	for (unsigned i = 0; i < len; i++) {
		unsigned j;
		fprintf(fp, "%s%02x", i ? " " : "", p[i]);
		if (p[i])
			continue;
		for (j = i; j < len && !p[j]; j++)
			;
		if (j == len) {
			fputs(" ..", fp);
			return;
		}
	}
}

/* ---- formatting without printf: the per-event line is most of `iotape
 * dump`'s time, and printf parses its format for every field ---- */

/* Writes v in decimal at p, right-aligned in width columns (blank padded,
 * or zero padded with zero); returns the end. */
static char *put_u(char *p, uint64_t v, int width, int zero)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (; width > n; width--)
		*p++ = zero ? '0' : ' ';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* Writes v in decimal left-aligned in width columns; returns the end. */
static char *put_u_left(char *p, uint64_t v, int width)
{
	char *s = p;

	p = put_u(p, v, 0, 0);
	while (p - s < width)
		*p++ = ' ';
	return p;
}

static char *put_i(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u(p, (uint64_t)0 - (uint64_t)v, 0, 0);
	}
	return put_u(p, (uint64_t)v, 0, 0);
}

/* Writes s right-aligned in width columns (never cut); returns the end. */
static char *put_s(char *p, const char *s, int width)
{
	size_t n = strlen(s);

	for (; width > (int)n; width--)
		*p++ = ' ';
	memcpy(p, s, n);
	return p + n;
}

/* " [name]\n" after "SECTOR + N" or alone ("[name]\n") */
static char *put_name(char *p, const char *name)
{
	*p++ = '[';
	p = put_s(p, name, 0);
	*p++ = ']';
	*p++ = '\n';
	return p;
}

static char *put_sector_n(char *p, uint64_t sector, unsigned nsec)
{
	p = put_u(p, sector, 0, 0);
	memcpy(p, " + ", 3);
	return put_u(p + 3, nsec, 0, 0);
}

/* The start every line shares, blkparse's "%3u,%-3u %2u %8u %5u.%09u %5u
 * %2s %3s " for ev on device dev at rel ns from the run's start (before
 * it: negative), action act and RWBS rwbs, written at p. Returns the end. */
static char *put_head(char *p, const struct bt_event *ev, uint32_t dev,
		      int before, uint64_t rel, const char *act, const char *rwbs)
{
	p = put_u(p, BT_MAJOR(dev), 3, 0);
	*p++ = ',';
	p = put_u_left(p, BT_MINOR(dev), 3);
	*p++ = ' ';
	p = put_u(p, ev->cpu, 2, 0);
	*p++ = ' ';
	p = put_u(p, ev->sequence, 8, 0);
	*p++ = ' ';
	if (before) {
		char sec[24], *e = put_u(sec, rel / 1000000000, 0, 0);
		int n = (int)(e - sec) + 1;
		for (; n < 5; n++)
			*p++ = ' ';
		*p++ = '-';
		memcpy(p, sec, (size_t)(e - sec));
		p += e - sec;
	} else {
		p = put_u(p, (unsigned)(rel / 1000000000), 5, 0);
	}
	*p++ = '.';
	p = put_u(p, (unsigned)(rel % 1000000000), 9, 1);
	*p++ = ' ';
	/* a message (notify) line shows pid 0, as blkparse's */
	p = put_u(p, act[0] == 'm' ? 0 : ev->pid, 5, 0);
	*p++ = ' ';
	p = put_s(p, act, 2);
	*p++ = ' ';
	p = put_s(p, rwbs, 3);
	*p++ = ' ';
	return p;
}

/* The rest of a line the common writes do not cover (a message, a PC
 * command, an unplug, a remap, a split), after its start, printed to fp
 * as blkparse does: ev's action act, nsec sectors, process name. */
static void print_rest(FILE *fp, const struct bt_event *ev, const char *act,
		       int pc, unsigned nsec, const char *name)
{
	uint64_t v = 0;

	switch (act[0]) {
	case 'm': {
		uint16_t len;
		const uint8_t *body = bt_pdu_body(ev, &len);
		fprintf(fp, "%.*s\n", (int)len, body ? (const char *)body : "");
		return;
	}
	case 'C':
	case 'R':
		if (pc) {
			if (ev->pdu_len) {
				fputc('(', fp);
				dump_pdu(fp, ev->pdu, ev->pdu_len);
				fputs(") ", fp);
			}
			fprintf(fp, "[%d]\n", ev->error);
		} else if (nsec)
			fprintf(fp, "%" PRIu64 " + %u [%d]\n", ev->sector, nsec,
				ev->error);
		else
			fprintf(fp, "%" PRIu64 " [%d]\n", ev->sector, ev->error);
		return;
	case 'D':
	case 'I':
	case 'Q':
	case 'B':
		if (pc) {
			fprintf(fp, "%u ", ev->bytes);
			if (ev->pdu_len) {
				fputc('(', fp);
				dump_pdu(fp, ev->pdu, ev->pdu_len);
				fputs(") ", fp);
			}
			fprintf(fp, "[%s]\n", name);
			return;
		}
		/* fall through */
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (nsec)
			fprintf(fp, "%" PRIu64 " + %u [%s]\n", ev->sector, nsec, name);
		else
			fprintf(fp, "[%s]\n", name);
		return;
	case 'P':
		fprintf(fp, "[%s]\n", name);
		return;
	case 'U':
		bt_pdu_u64(ev, &v);
		fprintf(fp, "[%s] %u\n", name, (unsigned)v);
		return;
	case 'A': {
		struct bt_remap r = { 0 };
		bt_pdu_remap(ev, &r);
		fprintf(fp, "%" PRIu64 " + %u <- (%u,%u) %" PRIu64 "\n", ev->sector,
			nsec, BT_MAJOR(r.dev_from), BT_MINOR(r.dev_from),
			r.sector_from);
		return;
	}
	case 'X':
		bt_pdu_u64(ev, &v);
		fprintf(fp, "%" PRIu64 " / %u [%s]\n", ev->sector, (unsigned)v, name);
		return;
	default:
		fputc('\n', fp);
	}
}

int blkparse_print_event(FILE *fp, const struct bt_event *ev, int64_t genesis_ns,
			  const char *comm)
{
	char line[256], *p = line;
	/* before the run's first record (a trace out of time order by more
	 * than import sorts, a clock step back): a negative time, where
	 * blkparse's unsigned subtraction prints 1266874887.709651616 */
	int before = (int64_t)ev->time_ns < genesis_ns;
	uint64_t rel = before ? (uint64_t)genesis_ns - ev->time_ns
			      : ev->time_ns - (uint64_t)genesis_ns;
	const char *act = bt_action_name(ev);
	char name[16];
	unsigned nsec = bt_sectors(ev);
	int pc = (bt_cats(ev) & BT_C_PC) != 0;
	char rwbs[8];
	uint32_t dev = ev->dev;

	if (bt_is_notify(ev) && bt_code(ev) != BT_N_MESSAGE)
		return 0;
	/* blkparse keeps 15 characters of a name (char comm[16]) */
	{
		const char *c = comm ? comm : "(null)";
		size_t k = 0;
		for (; k < sizeof(name) - 1 && c[k]; k++)
			name[k] = c[k];
		name[k] = '\0';
	}
	bt_rwbs(ev, rwbs);
	if (act[0] == 'A') {
		/* blkparse prints a remap under the device it went to. */
		struct bt_remap r;
		if (!bt_pdu_remap(ev, &r))
			dev = r.dev_to;
	}
	p = put_head(p, ev, dev, before, rel, act, rwbs);
	/* the common lines end here, in one write */
	switch (act[0]) {
	case 'C':
	case 'R':
		if (pc)
			break;
		p = nsec ? put_sector_n(p, ev->sector, nsec) : put_u(p, ev->sector, 0, 0);
		*p++ = ' ';
		*p++ = '[';
		p = put_i(p, ev->error);
		*p++ = ']';
		*p++ = '\n';
		fwrite_unlocked(line, 1, (size_t)(p - line), fp);
		return 1;
	case 'D':
	case 'I':
	case 'Q':
	case 'B':
		if (pc)
			break;
		/* fall through */
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (nsec) {
			p = put_sector_n(p, ev->sector, nsec);
			*p++ = ' ';
		}
		p = put_name(p, name);
		fwrite_unlocked(line, 1, (size_t)(p - line), fp);
		return 1;
	case 'P':
		p = put_name(p, name);
		fwrite_unlocked(line, 1, (size_t)(p - line), fp);
		return 1;
	}
	fwrite_unlocked(line, 1, (size_t)(p - line), fp);
	print_rest(fp, ev, act, pc, nsec, name);
	return 1;
}
