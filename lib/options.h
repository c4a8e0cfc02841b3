/* Options defined once: a command's table of long options with the help
 * text beside each, from which both getopt_long()'s table and the option
 * lines of --help are made, so the two cannot drift apart (git's
 * parse-options; tests/cli/t_help.sh checks --help against the manual). */
#ifndef IOTAPE_OPTIONS_H
#define IOTAPE_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

struct opt_def {
	const char *name;     /* the long name, without "--" */
	int has_arg;          /* no_argument or required_argument */
	int val;              /* what getopt_long() returns for it */
	const char *arg;      /* shown after the option ("FILE"), or NULL */
	const char *help;     /* wrapped to 80 columns; '\n' ends a line where
			       * the author wants it; NULL: described with the
			       * next option that has help (both named in its
			       * head), or, at the end of the table, not listed */
};

/* Fills longopts (n + 1 entries; the last is left all zero) from defs[0 ..
 * n), for getopt_long(). */
void opt_longopts(const struct opt_def *defs, size_t n, struct option *longopts);

/* Prints the options of defs[0 .. n) to fp, one entry per option with
 * help: two spaces, the head ("--name ARG", with "-x, " before it when val
 * x is in shorts, a string of the letters that have a short form, may be
 * NULL; after the heads of the options before it that have no help, joined
 * with ", ") padded to column col - 1, then the help from column col,
 * wrapped at 80 columns and at each '\n'. A head too wide for its column
 * goes on a line of its own, unless the help's first line is one the author
 * ended with '\n' and it fits on the head's line after two spaces. */
void opt_usage(FILE *fp, const struct opt_def *defs, size_t n, int col,
	       const char *shorts);

/* getopt_long(argc, argv, shorts, longopts, NULL), except that an option's
 * value that is itself one of longopts' options ("--target --allow-write":
 * the value forgotten) is refused: a line "iotape CMD: option '--target'
 * takes a value, not the option '--allow-write'" (argv[0] names the
 * command) and '?', which the commands answer with opt_bad(). A value
 * meant to start so is given with the option's '=' form and a path
 * (--target=./--allow-write). getopt's own messages are off (opterr 0):
 * an unknown, ambiguous or valueless option, or a value given to one that
 * takes none, is said on one line here, the word quoted with its control
 * bytes shown as <0xNN>, and '?' returned. Returns what getopt_long()
 * returns. */
int opt_next(int argc, char **argv, const char *shorts,
	     const struct option *longopts);

/* After opt_next() printed what was wrong with an option (unknown,
 * missing its argument): prints "see 'iotape CMD --help'" on stderr, not
 * the whole help, and returns 2, the usage error's exit status. */
int opt_bad(const char *cmd);

#endif
