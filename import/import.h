/* Importing inputs into runs of the store: one input into a new run of an
 * open store, for `iotape import` and for capture and replay, which import
 * what they recorded; and `iotape import` as a function tests can call
 * without argv. */
#ifndef IOTAPE_IMPORT_H
#define IOTAPE_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/summary.h"
#include "schema/store.h"

struct import_opts {
	int strict; /* a cut-short record is an error */
	int quiet;  /* no warnings on stderr */
	char *summary;      /* if set, a one-line summary of the import goes here */
	size_t summary_len;
	double interval_s;  /* vmstat logs: seconds between rows (0: from the
			     * log's timestamps, else 1) */
	int no_boot_row;    /* vmstat logs: no row is a since-boot average */
	int split;          /* traces of several disks: one run per disk */
	int once;           /* traces (blktrace, blkparse, the text ones of
			     * import/formats.h): refuse one whose
			     * bytes (SHA-256) a run already holds; `import`
			     * without --again */
	/* set by import_one() for an input read through a spool file
	 * (import/import_input.h); NULL: from the path */
	const char *label;     /* the input's name in messages */
	const char *source;    /* the run's source */
	const char *name_base; /* path the default run name is made from */
	/* the runs this import makes are counted here as their rows are
	 * stored; the caller writes their summaries before it commits
	 * (run_summaries_write()); NULL: none written */
	struct run_summaries *sums;
	/* for import_run() only */
	const char *db;     /* NULL: $IOTAPE_DB or iotape.db */
	const char *name;   /* name of the run (one input only); NULL: from
			     * the file's name, made unique */
	const char *names;  /* a file of 'PID NAME' lines (tracefs
			     * saved_cmdlines, ps -eo pid,comm) for each
			     * input's processes, or NULL */
	char *const *inputs;
	int ninput;
};

/* What import_run() made of one input. */
struct import_result {
	int64_t run;        /* the run made (or joined, for a vmstat log) */
	char summary[512];  /* "imported 'FILE' as run 'NAME': N events, ..." */
};

/* Reads input (see trace_input_read()) into a new run named name (NULL: from
 * the file name, made unique) inside the caller's transaction: events,
 * processes, devices, stitched requests and import statistics. Returns 0 and
 * *run_out (may be NULL), or a negative code with a one-line message naming
 * the file and offset in err; the caller then rolls back. */
int import_one(struct store *st, const struct import_opts *o, const char *input,
	       const char *name, int64_t *run_out, char *err, size_t errlen);

/* Writes a failure of st met while importing label into err (errlen
 * bytes), the database first, since it is what failed: "DB: importing
 * 'demo.blktrace': creating run: attempt to write a readonly database". */
void import_store_error(struct store *st, const char *label, char *err,
			size_t errlen);

/* `iotape import`: reads o->inputs[0 .. o->ninput) into the store at o->db
 * (made if absent), each into a run of its own with import_one(), and
 * o->names into each run's process names (names the trace gave win), all
 * in one transaction: nothing is stored unless every input reads cleanly.
 * Fills res[i] for each input (o->ninput entries; the caller prints the
 * summaries once this returns 0, so nothing claims an import that was
 * rolled back). Readers warn on stderr of inputs cut short unless
 * o->quiet. Returns 0, or -1 with one line in err naming the file and
 * offset (or the database) after rolling back. */
int import_run(const struct import_opts *o, struct import_result *res,
	       char *err, size_t errlen);

/* --again not given (o->once): an input whose SHA-256 (sha256, hex) a run
 * of st already holds (runs.input_sha256) is refused, naming the run, and
 * so is one given twice in one import. Returns 0, -EEXIST, or the store's
 * error (either said in err; label: the input as the user gave it). */
int import_input_once(struct store *st, const struct import_opts *o,
		      const char *sha256, const char *label, char *err,
		      size_t errlen);

#endif
