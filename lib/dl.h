/* Libraries loaded on first use (dlopen(3)) rather than linked: a library
 * and its dependencies count in every process's resident set from its
 * start, used or not. libpq (the PostgreSQL store, schema/pq_dl.h) and
 * libarchive (compressed and piped imports, import/archive_dl.h) are
 * loaded so; the flight recorder, which uses neither, stays smaller by
 * their 4 and 2 MiB. */
#ifndef IOTAPE_DL_H
#define IOTAPE_DL_H

#include <stddef.h>

/* One library's calls: its soname, the package that installs it (for the
 * message), n symbol names and where each address goes. */
struct dl_lib {
	const char *soname;
	const char *package;
	const char *const *names;
	void **const *slots;
	size_t n;
	int loaded;              /* 1 once every slot is set */
};

/* Loads lib (once per process: later calls return at once; thread-safe)
 * and stores each symbol's address in its slot. Returns 0, or -1 with a
 * one-line message in err (errlen bytes) naming the library and the
 * package, or the symbol it lacks (then no slot is left set). */
int dl_load(struct dl_lib *lib, const char *what, char *err, size_t errlen);

#endif
