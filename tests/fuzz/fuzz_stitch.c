/* libFuzzer harness: request stitching on decoded events. The bytes drive a
 * generator of plausible event sequences with what broke btt: clock steps
 * back and ahead, bios overlapping and nested in flight, new bios at a
 * sector in flight, lost and duplicate completions, requeues, splits,
 * remaps, zero-length flush sequences, cgroup payloads. Each row the
 * stitcher emits is checked for sense. IOTAPE_FUZZ_WRITE=FILE writes the
 * generated events as a blktrace v7 stream (a fixture t_fuzz_fixtures.sh
 * imports). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/stitch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXEV 4096

struct gen {
	const uint8_t *p, *end;
	uint64_t t;
	uint64_t secs[16];     /* recent sectors: overlaps come from reuse */
	uint32_t lens[16];
	unsigned nsec;
	struct bt_event ev[MAXEV];
	uint8_t pdu[MAXEV][24];
	size_t n;
};

static unsigned take(struct gen *g)
{
	return g->p < g->end ? *g->p++ : 0;
}

static int on_row(void *ctx, int64_t id, const struct store_request *rq)
{
	(void)ctx;
	/* ids are handed out from 1 up; a row never joins itself */
	if (id <= 0 || rq->merged_into == id || rq->split_from == id)
		abort();
	return 0;
}

static void add(struct gen *g, unsigned code, uint32_t cats, uint64_t sector,
		uint32_t bytes, uint32_t dev, const uint8_t *pdu, uint16_t plen)
{
	struct bt_event *e;

	if (g->n >= MAXEV)
		return;
	e = &g->ev[g->n];
	memset(e, 0, sizeof(*e));
	e->time_ns = g->t;
	e->sector = sector;
	e->bytes = bytes;
	e->action = code | ((uint64_t)cats << 16);
	e->pid = 100 + (take(g) & 3);
	e->dev = dev;
	e->sequence = (uint32_t)g->n + 1;
	if (plen) {
		memcpy(g->pdu[g->n], pdu, plen);
		e->pdu = g->pdu[g->n];
		e->pdu_len = plen;
	}
	g->n++;
}

