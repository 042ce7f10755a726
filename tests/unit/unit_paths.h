/* tests/unit/unit_paths.h: where the unit tests find what `make unit` builds
 * for them (the samples and fixtures, next to the unit binary). */
#ifndef PTAP_TESTS_UNIT_PATHS_H
#define PTAP_TESTS_UNIT_PATHS_H

/*
 * The file REL under the unit binary's directory ("samples/query_server-O0"),
 * which must be readable (else the test fails, saying to run `make unit`).
 * Borrowed: a static buffer, valid until the next call.
 */
const char *unit_path(const char *rel);

#endif
