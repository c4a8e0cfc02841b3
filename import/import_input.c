/* Inputs of `iotape import` that are no plain file (stdin, pipes, gzip, xz,
 * zstd, bzip2): told from their magic bytes, decompressed with libarchive's
 * raw format and spooled into an unlinked file in $TMPDIR. */
#include "import/import_input.h"
#include "import/archive_dl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "import/formats.h"
#include "lib/util.h"

/* Bytes read from the input at a time. */
#define SPOOL_STEP ((size_t)1 << 20)
/* Bytes taken from libarchive and written to the spool file at a time:
 * small, as a failing read returns nothing of what it decompressed, so
 * this is how exactly an error's offset is known. */
#define DATA_STEP ((size_t)64 << 10)

const char *import_compression_sniff(const uint8_t *buf, size_t len)
{
	static const uint8_t xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	static const uint8_t zst[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const uint8_t bzblock[6] = { 0x31, 0x41, 0x59, 0x26, 0x53, 0x59 };
	static const uint8_t bzend[6] = { 0x17, 0x72, 0x45, 0x38, 0x50, 0x90 };

	if (len >= 3 && buf[0] == 0x1f && buf[1] == 0x8b && buf[2] == 8)
		return "gzip";
	if (len >= sizeof(xz) && !memcmp(buf, xz, sizeof(xz)))
		return "xz";
	if (len >= sizeof(zst) && !memcmp(buf, zst, sizeof(zst)))
		return "zstd";
	if (len >= 10 && !memcmp(buf, "BZh", 3) && buf[3] >= '1' &&
	    buf[3] <= '9' && (!memcmp(buf + 4, bzblock, 6) ||
			      !memcmp(buf + 4, bzend, 6)))
		return "bzip2";
	return NULL;
}

/* 1 when an input of total bytes starting with magic (n of its first bytes)
 * is gzip's magic and no more than its 10-byte header and 8-byte trailer
 * (RFC 1952): a gzip file cut inside them, whatever a reader makes of its
 * bytes. */
static int gzip_stub(const uint8_t *magic, size_t n, uint64_t total)
{
	return n >= 2 && total < 18 && magic[0] == 0x1f && magic[1] == 0x8b;
}

/* An unlinked read-write file in $TMPDIR (or /tmp); fd or -errno. */
static int spool_file(char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* file systems without O_TMPFILE: a named file, unlinked at once */
	snprintf(tmpl, sizeof(tmpl), "%s/iotape-spool.XXXXXX", dir);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot make a spool file in '%s' ($TMPDIR): "
			 "%s", dir, strerror(e));
		return -e;
	}
	unlink(tmpl);
	return fd;
}

/* Writes all of buf to fd; 0 or -errno. */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* What libarchive reads from: the input's descriptor, and its first bytes
 * (to name the compression when libarchive fails before saying it). */
struct feed {
	int fd;
	char *buf;
	uint64_t total;     /* bytes read from fd */
	uint8_t magic[16];
	size_t nmagic;
	int err;            /* errno of a failed read */
	int eof;            /* the read reached the input's end */
	/* a gzip input inflated a second time by zlib, its output thrown
	 * away, for the check libarchive's gzip filter does not make: each
	 * member's CRC-32 and length against its trailer (RFC 1952 2.3.1) */
	z_stream z;
	int z_init;         /* z is set up (the input is gzip) */
	int z_on;           /* and still checking */
	int z_members;      /* members ended so far */
	const char *z_bad;  /* zlib's message for a member that failed */
	uint64_t z_bad_at;  /* the compressed offset it failed at */
};

/* Feeds n compressed bytes at p (the input's bytes from offset at) to f's
 * gzip check: inflate, a member's end read against its trailer by zlib
 * (Z_DATA_ERROR "incorrect data check" or "incorrect length check"), the
 * next member begun where one ends. Bytes past the last member that are
 * no gzip header are what gzip(1) calls trailing garbage: ignored. */
static void gz_check(struct feed *f, const uint8_t *p, size_t n, uint64_t at)
{
	uint8_t sink[16384];

	if (!f->z_on || f->z_bad)
		return;
	f->z.next_in = (Bytef *)p;
	f->z.avail_in = (uInt)n;
	while (f->z.avail_in) {
		int r;
		f->z.next_out = sink;
		f->z.avail_out = sizeof(sink);
		r = inflate(&f->z, Z_NO_FLUSH);
		if (r == Z_STREAM_END) {
			f->z_members++;
			inflateReset(&f->z);
			continue;
		}
		if (r == Z_BUF_ERROR || r == Z_OK)
			continue;
		if (f->z_members && f->z.total_out == 0)
			f->z_on = 0;   /* trailing bytes after the last member */
		else {
			f->z_bad = f->z.msg ? f->z.msg : "corrupt data";
			f->z_bad_at = at + (n - f->z.avail_in);
		}
		return;
	}
}