static void generate(struct gen *g)
{
	static const uint32_t qcat[] = { BT_C_QUEUE, BT_C_QUEUE, BT_C_QUEUE,
		BT_C_QUEUE, BT_C_REQUEUE, BT_C_ISSUE, BT_C_COMPLETE };
	while (g->p < g->end && g->n < MAXEV) {
		unsigned op = take(g), a = take(g), b = take(g);
		uint32_t dev = BT_MKDEV(8, (op >> 7) & 1 ? 16 : 0);
		uint32_t rw = (a & 1) ? BT_C_WRITE : BT_C_READ;
		uint64_t sec;
		uint32_t len;
		unsigned k = a >> 4;
		uint8_t pdu[24] = { 0 };

		/* a sector: a recent one (same start, or inside it), or new */
		if (g->nsec && k < 10) {
			unsigned i = k % g->nsec;
			sec = g->secs[i] + ((a & 2) ? (b & 7) * 8 % (g->lens[i] + 1) : 0);
			len = (a & 4) ? g->lens[i] : (uint32_t)(8 << (b & 3));
		} else {
			sec = (uint64_t)(a * 131 + b * 7) * 8;
			len = (uint32_t)(8 << (b & 3));
			g->secs[g->nsec % 16] = sec;
			g->lens[g->nsec % 16] = len;
			g->nsec++;
		}
		/* time: small steps, sometimes a clock step either way */
		switch (op & 0x70) {
		case 0x70:
			if (b < 8)
				g->t = g->t > 4400000000000ull ? g->t - 4400000000000ull : 0;
			else if (b < 16)
				g->t += 4400000000000ull;
			else
				g->t += (uint64_t)b * 100000;
			break;
		default:
			g->t += (uint64_t)(b & 15) * 1000;
		}
		switch (op & 15) {
		case 0: case 1:              /* Q */
			add(g, BT_A_QUEUE, BT_C_QUEUE | rw, sec, len << 9, dev, NULL, 0);
			break;
		case 2:                      /* G, I, M */
			add(g, (b & 1) ? BT_A_GETRQ : (b & 2) ? BT_A_BACKMERGE
			    : BT_A_INSERT, BT_C_QUEUE | rw, sec, len << 9, dev, NULL, 0);
			break;
		case 3: case 4:              /* D */
			add(g, BT_A_ISSUE, BT_C_ISSUE | rw, sec, len << 9, dev, NULL, 0);
			break;
		case 5: case 6:              /* C (lost ones: simply not made) */
			add(g, BT_A_COMPLETE, BT_C_COMPLETE | rw, sec, len << 9, dev,
			    NULL, 0);
			break;
		case 7:                      /* R */
			add(g, BT_A_REQUEUE, BT_C_REQUEUE | rw, sec, len << 9, dev,
			    NULL, 0);
			break;
		case 8: {                    /* X at a point inside */
			uint64_t at = sec + (b & 31);
			for (int i = 0; i < 8; i++)
				pdu[i] = (uint8_t)(at >> (56 - 8 * i));
			add(g, BT_A_SPLIT, BT_C_QUEUE | rw, sec, len << 9, dev, pdu, 8);
			break;
		}
		case 9: {                    /* A from another device */
			uint32_t from = BT_MKDEV(253, b & 3);
			pdu[0] = (uint8_t)(from >> 24); pdu[1] = (uint8_t)(from >> 16);
			pdu[2] = (uint8_t)(from >> 8); pdu[3] = (uint8_t)from;
			pdu[4] = (uint8_t)(dev >> 24); pdu[5] = (uint8_t)(dev >> 16);
			pdu[6] = (uint8_t)(dev >> 8); pdu[7] = (uint8_t)dev;
			pdu[15] = (uint8_t)b;
			add(g, BT_A_REMAP, BT_C_QUEUE | rw, sec, len << 9, dev, pdu,
			    (b & 8) ? 16 : (uint16_t)(b & 15));
			break;
		}
		case 10:                     /* a flush bio: Q FWS, D FN, C FN, C WS */
			add(g, BT_A_QUEUE, BT_C_QUEUE | BT_C_FLUSH | BT_C_WRITE |
			    ((b & 1) ? BT_C_FUA : 0), sec, (b & 2) ? len << 9 : 0,
			    dev, NULL, 0);
			break;
		case 11:
			add(g, BT_A_ISSUE, BT_C_ISSUE | BT_C_FLUSH, 0, 0, dev, NULL, 0);
			break;
		case 12:
			add(g, BT_A_COMPLETE, BT_C_COMPLETE | BT_C_FLUSH |
			    ((b & 1) ? BT_C_READ : 0), 0, 0, dev, NULL, 0);
			break;
		case 13:
			add(g, BT_A_COMPLETE, BT_C_COMPLETE | BT_C_WRITE | BT_C_SYNC,
			    (b & 1) ? sec : 0, 0, dev, NULL, 0);
			break;
		case 14: {                   /* any action with a cgroup id */
			unsigned code = 1 + (b % 19);
			pdu[7] = (uint8_t)b;
			add(g, code | 0x100, qcat[b % 7] | rw, sec, (a & 8) ? len << 9
			    : (uint32_t)(b & 7) * 64, dev, pdu, (uint16_t)(8 + (a & 15)));
			break;
		}
		default:                     /* a notify record */
			add(g, b & 3, BT_C_NOTIFY, 0, 0, dev, (const uint8_t *)"fuzzer-proc-name", 16);
		}
	}
}

static void write_trace(const struct gen *g, const char *path)
{
	FILE *fp = fopen(path, "wb");
	uint8_t buf[128];

	if (!fp)
		abort();
	for (size_t i = 0; i < g->n; i++) {
		long n = bt_encode(&g->ev[i], 7, 0, buf, sizeof(buf));
		if (n > 0)
			fwrite(buf, 1, (size_t)n, fp);
	}
	fclose(fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gen g;
	struct stitch *s;
	const char *out = getenv("IOTAPE_FUZZ_WRITE");

	memset(&g, 0, sizeof(g));
	g.p = data;
	g.end = data + size;
	g.t = 1000000000;
	generate(&g);
	if (out)
		write_trace(&g, out);
	s = stitch_new(on_row, NULL, 1);
	for (size_t i = 0; i < g.n; i++)
		if (stitch_event(s, &g.ev[i]))
			abort();
	if (stitch_finish(s))
		abort();
	stitch_free(s);
	return 0;
}
