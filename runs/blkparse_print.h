/* blkparse's default per-event line for one event (blkparse(1);
 * blkparse_fmt.c process_default()), for `iotape dump` and `export
 * --format blkparse`. */
#ifndef IOTAPE_BLKPARSE_PRINT_H
#define IOTAPE_BLKPARSE_PRINT_H

#include <stdint.h>
#include <stdio.h>

#include "trace/blktrace_format.h"

/* Prints ev as blkparse's default line on fp; genesis_ns is subtracted from
 * its time (a time before genesis_ns prints as "-S.NNNNNNNNN", not as
 * blkparse's unsigned wrap-around). comm is the process name or NULL ("(null)", as blkparse prints
 * a pid it has no name for). Notify records other than messages print
 * nothing, as in blkparse. Returns 1 when it printed a line, 0 when not.
 * Errors show in ferror(fp). */
int blkparse_print_event(FILE *fp, const struct bt_event *ev, int64_t genesis_ns,
			  const char *comm);

#endif