static la_ssize_t feed_read(struct archive *a, void *vf, const void **out)
{
	struct feed *f = vf;
	ssize_t n;

	do
		n = read(f->fd, f->buf, SPOOL_STEP);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		f->err = errno;
		archive_set_error(a, errno, "read error: %s", strerror(errno));
		return -1;
	}
	if (n == 0)
		f->eof = 1;
	if (f->nmagic < sizeof(f->magic)) {
		size_t k = sizeof(f->magic) - f->nmagic;
		if (k > (size_t)n)
			k = (size_t)n;
		memcpy(f->magic + f->nmagic, f->buf, k);
		f->nmagic += k;
	}
	if (!f->z_on && !f->z_bad && f->total == 0 && n >= 2 &&
	    (uint8_t)f->buf[0] == 0x1f && (uint8_t)f->buf[1] == 0x8b &&
	    inflateInit2(&f->z, 16 + MAX_WBITS) == Z_OK)
		f->z_on = f->z_init = 1;
	gz_check(f, (const uint8_t *)f->buf, (size_t)n, f->total);
	f->total += (uint64_t)n;
	*out = f->buf;
	return n;
}

/* libarchive's message msg in iotape's style into buf (len bytes): its
 * filters write "Truncated zstd input" but "truncated gzip input", and
 * "Lzma library error:  No progress is possible"; a capital that starts
 * the message or follows ": " becomes lowercase (not one of an acronym:
 * the next letter is lowercase too), blanks are single. */
static const char *archive_message(const char *msg, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *p = msg; *p && o + 1 < len; p++) {
		int start = !o || (o >= 2 && buf[o - 1] == ' ' && buf[o - 2] == ':');
		if (*p == ' ' && o && buf[o - 1] == ' ')
			continue;
		buf[o++] = start && isupper((unsigned char)p[0]) &&
			   islower((unsigned char)p[1]) ? (char)tolower(p[0]) : *p;
	}
	buf[o] = '\0';
	return buf;
}

/* One line for a failure of libarchive on in's input (named label). */
static void spool_error(struct import_input *in, struct archive *a,
			const struct feed *f, const char *label,
			char *err, size_t errlen)
{
	const char *comp = in->compression ? in->compression
			   : import_compression_sniff(f->magic, f->nmagic);
	char msg[256], cutmsg[128];
	const char *why = archive_error_string(a)
			  ? archive_message(archive_error_string(a), msg, sizeof(msg))
			  : "read error";

	/* the input ended inside the stream: a gzip member zlib had begun
	 * and not ended, or liblzma's "no progress is possible" (LZMA_BUF_
	 * ERROR: it wants input that is not there); libarchive said "read
	 * error" and that */
	if (comp && f->eof && !strstr(why, "runcated") &&
	    ((f->z_init && f->z_on && !f->z_bad && f->z.total_in > 0) ||
	     strstr(why, "no progress is possible"))) {
		snprintf(cutmsg, sizeof(cutmsg), "truncated %s input (the file "
			 "ends inside the compressed stream)", comp);
		why = cutmsg;
	}

	if (f->err)
		snprintf(err, errlen, "cannot read '%s': %s", label,
			 strerror(f->err));
	else if (comp) {
		/* libarchive decompresses ahead of what it hands out (its
		 * format's bid reads the first block), a block at a time: its
		 * own count of the bytes decompressed is the last whole block
		 * before the break */
		la_int64_t out = archive_filter_count(a) > 1 ?
				 archive_filter_bytes(a, 0) : -1;
		uint64_t at = out > 0 && (uint64_t)out > in->spooled_bytes ?
			      (uint64_t)out : in->spooled_bytes;
		if (at)
			snprintf(err, errlen, "%s: offset %llu of the "
				 "decompressed %s stream (after %llu bytes of "
				 "input): %s", label, (unsigned long long)at,
				 comp, (unsigned long long)f->total, why);
		else    /* no block came out: the input's count is all */
			snprintf(err, errlen, "%s: the %s stream breaks in its "
				 "first block, after %llu bytes of input: %s",
				 label, comp, (unsigned long long)f->total, why);
	}
	else
		snprintf(err, errlen, "%s: offset %llu: %s", label,
			 (unsigned long long)in->spooled_bytes, why);
}

/* The stable name of libarchive's filter name comp, whatever libarchive
 * calls it. */
