// libFuzzer's entry point for programs that have a main of their own (LLVM 11 and later).
// `-sanitize=fuzzer` links the library that defines it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
