/* The CloudPhysics vSCSI block trace as libCacheSim ships it in CSV
 * (data/cloudPhysicsIO.csv: version,time,op,size,lbn): the fields of its
 * vSCSI records (libCacheSim traceReader/customizedReader/vscsi.h), time
 * cut to whole seconds, op the SCSI command's opcode in hex. One Q per
 * line; the trace has no completions. Pure. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"

#define CP_HEADER "version,time,op,size,lbn"

int fmt_cloudphysics_sniff(const uint8_t *buf, size_t len)
{
	size_t n = strlen(CP_HEADER);

	return len >= n && !memcmp(buf, CP_HEADER, n) &&
	       (len == n || buf[n] == '\n' || buf[n] == '\r') ? 100 : 0;
}

/* The direction of a SCSI opcode (SBC-3 command set): 0 read, 1 write,
 * 2 flush (SYNCHRONIZE CACHE), 3 discard (UNMAP), -1 not an I/O. */
static int scsi_op(uint64_t op)
{
	switch (op) {
	case 0x08: case 0x28: case 0xa8: case 0x88:   /* READ(6/10/12/16) */
		return 0;
	case 0x0a: case 0x2a: case 0xaa: case 0x8a:   /* WRITE(6/10/12/16) */
		return 1;
	case 0x35: case 0x91:                         /* SYNCHRONIZE CACHE */
		return 2;
	case 0x42:                                    /* UNMAP */
		return 3;
	}
	return -1;
}

int fmt_cloudphysics_parse(FILE *fp, const char *path, const struct fmt_opts *o,
			   const struct fmt_sink *sink, char *err, size_t errlen)
{
	static const uint32_t cats[] = { BT_C_READ, BT_C_WRITE,
		BT_C_WRITE | BT_C_FLUSH | BT_C_SYNC, BT_C_DISCARD };
	char *buf = NULL, *f[8];
	size_t cap = 0;
	uint64_t line = 0, ios = 0, other = 0;
	int rc = 0, cut;
	long len;

	while (!rc && (len = fmt_getline(fp, &buf, &cap, &cut)) >= 0) {
		struct fmt_io io = { 0 };
		uint64_t ver, t, op, size, lbn;
		const char *bad = NULL, *val = "";
		int kind;

		line++;
		if ((rc = fmt_line_nul(buf, len, path, line, err, errlen)))
			break;
		if (line == 1) {
			if (strcmp(buf, CP_HEADER)) {
				snprintf(err, errlen, "%s: line 1: not the header '%s'",
					 path, CP_HEADER);
				rc = -EINVAL;
				break;
			}
			if (sink->note)
				rc = sink->note(sink->ctx, "CloudPhysics CSV "
					"(libCacheSim): one Q per line at its time (the "
					"vSCSI timestamp cut to whole seconds: I/Os of one "
					"second share it); lbn in 512-byte sectors; op is "
					"the SCSI opcode (28 read, 2a write); no "
					"completions (no Q2C)");
			continue;
		}
		if (!len)
			continue;
		/* no newline: lbn "4751" may be "47513600" cut */
		if (cut) {
			rc = fmt_cut_line(path, line, o, sink);
			break;
		}
		if (fmt_split(buf, ',', f, 8) != 5) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": not 5 fields (%s)",
				 path, line, CP_HEADER);
			rc = -EINVAL;
			break;
		}
		if (fmt_u64(f[0], 0, &ver))
			bad = "version", val = f[0];
		else if (fmt_u64(f[1], 0, &t) || t > (uint64_t)INT64_MAX / 1000000000)
			bad = "time", val = f[1];
		else if (!f[2][0] || strlen(f[2]) > 2)
			bad = "op", val = f[2];
		else if (fmt_u64(f[3], 0, &size) || size > UINT32_MAX)
			bad = "size", val = f[3];
		else if (fmt_u64(f[4], 0, &lbn) || lbn > UINT64_MAX / 512)
			bad = "lbn", val = f[4];
		if (!bad) {
			char hex[8];
			snprintf(hex, sizeof(hex), "0x%s", f[2]);
			if (fmt_u64(hex, 1, &op))
				bad = "op", val = f[2];
		}
		if (bad) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": bad %s '%.40s'",
				 path, line, bad, val);
			rc = -EINVAL;
			break;
		}
		if ((kind = scsi_op(op)) < 0) {
			other++;
			continue;
		}
		io.device = "vscsi disk";
		io.dev = FMT_DEV(0);
		io.sector = lbn;
		io.bytes = kind == 2 ? 0 : (uint32_t)size;
		io.cats = cats[kind];
		io.q_ns = (int64_t)t * 1000000000;
		io.d_ns = io.c_ns = FMT_NO_TIME;
		ios++;
		rc = sink->io(sink->ctx, &io);
	}
	if (!rc && !ios) {
		snprintf(err, errlen, "%s: line %" PRIu64 ": no I/O lines", path, line);
		rc = -EINVAL;
	}
	if (!rc && sink->stat) {
		char v[32];
		snprintf(v, sizeof(v), "%" PRIu64, other);
		rc = sink->stat(sink->ctx, "cloudphysics_csv.other_ops", v);
	}
	free(buf);
	return rc;
}
