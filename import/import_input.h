/* What `iotape import` reads an input from: a plain file as it is, or a
 * pipe, stdin ("-") or a compressed file (gzip, xz, zstd, bzip2, told from
 * its magic bytes) spooled, decompressed, into an unlinked file in $TMPDIR
 * so the readers (which map or seek files) see one regular file. */
#ifndef IOTAPE_IMPORT_INPUT_H
#define IOTAPE_IMPORT_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include <limits.h>

struct import_input {
	char path[PATH_MAX];     /* what the readers open: the input, or the
				  * spool file as /proc/self/fd/N */
	char label[PATH_MAX + 64]; /* how messages name it: the input,
				  * "stdin", "t.bin.gz (gunzipped)"... */
	char source[PATH_MAX + 64]; /* the run's source: absolute path or
				  * "stdin", plus " (gzip)" when compressed */
	char name_base[PATH_MAX]; /* the default run name is made from this
				  * path: "stdin", "pipe", or the input without
				  * its compression suffix */
	const char *compression; /* "gzip", "xz", "zstd", "bzip2", or NULL */
	int spooled;             /* path is a spool file */
	int unquoted;            /* text quoted in an e-mail reply ("> "
				  * before each line), spooled without it */
	uint64_t spooled_bytes;  /* its size: bytes of the decompressed stream */
	int fd;                  /* the spool file, or -1 */
};

/* The compression whose magic bytes start buf (len bytes): "gzip" (RFC 1952
 * 1f 8b), "xz" (.xz file format 1.1.0: fd 37 7a 58 5a 00), "zstd" (RFC 8878
 * frame magic 0xFD2FB528 little-endian), "bzip2" ("BZh" + block size 1-9 +
 * block magic 31 41 59 26 53 59, or an empty stream's 17 72 45 38 50 90);
 * NULL for none. */
const char *import_compression_sniff(const uint8_t *buf, size_t len);

/* Prepares input (a path as the user gave it; "-" is stdin) for reading
 * into in: a regular uncompressed file, or a path that is no file (a
 * per-CPU set's base name), is read in place; anything else (stdin, a FIFO,
 * /dev/fd/N of `<(...)`, a compressed file) is streamed through libarchive's
 * raw format with the gzip, xz, zstd and bzip2 filters into an unlinked
 * temporary file in $TMPDIR (default /tmp) in 1 MiB steps, so memory stays
 * bounded and disk use is the decompressed size; a stream whose first
 * FMT_SNIFF_BYTES (decompressed) no reader takes (import_format_known()) is
 * refused before the rest is read. Text quoted in an e-mail reply ("> "
 * before nine lines in ten) that a reader takes with the quoting removed
 * is spooled so (label: "(quoted text, '>' removed)").
 * Returns 0, or a negative code with one
 * line in err naming the input and offset ("offset 0: neither ..." for an
 * unknown stream; for a broken compressed stream, the offset in the
 * decompressed stream reached). Call
 * import_input_close() after either. */
int import_input_open(const char *input, struct import_input *in,
		      char *err, size_t errlen);

/* Frees the spool file of in (if any). */
void import_input_close(struct import_input *in);

#endif
