// CAirgap: the socket layer of Airgap.
//
// Linux only: the hooks, the preload library's start-up and the child-process functions below
// are compiled when `__linux__` is defined and `AIRGAP_NO_SOCKET_LAYER` is not. Elsewhere (and
// with it) only the allow list's rules and patterns, the mode parser, `airgap_capture_stack` and
// the settings are defined; the Swift side calls nothing else there.
//
// This target defines every C-library entry point through which a process reaches the network:
// `connect`, `__connect`, `sendto` / `sendmsg` / `sendmmsg` / `__sendmmsg` with an address (unconnected UDP,
// TCP Fast Open), `socket` / `__socket` (raw and packet sockets), `getaddrinfo`, `getaddrinfo_a`,
// `gethostbyname`(2)(_r), `gethostbyaddr`(_r), `getnameinfo`, `res_*` / `__res_*` (query,
// search, querydomain, send, and the `res_n*` forms) and `syscall` (for `SYS_connect`,
// `SYS_sendto`, `SYS_sendmsg`, `SYS_sendmmsg`, `SYS_socket`). Because SwiftPM exports an
// executable's symbols dynamically, these definitions win over the C library's for every caller
// in the process. Each hook forwards to the C library through `dlsym(RTLD_NEXT, …)`; while the
// guard is not enforcing it costs one atomic load. While it is enforcing, in both modes (the mode
// only changes how the Swift side reports):
//
// - a lookup of a host name that is not allowed is a violation and fails (`EAI_NONAME`,
//   `HOST_NOT_FOUND`) without calling the resolver, so no DNS query leaves. Numeric hosts
//   (`127.0.0.1`, `::1`) are not lookups and are left to the address checks. The addresses an
//   allowed name resolves to are allowed until the allow list changes or the guard deactivates.
// - a `connect`, or a send with a destination address, of an `AF_INET`/`AF_INET6` socket to an
//   address that is not allowed is a violation and fails with `ECONNREFUSED` before any packet
//   leaves. Every address length the kernel accepts is checked (IPv6 from 24 bytes), and
//   IPv4-mapped IPv6 addresses are checked as IPv4.
// - a raw IP socket or an `AF_PACKET` socket is a violation and fails with `EPERM`.
// - a reverse lookup of an address that is not allowed is a violation (`EAI_NONAME`).
// - UDP to a loopback port bound by a socket of this same process passes: Foundation's CFSocket
//   wake-up pair (used by `Process` and run loops) is two such sockets.
// - `AF_UNIX`, `AF_NETLINK` and every other family always pass.
//
// Child processes: the same file, compiled with AIRGAP_PRELOAD into the `AirgapPreload` shared
// library, guards processes started with `LD_PRELOAD` pointing at it. At load time (one thread,
// before `main`) a process that links CAirgap exports `LD_PRELOAD` and `AIRGAP_INHERITED_STATE`
// once; it never changes its environment afterwards. The state file carries the guard's mode,
// allowed hosts and log; each child reads it as it loads and reports to the parent's log file.

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
    /// A reverse lookup (`getnameinfo`, `gethostbyaddr`) of an address that is not allowed.
    /// `host` is the numeric address.
    AIRGAP_EVENT_REVERSE = 3,
    /// A raw IP or packet socket. `host` names the family and type (`AF_PACKET`).
    AIRGAP_EVENT_SOCKET = 4,
} airgap_event;

/// What `airgap_parse_mode` returns for an `AIRGAP_MODE` value.
typedef enum {
    /// Absent, empty, `off`, `0`, `false`, `no`, `none`, `disabled`.
    AIRGAP_MODE_OFF = 0,
    /// `fail`, `1`, `true`, `on`, `yes`, `strict`, `block`, `error`.
    AIRGAP_MODE_FAIL = 1,
    /// `warn`, `warning`, `report`.
    AIRGAP_MODE_WARN = 2,
    /// Anything else.
    AIRGAP_MODE_UNRECOGNISED = 3,
} airgap_mode_value;

/// Called (outside any lock, on the calling thread, before the call proceeds or fails) for each
/// call the configured rules (the process-wide allowed hosts) deny. It decides: return 1 to let
/// the call through (the calling thread's scope allows it), anything else to fail it (the callback
/// has reported the violation). `port` is 0 when unknown; `socket_type` is `SOCK_STREAM`,
/// `SOCK_DGRAM`, `SOCK_RAW`, `SOCK_PACKET`, or 0 when unknown; `protocol` is the socket's protocol
/// for a connect (`IPPROTO_ICMP` for a ping socket), else 0.
typedef int (*airgap_violation_callback)(int event, const char *host, int port, int socket_type, int protocol);

/// Installs the violation callback of this process (its forked copies and children write to the
/// log instead, and fail every call the configured rules deny).
void airgap_set_violation_callback(airgap_violation_callback violation_callback);

/// Writes up to `capacity` return addresses of the calling thread's stack, innermost first (the
/// C library's `backtrace`: the unwind tables, no symbols, no per-thread set-up). Returns how many.
int airgap_capture_stack(void **addresses, int capacity);

/// Every C-library function this layer replaces, space-separated, as glibc exports them
/// (public names and the private aliases `__connect`, `__socket`, `__sendmmsg`, `__res_*`).
const char *airgap_hooked_functions(void);