static const char *compression_name(const char *comp)
{
	static const char *names[] = { "gzip", "xz", "zstd", "bzip2" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(comp, names[i]))
			return names[i];
	return comp;
}

/* Text quoted in an e-mail reply ("> " before each line, "> > " twice):
 * removing it, a line at a time, across chunks. At a line's start each
 * '>' goes, with one space after it; the rest of the line stays. */
struct unquote {
	int mid;     /* inside a line's text (its quoting is behind) */
};

/* The n bytes at in with the quoting removed into out (n bytes room);
 * returns how many out holds. */
static size_t unquote_step(struct unquote *u, const uint8_t *in, size_t n,
			   uint8_t *out)
{
	size_t k = 0;
	int gt = 0;   /* the byte before was a quoting '>' */

	for (size_t i = 0; i < n; i++) {
		uint8_t c = in[i];
		if (!u->mid && c == '>') {
			gt = 1;
			continue;
		}
		if (!u->mid && gt && c == ' ') {
			gt = 0;
			continue;
		}
		gt = 0;
		out[k++] = c;
		u->mid = c != '\n';
	}
	return k;
}

/* 1 when the n bytes at buf read as text quoted in a reply: lines with
 * text (one will do: zsh's `time` report), nine in ten of them starting
 * with '>', no NUL byte. */
static int quoted_text(const uint8_t *buf, size_t n)
{
	size_t lines = 0, quoted = 0;
	int bol = 1;

	for (size_t i = 0; i < n; i++) {
		if (!buf[i])
			return 0;
		if (bol && buf[i] != '\n' && buf[i] != '\r') {
			lines++;
			quoted += buf[i] == '>';
		}
		bol = buf[i] == '\n';
	}
	return lines >= 1 && quoted * 10 >= lines * 9;
}

/* Whether a reader takes the n bytes at head once their quoting is
 * removed (quoted_text() first). */
static int known_unquoted(const uint8_t *head, size_t n)
{
	struct unquote u = { 0 };
	uint8_t *tmp;
	size_t k;
	int known;

	if (!quoted_text(head, n))
		return 0;
	tmp = xmalloc(n ? n : 1);
	k = unquote_step(&u, head, n, tmp);
	/* nothing but the quoting (and blank lines): no text to read */
	known = 0;
	for (size_t i = 0; i < k && !known; i++)
		known = !isspace(tmp[i]);
	known = known && import_format_known(tmp, k);
	free(tmp);
	return known;
}

/* Streams fd (named label) through libarchive into a new spool file:
 * in->fd, in->path, in->compression, in->spooled_bytes. The first
 * FMT_SNIFF_BYTES of the (decompressed) stream decide whether any reader
 * takes it before the rest is read: /dev/zero is refused at once, not
 * spooled until the disk is full. */
