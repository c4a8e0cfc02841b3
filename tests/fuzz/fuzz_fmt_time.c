/* libFuzzer harness: the time-text import parser (import/fmt_time.c) and every
 * format's sniff over arbitrary bytes. */
#define FUZZ_FORMAT "time-text"
#include "fuzz_fmt.h"
