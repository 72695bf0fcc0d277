// Linked into the test bundle, for one bug of the toolchain it runs on.
//
// Foundation's `Process.run()` on Linux (Swift 6.3.1) finds the highest open descriptor by
// walking `/proc/self/fd` with `readdir` and copies each entry's whole 256-byte `d_name`, though
// glibc's entries are only `d_reclen` (24 bytes here) long. With more than about 1,300 open
// descriptors the directory buffer (32 KiB, from `malloc`) is filled to its end, and the copy of
// the last entries reads up to ~240 bytes past it: when the buffer ends at the end of a mapping,
// the process dies with SIGSEGV in memcpy (swift-corelibs-foundation#5472, fixed upstream after
// 6.3.1). The suite opens 2,000 connections in one test while others start processes.
//
// Blocks of 32 KiB and more are mmapped on their own from load time on: a mapping is rounded up
// to whole pages, so the directory buffer (32 KiB plus glibc's header) always has ~4 KiB of
// readable slack after it, and the over-read can never reach an unmapped page.

#include "CTestSupport.h"

#include <stdlib.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>

__attribute__((constructor)) static void airlock_tests_map_large_blocks(void) {
    (void)mallopt(M_MMAP_THRESHOLD, 32 * 1024);
}

size_t airlock_tests_readable_slack(size_t size) {
    void *block = malloc(size);
    if (block == NULL) { return 0; }
    size_t usable = malloc_usable_size(block);
    free(block);
    return usable > size ? usable - size : 0;
}
#else
size_t airlock_tests_readable_slack(size_t size) {
    (void)size;
    return 0;
}
#endif
