/* One emitter for text and JSON (as iproute2's print_*(PRINT_ANY, ...)):
 * callers state each number once with its key; in JSON mode the keys and
 * values are written, in text mode only the emit_text() lines are. */
#ifndef IOTAPE_EMIT_H
#define IOTAPE_EMIT_H

#include <stdint.h>
#include <stdio.h>

struct emit {
	FILE *fp;
	int json;
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
/* Ends the document (a newline after JSON). */
void emit_finish(struct emit *e);

#endif
