/* journal: the workload waiting for its file system's journal to commit.
 * A synchronous write (fsync(2), O_SYNC, O_DSYNC) on a journaling file
 * system returns once the journal thread (ext4's jbd2, xfs's xfsaild) has
 * written the transaction: its commit block, and with write barriers on
 * (ext4's default, `barrier=1`) a cache flush before it and a FUA write of
 * it (Documentation/block/writeback_cache_control.rst: REQ_PREFLUSH,
 * REQ_FUA). The writer issues none of that I/O itself, so the trace shows
 * it idle while it waits. Its cost is the critical path's CP_JOURNAL: the
 * workload's time with no I/O of its own in flight while a journal
 * thread's was, when the workload had issued synchronous writes; between
 * two runs, its difference (a barrier or a device whose cache flushes got
 * slower shows here), and the workload's writes' slower service at the
 * device beside the worse run's journal's many cache flushes when the other
 * run had few (critpath_diff(): the barriers' flushes drain the device's
 * cache, so the writes beside them wait for the media). */
#include <stdlib.h>

#include "analyze/analyzer.h"
#include "lib/emit.h"
#include "lib/util.h"

struct jr_state {
	int traced;               /* the run has a trace */
};

static void *jr_build(const struct an_run *r)
{
	struct jr_state *s;

	if (!r->rd.n)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->traced = 1;
	return s;
}

static int jr_finding(const struct an_run *r, const void *state,
		      struct finding *f)
{
	const struct critpath *cp = &r->cp;
	double c = cp->cat[CP_JOURNAL];
	char who[48] = "the journal";

	(void)state;
	if (cp->journal_bios <= 0 && c <= 0)
		return 0;
	if (cp->journal_bios > 0)
		an_proc_name(r, cp->journal_pid, who, sizeof(who));
	f->present = c >= FD_MIN_S;
	snprintf(f->title, sizeof(f->title), "journal: the workload waited "
		 "%.2f s on %s's I/O (%.1f MB written, %.0f cache flushes, %.0f "
		 "FUA writes)", c, who, cp->journal_mb, cp->journal_flushes,
		 cp->journal_fua);
	f->counterfactual = 0;
	FD_CAT(f, how, "the workload's time with no I/O of its own in flight "
	       "while the journal thread's I/O was, the workload having issued "
	       "synchronous writes or flushes itself (fsync, O_SYNC, O_DSYNC): "
	       "%.3f s; and its own I/O's wait behind the journal's writes "
	       "(queued or at the device before it: data=journal writes the "
	       "data a second time): %.3f s", c - cp->journal_queue_s,
	       cp->journal_queue_s);
	FD_CAT(f, evidence, "%s: %.0f bios in the window, %.1f MB; %.0f cache "
	       "flushes (empty or before a write), %.0f FUA writes", who,
	       cp->journal_bios, cp->journal_mb, cp->journal_flushes,
	       cp->journal_fua);
	f->conf = FD_MEDIUM;
	FD_CAT(f, why, "the trace shows the journal's I/O and the writer idle "
	       "beside it, not the writer's wait on the commit itself (a "
	       "process that synced and then slept for another reason reads "
	       "the same)");
	f->lo_s = 0;
	f->hi_s = cp->elapsed_s;
	return 1;
}

static void jr_emit(struct emit *e, const void *state)
{
	(void)state;
	(void)e;
}

static void jr_release(void *state)
{
	free(state);
}

const struct analyzer an_journal = {
	.name = "journal",
	.build = jr_build,
	.finding = jr_finding,
	.emit = jr_emit,
	.release = jr_release,
	.cats = 1u << CP_JOURNAL,
	.definitions =
"journal: the workload waiting for its file system's journal to commit\n"
"  its synchronous writes (fsync, O_SYNC, O_DSYNC on ext4's jbd2 or xfs's\n"
"  xfsaild): its time with no I/O of its own in flight while the journal\n"
"  thread's I/O (its writes, cache flushes, FUA writes) was, once the\n"
"  workload had issued synchronous writes itself; and its own I/O queued\n"
"  behind the journal's writes (data=journal: the data written twice).\n"
"  Between runs, the difference: write barriers (barrier=1), data=journal,\n"
"  slower cache flushes; and the workload's writes' slower service at the\n"
"  device beside the journal's cache flushes, when the other run had few.\n",
};
