/* The writers of plots' data files and gnuplot scripts, and the one helper
 * that runs gnuplot (posix_spawn, stderr captured for the error message). */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "plots/plot_int.h"

const char *const plot_colours[PLOT_NCOLOURS] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
	"#9467bd", "#8c564b", "#e377c2", "#17becf",
};

static const char *const ext[] = { "png", "svg", "txt" };

/* 0 when file in c's folder may be written (by iotape or by gnuplot's set
 * output), else -1 after one error line: out_file_check() refuses what a
 * name there may be a symlink or hard link to (this database, an SQLite
 * file, a block device, a file system image), as export -o does. */
static int may_write(const struct plot_ctx *c, const char *file)
{
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	if ((rc = out_file_check(path)))
		return error("cannot write '%s': %s", path, out_file_error(rc));
	return 0;
}

/* Opens c->dir/file through a temporary beside it (out_file_open(): a
 * symlink the user put there is written through, as export -o writes
 * one), the temporary noted in c->made. Returns of->fp, or NULL after
 * error(). */
static FILE *create_in(const struct plot_ctx *c, const char *file,
		       struct out_file *of)
{
	char path[PATH_MAX];
	int rc;

	if (may_write(c, file))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", c->dir, file);
	if ((rc = out_file_open(of, path))) {
		error("cannot create '%s': %s", path, out_file_error(rc));
		return NULL;
	}
	if (of->tmp[0])
		plot_made_add(c->made, of->tmp, PLOT_MADE_TMP);
	return of->fp;
}

/* Closes of and renames its temporary over dir/file, noting the file in
 * made when it is new. Returns 0 or -1 after error() naming dir/file. */
static int close_file(struct out_file *of, struct plot_made *made,
		      const char *dir, const char *file)
{
	struct stat sb;
	int rc, is_new = lstat(of->path, &sb) != 0;

	if ((rc = out_file_commit(of)))
		return error("cannot write '%s/%s': %s", dir, file,
			     out_file_error(rc));
	if (is_new)
		plot_made_add(made, of->path, PLOT_MADE_FILE);
	return 0;
}

/* Writes s on a comment line: control characters (a newline would end
 * the comment) become '?'. */
static void put_comment(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < ' ' ? '?' : *s, fp);
}

/* ---- data files ---- */

int plot_dat_open(struct plot_dat *d, const struct plot_ctx *c,
		  enum plot_kind k, const char *header)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->file, sizeof(d->file), "%s.%s.dat", c->stem,
		 plot_kind_name(k));
	d->in_block = -1;
	if (c->dat_written)
		return 0;   /* an earlier pass wrote it: count blocks only */
	snprintf(d->dir, sizeof(d->dir), "%s", c->dir);
	d->made = c->made;
	if (!(d->fp = create_in(c, d->file, &d->of)))
		return -1;
	fprintf(d->fp, "# iotape %s: %s data\n", IOTAPE_VERSION, plot_kind_name(k));
	for (const char *p = header; *p; ) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(d->fp, "# %.*s\n", n, p);
		p += n + (nl != NULL);
	}
	return 0;
}

void plot_dat_block(struct plot_dat *d, const char *title)
{
	if (d->in_block > 0)
		plot_dat_end(d);
	d->in_block = 0;
	if (!d->fp)
		return;
	if (d->nblocks)
		fputs("\n\n", d->fp);
	fputs("# block: ", d->fp);
	put_comment(d->fp, title);
	fputc('\n', d->fp);
}

void plot_dat_comment(struct plot_dat *d, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!d->fp)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("# ", d->fp);
	put_comment(d->fp, buf);
	fputc('\n', d->fp);
}

int plot_dat_row(struct plot_dat *d, const char *fmt, ...)
{
	va_list ap;

	if (d->in_block == 0)
		d->nblocks++;
	d->in_block++;
	d->rows++;
	if (!d->fp)
		return d->nblocks - 1;
	va_start(ap, fmt);
	vfprintf(d->fp, fmt, ap);
	va_end(ap);
	fputc('\n', d->fp);
	return d->nblocks - 1;
}

int plot_dat_end(struct plot_dat *d)
{
	int rows = d->in_block;

	d->in_block = -1;
	return rows > 0 ? d->nblocks - 1 : -1;
}

int plot_dat_close(struct plot_dat *d)
{
	FILE *fp = d->fp;

	d->fp = NULL;
	return fp ? close_file(&d->of, d->made, d->dir, d->file) : 0;
}

