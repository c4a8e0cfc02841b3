/* Options defined once (see options.h): getopt_long()'s table and the
 * option lines of --help from one table per command. */
#include <stdio.h>
#include <string.h>

#include "lib/options.h"
#include "lib/util.h"

void opt_longopts(const struct opt_def *defs, size_t n, struct option *longopts)
{
	memset(longopts, 0, (n + 1) * sizeof(*longopts));
	for (size_t i = 0; i < n; i++)
		longopts[i] = (struct option){ defs[i].name, defs[i].has_arg, NULL,
					       defs[i].val };
}

/* The length of the next line of h: up to a '\n', or the last space that
 * keeps it within width (a longer word stays whole). */
static int line_len(const char *h, int width)
{
	int n = (int)strcspn(h, "\n");

	if (n > width) {
		n = width;
		while (n > 0 && h[n] != ' ')
			n--;
		if (n == 0)
			n = (int)strcspn(h, " \n");
	}
	return n;
}

/* Appends d's head ("-x, --name ARG") to head (len bytes). */
static void add_head(char *head, size_t len, const struct opt_def *d,
		     const char *shorts)
{
	size_t o = strlen(head);
	char sh[8] = "";

	if (shorts && d->val > 0 && d->val < 128 && strchr(shorts, d->val))
		snprintf(sh, sizeof(sh), "-%c, ", d->val);
	snprintf(head + o, len - o, "%s%s--%s%s%s", o ? ", " : "", sh, d->name,
		 d->arg ? " " : "", d->arg ? d->arg : "");
}

static void usage_entry(FILE *fp, char *head, const char *h, int col)
{
	int width = 80 - col, n;

	if ((int)strlen(head) > col - 3) {
		n = (int)strcspn(h, "\n");
		if (h[n] == '\n' && 2 + (int)strlen(head) + 2 + n <= 80) {
			fprintf(fp, "  %s  %.*s\n", head, n, h);
			h += n + 1;
		} else {
			fprintf(fp, "  %s\n", head);
		}
		head[0] = '\0';
	}
	while (*h) {
		n = line_len(h, width);
		fprintf(fp, "  %-*s %.*s\n", col - 3, head, n, h);
		head[0] = '\0';
		h += n;
		if (*h == '\n')
			h++;
		else
			while (*h == ' ')
				h++;
	}
}

void opt_usage(FILE *fp, const struct opt_def *defs, size_t n, int col,
	       const char *shorts)
{
	char head[256] = "";

	for (size_t i = 0; i < n; i++) {
		add_head(head, sizeof(head), &defs[i], shorts);
		if (!defs[i].help)
			continue;
		usage_entry(fp, head, defs[i].help, col);
		head[0] = '\0';
	}
}

int opt_bad(const char *cmd)
{
	fprintf(stderr, "iotape: see 'iotape %s --help'\n", cmd);
	return 2;
}


/* The long option of longopts whose val is c, or NULL. */
static const char *long_name(const struct option *longopts, int c)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == c)
			return o->name;
	return NULL;
}

/* What getopt_long() (opterr 0) found wrong with the word at argv[optind -
 * 1], said on one line (argv[0] names the command): the word quoted, its
 * control bytes shown (fput_shown()), so that a newline in it starts no
 * second line. The cases are getopt(3)'s: an unknown or ambiguous option,
 * an option's value missing, a value given to one that takes none. */
static void bad_option(char **argv, const char *shorts,
		       const struct option *longopts)
{
	const char *word = optind > 0 ? argv[optind - 1] : "";
	const char *lname = optopt ? long_name(longopts, optopt) : NULL;
	char what[64];

	if (!strncmp(word, "--", 2)) {
		size_t l = strcspn(word + 2, "=");
		if (!optopt || !lname) {
			int n = 0;
			for (const struct option *o = longopts; o->name; o++)
				n += l && !strncmp(o->name, word + 2, l);
			snprintf(what, sizeof(what), "%s option", n > 1 ?
				 "ambiguous" : "unknown");
		} else if (word[2 + l] == '=')
			snprintf(what, sizeof(what), "option '--%s' takes no value",
				 lname);
		else
			snprintf(what, sizeof(what), "option '--%s' needs a value",
				 lname);
		fprintf(stderr, "%s: %s: '", argv[0], what);
		fput_shown(stderr, word, strlen(word), "");
		fputs("'\n", stderr);
		return;
	}
	if (optopt > 0 && optopt < 128 && optopt != ':' && strchr(shorts, optopt))
		fprintf(stderr, "%s: option '-%c' needs a value\n", argv[0],
			optopt);
	else if (optopt > 0x20 && optopt < 0x7f)
		fprintf(stderr, "%s: unknown option '-%c'\n", argv[0], optopt);
	else
		fprintf(stderr, "%s: unknown option '-<0x%02x>'\n", argv[0],
			(unsigned char)optopt);
}

int opt_next(int argc, char **argv, const char *shorts,
	     const struct option *longopts)
{
	int c;
	const char *name = NULL;
	size_t l;

	opterr = 0;
	c = getopt_long(argc, argv, shorts, longopts, NULL);
	if (c == '?' || c == ':') {
		bad_option(argv, shorts, longopts);
		return '?';
	}
	if (c == -1 || !optarg || strncmp(optarg, "--", 2))
		return c;
	l = strcspn(optarg + 2, "=");
	for (const struct option *o = longopts; o->name && !name; o++)
		if (strlen(o->name) == l && !strncmp(o->name, optarg + 2, l))
			name = o->name;
	/* "--run=x" as its own word: the option's value was the option
	 * itself only when optarg is a separate word, not "--db=--x" */
	if (!name || optind < 1 || argv[optind - 1] != optarg)
		return c;
	{
		const char *opt = NULL;
		for (const struct option *o = longopts; o->name && !opt; o++)
			if (o->val == c)
				opt = o->name;
		if (opt)
			fprintf(stderr, "%s: option '--%s' takes a value, not the "
				"option '%s'\n", argv[0], opt, optarg);
		else
			fprintf(stderr, "%s: option '-%c' takes a value, not the "
				"option '%s'\n", argv[0], c, optarg);
	}
	return '?';
}
