/* libFuzzer harness: the cloudphysics-csv import parser (import/fmt_cloudphysics.c) and every
 * format's sniff over arbitrary bytes. */
#define FUZZ_FORMAT "cloudphysics-csv"
#include "fuzz_fmt.h"
