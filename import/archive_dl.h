/* libarchive, loaded when an input must be decompressed or spooled
 * (lib/dl.h), not at every start: linked, it and what it pulls in
 * (libxml2, ICU, libstdc++) took 2 MiB of every iotape process's
 * resident set. import/import_input.c includes this instead of
 * <archive.h> and calls archive_* as ever: each name below stands for
 * the pointer archive_load() found. */
#ifndef IOTAPE_ARCHIVE_DL_H
#define IOTAPE_ARCHIVE_DL_H

#include <stddef.h>

#include <archive.h>
#include <archive_entry.h>

/* The libarchive calls the import makes (archive.h, libarchive 3.6). */
#define ARCHIVE_FUNCS(X) X(archive_read_new) X(archive_read_free) \
	X(archive_read_support_filter_gzip) X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) \
	X(archive_read_support_filter_bzip2) \
	X(archive_read_support_format_raw) X(archive_read_open) \
	X(archive_read_next_header) X(archive_read_data) X(archive_errno) \
	X(archive_error_string) X(archive_set_error) X(archive_filter_count) \
	X(archive_filter_code) X(archive_filter_name) X(archive_filter_bytes)

struct archive_api {
#define ARCHIVE_MEMBER(f) __typeof__(&f) f##_p;
	ARCHIVE_FUNCS(ARCHIVE_MEMBER)
#undef ARCHIVE_MEMBER
};

extern struct archive_api archive_api;

/* Loads libarchive (the soname libarchive.so.13, package libarchive13)
 * and every call above, once per process (dl_load()). Returns 0, or -1
 * with a one-line message in err (errlen bytes). Thread-safe. */
int archive_load(char *err, size_t errlen);

#ifndef ARCHIVE_DL_IMPL
#define archive_read_new (archive_api.archive_read_new_p)
#define archive_read_free (archive_api.archive_read_free_p)
#define archive_read_support_filter_gzip \
	(archive_api.archive_read_support_filter_gzip_p)
#define archive_read_support_filter_xz \
	(archive_api.archive_read_support_filter_xz_p)
#define archive_read_support_filter_zstd \
	(archive_api.archive_read_support_filter_zstd_p)
#define archive_read_support_filter_bzip2 \
	(archive_api.archive_read_support_filter_bzip2_p)
#define archive_read_support_format_raw \
	(archive_api.archive_read_support_format_raw_p)
#define archive_read_open (archive_api.archive_read_open_p)
#define archive_read_next_header (archive_api.archive_read_next_header_p)
#define archive_read_data (archive_api.archive_read_data_p)
#define archive_errno (archive_api.archive_errno_p)
#define archive_error_string (archive_api.archive_error_string_p)
#define archive_set_error (archive_api.archive_set_error_p)
#define archive_filter_count (archive_api.archive_filter_count_p)
#define archive_filter_code (archive_api.archive_filter_code_p)
#define archive_filter_name (archive_api.archive_filter_name_p)
#define archive_filter_bytes (archive_api.archive_filter_bytes_p)
#endif

#endif
