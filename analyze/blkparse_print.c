/* blkparse's default per-event line (see blkparse_print.h), moved here from
 * cmd_dump.c so the export can write the same text. */
#include "blkparse_print.h"

#include <inttypes.h>

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

void blkparse_print_event(FILE *fp, const struct bt_event *ev, int64_t genesis_ns,
			  const char *comm)
{
	uint64_t rel = ev->time_ns - (uint64_t)genesis_ns;
	const char *act = bt_action_name(ev);
	char name[16];
	unsigned nsec = bt_sectors(ev);
	int pc = (bt_cats(ev) & BT_C_PC) != 0;
	char rwbs[8];
	uint64_t v = 0;
	uint32_t dev = ev->dev;

	if (bt_is_notify(ev) && bt_code(ev) != BT_N_MESSAGE)
		return;
	/* blkparse keeps 15 characters of a name (char comm[16]) */
	snprintf(name, sizeof(name), "%s", comm ? comm : "(null)");
	bt_rwbs(ev, rwbs);
	if (act[0] == 'A') {
		/* blkparse prints a remap under the device it went to. */
		struct bt_remap r;
		if (!bt_pdu_remap(ev, &r))
			dev = r.dev_to;
	}
	fprintf(fp, "%3u,%-3u %2u %8u %5u.%09u %5u %2s %3s ",
		BT_MAJOR(dev), BT_MINOR(dev), ev->cpu, ev->sequence,
		(unsigned)(rel / 1000000000), (unsigned)(rel % 1000000000),
		/* a message (notify) line shows pid 0, as blkparse's */
		act[0] == 'm' ? 0 : ev->pid, act, rwbs);
	switch (act[0]) {
	case 'm': {
		uint16_t len;
		const uint8_t *p = bt_pdu_body(ev, &len);
		fprintf(fp, "%.*s\n", (int)len, p ? (const char *)p : "");
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
