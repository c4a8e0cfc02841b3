/* The /proc samplers: pure parsers of /proc/vmstat, /proc/meminfo, /proc/stat
 * and /proc/pressure/{io,memory,cpu} text into (source, key, value) pairs, and
 * one sampler that reads them all from a proc root (a parameter, for tests). */
#ifndef IOTAPE_PROCSTAT_H
#define IOTAPE_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

/* Receives one value: source is "vmstat", "meminfo", "stat" or "psi"; key
 * and source are valid only during the call. Returns 0 to go on, or a
 * negative code that stops the parse and is returned by it. */
typedef int (*procstat_kv_fn)(void *ctx, const char *source, const char *key,
			      double value);

/* As procstat_kv_fn, with the sample's time (the t_ns given to
 * procstat_sample()), so a store adapter needs no context of its own. */
typedef int (*procstat_sample_fn)(void *ctx, int64_t t_ns, const char *source,
				  const char *key, double value);

/* The parsers below read len bytes of buf (need not end in a NUL or a
 * newline). Each returns 0, the first negative code kv returned, or -EINVAL
 * for a line it cannot read, with its 1-based number in *bad_line (when
 * bad_line is not NULL). Format source: proc(5) and the kernel's
 * Documentation/filesystems/proc.rst, accounting/psi.rst. */

/* /proc/vmstat: "name value" lines; every counter as it is (pages, events,
 * kB for pgpgin/pgpgout), source "vmstat", key = name. */
int procstat_parse_vmstat(const char *buf, size_t len, procstat_kv_fn kv,
			  void *ctx, int *bad_line);

/* /proc/meminfo: "Name:   value kB" (or no unit, as HugePages_Total); values
 * as printed (kB), source "meminfo", key = Name without the colon
 * ("MemFree", "Dirty", "Active(anon)"). */
int procstat_parse_meminfo(const char *buf, size_t len, procstat_kv_fn kv,
			   void *ctx, int *bad_line);

/* /proc/stat: source "stat". The aggregate "cpu" line gives cpu_user,
 * cpu_nice, cpu_system, cpu_idle, cpu_iowait, cpu_irq, cpu_softirq,
 * cpu_steal, cpu_guest, cpu_guest_nice (USER_HZ ticks since boot; fields an
 * old kernel lacks are not reported); then ctxt, intr (its first number, the
 * total), softirq (total), btime (s since the epoch), processes (forks),
 * procs_running, procs_blocked. Per-CPU lines and unknown lines are
 * skipped. */
int procstat_parse_stat(const char *buf, size_t len, procstat_kv_fn kv,
			void *ctx, int *bad_line);

/* /proc/pressure/RESOURCE ("some avg10=0.12 avg60=0.00 avg300=0.00
 * total=12345" and a "full ..." line; cpu may have only "some", or a full
 * line of zeros): source "psi", keys RESOURCE_{some,full}_{avg10,avg60,
 * avg300,total} ("io_some_avg10", "memory_full_total"); avgN in percent,
 * total in microseconds. resource is "io", "memory" or "cpu" (any short
 * name is accepted). */
int procstat_parse_psi(const char *resource, const char *buf, size_t len,
		       procstat_kv_fn kv, void *ctx, int *bad_line);

/* /proc/diskstats: "MAJOR MINOR NAME" and 11 to 17 counters per line;
 * source "diskstats", key "MAJOR,MINOR:FIELD" ("7,0:reads") with FIELD
 * one of reads,
 * reads_merged, read_sectors, read_ms, writes, writes_merged,
 * write_sectors, write_ms, in_flight, io_ms, weighted_io_ms, discards,
 * discards_merged, discard_sectors, discard_ms, flushes, flush_ms (as
 * many as the kernel prints; sectors of 512 bytes, times in ms, counts
 * since boot except in_flight). Only the devices in devs[0 .. ndev)
 * (major << 20 | minor) are handed out; ndev 0: every one. Source:
 * Documentation/admin-guide/iostats.rst, proc(5). */
#define PROCSTAT_DISK_FIELDS 17
/* The FIELD names above, in the file's order. */
extern const char *const procstat_disk_fields[PROCSTAT_DISK_FIELDS];

int procstat_parse_diskstats(const char *buf, size_t len, const uint32_t *devs,
			     int ndev, procstat_kv_fn kv, void *ctx,
			     int *bad_line);

/* A memory cgroup's memory.stat (cgroup v1 Documentation/admin-guide/
 * cgroup-v1/memory.rst 5.2; v2 cgroup-v2.rst "memory.stat"): "name value"
 * lines; source "memcg". Event counters (names starting, after v1's
 * "total_", with pg, workingset_, thp_, pswp, zswp, swpin_, swpout_,
 * numa_) keep their name and are counts (pgmajfault: faults, pgpgin:
 * pages); every other field is an amount in bytes and its key gets
 * "_bytes" (file_bytes, cache_bytes, total_swap_bytes). */
int procstat_parse_memcg(const char *buf, size_t len, procstat_kv_fn kv,
			 void *ctx, int *bad_line);

/* Reads cgroup_dir/memory.stat (procstat_parse_memcg()) and the cgroup's
 * usage (v1 memory.usage_in_bytes, v2 memory.current: key usage_bytes)
 * and hands every value to fn with time t_ns, source "memcg". Returns 0,
 * fn's first negative code, -errno or -EINVAL with a one-line message in
 * err (may be NULL). */
int procstat_sample_memcg(const char *cgroup_dir, int64_t t_ns,
			  procstat_sample_fn fn, void *ctx, char *err,
			  size_t errlen);

/* Reads proc_root/vmstat, meminfo, stat and pressure/{io,memory,cpu}
 * (proc_root is "/proc" normally; tests give a directory of recorded files)
 * and hands every value to fn with time t_ns (the caller's clock: take it
 * just before the call, on the events' clock). Absent pressure files (no
 * PSI in the kernel, or psi=0: ENOENT, EOPNOTSUPP) are skipped. Returns 0,
 * the first negative code fn returned, -errno when a file cannot be read, or
 * -EINVAL when one cannot be parsed; then err (errlen bytes, may be NULL)
 * holds a one-line message naming the file (and line). Values already handed
 * to fn stay handed: run it inside the caller's transaction. */
int procstat_sample(const char *proc_root, int64_t t_ns, procstat_sample_fn fn,
		    void *ctx, char *err, size_t errlen);

/* t_ns for procstat_sample_diskstats(): stamp the counters with the
 * CLOCK_MONOTONIC midpoint of the file's read, not a time taken before. */
#define PROCSTAT_AT_READ INT64_MIN

/* Reads proc_root/diskstats for the devices devs[0 .. ndev) (all when
 * ndev is 0) and hands every counter to fn with time t_ns, as
 * procstat_sample() does; with t_ns PROCSTAT_AT_READ, at the midpoint of
 * the read (the counters move by about one request per ms of a busy disk, so
 * a stamp taken before the other /proc files were read is late by their read
 * time, which on a loaded machine reached 16 requests). Returns 0, the first negative code fn returned,
 * -errno, or -EINVAL, with a one-line message in err (may be NULL). */
int procstat_sample_diskstats(const char *proc_root, int64_t t_ns,
			      const uint32_t *devs, int ndev,
			      procstat_sample_fn fn, void *ctx, char *err,
			      size_t errlen);

#endif