/// Whether `text` is a host pattern the C matcher (and `Airgap.allowedHosts`) accepts: labels of
/// printable ASCII without `/` or `,`, none empty, `**` only as a whole label. Returns 1 or 0.
///
/// The language is AirlockCore's `HostPattern`: `**` is zero or more labels, `*` one label (not
/// empty), a `*` inside a label any run of characters; a leading `*.` reads as `**.`; letters
/// compare case-insensitively (ASCII); a name's one trailing `.` is dropped; bytes outside ASCII
/// in a name match only a `*`; names longer than 1024 bytes never match.
int airgap_host_pattern_is_valid(const char *text);

/// Whether the host name `name` matches `pattern` (0 for an invalid pattern). Returns 1 or 0.
int airgap_host_pattern_matches(const char *pattern, const char *name);

/// Whether the resolver hooks let `name` be looked up under the configured name patterns
/// (numeric hosts aside). Returns 1 or 0.
int airgap_name_allowed(const char *name);

/// Turns enforcement on or off (one atomic store).
void airgap_set_enforcing(int enforcing);

/// Whether the hooks are enforcing.
int airgap_is_enforcing(void);

/// Fail mode (1) or warn mode (0). Both block; the mode only changes how violations are reported
/// (and what a child process prints).
void airgap_set_fail_mode(int fail);

/// Removes every configured address rule and name, and forgets the addresses allowed names
/// resolved to: a changed allow list closes what the previous one opened.
void airgap_clear_rules(void);

/// Adds an address rule: an IPv4 or IPv6 literal (`127.0.0.1`, `::1`, `[::1]`) or a CIDR range
/// (`127.0.0.0/8`, `fd00::/8`). Returns 0 on success, -1 when `text` is not an address rule.
int airgap_add_rule(const char *text);

/// Adds a host pattern (see `airgap_host_pattern_is_valid`) for the resolver hooks.
/// `localhost` also adds 127.0.0.1 and ::1 as address rules (RFC 6761).
/// Returns 0 on success, -1 for an invalid pattern or on failure.
int airgap_add_name(const char *text);

/// Replaces the allow list in one step: `rules` are IP addresses and CIDR ranges, `names` host
/// patterns, each newline-separated (invalid patterns are left out). Other threads see the old list or the new one, never
/// neither. Returns -1 if an entry could not be parsed or stored (the others are installed).
int airgap_replace_rules(const char *rules, const char *names);

/// Whether `text` parses as an address rule, without adding it. Returns 1 or 0.
int airgap_is_address_rule(const char *text);

/// Whether the numeric address `address` falls within the address rule `rule` (an IP literal or
/// CIDR range, as `airgap_add_rule` takes). Returns 1 or 0; 0 when either does not parse.
int airgap_address_rule_matches(const char *rule, const char *address);

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

/// The value of `AIRGAP_MODE` seen by the load-time constructor: 0 absent or off, 1 `fail`,
/// 2 `warn`, 3 unrecognised (whole-run mode then runs in fail mode).
int airgap_startup_mode(void);

/// Parses an `AIRGAP_MODE` value (trimmed, case-insensitive); see `airgap_mode_value`.
int airgap_parse_mode(const char *text);

/// Opens (creating it) the log file that forked children of this process write their
/// violations to, and makes this process the owner that receives callbacks. Child processes
/// started with the preload library write to the same file. The file must not exist yet (it is
/// created exclusively, never through a link). Returns 0, or -1 with errno.
int airgap_set_child_log(const char *path);

/// The process id recorded by `airgap_set_child_log`, or 0.
int airgap_child_log_owner(void);

/// Whether processes started by this one are guarded (see `airgap_children_status`).
typedef enum {
    /// `LD_PRELOAD` and `AIRGAP_INHERITED_STATE` were exported at load time.
    AIRGAP_CHILDREN_GUARDED = 0,
    /// `libAirgapPreload.so` is not next to the executable.
    AIRGAP_CHILDREN_NOT_FOUND = 1,
    /// `AIRGAP_PRELOAD_PATH` names a file that does not exist.
    AIRGAP_CHILDREN_EXPLICIT_PATH_MISSING = 2,
    /// This process was started by a guarded process; that process's guard governs its children.
    AIRGAP_CHILDREN_GOVERNED_BY_PARENT = 3,
    /// Built with ThreadSanitizer: an instrumented preload library cannot load into other programs.
    AIRGAP_CHILDREN_SANITIZER = 4,
    /// No private directory for the state file could be created in `TMPDIR` (or `/tmp`).
    AIRGAP_CHILDREN_NO_STATE_DIRECTORY = 5,
} airgap_children_status_value;

/// Whether children are guarded, decided once at load time; see `airgap_children_status_value`.
int airgap_children_status(void);

/// The preload library found at load time ("" when none).
const char *airgap_preload_library_path(void);

/// The private directory (mode 0700, created at load time) that holds the state file, or ""
/// when children are not guarded. Removed at exit, after the files in it.
const char *airgap_state_directory(void);

/// Removes the state file and its directory (only in the process that created them; also done
/// by `atexit`, which `_exit` skips).
void airgap_remove_inherited_state(void);

/// Publishes the guard for the processes this one starts from now on: writes the state file
/// named by `AIRGAP_INHERITED_STATE` (replaced in one `rename`). `mode` is an `airgap_mode_value`
/// (`AIRGAP_MODE_OFF` withdraws the guard); `allowed` is a comma-separated list; `log` is the
/// file children append violations to. Returns 0, or -1 with errno (ENOENT: children are not
/// guarded, see `airgap_children_status`).
int airgap_publish_inherited_state(int mode, const char *allowed, const char *log);

#ifdef __cplusplus
}
#endif

#endif
