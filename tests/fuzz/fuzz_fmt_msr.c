/* libFuzzer harness: the msr-csv import parser (import/fmt_msr.c) and every
 * format's sniff over arbitrary bytes. */
#define FUZZ_FORMAT "msr-csv"
#include "fuzz_fmt.h"
