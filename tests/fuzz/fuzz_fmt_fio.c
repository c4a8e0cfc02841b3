/* libFuzzer harness: the fio-iolog import parser (import/fmt_fio.c) and every
 * format's sniff over arbitrary bytes. */
#define FUZZ_FORMAT "fio-iolog"
#include "fuzz_fmt.h"
