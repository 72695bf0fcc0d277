// AirgapPreload: a shared library with no API of its own. Airgap passes it to child processes
// through LD_PRELOAD while the guard is active; see CAirgap.h for what its hooks do.
#ifndef AIRGAP_PRELOAD_H
#define AIRGAP_PRELOAD_H
#endif
