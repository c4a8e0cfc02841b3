/* Inside plots/: the context every kind's extractor and generator share,
 * the writers of data files and gnuplot scripts, and the one helper that
 * runs gnuplot. */
#ifndef IOTAPE_PLOT_INT_H
#define IOTAPE_PLOT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "analyze/family.h"
#include "analyze/report.h"
#include "analyze/rundata.h"
#include "analyze/runview.h"
#include "lib/outfile.h"
#include "plots/plot.h"

/* One run on the shared time axis. */
/* Colours: PLOT_NCOLOURS distinct ones, then grey for "other". */
#define PLOT_NCOLOURS 8
/* A run's label in keys and panel titles, at most this many characters. */
#define PLOT_LABEL_MAX 28

struct plot_run {
	struct runview rv;
	int64_t base_ns;    /* the events' clock time drawn as 0 s */
	double t0, t1;      /* its first and last event on the axis, s */
	char label[PLOT_LABEL_MAX + 4]; /* the run in keys and panel titles:
			       what sets it apart from the others
			       (plot_label_runs()) */
	struct families fam;  /* its processes' families (the kinds that
				 draw processes: seek, procs) */
	int has_fam;
};

struct plot_ctx {
	const struct plot_opts *o;
	struct store *st;
	struct plot_run *runs;
	size_t nrun;
	char stem[128];     /* NAME of NAME.KIND.* */
	double x0, x1;      /* the union of the runs' spans on the axis, s */
	/* the pass being drawn: o's format into o->dir, then (mail) o->also
	 * into its folder from the same data files */
	enum plot_format format;
	const char *dir;         /* where this pass's scripts and pictures go */
	const char *dat_prefix;  /* the data files' folder as the scripts name
				  * it: "" (the same) or "../" */
	int dat_written;         /* the data files exist: plot_dat_* count
				  * blocks and rows but write nothing */
	double *head;            /* nrun x PLOT_NHEAD headline figures (the
				  * compare kind), NULL when not asked for */
	/* the process families' colours, the same in every panel and
	 * picture of these runs: fam[k] is the family drawn in colour k
	 * (the PLOT_NCOLOURS with most bytes over all runs); the rest grey */
	char fam[PLOT_NCOLOURS][FAM_NAME];
	int nfam;
	const char *labels_by;   /* what the runs' labels are: "names",
				  * or the setting keys ("kernel, fs") */
	char labels_by_buf[128];
	struct plot_made *made;  /* what this command made (never NULL) */
};

/* Time t_ns of run r on the plot axis, in seconds. */
static inline double plot_t(const struct plot_run *r, int64_t t_ns)
{
	return (double)(t_ns - r->base_ns) / 1e9;
}

extern const char *const plot_colours[PLOT_NCOLOURS];
#define PLOT_GREY "#999999"

/* The colour (0 .. PLOT_NCOLOURS - 1, or PLOT_NCOLOURS for grey) of
 * process pid of run r: its family's (c->fam), so a family keeps its colour
 * in every panel and picture. Needs the run's families (has_fam). */
int plot_proc_colour(const struct plot_ctx *c, size_t r, uint32_t pid);

/* The name of colour k's family ("md5sum"), or "other" for grey. */
const char *plot_colour_name(const struct plot_ctx *c, int k);

/* Overlays of more runs than this (each a read and a write series: more
 * than 4 series in a panel) give way to small multiples: a row of panels
 * per run, of one size, with shared axes and the same colours, so the runs
 * compare by position instead of by a legend of a dozen entries. */
#define PLOT_MAX_OVERLAY_RUNS 2
/* The height in pixels of a row of small multiples. */
#define PLOT_CELL_PX 190

static inline int plot_multiples(const struct plot_ctx *c)
{
	return c->nrun > PLOT_MAX_OVERLAY_RUNS;
}

/* ---- data files (plots/gnuplot.c) ---- */

/* A data file being written: gnuplot data blocks (`index N`) separated by
 * two blank lines; only blocks with rows get an index. */
struct plot_dat {
	FILE *fp;           /* of.fp while open, else NULL */
	struct out_file of; /* written to a temporary, renamed when closed */
	struct plot_made *made;
	char dir[PATH_MAX]; /* the folder, for error lines */
	char file[160];     /* base name, NAME.KIND.dat */
	int nblocks;        /* blocks with rows so far */
	int in_block;       /* rows written in the open block */
	int64_t rows;       /* data rows in the whole file */
};

/* Creates DIR/NAME.KIND.dat (DIR: c->dir) and writes "# " + header lines
 * (a string with '\n' between lines); with c->dat_written it creates
 * nothing and the plot_dat_* calls below only count blocks and rows, so a
 * later pass gets the same block indices. Returns 0 or -1 after error(). */
int plot_dat_open(struct plot_dat *d, const struct plot_ctx *c,
		  enum plot_kind k, const char *header);

/* Starts a block described by the comment line title (control characters
 * made '?'); the block gets an index only once a row is written. */
void plot_dat_block(struct plot_dat *d, const char *title);

