/* libFuzzer harness: the blkreplay-load import parser (import/fmt_blkreplay.c) and every
 * format's sniff over arbitrary bytes. */
#define FUZZ_FORMAT "blkreplay-load"
#include "fuzz_fmt.h"
