// The ThreadSanitizer suppressions of the test binary (see suppressions.c). Nothing to call.
