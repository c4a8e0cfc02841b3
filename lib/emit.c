/* The text/JSON emitter. */
#include "emit.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

void emit_init(struct emit *e, FILE *fp, int json)
{
	memset(e, 0, sizeof(*e));
	e->fp = fp;
	e->json = json;
	e->first[0] = 1;
}

static void json_string(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', fp);
	while (*s) {
		unsigned char c = *s;
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", fp);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else if (c >= 0x80) {
			/* bytes that are not UTF-8 (a run name, a process
			 * name) would make the document invalid */
			size_t n = utf8_seq(s, SIZE_MAX);
			if (!n) {
				fputs("\\ufffd", fp);
				s++;
				continue;
			}
			fwrite(s, 1, n, fp);
			s += n;
			continue;
		} else
			fputc(c, fp);
		s++;
	}
	fputc('"', fp);
}

static void member(struct emit *e, const char *key)
{
	if (!e->first[e->depth])
		fputc(',', e->fp);
	e->first[e->depth] = 0;
	if (key) {
		json_string(e->fp, key);
		fputc(':', e->fp);
	}
}

static void open_(struct emit *e, const char *key, char c)
{
	if (!e->json)
		return;
	member(e, key);
	fputc(c, e->fp);
	if (e->depth < 31)
		e->depth++;
	e->first[e->depth] = 1;
}

static void close_(struct emit *e, char c)
{
	if (!e->json)
		return;
	fputc(c, e->fp);
	if (e->depth > 0)
		e->depth--;
}

void emit_obj_begin(struct emit *e, const char *key) { open_(e, key, '{'); }
void emit_obj_end(struct emit *e) { close_(e, '}'); }
void emit_arr_begin(struct emit *e, const char *key) { open_(e, key, '['); }
void emit_arr_end(struct emit *e) { close_(e, ']'); }

void emit_str(struct emit *e, const char *key, const char *v)
{
	if (!e->json)
		return;
	member(e, key);
	if (v)
		json_string(e->fp, v);
	else
		fputs("null", e->fp);
}

void emit_num(struct emit *e, const char *key, double v)
{
	if (!e->json)
		return;
	member(e, key);
	if (isfinite(v))
		fprintf(e->fp, "%.17g", v);
	else
		fputs("null", e->fp);
}

void emit_u64(struct emit *e, const char *key, uint64_t v)
{
	if (!e->json)
		return;
	member(e, key);
	fprintf(e->fp, "%llu", (unsigned long long)v);
}

void emit_text(struct emit *e, const char *fmt, ...)
{
	char buf[1024], *msg = buf;
	va_list ap;
	int n;

	if (e->json || e->text_done)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		if (!(msg = malloc((size_t)n + 1)))
			return;
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	fput_shown(e->fp, msg, (size_t)n, "\n\t");
	if (msg != buf)
		free(msg);
}

void emit_heading(struct emit *e, const char *title)
{
	static const char rule[] = "============================================"
		"====================================";   /* 80 */
	int n = 80 - 4 - (int)strlen(title);

	if (e->json || e->text_done)
		return;
	fputs("\n== ", e->fp);
	fput_shown(e->fp, title, strlen(title), "");
	fprintf(e->fp, " %.*s\n", n < 3 ? 3 : n, rule);
}

int emit_row_shown(const struct emit *e, size_t i, size_t max)
{
	return e->json || i < max;
}

void emit_more(struct emit *e, size_t n, size_t max, const char *what)
{
	if (n > max)
		emit_text(e, "  (%zu more%s%s; --json lists all)\n", n - max,
			  what && *what ? " " : "", what ? what : "");
}

void emit_text_stop(struct emit *e)
{
	e->text_done = 1;
}

void emit_text_resume(struct emit *e)
{
	e->text_done = 0;
}

void emit_finish(struct emit *e)
{
	if (e->json)
		fputc('\n', e->fp);
}