/* ---- scripts ---- */

void plot_gp(struct plot_gp *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(g->fp, fmt, ap);
	va_end(ap);
}

void plot_gp_str(struct plot_gp *g, const char *s)
{
	fputc('\'', g->fp);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', g->fp);
		/* newlines would end the command: keep strings on one line */
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, g->fp);
	}
	fputc('\'', g->fp);
}

void plot_gp_dstr(struct plot_gp *g, const char *s)
{
	fputc('"', g->fp);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', g->fp);
		if (*s == '\n')
			fputs("\\n", g->fp);
		else
			/* no backquotes: gnuplot would run them as commands */
			fputc(*s == '\r' ? ' ' : *s == '`' ? '\'' : *s, g->fp);
	}
	fputc('"', g->fp);
}

int plot_height(const struct plot_opts *o, int rows, int row_px)
{
	int h = PLOT_TITLE_PX + rows * row_px;

	if (o->height > 0)
		return o->height;
	if (h < PLOT_HEIGHT)
		h = PLOT_HEIGHT;
	return h > PLOT_MAX_AUTO_HEIGHT ? PLOT_MAX_AUTO_HEIGHT : h;
}

int plot_gp_open(struct plot_gp *g, const struct plot_ctx *c,
		 enum plot_kind k, const char *what, int rows, int row_px,
		 int txt_lines)
{
	const struct plot_opts *o = c->o;

	memset(g, 0, sizeof(*g));
	g->format = c->format;
	g->width = o->width;
	g->height = plot_height(o, rows, row_px);
	if (c->format == PLOT_TXT)
		g->height = txt_lines > 0 ? txt_lines : o->txt_lines > 0 ?
			    o->txt_lines : 24;
	snprintf(g->file, sizeof(g->file), "%s.%s.gp", c->stem, plot_kind_name(k));
	snprintf(g->out, sizeof(g->out), "%s.%s.%s", c->stem, plot_kind_name(k),
		 ext[c->format]);
	snprintf(g->dir, sizeof(g->dir), "%s", c->dir);
	g->made = c->made;
	if (may_write(c, g->out) || !(g->fp = create_in(c, g->file, &g->of)))
		return -1;
	plot_gp(g, "# iotape %s: ", IOTAPE_VERSION);
	put_comment(g->fp, what);
	plot_gp(g, "\n# data: %s%s.%s.dat; re-run in this folder with: gnuplot %s\n",
		c->dat_prefix, c->stem, plot_kind_name(k), g->file);
	plot_gp(g, "# written by: iotape plot --kind %s --format %s", plot_kind_name(k),
		ext[c->format]);
	for (size_t i = 0; i < c->nrun; i++) {
		/* quoted for a shell, even with a quote inside */
		char q[1100];
		plot_gp(g, " ");
		put_comment(g->fp, shell_quote(c->runs[i].rv.name, q, sizeof(q)));
	}
	plot_gp(g, "\n");
	switch (c->format) {
	case PLOT_PNG:
		plot_gp(g, "set terminal pngcairo size %d,%d font 'sans,9' noenhanced"
			" background '#ffffff'\n", g->width, g->height);
		break;
	case PLOT_SVG:
		plot_gp(g, "set terminal svg size %d,%d font 'sans,9' noenhanced"
			" background '#ffffff'\n", g->width, g->height);
		break;
	case PLOT_TXT:
		/* gnuplot's dumb terminal, for plain-text mail; iotape removes
		 * the form feed it puts before each page */
		plot_gp(g, "set terminal dumb size 80,%d mono nofeed noenhanced\n",
			g->height);
		break;
	}
	/* iotape has gnuplot draw into a temporary (-e "iotape_out='...'")
	 * that it renames when the picture is whole; run by hand, the
	 * script writes the picture itself */
	plot_gp(g, "set output (exists('iotape_out') ? iotape_out : '%s')\n",
		g->out);
	plot_gp(g, "dat = '%s%s.%s.dat'\n", c->dat_prefix, c->stem,
		plot_kind_name(k));
	if (c->format != PLOT_TXT)
		plot_gp(g, "set grid lc rgb '#dddddd'\n");
	/* 80 columns have no room beside the plot: keys go under it, and
	 * the dumb terminal sets one entry's sample line against the next
	 * entry's title ("read *******write ###") unless the entries are
	 * widened; later "set key below" keeps the width */
	plot_gp(g, "set key %s\n", c->format == PLOT_TXT ? "below width 4"
							 : "outside right top");
	return 0;
}

