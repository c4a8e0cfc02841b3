/* SYSTOR '17 block traces as SNIA IOTTA publishes them (README: CSV
 * Timestamp,Response,IOType,LUN,Offset,Size; Timestamp in Unix seconds,
 * Response in seconds, IOType R, W or blank when no response came). One Q
 * at Timestamp and one C after Response per line; one run per file (per
 * LUN with --split). Pure. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"

#define SYSTOR_HEADER "Timestamp,Response,IOType,LUN,Offset,Size"

int fmt_systor_sniff(const uint8_t *buf, size_t len)
{
	size_t n = strlen(SYSTOR_HEADER);

	return len >= n && !memcmp(buf, SYSTOR_HEADER, n) &&
	       (len == n || buf[n] == '\n' || buf[n] == '\r') ? 100 : 0;
}

int fmt_systor_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		     const struct fmt_sink *sink, char *err, size_t errlen)
{
	char *buf = NULL, *f[8], stream[32], device[32];
	size_t cap = 0;
	uint64_t line = 0, ios = 0, blank = 0;
	int rc = 0, cut;
	long len;

	while (!rc && (len = fmt_getline(fp, &buf, &cap, &cut)) >= 0) {
		struct fmt_io io = { 0 };
		uint64_t lun, off, size;
		int64_t ts = 0, resp = 0;
		const char *bad = NULL, *val = "";

		line++;
		if ((rc = fmt_line_nul(buf, len, path, line, err, errlen)))
			break;
		if (line == 1) {
			if (strcmp(buf, SYSTOR_HEADER)) {
				snprintf(err, errlen, "%s: line 1: not the header '%s'",
					 path, SYSTOR_HEADER);
				rc = -EINVAL;
				break;
			}
			if (sink->note)
				rc = sink->note(sink->ctx, "SYSTOR '17 CSV: Q at "
					"Timestamp (when the I/O was issued, Unix time; "
					"exact to the microsecond), C at Timestamp + "
					"Response: Q2C is the trace's response time; no D "
					"(D2C and Q2D unknown); LUN N is device 0,N; lines "
					"with a blank IOType (no response) are skipped");
			continue;
		}
		if (!len)
			continue;
		/* no newline: Size "16" may be "16384" cut */
		if (cut) {
			rc = fmt_cut_line(path, line, o, sink);
			break;
		}
		if (fmt_split(buf, ',', f, 8) != 6) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": not 6 fields (%s)",
				 path, line, SYSTOR_HEADER);
			rc = -EINVAL;
			break;
		}
		if (fmt_seconds_ns(f[0], &ts))
			bad = "Timestamp", val = f[0];
		else if (f[1][0] && fmt_seconds_ns(f[1], &resp))
			bad = "Response", val = f[1];
		else if (f[2][0] && strcmp(f[2], "R") && strcmp(f[2], "W"))
			bad = "IOType", val = f[2];
		else if (fmt_u64(f[3], 0, &lun) || lun > 0xfffff)
			bad = "LUN", val = f[3];
		else if (fmt_u64(f[4], 0, &off))
			bad = "Offset", val = f[4];
		else if (fmt_u64(f[5], 0, &size) || size > UINT32_MAX)
			bad = "Size", val = f[5];
		if (bad) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": bad %s '%.40s'",
				 path, line, bad, val);
			rc = -EINVAL;
			break;
		}
		if (!f[2][0] || !f[1][0]) {
			blank++;
			continue;
		}
		snprintf(stream, sizeof(stream), "lun%" PRIu64, lun);
		snprintf(device, sizeof(device), "LUN %" PRIu64, lun);
		io.stream = o && o->split ? stream : NULL;
		io.device = device;
		io.dev = FMT_DEV(lun);
		io.sector = off / 512;
		io.bytes = (uint32_t)size;
		io.cats = f[2][0] == 'R' ? BT_C_READ : BT_C_WRITE;
		io.q_ns = ts;
		io.d_ns = FMT_NO_TIME;
		if (__builtin_add_overflow(ts, resp, &io.c_ns)) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": Timestamp + "
				 "Response is past the largest time iotape stores "
				 "(2^63 - 1 ns)", path, line);
			rc = -EINVAL;
			break;
		}
		ios++;
		rc = sink->io(sink->ctx, &io);
	}
	if (!rc && !ios) {
		snprintf(err, errlen, "%s: line %" PRIu64 ": no I/O lines", path, line);
		rc = -EINVAL;
	}
	if (!rc && sink->stat) {
		char v[32];
		snprintf(v, sizeof(v), "%" PRIu64, blank);
		rc = sink->stat(sink->ctx, "systor_csv.no_response", v);
	}
	free(buf);
	return rc;
}
