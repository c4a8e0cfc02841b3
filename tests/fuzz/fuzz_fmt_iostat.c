/* libFuzzer harness: the iostat-text import parser (import/fmt_iostat.c) and every
 * format's sniff over arbitrary bytes. */
#define FUZZ_FORMAT "iostat-text"
#include "fuzz_fmt.h"
