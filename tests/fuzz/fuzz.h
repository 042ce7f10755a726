/* tests/fuzz/fuzz.h: what the fuzz harnesses share: the libFuzzer entry point
 * (called by libFuzzer under clang, by replay.c under gcc), and a helper that
 * puts the input in a file for the readers that take a path. */
#ifndef PTAP_TESTS_FUZZ_H
#define PTAP_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A memfd holding DATA, rewound, and its path ("/proc/self/fd/N") in PATH
 * (LEN bytes).  The fd (the caller closes it), or -1.
 */
int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t len);

/* Silence ptap's log (the harnesses feed it garbage on purpose). */
void fuzz_quiet(void);

#endif
