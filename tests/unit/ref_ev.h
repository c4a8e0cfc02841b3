/* An event as the unit tests of the run's event orders (test_evorder,
 * test_fold) sort them for their reference: by time, then row, then rank
 * (a walk's place in a merge, or the event's kind). */
#ifndef IOTAPE_TEST_REF_EV_H
#define IOTAPE_TEST_REF_EV_H

#include <stdint.h>

struct ref_ev {
	int64_t t;
	uint32_t row;
	int rank;
};

/* qsort's order of two struct ref_ev */
static inline int cmp_ref(const void *a, const void *b)
{
	const struct ref_ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

#endif
