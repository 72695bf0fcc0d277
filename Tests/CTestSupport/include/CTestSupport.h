#ifndef AIRLOCK_C_TEST_SUPPORT_H
#define AIRLOCK_C_TEST_SUPPORT_H

#include <stddef.h>

/// The bytes a `malloc(size)` block can be read past its end without leaving its mapping: what
/// the test bundle's load-time setting guarantees for directory-stream buffers (see support.c).
size_t airlock_tests_readable_slack(size_t size);

#endif
