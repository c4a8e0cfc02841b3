/* `iotape plot`'s engine: pictures of one or more stored runs drawn by
 * gnuplot. Each picture is a data file DIR/NAME.KIND.dat and the script
 * DIR/NAME.KIND.gp beside it, which gnuplot runs in DIR (so both re-run). */
#ifndef IOTAPE_PLOT_H
#define IOTAPE_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "analyze/runview.h"

struct rundata;

/* What one command (plot, mail) made in its output folders, so that a
 * failure takes it all away: the folders it created, the files that did
 * not exist before it, and the temporaries still being written. */
struct plot_made {
	char **path;
	unsigned char *what;        /* PLOT_MADE_FILE, _DIR or _TMP */
	size_t n;
};
enum { PLOT_MADE_FILE, PLOT_MADE_DIR, PLOT_MADE_TMP };

/* Notes path (a file, a folder or a temporary, by what) in m. */
void plot_made_add(struct plot_made *m, const char *path, int what);

/* Removes the temporaries noted in m that are still there (a write given
 * up) and forgets them; keeps the rest. */
void plot_made_tmp_clean(struct plot_made *m);

/* Removes everything noted in m, the last made first (a folder only when
 * empty: a file the user put there stays), and empties m. For a command
 * that failed. */
void plot_made_undo(struct plot_made *m);

/* Forgets what m holds (the command succeeded) and frees it. */
void plot_made_free(struct plot_made *m);

/* The kinds of picture, in the order `all` draws them. */
enum plot_kind {
	PLOT_SEEK,      /* sector vs time per process, reads and writes */
	PLOT_TPUT,      /* read and write MB/s and IOPS over time, binned */
	PLOT_LAT,       /* Q2C and D2C histogram and CDF, reads and writes */
	PLOT_QD,        /* requests in flight at each device over time */
	PLOT_VM,        /* memory, swap and block rates from the samples */
	PLOT_PROCS,     /* per-process share of bytes and of busy time */
	PLOT_COMPARE,   /* headline figures of several runs, % change */
	PLOT_NKINDS,
	/* not a kind of runs' data: compare --across's table (plot_across()),
	 * named here for its files' names */
	PLOT_ACROSS = PLOT_NKINDS
};

/* The kinds `all` draws: every kind. */
#define PLOT_ALL ((1u << PLOT_NKINDS) - 1)

enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_TXT };

/* Default picture size in pixels (png and svg). */
#define PLOT_WIDTH 1024
#define PLOT_HEIGHT 768

struct plot_opts {
	const char *db;             /* database path */
	const char *const *runs;    /* run names or ids, in the order given */
	size_t nrun;                /* at least 1 */
	unsigned kinds;             /* bit (1u << enum plot_kind) per kind */
	int named_kinds;            /* kinds were named (not `all`): a kind
				       without data is an error, not a note */
	const char *dir;            /* output folder, made if missing (its
				       parent must exist) */
	const char *name;           /* file stem NAME; NULL: from the runs */
	enum plot_format format;
	int align_cmd;              /* -1: runs start together; N >= 0: each
				       run's command N (commands.idx) starts
				       at time 0 */
	int width, height;          /* pixels, png and svg (txt is 80x24);
				       height 0: PLOT_HEIGHT, taller for
				       pictures of many panels */
	int txt_lines;              /* txt: lines a page (0: 24) */
	FILE *list;                 /* each picture's path is printed here,
				       one a line; NULL for none */
	unsigned *drawn;            /* out: bit per kind drawn; NULL ok */
	int none_ok;                /* a kind without data is neither noted
				       nor an error, nor is drawing nothing
				       (mail's one picture: *drawn says) */
	const struct rv_filter *filter; /* --from/--to/--dev; NULL: all */
	/* mail: the runs as the caller already read them, so nothing is read
	 * twice: rundata[i] (rundata_load() of runs[i]) and, when the
	 * compare kind is asked for, head[i * PLOT_NHEAD ...] their headline
	 * figures (plot_headline_of()); NULL: plot_run reads them */
	const struct rundata *const *rundata;
	const double *head;
	/* mail: the kinds in also_kinds drawn a second time, in also_format
	 * into also_dir (a folder under dir), from the same data files;
	 * also_dir NULL for none; also_drawn: out, bit per kind drawn */
	const char *also_dir;
	enum plot_format also_format;
	unsigned also_kinds;
	unsigned *also_drawn;
	/* what plot_run made is noted here, for a caller that writes more
	 * (mail) to take away on its failure; NULL: plot_run takes away
	 * what it made when it fails */
	struct plot_made *made;
};

/* The kind's name as --kind spells it ("seek"), or NULL out of range. */
const char *plot_kind_name(enum plot_kind k);

/* Parses a comma-separated list of kind names ("seek,lat", "all") into a
 * bit set; returns 0, or -1 after error() naming the unknown kind. */
int plot_parse_kinds(const char *list, unsigned *kinds);

/* The longest file stem: a file's name (stem, '.', kind, '.png') indented
 * two in mail's list of files fits 80 columns. */
#define PLOT_STEM_MAX 64

/* The file stem for runs (run names joined by "-vs-", characters other
 * than letters, digits, '.', '_' and '-' made '_', at most PLOT_STEM_MAX
 * bytes) into out (outlen bytes). When a character was changed or the
 * names cut, the stem ends in '-' and 8 hex digits of the names' FNV-1a
 * hash, so runs whose names map to one stem ('テスト', 'ディス'; two long
 * names alike in their first 55 bytes) do not write over each other's
 * files. */
void plot_stem(const char *const *runs, size_t nrun, char *out, size_t outlen);

/* Draws the kinds of o->kinds for the runs o->runs: reads each run once
 * (unless o->rundata), writes the data file and the script of each kind,
 * and runs gnuplot on the scripts in o->dir, as many at once as there are
 * CPUs (at most 4); then the same for o->also_kinds in o->also_dir. Kinds
 * the runs have no data for are skipped with a note on stderr saying why
 * ("vm: run 'x' has no samples"). Each file is written to a temporary
 * beside it and renamed when whole (a symlink there is replaced, never
 * written through); a picture is renamed only when gnuplot exited 0 and
 * the file is complete (a PNG ends in IEND, an SVG in </svg>). Returns
 * 0; or -1 after one error line naming the file (no such run or
 * database, cannot write in dir, gnuplot failed, wrote a cut picture or
 * is missing, no picture drawn at all, or a named kind had no data), with
 * what it made removed (or noted in o->made). Never exits. */
int plot_run(const struct plot_opts *o);

struct crosstab;
/* Draws x (compare --across's table, analyze/crosstab.h) as grouped bars
 * into o->dir (made if missing, not its parent) in o->format: NAME.across.png (.svg, .txt)
 * beside NAME.across.dat and .gp, NAME o->name or METRIC-by-ROWS-across-
 * COLUMNS (METRIC-across-COLUMNS without rows); a group per row, a bar per column: the median of the cell's
 * runs, an error bar from their min to max, over it the % change against
 * the first column with compare's marks (XT_MARK_ONE: one run,
 * XT_MARK_WITHIN: within the spread) and a footnote for each mark used.
 * Prints the picture's path to o->list (unless NULL). Returns 0, or -1
 * after one error line (cannot write in dir, gnuplot failed, cut or
 * missing), with what it made removed. */
int plot_across(const struct plot_opts *o, const struct crosstab *x);

#endif