/* Writes a "# " comment line (printf format, at most 1 KB; control
 * characters such as newlines in run names or argv become '?'). */
void plot_dat_comment(struct plot_dat *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes one row (printf format, newline added) into the open block.
 * Returns the block's index. */
int plot_dat_row(struct plot_dat *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Ends the open block; returns its index, or -1 when it got no rows. */
int plot_dat_end(struct plot_dat *d);

/* Closes the file and renames it into place; returns 0 or -1 after error()
 * naming DIR/NAME.KIND.dat on a write error (the temporary removed). */
int plot_dat_close(struct plot_dat *d);

/* ---- gnuplot scripts (plots/gnuplot.c) ---- */

struct plot_gp {
	FILE *fp;           /* of.fp while open */
	struct out_file of; /* written to a temporary, renamed when closed */
	struct plot_made *made;
	char dir[PATH_MAX]; /* the folder, for error lines */
	char file[160];     /* NAME.KIND.gp */
	char out[160];      /* NAME.KIND.png|svg|txt */
	enum plot_format format;
	int panels;         /* multiplot panels (png, svg) or pages (txt) */
	char title[256];    /* the panels' title (txt repeats it per page) */
	int width, height;
};

/* Pixels above the panels (the picture's title), and the most an
 * automatic height grows to. */
#define PLOT_TITLE_PX 40
#define PLOT_MAX_AUTO_HEIGHT 4000

/* The picture's height in pixels for rows stacked rows of panels, each
 * wanting row_px pixels (title, axes, and a key beside or below it): the
 * --height asked for (o->height > 0), else PLOT_TITLE_PX + rows * row_px
 * but at least PLOT_HEIGHT and at most PLOT_MAX_AUTO_HEIGHT, so more
 * panels get a taller canvas rather than squeezed ones. */
int plot_height(const struct plot_opts *o, int rows, int row_px);

/* Creates DIR/NAME.KIND.gp with a comment saying what it draws from which
 * data file, the terminal for c's format and size (png, svg: the width
 * asked for and plot_height(rows, row_px); txt: 80 columns and txt_lines
 * lines a page, 0 for 24), and the output name. Returns 0 or -1 after
 * error(). */
int plot_gp_open(struct plot_gp *g, const struct plot_ctx *c,
		 enum plot_kind k, const char *what, int rows, int row_px,
		 int txt_lines);

/* Writes printf-formatted text into the script. */
void plot_gp(struct plot_gp *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes s as a gnuplot single-quoted string (quotes doubled; newlines
 * made blanks). */
void plot_gp_str(struct plot_gp *g, const char *s);

/* Writes s as a gnuplot double-quoted string: '"' and '\\' escaped, a
 * newline kept as a line break ("\n"). */
void plot_gp_dstr(struct plot_gp *g, const char *s);

/* Opens rows x cols panels under the title (a multiplot for png and svg;
 * in txt each panel is a page of its own, 80x24, titled). Call
 * plot_gp_panel() before each panel's plot command. */
void plot_gp_panels(struct plot_gp *g, int rows, int cols, const char *title);
void plot_gp_panel(struct plot_gp *g, const char *title);

/* Fixes the left and right margins (png, svg) so stacked panels share
 * one time axis whatever their tick labels and keys; key_chars is the
 * longest key title in characters. */
void plot_gp_margins(struct plot_gp *g, int key_chars);

/* Ends the panels, closes the script and renames it into place; returns 0
 * or -1 after error() naming DIR/NAME.KIND.gp (the temporary removed). */
int plot_gp_close(struct plot_gp *g);

/* Runs `gnuplot -e "iotape_out='TMP'" SCRIPT` (tmp NULL: no -e) with DIR
 * as the working directory, gnuplot's stderr captured: its warnings are
 * passed on as warning() lines; the scripts send their picture to
 * iotape_out when it is set. The program is $IOTAPE_GNUPLOT, else gnuplot
 * from PATH. Returns 0, or -1 with the error line in err (errlen bytes):
 * gnuplot not found, killed, or exited non-zero (with the first line of
 * what it printed); -2 when the program cannot be run at all (the data and
 * scripts are kept for a later run: the line says so). Prints no error
 * itself, for running several gnuplots at once with one error line in the
 * end. */
int plot_gnuplot_exec(const char *dir, const char *script, const char *tmp,
		      char *err, size_t errlen);

/* Makes the empty temporary DIR/OUT.tmp.PID (O_EXCL, O_NOFOLLOW) that
 * plot_picture_draw() has gnuplot write for the picture out, its name
 * (in dir) into tmp (len bytes), noted in made. Returns 0, or -1 after
 * error() naming it. */
int plot_picture_tmp(const char *dir, const char *out, char *tmp, size_t len,
		     struct plot_made *made);

/* Draws one picture: gnuplot on dir/script writing dir/tmp (made by
 * plot_picture_tmp()); checks gnuplot wrote it whole (a PNG ends with its
 * IEND chunk, an SVG with </svg>, a text is not empty, then made plain by
 * plot_tidy_txt()), and renames it to dir/out. Returns 0, or -1 with one
 * error line in err (errlen bytes) naming dir/out, dir/tmp removed; -2
 * when gnuplot cannot be run (plot_gnuplot_exec()). Safe to call from
 * several threads at once. */
int plot_picture_draw(const char *dir, const char *script, const char *tmp,
		      const char *out, enum plot_format f, char *err,
		      size_t errlen);

/* ---- the kinds (plots/kind_*.c) ----
 * A kind drawn from requests reads them in one pass shared by every kind:
 * plot_run() reads each run once (struct rundata, the analyzers' read) and
 * hands it to each kind's add (run: the index in c->runs) before the next
 * run is read; the kind keeps what it needs in its state (from start,
 * freed by release). add returns 0, 1 when the run has nothing to draw
 * (why, a short sentence, says which run lacks what), or -1 after error().
 *
 * Each kind's draw then writes NAME.KIND.dat (unless c->dat_written) and
 * NAME.KIND.gp for c's pass; it is called once per pass and must leave
 * its state as it found it. Returns 0 when both are written, 1 when the
 * runs have nothing to draw (why), or -1 after error(). The kinds
 * without add (vm: samples; compare: c->head) read what they need in
 * draw. */
struct plot_kind_ops {
	const char *name;
	void *(*start)(struct plot_ctx *c);
	int (*add)(void *state, struct plot_ctx *c, size_t run,
		   const struct rundata *rd, char *why, size_t whylen);
	int (*draw)(void *state, struct plot_ctx *c, char *why, size_t whylen);
	void (*release)(void *state);
};

extern const struct plot_kind_ops plot_kind_seek, plot_kind_tput,
	plot_kind_qd, plot_kind_lat, plot_kind_vm, plot_kind_procs,
	plot_kind_compare;

/* ---- headline figures (plots/kind_summary.c; compare and mail) ---- */

enum {
	PLOT_H_ELAPSED, PLOT_H_SPAN, PLOT_H_READ_MBS, PLOT_H_WRITE_MBS, PLOT_H_IOPS, PLOT_H_Q2C_MEAN,
	PLOT_H_Q2C_P99, PLOT_H_D2C_MEAN, PLOT_H_D2C_P99, PLOT_NHEAD
};

/* Their names with units ("read MB/s", "Q2C p99 us"). */
extern const char *const plot_headline_names[PLOT_NHEAD];

/* 1 where a lower value is better (latencies), 0 where higher is. */
extern const int plot_headline_lower_better[PLOT_NHEAD];

/* Fills v with rv's headline figures from rd (rundata_load() of rv) and
 * r (report_build() of rd): the elapsed time of its commands (their first
 * start to last end, s; NAN when it timed none) and its trace span (the
 * first to the last event, s, as report's span; NAN without events), read
 * and write MB/s and IOPS (reads + writes) over the run's span, as iotape
 * report counts them (MB = 10^6 bytes), and Q2C and D2C mean and p99 over
 * all devices in us (NAN when the run has none). */
void plot_headline_of(const struct runview *rv, const struct rundata *rd,
		      const struct report *r, double v[PLOT_NHEAD]);

/* 100 * (v - base) / base, or NAN when base is 0 or either is NAN. */
double plot_pct_change(double base, double v);

/* ---- shared helpers (plots/plot.c) ---- */

/* A bin width in seconds, 1, 2 or 5 times a power of ten, that cuts span
 * seconds into at most about target bins; and its text ("25 ms"). */
double plot_bin_width(double span, int target, char *text, size_t len);

/* A tick step for an axis spanning range: 1, 2 or 5 times a power of
 * ten, about a quarter of it (at most 4 or 5 ticks: short panels crowd
 * with more); 1 for an empty or invalid range. */
double plot_tick_step(double range);

/* A process as "comm pid" (comm cut to 16), or "pid N" when the run has
 * no name for it. */
void plot_proc_label(const struct runview *rv, uint32_t pid, char *out,
		     size_t len);

/* Characters a run's label adds to a key title: 0 for one run, else the
 * longest label plus a blank. */
int plot_label_chars(const struct plot_ctx *c);

/* Makes the folder dir unless it is one (its parent is not made: mkdir
 * without -p, as export -o does not make folders), noted in made when
 * made. Returns 0, or -1 after error() naming the missing parent, or dir
 * when it cannot be made or is not a folder. */
int plot_make_dir(const char *dir, struct plot_made *made);

/* Makes dir/file, gnuplot's dumb-terminal text, plain: the form feeds
 * before pages and the blanks at line ends removed, pages one blank line
 * apart; the new text goes through a temporary renamed over dir/file.
 * Returns 0, or -1 with the error line in err (errlen bytes). */
int plot_tidy_txt(const char *dir, const char *file, char *err, size_t errlen);

/* 1 when setting key k says nothing about what was run (iotape's own
 * capture. and record. bookkeeping, sizes that move with the machine
 * such as mem.total_kb, the date), so labels and mail leave it out. */
int plot_setting_volatile(const char *k);

/* Device number as "major,minor". */
void plot_devname(uint32_t dev, char *out, size_t len);

#endif
