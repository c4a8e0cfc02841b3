/* The sectors a device's reads have covered so far: one bit a 512-byte
 * sector, in leaves of SM_LEAF sectors (32 KiB of bits for 128 MiB of the
 * device) made when first touched, so its size is what the reads covered,
 * not how many reads there were; sectors from SM_END on (512 TiB, a
 * damaged trace's) are not kept. Re-reads are counted with it: the
 * critical path's refaults, readahead's sectors read twice. */
#ifndef IOTAPE_SECMAP_H
#define IOTAPE_SECMAP_H

#include <stddef.h>
#include <stdint.h>

#define SM_SHIFT 18
#define SM_LEAF (1u << SM_SHIFT)
#define SM_END (1ull << 40)

struct secmap {
	uint64_t **leaf;
	size_t nleaf;
};

/* How many of the len sectors from s were set in m (zeroed: none); sets
 * them all. s + len must be at most SM_END. Aborts when memory runs out. */
uint32_t secmap_count_set(struct secmap *m, uint64_t s, uint32_t len);

/* Frees m's leaves (m is empty after). */
void secmap_free(struct secmap *m);

#endif
