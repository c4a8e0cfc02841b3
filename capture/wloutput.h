/* A workload's output kept while it is passed through: the command writes
 * into two pipes (its stdout and stderr), and a thread copies each to
 * iotape's own stdout and stderr as it arrives, unchanged, and keeps a copy
 * for the metrics read after the run (capture/wlmetric.h). */
#ifndef IOTAPE_WLOUTPUT_H
#define IOTAPE_WLOUTPUT_H

#include <pthread.h>
#include <stddef.h>

/* What is kept of each stream at most; past it the rest is passed through
 * but not kept (truncated is set). */
#define WLO_KEEP_MAX (64u << 20)

struct wl_output {
	int rd[2], wr[2];       /* pipes: [0] stdout, [1] stderr; -1 closed */
	int stop[2];            /* a pipe that tells the thread to stop */
	pthread_t thread;
	int running;            /* the thread was started */
	int eof;                /* both streams ended (set by the thread;
				 * read with __atomic_load_n) */
	char *buf[2];           /* what was kept, NUL-terminated */
	size_t len[2], cap[2];
	int truncated;          /* a stream had more than WLO_KEEP_MAX bytes */
	int to[2];              /* where it is passed: 1 and 2 */
};

/* Makes the pipes (close-on-exec). Returns 0, or -errno. */
int wl_output_open(struct wl_output *o);

/* In the child, before exec: makes the pipes its stdout and stderr. */
void wl_output_child(struct wl_output *o);

/* In the parent, after fork: closes the write ends and starts the copying
 * thread. Returns 0, or -errno (the output then goes nowhere: the pipes are
 * closed and the command gets EPIPE). */
int wl_output_parent(struct wl_output *o);

/* Waits up to wait_ms for both streams to end (a command's background
 * children may hold them open), then stops the thread. What was kept stays
 * in buf/len. Safe to call when the thread never started. */
void wl_output_finish(struct wl_output *o, int wait_ms);

/* Finishes (at once) and frees everything. */
void wl_output_release(struct wl_output *o);

#endif
