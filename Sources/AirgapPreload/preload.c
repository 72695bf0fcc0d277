// The preload library for child processes: the CAirgap hooks, compiled into a shared library of
// their own that a guarded process passes to the processes it starts through LD_PRELOAD. It is
// configured by the AIRGAP_INHERITED_* environment variables and reports to the parent's log.
#define AIRGAP_PRELOAD 1
#include "../CAirgap/airgap.c"
