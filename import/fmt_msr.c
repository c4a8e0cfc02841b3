/* MSR Cambridge block traces as SNIA IOTTA publishes them (trace set 388,
 * README "I/O trace file format"): CSV lines
 * Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime with times in
 * Windows filetime (100 ns units). One Q at Timestamp and one C after
 * ResponseTime per line; one run per host (per disk with --split). Pure. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import/formats.h"

#define MSR_HEADER "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
/* 100 ns ticks from 1601-01-01 to 1970-01-01 (Windows FILETIME epoch). */
#define FILETIME_UNIX_EPOCH 116444736000000000ull

static int all_digits(const char *s, size_t min)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (*s < '0' || *s > '9')
			return 0;
	return n >= min;
}

/* How much line (a copy) looks like a data line: 95 for 7 fields, a
 * filetime, Read or Write and numbers; 60 for 7 fields with a host and
 * Read or Write in the fourth but a bad number (the parser then names the
 * line and field, not "neither ... nor"); else 0. */
static int data_shape(char *line)
{
	char *f[8];
	int n = fmt_split(line, ',', f, 8);

	if (n != 7 || !f[1][0] || (strcmp(f[3], "Read") && strcmp(f[3], "Write")))
		return 0;
	return all_digits(f[0], 15) && all_digits(f[2], 1) &&
	       all_digits(f[4], 1) && all_digits(f[5], 1) &&
	       all_digits(f[6], 1) ? 95 : 60;
}

int fmt_msr_sniff(const uint8_t *buf, size_t len)
{
	char line[512];
	size_t i = 0, n = 0;

	while (i < len && n < sizeof(line) - 1 && buf[i] != '\n')
		line[n++] = (char)buf[i++];
	if (i == len && len == FMT_SNIFF_BYTES && n == sizeof(line) - 1)
		return 0;
	line[n] = '\0';
	if (n && line[n - 1] == '\r')
		line[n - 1] = '\0';
	if (!strcmp(line, MSR_HEADER))
		return 100;
	return data_shape(line);
}

int fmt_msr_parse(FILE *fp, const char *path, const struct fmt_opts *o,
		  const struct fmt_sink *sink, char *err, size_t errlen)
{
	char *buf = NULL, *f[8], stream[300], device[300];
	size_t cap = 0;
	uint64_t line = 0, ios = 0, reads = 0, writes = 0;
	int rc = 0, cut, noted = 0;
	long len;

	while (!rc && (len = fmt_getline(fp, &buf, &cap, &cut)) >= 0) {
		struct fmt_io io = { 0 };
		uint64_t ts, disk, off, size, rt;
		const char *bad = NULL, *val = NULL;

		line++;
		if ((rc = fmt_line_nul(buf, len, path, line, err, errlen)))
			break;
		if (!len)
			continue;
		if (line == 1 && !strcmp(buf, MSR_HEADER))
			continue;
		/* no newline: ResponseTime "44" may be "4470" cut */
		if (cut) {
			rc = fmt_cut_line(path, line, o, sink);
			break;
		}
		if (fmt_split(buf, ',', f, 8) != 7) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": not 7 fields "
				 "(%s)", path, line, MSR_HEADER);
			rc = -EINVAL;
			break;
		}
		if (fmt_u64(f[0], 0, &ts) || ts < FILETIME_UNIX_EPOCH ||
		    ts - FILETIME_UNIX_EPOCH > (uint64_t)INT64_MAX / 100)
			bad = "Timestamp", val = f[0];
		else if (!f[1][0])
			bad = "Hostname", val = f[1];
		else if (fmt_u64(f[2], 0, &disk) || disk > 0xfffff)
			bad = "DiskNumber", val = f[2];
		else if (strcmp(f[3], "Read") && strcmp(f[3], "Write"))
			bad = "Type", val = f[3];
		else if (fmt_u64(f[4], 0, &off) || off > (uint64_t)INT64_MAX / 2)
			/* a byte offset past 2^62 is no disk's (fio's iolog,
			 * export's target, takes offsets below 2^63) */
			bad = "Offset", val = f[4];
		else if (fmt_u64(f[5], 0, &size) || size > UINT32_MAX)
			bad = "Size", val = f[5];
		else if (fmt_u64(f[6], 0, &rt) || rt > (uint64_t)INT64_MAX / 200)
			bad = "ResponseTime", val = f[6];
		if (bad) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": bad %s '%.40s'",
				 path, line, bad, val);
			rc = -EINVAL;
			break;
		}
		if (!noted && sink->note) {
			noted = 1;
			rc = sink->note(sink->ctx, "MSR Cambridge CSV: Q at Timestamp "
				"(when the I/O was issued; Windows filetime, 100 ns "
				"units), C at Timestamp + ResponseTime: Q2C is the "
				"trace's response time; no D (D2C and Q2D unknown); "
				"disk N is device 0,N");
			if (rc)
				break;
		}
		if (o && o->split)
			snprintf(stream, sizeof(stream), "%s_%" PRIu64, f[1], disk);
		else
			snprintf(stream, sizeof(stream), "%s", f[1]);
		snprintf(device, sizeof(device), "%s disk %" PRIu64, f[1], disk);
		io.stream = stream;
		io.device = device;
		io.dev = FMT_DEV(disk);
		io.sector = off / 512;
		io.bytes = (uint32_t)size;
		io.cats = f[3][0] == 'R' ? BT_C_READ : BT_C_WRITE;
		io.q_ns = (int64_t)(ts - FILETIME_UNIX_EPOCH) * 100;
		io.d_ns = FMT_NO_TIME;
		if (__builtin_add_overflow(io.q_ns, (int64_t)rt * 100, &io.c_ns)) {
			snprintf(err, errlen, "%s: line %" PRIu64 ": Timestamp + "
				 "ResponseTime is past the largest time iotape "
				 "stores (2^63 - 1 ns)", path, line);
			rc = -EINVAL;
			break;
		}
		if (f[3][0] == 'R')
			reads++;
		else
			writes++;
		ios++;
		rc = sink->io(sink->ctx, &io);
	}
	if (!rc && !ios) {
		snprintf(err, errlen, "%s: line %" PRIu64 ": no I/O lines", path, line);
		rc = -EINVAL;
	}
	if (!rc && sink->stat) {
		char v[32];
		snprintf(v, sizeof(v), "%" PRIu64, reads);
		rc = sink->stat(sink->ctx, "msr_csv.reads", v);
		snprintf(v, sizeof(v), "%" PRIu64, writes);
		if (!rc)
			rc = sink->stat(sink->ctx, "msr_csv.writes", v);
	}
	free(buf);
	return rc;
}