void plot_gp_panels(struct plot_gp *g, int rows, int cols, const char *title)
{
	g->panels = rows * cols;
	snprintf(g->title, sizeof(g->title), "%s", title);
	if (g->format != PLOT_TXT) {
		plot_gp(g, "set multiplot layout %d,%d title ", rows, cols);
		plot_gp_str(g, title);
		plot_gp(g, "\n");
	}
}

void plot_gp_panel(struct plot_gp *g, const char *title)
{
	plot_gp(g, "set title ");
	if (g->format == PLOT_TXT && g->title[0]) {
		/* a page of its own: the picture's title, then the panel's */
		char both[600];
		snprintf(both, sizeof(both), "%s\n%s", g->title, title);
		plot_gp_dstr(g, both);
	} else {
		plot_gp_str(g, title);
	}
	plot_gp(g, "\n");
}

void plot_gp_margins(struct plot_gp *g, int key_chars)
{
	if (g->format != PLOT_TXT)
		plot_gp(g, "set lmargin 11\nset rmargin %d\n", key_chars + 9);
}

int plot_gp_close(struct plot_gp *g)
{
	FILE *fp = g->fp;

	if (g->panels && g->format != PLOT_TXT)
		plot_gp(g, "unset multiplot\n");
	plot_gp(g, "set output\n");
	g->fp = NULL;
	return fp ? close_file(&g->of, g->made, g->dir, g->file) : 0;
}

/* ---- running gnuplot ---- */

/* The first line of s (at most 200 bytes) into out. */
static void first_line(const char *s, char *out, size_t len)
{
	size_t n = strcspn(s, "\n");

	while (*s == '\n' || *s == ' ')
		s++, n = strcspn(s, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

/* The message into err; returns -1. */
static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

int plot_gnuplot_exec(const char *dir, const char *script, const char *tmp,
		      char *err, size_t errlen)
{
	const char *prog = getenv("IOTAPE_GNUPLOT");
	char buf[8192], line[256], *argv[5], set[PATH_MAX + 32];
	posix_spawn_file_actions_t fa;
	size_t n = 0;
	int pfd[2], status, shown = 0, rc;
	pid_t pid;

	if (!prog || !*prog)
		prog = "gnuplot";
	argv[0] = (char *)prog;
	if (tmp) {
		/* the names are plot_stem()'s: no quote in them */
		snprintf(set, sizeof(set), "iotape_out='%s'", tmp);
		argv[1] = (char *)"-e";
		argv[2] = set;
		argv[3] = (char *)script;
		argv[4] = NULL;
	} else {
		argv[1] = (char *)script;
		argv[2] = NULL;
	}
	if (pipe2(pfd, O_CLOEXEC))
		return fail(err, errlen, "cannot run gnuplot: pipe: %s", strerror(errno));
	/* posix_spawn, not fork: a large mail's process (hundreds of MB)
	 * would have its page tables copied for every picture */
	if ((rc = posix_spawn_file_actions_init(&fa)) ||
	    (rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) ||
	    (rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0)) ||
	    (rc = posix_spawn_file_actions_adddup2(&fa, pfd[1], 2)) ||
	    (rc = posix_spawn_file_actions_addchdir_np(&fa, dir))) {
		close(pfd[0]);
		close(pfd[1]);
		return fail(err, errlen, "cannot run gnuplot: %s", strerror(rc));
	}
	fflush(NULL);
	rc = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		close(pfd[0]);
		close(pfd[1]);
		if (access(dir, X_OK))
			return fail(err, errlen, "cannot enter '%s': %s", dir,
				    strerror(errno));
		fail(err, errlen, "cannot run '%s' (%s): install gnuplot-nox;"
		     " the data and script are in '%s'", prog, strerror(rc), dir);
		return -2;
	}
	close(pfd[1]);
	for (;;) {
		char junk[4096];
		ssize_t r;
		if (n < sizeof(buf) - 1)
			r = read(pfd[0], buf + n, sizeof(buf) - 1 - n);
		else
			r = read(pfd[0], junk, sizeof(junk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n < sizeof(buf) - 1)
			n += (size_t)r;
	}
	buf[n] = 0;
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return fail(err, errlen, "cannot run gnuplot: waitpid: %s",
				    strerror(errno));
	if (WIFSIGNALED(status))
		return fail(err, errlen, "gnuplot %s/%s: killed by signal %d", dir,
			    script, WTERMSIG(status));
	if (WEXITSTATUS(status)) {
		/* gnuplot prints the offending line, a caret, then the
		 * message: report the message line that names the file */
		const char *msg = strstr(buf, script);
		if (msg && msg > buf && msg[-1] == '"')
			msg--;
		first_line(msg ? msg : buf, line, sizeof(line));
		return fail(err, errlen, "gnuplot %s/%s failed (exit %d): %s", dir,
			    script, WEXITSTATUS(status), line[0] ? line : "no message");
	}
	/* exit 0: pass warnings on, at most three lines */
	for (const char *p = buf; *p && p < buf + n; ) {
		first_line(p, line, sizeof(line));
		if (line[0] && shown++ < 3)
			warning("gnuplot %s: %s", script, line);
		p += strcspn(p, "\n");
		while (*p == '\n')
			p++;
	}
	return 0;
}

int plot_picture_tmp(const char *dir, const char *out, char *tmp, size_t len,
		     struct plot_made *made)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(tmp, len, "%s.tmp.%d", out, (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, tmp);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		       0666)) < 0)
		return error("cannot create '%s': %s", path, strerror(errno));
	close(fd);
	plot_made_add(made, path, PLOT_MADE_TMP);
	return 0;
}

