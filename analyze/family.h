/* Process families: a run's processes grouped as the workload that made the
 * I/O, so that the explanation follows what the user ran, not one pid. A
 * command's children that share its name (find | xargs md5sum spawns many
 * md5sum; a shell loop many short ones) are one family; kernel threads are
 * grouped by role (writeback flushers, journal, reclaim). The families that
 * issued the I/O (or, with the capture's delay accounting, the tasks the
 * commands ran) are the workload; its span is the question's time when no
 * command was timed (DESIGN.md "What a finding is"). */
#ifndef IOTAPE_FAMILY_H
#define IOTAPE_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/rundata.h"

#define FAM_NAME 24

struct family {
	char name[FAM_NAME];    /* the processes' name, or their role:
				 * "writeback", "journal", "reclaim"; "pid N"
				 * for a nameless process (tracefs captures
				 * carry no names) */
	const char *role;       /* "" for user processes, else as ta_role() */
	uint64_t bytes, bios;   /* queued (Q) */
	uint64_t rd_bytes, wr_bytes, sync_wr_bytes;
	int64_t first_q, last_c;
	int nproc;              /* processes in it */
	int workload;           /* 1: part of the workload */
	int rank;               /* by bytes, 0 the largest */
};

struct families {
	struct family *f;
	int n;
	/* pid -> family, sorted by pid */
	uint32_t *pid;
	int *fam;
	size_t npid;
	int has_tasks;          /* the workload is the capture's tasks */
	int proxy_writeback;    /* the workload's I/O is the flushers' (a
				 * buffered writer issues none itself) */
	int64_t t0, t1;         /* the workload's span: its first Q to last
				 * C, events far from the rest left out */
	char why[200];          /* how the workload was told */
};

/* What the question is a figure of (families_build()'s focus). */
enum {
	FAM_ALL = 0,    /* the run's: its workload as told below */
	FAM_READS = 1,  /* its reads (read_iops, read_bw): the processes
			 * that read */
};

/* Groups rd's processes (those with I/O, and the tasks of its delay
 * accounting) into families and marks the workload's: the tasks the
 * capture recorded when it has them, else the user families that issued
 * at least 2% of the bytes, and the writeback flushers when user processes
 * issued under a third of them (a buffered writer's data is written by the
 * flushers); with focus FAM_READS and no tasks, the user families that
 * issued at least 2% of the reads' bytes alone (a random reader beside a
 * buffered writer: fio's read_iops is fio's, over fio's time, not the
 * flushers' beside it), or as FAM_ALL when none did. Computes the
 * workload's span, leaving out a stretch of under 1% of its bytes cut off
 * from the rest by a gap of a fifth of the span or more (a stray process's
 * event). Aborts when memory runs out. */
void families_build(struct families *fs, const struct rundata *rd,
		    int focus);

/* The family index of pid, or -1. */
int family_of(const struct families *fs, uint32_t pid);

/* 1 when pid belongs to a workload family. */
int family_is_workload(const struct families *fs, uint32_t pid);

void families_free(struct families *fs);

#endif
