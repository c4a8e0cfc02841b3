/* The tracefs ring buffer's raw pages (per_cpu/cpuN/trace_pipe_raw) turned
 * into blktrace records: a pure decoder (bytes in, records out), and the
 * merge of the per-CPU streams into time order. The page layout is the one
 * events/header_page and events/header_event describe (kernel
 * ring_buffer.c); a blk tracer entry is the kernel's struct blk_io_trace with
 * its first 16 bytes holding the generic trace_entry (kernel blktrace.c,
 * blk_trace_event_print_binary() rebuilds magic and time the same way). */
#ifndef IOTAPE_TRACEFS_RAW_H
#define IOTAPE_TRACEFS_RAW_H

#include <stddef.h>
#include <stdint.h>

/* One CPU's decoded records not yet handed on. */
struct rawcpu {
	uint8_t *buf;             /* whole v7 records, in this CPU's time order */
	size_t len, cap, off;     /* off: the first record not handed on */
	int64_t newest_ns;        /* the newest record's time decoded */
};

/* Counts of what a page held that is not a blk record. */
struct rawstats {
	uint64_t records;         /* blk records decoded */
	uint64_t bad_entries;     /* data entries not shaped as blk records */
	uint64_t bad_pages;       /* pages cut short or with impossible lengths */
};

/* Decodes one raw ring-buffer page (page_len bytes as read from
 * trace_pipe_raw: an 8-byte timestamp, an 8-byte commit word whose low 30
 * bits are the data bytes, then the events) and appends each blk entry as
 * a blktrace v7 record (host byte order; magic 0x65617407, sequence 0, time
 * the event's ring-buffer time in trace-clock ns) to c. Event headers: 5
 * bits type_len (0: length in the next word; 1-28: 4 * type_len bytes; 29
 * padding; 30 time extend; 31 absolute time) and 27 bits of time delta.
 * Returns 0, or -1 when the page is malformed (what was decoded before the
 * fault is kept; counted in st). */
int rawpage_decode(struct rawcpu *c, const uint8_t *page, size_t page_len,
		   struct rawstats *st);

/* Moves the records of cpus[0 .. n) with time <= upto_ns, oldest first
 * across CPUs, into out (out_cap bytes, *out_len of them used) until the
 * next one does not fit. Records newer than upto_ns, or that did not fit,
 * stay for the next call. Returns the records moved. */
uint64_t rawcpu_merge(struct rawcpu *cpus, int n, int64_t upto_ns,
		      uint8_t *out, size_t out_cap, size_t *out_len);

/* Gives c room for bytes of records at once (so a steady stream does not
 * reallocate). */
void rawcpu_reserve(struct rawcpu *c, size_t bytes);

/* Frees c's buffer. */
void rawcpu_free(struct rawcpu *c);

#endif