/* 0 when path holds a whole picture of format f, else -1 with the reason
 * into why: gnuplot says nothing, and exits 0, when it cannot write all
 * of its picture (a full disk). */
static int picture_whole(const char *path, enum plot_format f, char *why,
			 size_t len)
{
	static const unsigned char iend[12] = {
		0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82 };
	static const unsigned char png[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
					      0x1a, '\n' };
	unsigned char head[8], tail[64];
	struct stat sb;
	size_t n;
	int fd, ok = 0;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fstat(fd, &sb)) {
		snprintf(why, len, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (sb.st_size == 0) {
		close(fd);
		snprintf(why, len, "gnuplot wrote nothing; is the disk full?");
		return -1;
	}
	n = sb.st_size < (off_t)sizeof(tail) ? (size_t)sb.st_size : sizeof(tail);
	if (pread(fd, head, sizeof(head), 0) == (ssize_t)sizeof(head) ||
	    f == PLOT_TXT || f == PLOT_SVG) {
		if (pread(fd, tail, n, sb.st_size - (off_t)n) == (ssize_t)n) {
			if (f == PLOT_PNG)
				ok = !memcmp(head, png, sizeof(png)) && n >= 12 &&
				     !memcmp(tail + n - 12, iend, 12);
			else if (f == PLOT_SVG) {
				while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' ' ||
					     tail[n - 1] == '\r'))
					n--;
				ok = n >= 6 && !memcmp(tail + n - 6, "</svg>", 6);
			} else {
				ok = 1;
			}
		}
	}
	close(fd);
	if (!ok)
		snprintf(why, len, "gnuplot wrote %lld bytes, not a whole %s; is the"
			 " disk full?", (long long)sb.st_size, f == PLOT_PNG ?
			 "PNG (no IEND chunk)" : "SVG (no </svg>)");
	return ok ? 0 : -1;
}

int plot_picture_draw(const char *dir, const char *script, const char *tmp,
		      const char *out, enum plot_format f, char *err,
		      size_t errlen)
{
	char path[PATH_MAX + 64], dest[PATH_MAX + 64], why[200];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, tmp);
	snprintf(dest, sizeof(dest), "%s/%s", dir, out);
	rc = plot_gnuplot_exec(dir, script, tmp, err, errlen);
	if (!rc && picture_whole(path, f, why, sizeof(why)))
		rc = fail(err, errlen, "cannot write '%s': %s", dest, why);
	if (!rc && f == PLOT_TXT && plot_tidy_txt(dir, tmp, why, sizeof(why))) {
		/* its line names the temporary: name the picture */
		const char *r = strstr(why, "': ");
		rc = fail(err, errlen, "cannot write '%s': %s", dest, r ? r + 3 : why);
	}
	if (!rc && (rc = out_file_move(path, dest)))
		rc = fail(err, errlen, "cannot write '%s': %s", dest,
			  strerror(-rc));
	if (rc)
		unlink(path);
	return rc;   /* -2: no gnuplot (plot_gnuplot_exec()) */
}