static int spool(struct import_input *in, int fd, const char *label,
		 char *err, size_t errlen)
{
	struct archive *a;
	struct feed f = { .fd = fd };
	struct archive_entry *ent;
	char *buf = NULL;
	uint8_t *head = NULL;   /* the stream's first bytes, for the sniff */
	size_t nhead = 0;
	struct unquote *quote = NULL;   /* text quoted in a reply: unquoted */
	int sniffed = 0;
	int rc = 0, r;

	if (archive_load(err, errlen))
		return -ELIBACC;
	if (!(a = archive_read_new())) {
		snprintf(err, errlen, "%s: out of memory", label);
		return -ENOMEM;
	}
	/* only these four: filter_all would also run external programs
	 * (lrzip, lzop, grzip) for formats nobody sends traces in */
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_raw(a);
	if ((rc = spool_file(err, errlen)) < 0)
		goto out;
	in->fd = rc;
	rc = 0;
	snprintf(in->path, sizeof(in->path), "/proc/self/fd/%d", in->fd);
	in->spooled = 1;
	f.buf = xmalloc(SPOOL_STEP);
	if (archive_read_open(a, &f, NULL, feed_read, NULL) != ARCHIVE_OK) {
		const char *comp = import_compression_sniff(f.magic, f.nmagic);
		if (f.total == 0 && !f.err)
			goto out;   /* empty input: the readers say so */
		if (comp && !f.err && archive_errno(a) == EILSEQ) {
			/* the raw format takes any first byte, so libarchive's
			 * "Unrecognized archive format" (EILSEQ, its
			 * ARCHIVE_ERRNO_FILE_FORMAT) with no filter error means
			 * decompression gave none (gzip of an empty file) */
			snprintf(err, errlen, "%s: offset 0 of the decompressed %s "
				 "stream: the compressed input is empty", label, comp);
			rc = -EINVAL;
			goto out;
		}
		spool_error(in, a, &f, label, err, errlen);
		rc = -EINVAL;
		goto out;
	}
	r = archive_read_next_header(a, &ent);
	if (r == ARCHIVE_EOF)
		goto out;
	if (archive_filter_count(a) > 1 &&
	    archive_filter_code(a, 0) != ARCHIVE_FILTER_NONE)
		in->compression = compression_name(archive_filter_name(a, 0));
	if (r < ARCHIVE_WARN) {
		spool_error(in, a, &f, label, err, errlen);
		rc = -EINVAL;
		goto out;
	}
	buf = xmalloc(DATA_STEP);
	head = xmalloc(FMT_SNIFF_BYTES);
	for (;;) {
		la_ssize_t n = archive_read_data(a, buf, DATA_STEP);
		if (!sniffed && n >= 0) {
			size_t k = FMT_SNIFF_BYTES - nhead;
			if (k > (size_t)n)
				k = (size_t)n;
			memcpy(head + nhead, buf, k);
			nhead += k;
			if (nhead && (n == 0 || nhead == FMT_SNIFF_BYTES)) {
				const char *cut = in->compression ? NULL
					: import_compression_sniff(f.magic, f.nmagic);
				if (!cut && !in->compression &&
				    gzip_stub(f.magic, f.nmagic, f.total))
					cut = "gzip";
				sniffed = 1;
				if (!cut && known_unquoted(head, nhead)) {
					/* quoted in a reply: what went to the
					 * spool file so far (the head less this
					 * chunk's part) again, unquoted */
					size_t before = nhead - k, w;
					uint8_t *tmp = xmalloc(before ? before : 1);
					quote = xcalloc(1, sizeof(*quote));
					w = unquote_step(quote, head, before, tmp);
					if (ftruncate(in->fd, 0) < 0 ||
					    lseek(in->fd, 0, SEEK_SET) < 0 ||
					    (rc = write_all(in->fd, tmp, w))) {
						free(tmp);
						snprintf(err, errlen, "%s: cannot spool "
							 "it: %s", label, strerror(errno));
						rc = -EIO;
						goto out;
					}
					free(tmp);
					in->spooled_bytes = w;
					in->unquoted = 1;
				} else if (!import_format_known(head, nhead) ||
				    (cut && f.total < 18)) {
					if (cut)
						/* too short for libarchive to take
						 * it as compressed: it came raw */
						snprintf(err, errlen, "%s: offset %llu: "
							 "truncated %s input (the file ends "
							 "inside its header)", label,
							 (unsigned long long)f.total, cut);
					else if (in->compression) {
						size_t ll = strlen(label) + 32;
						char *l = xmalloc(ll);
						snprintf(l, ll, "%s (%s-decompressed)",
							 label, in->compression);
						fmt_unknown(head, nhead, l, err, errlen);
						free(l);
					} else
						fmt_unknown(head, nhead, label, err, errlen);
					rc = -EINVAL;
					goto out;
				}
			}
		}
		if (n == 0) {
			if (f.z_bad) {
				snprintf(err, errlen, "%s: offset %llu: the gzip "
					 "stream is corrupt (%s: gzip -t fails too)",
					 label, (unsigned long long)f.z_bad_at,
					 f.z_bad);
				rc = -EINVAL;
				goto out;
			}
			break;
		}
		if (n < 0) {
			spool_error(in, a, &f, label, err, errlen);
			rc = -EINVAL;
			goto out;
		}
		if (quote)
			n = (la_ssize_t)unquote_step(quote, (uint8_t *)buf,
						     (size_t)n, (uint8_t *)buf);
		if ((rc = write_all(in->fd, buf, (size_t)n))) {
			const char *dir = getenv("TMPDIR");
			snprintf(err, errlen, "%s: cannot spool into '%s' ($TMPDIR): "
				 "%s", label, dir && *dir ? dir : "/tmp",
				 strerror(-rc));
			goto out;
		}
		in->spooled_bytes += (uint64_t)n;
	}
out:
	free(quote);
	free(head);
	free(buf);
	archive_read_free(a);
	free(f.buf);
	if (f.z_init)
		inflateEnd(&f.z);
	return rc;
}

/* The input's path without a compression suffix matching comp, for the
 * default run name: "t.bin.gz" gzip → "t.bin". */
static void strip_suffix(char *path, const char *comp)
{
	static const struct { const char *comp, *ext; } ext[] = {
		{ "gzip", ".gz" }, { "xz", ".xz" }, { "zstd", ".zst" },
		{ "bzip2", ".bz2" },
	};
	size_t n = strlen(path);

	for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
		size_t e = strlen(ext[i].ext);
		if (!strcmp(comp, ext[i].comp) && n > e &&
		    !strcmp(path + n - e, ext[i].ext))
			path[n - e] = '\0';
	}
}

