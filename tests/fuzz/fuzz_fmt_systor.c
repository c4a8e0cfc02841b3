/* libFuzzer harness: the systor17-csv import parser (import/fmt_systor.c) and every
 * format's sniff over arbitrary bytes. */
#define FUZZ_FORMAT "systor17-csv"
#include "fuzz_fmt.h"
