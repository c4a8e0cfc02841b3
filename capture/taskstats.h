/* The kernel's per-task accounting over generic netlink (family
 * "TASKSTATS"): a pure decoder of its messages and a builder of its
 * requests, bytes in and bytes out; no sockets, no globals, no printing.
 * Format source: Linux include/uapi/linux/taskstats.h (struct taskstats,
 * fields only ever appended, version 13 in the header built against),
 * include/uapi/linux/netlink.h and genetlink.h, Documentation/accounting/
 * taskstats.rst and delay-accounting.rst (what tools/accounting/getdelays.c
 * sends and reads). Messages are in the host's byte order. */
#ifndef IOTAPE_TASKSTATS_H
#define IOTAPE_TASKSTATS_H

#include <stddef.h>
#include <stdint.h>

/* What a struct taskstats held, by the length the kernel sent. */
enum {
	TA_HAVE_DELAY = 1 << 0,    /* cpu, blkio, swapin delays, cpu time (v1) */
	TA_HAVE_BASIC = 1 << 1,    /* comm, pid, ppid, etime, majflt (v1) */
	TA_HAVE_IO = 1 << 2,       /* read_bytes, write_bytes (storage I/O) */
	TA_HAVE_FREEPAGES = 1 << 3,/* direct reclaim delay */
	TA_HAVE_THRASHING = 1 << 4,/* refault (thrashing) delay */
	TA_HAVE_COMPACT = 1 << 5,  /* compaction delay (v11) */
	TA_HAVE_TGID = 1 << 6,     /* ac_tgid (v12) */
};

/* One task's account. Delays are the kernel's cumulative totals since the
 * task started, in ns, counted only while kernel.task_delayacct is 1
 * (cpu_delay_ns always: it is the scheduler's run_delay); counts are the
 * number of delays recorded. */
struct task_acct {
	uint32_t pid;              /* the task (thread) id */
	uint32_t tgid;             /* its process; pid when not sent */
	uint32_t ppid;             /* the parent process when taken */
	uint16_t version;          /* the struct's TASKSTATS_VERSION */
	uint32_t exitcode;         /* ac_exitcode (exit events) */
	char comm[33];             /* ac_comm, NUL-ended */
	uint64_t etime_us;         /* ac_etime: us since the task started */
	uint64_t cpu_ns;           /* cpu_run_virtual_total: the scheduler's
				    * sum_exec_runtime, ns (cpu_run_real_total
				    * is user + system in ticks) */
	uint64_t cpu_count, cpu_delay_ns;        /* runnable, not on a CPU */
	uint64_t blkio_count, blkio_delay_ns;    /* waiting on block I/O */
	uint64_t swapin_count, swapin_delay_ns;  /* swap-in page faults */
	uint64_t freepages_count, freepages_delay_ns; /* direct reclaim */
	uint64_t thrashing_count, thrashing_delay_ns; /* refaults */
	uint64_t compact_count, compact_delay_ns;     /* memory compaction */
	uint64_t majflt;           /* major page faults */
	uint64_t read_bytes, write_bytes; /* storage I/O the task caused */
	unsigned have;             /* TA_HAVE_* */
};

/* Errors: returned negated. */
enum ts_err {
	TS_OK = 0,
	TS_E_SHORT = 1,   /* a message or attribute runs past the buffer */
	TS_E_LENGTH = 2,  /* a length below its own header */
	TS_E_STATS = 3,   /* a taskstats attribute too short for version 1 */
};

/* A message for each code above. */
const char *taskstats_strerror(int rc);

/* Decodes a struct taskstats of len bytes (at any alignment) into *t. Fields
 * past len are 0 and their TA_HAVE_* bit unset. Returns 0, or -TS_E_STATS
 * when len is shorter than version 1's fields. */
int taskstats_decode(const uint8_t *buf, size_t len, struct task_acct *t);

/* What one buffer of netlink messages held besides the accounts. */
struct taskstats_reply {
	int acked;          /* an NLMSG_ERROR of 0 (an acknowledgement) */
	int error;          /* the first non-zero NLMSG_ERROR, -errno (-ESRCH:
			     * no such task) */
	int nstats;         /* accounts handed out */
	uint16_t family;    /* a CTRL_CMD_NEWFAMILY reply's family id, or 0 */
};

/* Receives each account: aggr_tgid 0 for a task's own (TASKSTATS_TYPE_
 * AGGR_PID), 1 for a whole process's sum sent when its last thread exits
 * (AGGR_TGID). Returns 0 to go on, or a negative code that stops the parse
 * and is returned by it. */
typedef int (*taskstats_fn)(void *ctx, const struct task_acct *t, int aggr_tgid);

/* Decodes every netlink message in buf (len bytes, one recv()'s worth):
 * TASKSTATS_CMD_NEW messages of family (exit events and replies to
 * taskstats_req_pid()) go to fn; NLMSG_ERROR messages and the controller's
 * CTRL_CMD_NEWFAMILY reply (for the family id) to *rep (zeroed first).
 * Other message types are skipped. Returns 0, fn's negative code, or
 * -TS_E_SHORT / -TS_E_LENGTH / -TS_E_STATS with the offset of the bad
 * message or attribute in *bad_off (when not NULL). */
int taskstats_parse(const uint8_t *buf, size_t len, uint16_t family,
		    taskstats_fn fn, void *ctx, struct taskstats_reply *rep,
		    size_t *bad_off);

/* Requests, each one netlink message written into buf (cap bytes) with
 * sequence number seq and NLM_F_REQUEST | NLM_F_ACK; each returns its
 * length, or 0 when cap is too small. */

/* The controller's CTRL_CMD_GETFAMILY for "TASKSTATS" (the reply names the
 * family id). */
size_t taskstats_req_family(uint8_t *buf, size_t cap, uint32_t seq);

/* TASKSTATS_CMD_GET registering (deregister 0) or deregistering the
 * sending socket for the exit events of the CPUs in cpumask (a cpulist,
 * "0-3"): the kernel then sends each exiting task's account to it. Needs
 * CAP_NET_ADMIN. */
size_t taskstats_req_register(uint8_t *buf, size_t cap, uint16_t family,
			      uint32_t seq, const char *cpumask, int deregister);

/* TASKSTATS_CMD_GET for the live task pid (a thread id): the reply holds
 * its account, or an NLMSG_ERROR of -ESRCH. */
size_t taskstats_req_pid(uint8_t *buf, size_t cap, uint16_t family,
			 uint32_t seq, uint32_t pid);

#endif
