// CAirgap: the socket layer of Airgap.
//
// This target defines `connect` and `getaddrinfo`. Because SwiftPM exports an executable's
// symbols dynamically, these definitions win over the C library's for every caller in the
// process (libcurl under FoundationNetworking, SwiftNIO, raw sockets). Each hook forwards to the
// C library through `dlsym(RTLD_NEXT, …)`; while the guard is not enforcing it costs one atomic
// load. While it is enforcing:
//
// - `getaddrinfo` of a host name that the name callback does not allow is a violation. In fail
//   mode it returns `EAI_NONAME` without calling the resolver, so no DNS query leaves.
//   Numeric hosts (`127.0.0.1`, `::1`) are not lookups and are left to `connect`.
//   The addresses an allowed name resolves to are added to the allowed addresses.
// - `connect` of an `AF_INET`/`AF_INET6` socket to an address outside the allowed addresses is a
//   violation. In fail mode it returns -1 with `errno = ECONNREFUSED` before any packet leaves.
// - `AF_UNIX` (and every other family, and `AF_UNSPEC` "disconnect") always passes.
//
// In warn mode the violation is reported and the call proceeds.

#ifndef CAIRGAP_H
#define CAIRGAP_H

#ifdef __cplusplus
extern "C" {
#endif

/// What a violation callback reports.
typedef enum {
    /// A `connect` to an address that is not allowed. `host` is the numeric address.
    AIRGAP_EVENT_CONNECT = 1,
    /// A `getaddrinfo` of a host name that is not allowed. `host` is the name.
    AIRGAP_EVENT_RESOLVE = 2,
} airgap_event;

/// Called (outside any lock, on the calling thread) for each violation.
/// `port` is 0 when unknown; `socket_type` is `SOCK_STREAM`, `SOCK_DGRAM`, or 0 when unknown;
/// `blocked` is 1 when the call is about to fail (fail mode), 0 when it proceeds (warn mode).
typedef void (*airgap_violation_callback)(int event, const char *host, int port, int socket_type, int blocked);

/// Decides whether a host name may be resolved: returns 1 to allow, 0 to deny.
typedef int (*airgap_name_callback)(const char *name);

/// Installs the callbacks. Passing NULL for the name callback denies every name.
void airgap_set_callbacks(airgap_name_callback name_callback, airgap_violation_callback violation_callback);

/// Turns enforcement on or off (one atomic store).
void airgap_set_enforcing(int enforcing);

/// Whether the hooks are enforcing.
int airgap_is_enforcing(void);

/// Fail mode (1: the call fails) or warn mode (0: the call proceeds after reporting).
void airgap_set_fail_mode(int fail);

/// Removes every configured address rule (IP literals and CIDR ranges).
void airgap_clear_rules(void);

/// Adds an address rule: an IPv4 or IPv6 literal (`127.0.0.1`, `::1`, `[::1]`) or a CIDR range
/// (`127.0.0.0/8`, `fd00::/8`). Returns 0 on success, -1 when `text` is not an address rule.
int airgap_add_rule(const char *text);

/// Whether `text` parses as an address rule, without adding it. Returns 1 or 0.
int airgap_is_address_rule(const char *text);

/// Whether the numeric address `text` falls within the configured rules (not the resolved
/// addresses). Returns 1 or 0; 0 for text that is not an address.
int airgap_rules_allow_address(const char *text);

/// Forgets the addresses that allowed names resolved to.
void airgap_clear_resolved(void);

/// The number of addresses remembered from allowed resolutions (for tests and diagnostics).
int airgap_resolved_count(void);

/// Marks the calling thread as inside Airgap's own code (1) or not (0). Hooks called while the
/// mark is set forward without checks, so Airgap's reporting cannot recurse into itself.
void airgap_set_thread_bypass(int bypass);

/// The value of `AIRGAP_MODE` seen by the load-time constructor: 0 absent or unrecognised,
/// 1 `fail`, 2 `warn`.
int airgap_startup_mode(void);

#ifdef __cplusplus
}
#endif

#endif
