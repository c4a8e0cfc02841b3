/* Repeatable test data without libc's rand(): xorshift64 (Marsaglia 2003,
 * "Xorshift RNGs", Journal of Statistical Software 8(14), shifts 13, 7, 17),
 * for the unit tests that need many varied inputs. */
#ifndef IOTAPE_TEST_XORSHIFT_H
#define IOTAPE_TEST_XORSHIFT_H

#include <stdint.h>

/* Advances the generator's state *s (not 0) and returns it: the next
 * value, never 0. */
static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