/* 1 when the regular file fd starts with text quoted in a reply that a
 * reader takes unquoted (whatever a reader makes of it quoted: no format
 * it reads starts its lines with '>') (read at offset 0, without moving fd's offset). */
static int file_quoted(int fd)
{
	uint8_t *head = xmalloc(FMT_SNIFF_BYTES);
	ssize_t n = pread(fd, head, FMT_SNIFF_BYTES, 0);
	int q = n > 0 && known_unquoted(head, (size_t)n);

	free(head);
	return q;
}

int import_input_open(const char *input, struct import_input *in,
		      char *err, size_t errlen)
{
	int is_stdin = !strcmp(input, "-") || !strcmp(input, "/dev/stdin");
	const char *label = !strcmp(input, "-") ? "stdin" : input;
	uint8_t magic[16];
	struct stat sb;
	ssize_t got;
	int fd, rc;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	snprintf(in->path, sizeof(in->path), "%s", input);
	snprintf(in->label, sizeof(in->label), "%s", label);
	if (is_stdin) {
		fd = 0;
		if (fstat(fd, &sb) < 0) {
			snprintf(err, errlen, "cannot read stdin: %s", strerror(errno));
			return -errno;
		}
	} else if (stat(input, &sb) < 0 || S_ISDIR(sb.st_mode)) {
		return 0;   /* a per-CPU set's base name, or an error the
			     * readers report */
	} else if ((fd = open(input, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", input, strerror(errno));
		return -errno;
	}
	if (S_ISREG(sb.st_mode)) {
		/* a file: peek without moving its offset */
		got = pread(fd, magic, sizeof(magic), 0);
		if (got < 0)
			got = 0;
		/* a gzip stub is spooled, so that it is called cut short gzip;
		 * text quoted in a reply, so that it is read unquoted */
		if (!import_compression_sniff(magic, (size_t)got) &&
		    !gzip_stub(magic, (size_t)got, (uint64_t)got) &&
		    !(got && magic[0] == '>' && file_quoted(fd))) {
			if (fd != 0)
				close(fd);
			if (is_stdin) {
				/* `import - < file`: read the file in place */
				snprintf(in->path, sizeof(in->path),
					 "/proc/self/fd/0");
				snprintf(in->source, sizeof(in->source), "stdin");
				snprintf(in->name_base, sizeof(in->name_base),
					 "stdin");
			}
			return 0;
		}
		/* a file: from its start (stdin redirected at an offset
		 * cannot seek back there, so read from where it is) */
		(void)!lseek(fd, 0, SEEK_SET);
	}
	rc = spool(in, fd, in->label, err, errlen);
	if (fd != 0)
		close(fd);
	if (rc)
		return rc;
	if (is_stdin) {
		snprintf(in->source, sizeof(in->source), "stdin");
		snprintf(in->name_base, sizeof(in->name_base), "stdin");
	} else if (S_ISREG(sb.st_mode)) {
		char abspath[PATH_MAX];
		snprintf(in->source, sizeof(in->source), "%s",
			 realpath(input, abspath) ? abspath : input);
		snprintf(in->name_base, sizeof(in->name_base), "%s", input);
		if (in->compression)
			strip_suffix(in->name_base, in->compression);
	} else {
		snprintf(in->source, sizeof(in->source), "%s (pipe)", input);
		/* a named FIFO (mkfifo) names its run as a file does; a
		 * shell's <(...) (/dev/fd/63) is "pipe" */
		snprintf(in->name_base, sizeof(in->name_base), "%s",
			 strncmp(input, "/dev/fd/", 8) &&
			 strncmp(input, "/proc/self/fd/", 14) ? input : "pipe");
		if (in->compression && strcmp(in->name_base, "pipe"))
			strip_suffix(in->name_base, in->compression);
	}
	if (in->compression) {
		size_t n = strlen(in->source);
		snprintf(in->source + n, sizeof(in->source) - n, " (%s)",
			 in->compression);
		n = strlen(in->label);
		snprintf(in->label + n, sizeof(in->label) - n,
			 " (%s-decompressed)", in->compression);
	}
	if (in->unquoted) {
		size_t n = strlen(in->label);
		snprintf(in->label + n, sizeof(in->label) - n,
			 " (quoted text, '>' removed)");
	}
	return 0;
}

void import_input_close(struct import_input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	in->fd = -1;
}
