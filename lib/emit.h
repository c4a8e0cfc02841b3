/* One emitter for text and JSON (as iproute2's print_*(PRINT_ANY, ...)):
 * callers state each number once with its key; in JSON mode the keys and
 * values are written, in text mode only the emit_text() lines are. */
#ifndef IOTAPE_EMIT_H
#define IOTAPE_EMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct emit {
	FILE *fp;
	int json;
	int text_done;  /* emit_text_stop() was called */
	int depth;
	int first[32];  /* no comma needed yet at this depth */
};

void emit_init(struct emit *e, FILE *fp, int json);
/* Objects and arrays; key is NULL inside arrays and for the top object. */
void emit_obj_begin(struct emit *e, const char *key);
void emit_obj_end(struct emit *e);
void emit_arr_begin(struct emit *e, const char *key);
void emit_arr_end(struct emit *e);
/* JSON members (ignored in text mode). A NULL string is written as null;
 * non-finite numbers as null. */
void emit_str(struct emit *e, const char *key, const char *v);
void emit_num(struct emit *e, const char *key, double v);
void emit_u64(struct emit *e, const char *key, uint64_t v);
/* Text output (ignored in JSON mode). */
void emit_text(struct emit *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Text: a section heading after a blank line, "== title ===...", the rule
 * filling 80 columns (at least three '='). Ignored in JSON mode. */
void emit_heading(struct emit *e, const char *title);
/* 1 when row i (from 0) of a list cut at max rows in text goes out: every
 * row in JSON, the first max in text. */
int emit_row_shown(const struct emit *e, size_t i, size_t max);
/* Text: "  (N more WHAT; --json lists all)" when a list of n rows was cut
 * at max; nothing otherwise, nothing in JSON. */
void emit_more(struct emit *e, size_t n, size_t max, const char *what);
/* Ends the text: later emit_text() and emit_heading() write nothing, JSON
 * members go on (a report of an empty window says why and stops, its JSON
 * keeps every section, empty). */
void emit_text_stop(struct emit *e);
/* Writes text again after emit_text_stop() (a run of samples alone: its
 * empty device sections left out, its causes shown). */
void emit_text_resume(struct emit *e);
/* Ends the document (a newline after JSON). */
void emit_finish(struct emit *e);

#endif
