/* The lexing half of the blkparse text importer (blkparse_text.c): the
 * fields of one line as blkparse 1.2 prints them, numbers, names, RWBS,
 * extents and payload bytes. Pure: strings in, values out. */
#include "blkparse_lex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int bpl_is_blank(int c)
{
	return c == ' ' || c == '\t';
}

int bpl_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

const char *bpl_skip_blanks(const char *p)
{
	while (bpl_is_blank(*p))
		p++;
	return p;
}

/* Reads a decimal number of at most max at p; returns the end or NULL. */
const char *bpl_read_u64(const char *p, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!bpl_is_digit(*p))
		return NULL;
	for (; bpl_is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (max - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	*out = v;
	return p;
}

const char *bpl_read_u32(const char *p, uint32_t *out)
{
	uint64_t v;

	p = bpl_read_u64(p, UINT32_MAX, &v);
	if (p)
		*out = (uint32_t)v;
	return p;
}

/* A blank-separated token of 1..cap-1 characters of set (NULL: any) into
 * out; returns the end or NULL. */
const char *bpl_read_token(const char *p, char *out, size_t cap,
			      const char *set)
{
	size_t n = 0;

	while (*p && !bpl_is_blank(*p)) {
		if (n + 1 >= cap || (set && !strchr(set, *p)))
			return NULL;
		out[n++] = *p++;
	}
	out[n] = '\0';
	return n ? p : NULL;
}

/* Parses the header of a per-event line (NUL-terminated s). Returns 0 and
 * fills *h, or -1 when s is not a per-event line. */
int bpl_parse_header(const char *s, struct line_hdr *h)
{
	const char *p = bpl_skip_blanks(s);
	uint64_t sec, nsec, seq;
	const char *q;
	int neg = 0;

	if (!(p = bpl_read_u32(p, &h->maj)) || *p++ != ',' ||
	    !(p = bpl_read_u32(p, &h->min)) || !bpl_is_blank(*p))
		return -1;
	if (h->maj > 0xfff || h->min > 0xfffff)
		return -1;
	p = bpl_skip_blanks(p);
	if (!(p = bpl_read_u32(p, &h->cpu)) || !bpl_is_blank(*p))
		return -1;
	/* "%8d" of the u32 sequence: negative from 2^31 on */
	p = bpl_skip_blanks(p);
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (!(p = bpl_read_u64(p, neg ? 0x80000000u : UINT32_MAX, &seq)) ||
	    !bpl_is_blank(*p))
		return -1;
	h->seq = neg ? (uint32_t)(0 - (uint32_t)seq) : (uint32_t)seq;
	p = bpl_skip_blanks(p);
	if (!(p = bpl_read_u64(p, UINT64_MAX / 1000000000u - 1, &sec)) ||
	    *p++ != '.')
		return -1;
	q = p;
	if (!(p = bpl_read_u64(p, 999999999u, &nsec)) || p - q != 9 ||
	    !bpl_is_blank(*p))
		return -1;
	h->time_ns = sec * 1000000000u + nsec;
	p = bpl_skip_blanks(p);
	if (!(p = bpl_read_u32(p, &h->pid)) || !bpl_is_blank(*p))
		return -1;
	p = bpl_skip_blanks(p);
	if (!(p = bpl_read_token(p, h->act, sizeof(h->act),
			     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")) ||
	    !bpl_is_blank(*p))
		return -1;
	p = bpl_skip_blanks(p);
	if (!(p = bpl_read_token(p, h->rwbs, sizeof(h->rwbs),
			     "ABCDEFGHIJKLMNOPQRSTUVWXYZ")))
		return -1;
	if (*p && !bpl_is_blank(*p))
		return -1;
	h->body = *p ? p + 1 : p;
	return 0;
}

/* Whether s starts like a per-event line ("maj,min "), whatever follows. */
int bpl_looks_like_event(const char *s)
{
	const char *p = bpl_skip_blanks(s);

	if (!bpl_is_digit(*p))
		return 0;
	while (bpl_is_digit(*p))
		p++;
	if (*p++ != ',' || !bpl_is_digit(*p))
		return 0;
	while (bpl_is_digit(*p))
		p++;
	return bpl_is_blank(*p);
}

/* Lines blkparse prints before the events (stdout on a terminal) or that a
 * tool or the reporter put above them: skipped silently. */
int bpl_is_preamble(const char *s)
{
	return s[0] == '#' ||
	       (!strncmp(s, "Input file ", 11) && strstr(s, " added"));
}

/* Whether s opens blkparse's closing summary (blkparse.c show_stats()). */
int bpl_is_summary_start(const char *s)
{
	const char *p;

	if (!strncmp(s, "CPU", 3)) {
		p = s + 3;
		if (!bpl_is_digit(*p))
			return 0;
		while (bpl_is_digit(*p))
			p++;
		return !strncmp(p, " (", 2);
	}
	return !strncmp(s, "Total (", 7) || !strncmp(s, "Throughput (", 12) ||
	       !strncmp(s, "Events (", 8) || !strncmp(s, "Skips: ", 7) ||
	       !strncmp(s, " Reads Queued:", 14);
}

/* Categories from an RWBS string, inverting blkparse 1.2's fill_rwbs(): an
 * optional leading F (flush), then D, W, R or N, then F (FUA), A, S, M in
 * that order. B (barrier, blkparse before 1.1 printed it after A) is the
 * same kernel bit as flush. Returns -1 for a letter out of place. */
int bpl_rwbs_cats(const char *s, uint64_t *cats)
{
	static const char order[] = "FABSM";
	uint64_t c = 0;
	const char *o = order;

	if (s[0] == 'F' && s[1] && strchr("DWRN", s[1])) {
		c |= BT_C_FLUSH;
		s++;
	}
	switch (*s++) {
	case 'D': c |= BT_C_DISCARD; break;
	case 'W': c |= BT_C_WRITE; break;
	case 'R': c |= BT_C_READ; break;
	case 'N': break;
	default: return -1;
	}
	for (; *s; s++) {
		const char *at = strchr(o, *s);
		if (!at)
			return -1;
		o = at + 1;
		switch (*s) {
		case 'F': c |= BT_C_FUA; break;
		case 'A': c |= BT_C_AHEAD; break;
		case 'B': c |= BT_C_FLUSH; break;
		case 'S': c |= BT_C_SYNC; break;
		case 'M': c |= BT_C_META; break;
		}
	}
	*cats = c;
	return 0;
}

/* "S + N" at p into sector and bytes; returns the end or NULL. */
const char *bpl_read_extent(const char *p, struct bt_event *ev)
{
	uint64_t n;

	if (!(p = bpl_read_u64(p, UINT64_MAX, &ev->sector)) || strncmp(p, " + ", 3))
		return NULL;
	if (!(p = bpl_read_u64(p + 3, UINT32_MAX >> 9, &n)))
		return NULL;
	ev->bytes = (uint32_t)(n << 9);
	return p;
}

/* "[NAME]" from p to the last ']' of the line; tail receives what follows
 * that ']'. Returns the name's length (name not terminated) or -1. */
long bpl_read_name(const char *p, const char **name, const char **tail)
{
	const char *close;

	if (*p != '[' || !(close = strrchr(p, ']')))
		return -1;
	*name = p + 1;
	*tail = close + 1;
	return (long)(close - p - 1);
}

int bpl_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void bpl_put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

void bpl_put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* The "[ERR]" of a C or R line (span name[0..len)) into ev->error. blkparse
 * prints the u16 with %d; a "-5" from other tools is stored as the kernel
 * stored it, (u16)-5. */
int bpl_read_error(const char *name, long len, struct bt_event *ev)
{
	char buf[16];
	uint64_t v;
	const char *p = buf;
	int neg = 0;

	if (len <= 0 || len >= (long)sizeof(buf))
		return -1;
	memcpy(buf, name, (size_t)len);
	buf[len] = '\0';
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (!(p = bpl_read_u64(p, 65535, &v)) || *p)
		return -1;
	ev->error = (uint16_t)(neg ? 0 - (unsigned)v : (unsigned)v);
	return 0;
}
