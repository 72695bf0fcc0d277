// The socket layer of Airgap: hooks on every C-library route to the network, forwarding to the
// C library. See include/CAirgap.h for the contract.
//
// This file is compiled twice: into the `CAirgap` target (linked into test binaries, reporting
// to the Swift side) and, with AIRGAP_PRELOAD defined, into the `AirgapPreload` shared library
// that child processes load through LD_PRELOAD (configured from the environment, reporting to a
// log file the parent reads).

#define _GNU_SOURCE
#include "include/CAirgap.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/syscall.h>
#endif

// The socket layer — the hooks, the preload library's start-up and the child-process
// machinery — is glibc's and Linux's: it is compiled only there, and not even there when the
// build defines AIRGAP_NO_SOCKET_LAYER (`-Xcc -DAIRGAP_NO_SOCKET_LAYER`, with the Swift side's
// `-Xswiftc -DAIRGAP_NO_SOCKET_LAYER`). What remains everywhere is what the URLSession layer
// needs: the allow list's address rules and host patterns, the mode parser, call stacks and the
// settings (which then have no hook to act on).
#if defined(__linux__) && !defined(AIRGAP_NO_SOCKET_LAYER)
#define AIRGAP_SOCKET_LAYER 1
#endif

// Under ThreadSanitizer an instrumented function records its entry in the calling thread's state;
// Foundation calls `syscall(SYS_gettid)` from a thread-specific-data destructor, after that state
// is gone. So the `syscall` hook and the accessors of the real functions are not instrumented
// (the checks the hook calls for network calls are).
#if defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
#define AIRGAP_UNINSTRUMENTED __attribute__((disable_sanitizer_instrumentation))
#endif
#endif
#ifndef AIRGAP_UNINSTRUMENTED
#define AIRGAP_UNINSTRUMENTED
#endif

#ifdef AIRGAP_SOCKET_LAYER

// MARK: - The real functions

#define REAL(name, type)                                                              \
    static _Atomic(type) real_##name##_ptr;                                           \
    AIRGAP_UNINSTRUMENTED static type real_##name(void) {                             \
        type fn = atomic_load_explicit(&real_##name##_ptr, memory_order_acquire);     \
        if (fn == NULL) {                                                             \
            fn = (type)dlsym(RTLD_NEXT, #name);                                       \
            atomic_store_explicit(&real_##name##_ptr, fn, memory_order_release);      \
        }                                                                             \
        return fn;                                                                    \
    }

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*getaddrinfo_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
typedef ssize_t (*sendto_fn)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);
typedef int (*sendmmsg_fn)(int, struct mmsghdr *, unsigned int, int);
typedef int (*socket_fn)(int, int, int);
typedef struct hostent *(*gethostbyname_fn)(const char *);
typedef struct hostent *(*gethostbyname2_fn)(const char *, int);
typedef int (*gethostbyname_r_fn)(const char *, struct hostent *, char *, size_t, struct hostent **, int *);
typedef int (*gethostbyname2_r_fn)(const char *, int, struct hostent *, char *, size_t, struct hostent **, int *);
typedef struct hostent *(*gethostbyaddr_fn)(const void *, socklen_t, int);
typedef int (*gethostbyaddr_r_fn)(const void *, socklen_t, int, struct hostent *, char *, size_t, struct hostent **, int *);
typedef int (*getnameinfo_fn)(const struct sockaddr *, socklen_t, char *, socklen_t, char *, socklen_t, int);
typedef int (*getaddrinfo_a_fn)(int, struct gaicb **, int, struct sigevent *);
typedef int (*res_query_fn)(const char *, int, int, unsigned char *, int);
typedef int (*res_querydomain_fn)(const char *, const char *, int, int, unsigned char *, int);
typedef int (*res_send_fn)(const unsigned char *, int, unsigned char *, int);
typedef int (*res_nquery_fn)(void *, const char *, int, int, unsigned char *, int);
typedef int (*res_nquerydomain_fn)(void *, const char *, const char *, int, int, unsigned char *, int);
typedef int (*res_nsend_fn)(void *, const unsigned char *, int, unsigned char *, int);
typedef long (*syscall_fn)(long, ...);

REAL(connect, connect_fn)
REAL(__connect, connect_fn)
REAL(getaddrinfo, getaddrinfo_fn)
REAL(sendto, sendto_fn)
REAL(sendmsg, sendmsg_fn)
REAL(sendmmsg, sendmmsg_fn)
REAL(socket, socket_fn)
REAL(__socket, socket_fn)
REAL(__sendmmsg, sendmmsg_fn)
REAL(gethostbyname, gethostbyname_fn)
REAL(gethostbyname2, gethostbyname2_fn)
REAL(gethostbyname_r, gethostbyname_r_fn)
REAL(gethostbyname2_r, gethostbyname2_r_fn)
REAL(gethostbyaddr, gethostbyaddr_fn)
REAL(gethostbyaddr_r, gethostbyaddr_r_fn)
REAL(getnameinfo, getnameinfo_fn)
REAL(getaddrinfo_a, getaddrinfo_a_fn)
REAL(res_query, res_query_fn)
REAL(res_search, res_query_fn)
REAL(res_querydomain, res_querydomain_fn)
REAL(res_send, res_send_fn)
REAL(res_nquery, res_nquery_fn)
REAL(res_nsearch, res_nquery_fn)
REAL(res_nquerydomain, res_nquerydomain_fn)
REAL(res_nsend, res_nsend_fn)
REAL(__res_query, res_query_fn)
REAL(__res_search, res_query_fn)
REAL(__res_querydomain, res_querydomain_fn)
REAL(__res_send, res_send_fn)
REAL(__res_nquery, res_nquery_fn)
REAL(__res_nsearch, res_nquery_fn)
REAL(__res_nquerydomain, res_nquerydomain_fn)
REAL(__res_nsend, res_nsend_fn)
REAL(syscall, syscall_fn)

#endif // AIRGAP_SOCKET_LAYER

// MARK: - Policy

static atomic_int enforcing;       // the only thing an inactive hook reads
static atomic_int fail_mode = 1;   // reporting only: both modes block
static atomic_int startup_mode;
static _Atomic(airgap_violation_callback) violation_callback;
#ifdef AIRGAP_PRELOAD
// Initial-exec: the first access must not allocate (a hook may run inside the allocator's locks).
static _Thread_local int thread_bypass __attribute__((tls_model("initial-exec")));
#else
static _Thread_local int thread_bypass;
#endif

// Child processes and forked children report through this log (see airgap_set_child_log).
static atomic_int child_log_fd = -1;
static atomic_int owner_pid;       // the process whose Swift side receives callbacks

typedef struct {
    int family;          // AF_INET or AF_INET6
    uint8_t bytes[16];   // network order; 4 bytes used for AF_INET
    int prefix;          // bits
} address_rule;

typedef struct {
    address_rule *items;
    size_t count;
    size_t capacity;
} rule_list;

typedef struct {
    char **items;
    size_t count;
    size_t capacity;
} name_list;

static pthread_rwlock_t rules_lock = PTHREAD_RWLOCK_INITIALIZER;
static rule_list configured_rules;   // from allowedHosts
static rule_list resolved_addresses; // what allowed names resolved to, until the allow list changes
static name_list configured_names;   // host patterns, matched by the resolver hooks

static int rule_list_append(rule_list *list, const address_rule *rule) {
    for (size_t i = 0; i < list->count; i++) {
        const address_rule *r = &list->items[i];
        if (r->family == rule->family && r->prefix == rule->prefix
            && memcmp(r->bytes, rule->bytes, sizeof r->bytes) == 0) {
            return 0;
        }
    }
    if (list->count == list->capacity) {
        size_t capacity = list->capacity == 0 ? 8 : list->capacity * 2;
        address_rule *items = realloc(list->items, capacity * sizeof *items);
        if (items == NULL) { return -1; }
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = *rule;
    return 0;
}

static int rule_matches(const address_rule *rule, int family, const uint8_t *bytes) {
    if (rule->family != family) { return 0; }
    int full = rule->prefix / 8;
    int rest = rule->prefix % 8;
    if (memcmp(rule->bytes, bytes, (size_t)full) != 0) { return 0; }
    if (rest == 0) { return 1; }
    uint8_t mask = (uint8_t)(0xFF << (8 - rest));
    return (rule->bytes[full] & mask) == (bytes[full] & mask);
}

static int list_allows(const rule_list *list, int family, const uint8_t *bytes) {
    for (size_t i = 0; i < list->count; i++) {
        if (rule_matches(&list->items[i], family, bytes)) { return 1; }
    }
    return 0;
}

// Reduces an IPv4-mapped IPv6 address (::ffff:a.b.c.d) to IPv4, so one rule covers both.
static void normalise(int *family, uint8_t *bytes) {
    static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (*family == AF_INET6 && memcmp(bytes, mapped_prefix, 12) == 0) {
        memmove(bytes, bytes + 12, 4);
        memset(bytes + 4, 0, 12);
        *family = AF_INET;
    }
}

// Parses "1.2.3.4", "::1", "[::1]", "fe80::1%eth0", optionally followed by "/prefix".
static int parse_rule(const char *text, address_rule *rule) {
    if (text == NULL) { return -1; }
    char buffer[128];
    size_t length = strlen(text);
    if (length == 0 || length >= sizeof buffer) { return -1; }
    memcpy(buffer, text, length + 1);

    long prefix = -1;
    char *slash = strchr(buffer, '/');
    if (slash != NULL) {
        *slash = '\0';
        const char *digits = slash + 1;
        if (*digits == '\0') { return -1; }
        char *end = NULL;
        prefix = strtol(digits, &end, 10);
        if (end == NULL || *end != '\0' || prefix < 0) { return -1; }
    }
    char *address = buffer;
    size_t address_length = strlen(address);
    if (address_length >= 2 && address[0] == '[' && address[address_length - 1] == ']') {
        address[address_length - 1] = '\0';
        address += 1;
    }
    char *percent = strchr(address, '%');
    if (percent != NULL) { *percent = '\0'; }

    memset(rule, 0, sizeof *rule);
    if (inet_pton(AF_INET, address, rule->bytes) == 1) {
        rule->family = AF_INET;
        if (prefix > 32) { return -1; }
        rule->prefix = prefix < 0 ? 32 : (int)prefix;
    } else if (inet_pton(AF_INET6, address, rule->bytes) == 1) {
        rule->family = AF_INET6;
        if (prefix > 128) { return -1; }
        rule->prefix = prefix < 0 ? 128 : (int)prefix;
        if (rule->prefix >= 96) {
            int family = rule->family;
            normalise(&family, rule->bytes);
            if (family == AF_INET) {
                rule->family = AF_INET;
                rule->prefix -= 96;
            }
        }
    } else {
        return -1;
    }
    return 0;
}

// Adds the loopback addresses that RFC 6761 gives the name "localhost": 127.0.0.1 and ::1.
static void add_localhost_rules(rule_list *list) {
    address_rule rule;
    if (parse_rule("127.0.0.1", &rule) == 0) { (void)rule_list_append(list, &rule); }
    if (parse_rule("::1", &rule) == 0) { (void)rule_list_append(list, &rule); }
}

// MARK: - Host patterns (the language of HostPattern in AirlockBase, for every process)

// A pattern is labels separated by '.':
//   "**"            zero or more labels
//   "*"             exactly one label, not empty
//   "api-*", "a*b"  one label; each '*' stands for any run of characters (possibly none)
//   anything else   that label, ASCII letters compared case-insensitively
// A leading "*." is read as "**.": "*.example.com" is example.com and every name below it.
// A name drops one trailing '.' and splits on '.' (empty labels kept: only "**" matches them).
// Bytes outside ASCII in a name match only a '*'. Names longer than AIRGAP_MAX_NAME bytes are
// never allowed (DNS names have at most 253).
//
// A valid pattern: printable ASCII without '/' or ',', no empty label, "**" only as a whole label.
// The Swift side (HostRules) accepts exactly these, and matches them with HostPattern; the
// pattern table of the tests runs both, and forked and preloaded children, over the same names.

#define AIRGAP_MAX_NAME 1024

static int ascii_lower(int c) {
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static int bytes_equal_folded(const char *a, const char *b, size_t length) {
    for (size_t i = 0; i < length; i++) {
        if (ascii_lower((unsigned char)a[i]) != ascii_lower((unsigned char)b[i])) { return 0; }
    }
    return 1;
}

int airgap_host_pattern_is_valid(const char *text) {
    if (text == NULL || *text == '\0') { return 0; }
    const char *label = text;
    for (const char *c = text;; c++) {
        if (*c == '.' || *c == '\0') {
            size_t length = (size_t)(c - label);
            if (length == 0) { return 0; }
            // "**" is a whole label or nothing.
            for (size_t i = 0; i + 1 < length; i++) {
                if (label[i] == '*' && label[i + 1] == '*' && length != 2) { return 0; }
            }
            if (*c == '\0') { return 1; }
            label = c + 1;
            continue;
        }
        unsigned char byte = (unsigned char)*c;
        if (byte <= 0x20 || byte >= 0x7F || byte == '/' || byte == ',') { return 0; }
    }
}

// Whether one label of a pattern containing '*' (a glob) matches `label`, as HostPattern's Glob
// does: the text before the first '*' starts the label, the text after the last ends it, and the
// runs between are found in order, each at its first place.
static int glob_matches(const char *glob, size_t glob_length, const char *label, size_t label_length) {
    const char *first_star = memchr(glob, '*', glob_length);
    const char *last_star = glob + glob_length - 1;
    while (*last_star != '*') { last_star--; }
    size_t head = (size_t)(first_star - glob);
    size_t tail = (size_t)(glob + glob_length - (last_star + 1));
    if (label_length < head + tail) { return 0; }
    if (!bytes_equal_folded(glob, label, head)) { return 0; }
    if (!bytes_equal_folded(last_star + 1, label + label_length - tail, tail)) { return 0; }
    size_t cursor = head;
    size_t end = label_length - tail;
    const char *run = first_star + 1;
    while (run <= last_star) {
        const char *run_end = memchr(run, '*', (size_t)(last_star + 1 - run));
        size_t run_length = (size_t)(run_end - run);
        if (run_length > 0) {
            size_t found = cursor;
            while (found + run_length <= end && !bytes_equal_folded(run, label + found, run_length)) { found++; }
            if (found + run_length > end) { return 0; }
            cursor = found + run_length;
        }
        run = run_end + 1;
    }
    return 1;
}

static int label_matches(const char *segment, size_t segment_length, const char *label, size_t label_length) {
    if (segment_length == 1 && segment[0] == '*') { return label_length > 0; }
    if (memchr(segment, '*', segment_length) != NULL) { return glob_matches(segment, segment_length, label, label_length); }
    return segment_length == label_length && bytes_equal_folded(segment, label, label_length);
}

int airgap_host_pattern_matches(const char *pattern, const char *name) {
    if (pattern == NULL || name == NULL || !airgap_host_pattern_is_valid(pattern)) { return 0; }
    size_t name_length = strlen(name);
    if (name_length > 0 && name[name_length - 1] == '.') { name_length -= 1; }
    if (name_length > AIRGAP_MAX_NAME) { return 0; }
    // The labels of the name: starts and lengths.
    uint16_t starts[AIRGAP_MAX_NAME + 1];
    uint16_t lengths[AIRGAP_MAX_NAME + 1];
    size_t count = 0;
    size_t label_start = 0;
    for (size_t i = 0; i <= name_length; i++) {
        if (i == name_length || name[i] == '.') {
            starts[count] = (uint16_t)label_start;
            lengths[count] = (uint16_t)(i - label_start);
            count += 1;
            label_start = i + 1;
        }
    }
    // Which positions among the labels the pattern can have reached so far (as HostPattern
    // walks it): the cost is the pattern's labels times the name's, whatever the "**".
    unsigned char reached[AIRGAP_MAX_NAME + 2];
    unsigned char next[AIRGAP_MAX_NAME + 2];
    memset(reached, 0, count + 1);
    reached[0] = 1;
    const char *segment = pattern;
    int leading_star_dot = strncmp(pattern, "*.", 2) == 0;
    while (1) {
        const char *dot = strchr(segment, '.');
        size_t segment_length = dot == NULL ? strlen(segment) : (size_t)(dot - segment);
        int double_star = (segment_length == 2 && segment[0] == '*' && segment[1] == '*')
            || (leading_star_dot && segment == pattern);
        if (double_star) {
            int any = 0;
            for (size_t position = 0; position <= count; position++) {
                any = any || reached[position];
                next[position] = (unsigned char)any;
            }
        } else {
            next[0] = 0;
            for (size_t position = 0; position < count; position++) {
                next[position + 1] = reached[position]
                    && label_matches(segment, segment_length, name + starts[position], lengths[position]);
            }
        }
        memcpy(reached, next, count + 1);
        int any = 0;
        for (size_t position = 0; position <= count && !any; position++) { any = reached[position]; }
        if (!any) { return 0; }
        if (dot == NULL) { break; }
        segment = dot + 1;
    }
    return reached[count];
}

static int c_name_allowed(const char *name) {
    pthread_rwlock_rdlock(&rules_lock);
    int allowed = 0;
    for (size_t i = 0; i < configured_names.count && !allowed; i++) {
        allowed = airgap_host_pattern_matches(configured_names.items[i], name);
    }
    pthread_rwlock_unlock(&rules_lock);
    return allowed;
}

int airgap_name_allowed(const char *name) {
    return name != NULL && c_name_allowed(name);
}

// MARK: - Public configuration

void airgap_set_violation_callback(airgap_violation_callback violation) {
    atomic_store_explicit(&violation_callback, violation, memory_order_release);
}

void airgap_set_enforcing(int on) {
    atomic_store_explicit(&enforcing, on ? 1 : 0, memory_order_release);
}

int airgap_is_enforcing(void) {
    return atomic_load_explicit(&enforcing, memory_order_acquire);
}

void airgap_set_fail_mode(int fail) {
    atomic_store_explicit(&fail_mode, fail ? 1 : 0, memory_order_release);
}

void airgap_clear_rules(void) {
    pthread_rwlock_wrlock(&rules_lock);
    configured_rules.count = 0;
    // A changed allow list closes every address an allowed name opened.
    resolved_addresses.count = 0;
    for (size_t i = 0; i < configured_names.count; i++) { free(configured_names.items[i]); }
    configured_names.count = 0;
    pthread_rwlock_unlock(&rules_lock);
}

int airgap_add_rule(const char *text) {
    address_rule rule;
    if (parse_rule(text, &rule) != 0) { return -1; }
    pthread_rwlock_wrlock(&rules_lock);
    int result = rule_list_append(&configured_rules, &rule);
    pthread_rwlock_unlock(&rules_lock);
    return result;
}

int airgap_add_name(const char *text) {
    if (!airgap_host_pattern_is_valid(text)) { return -1; }
    char *copy = strdup(text);
    if (copy == NULL) { return -1; }
    pthread_rwlock_wrlock(&rules_lock);
    if (configured_names.count == configured_names.capacity) {
        size_t capacity = configured_names.capacity == 0 ? 8 : configured_names.capacity * 2;
        char **items = realloc(configured_names.items, capacity * sizeof *items);
        if (items == NULL) {
            pthread_rwlock_unlock(&rules_lock);
            free(copy);
            return -1;
        }
        configured_names.items = items;
        configured_names.capacity = capacity;
    }
    configured_names.items[configured_names.count++] = copy;
    if (strcasecmp(text, "localhost") == 0) {
        add_localhost_rules(&configured_rules);
    }
    pthread_rwlock_unlock(&rules_lock);
    return 0;
}

int airgap_replace_rules(const char *rules, const char *names) {
    // Everything is parsed and copied before the lock is taken, and the lists are swapped under
    // one write lock: a connection made on another thread meanwhile sees the old rules or the
    // new ones, never an empty list between the two (which would block, say, a loopback
    // connection that both allow).
    rule_list parsed = {0};
    name_list copies = {0};
    int result = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *cursor = pass == 0 ? rules : names;
        while (cursor != NULL && *cursor != '\0') {
            const char *end = strchr(cursor, '\n');
            size_t length = end == NULL ? strlen(cursor) : (size_t)(end - cursor);
            if (length > 0) {
                char *line = strndup(cursor, length);
                if (line == NULL) { result = -1; break; }
                if (pass == 0) {
                    address_rule rule;
                    if (parse_rule(line, &rule) != 0 || rule_list_append(&parsed, &rule) != 0) { result = -1; }
                    free(line);
                } else if (!airgap_host_pattern_is_valid(line)) {
                    free(line);
                    result = -1;
                } else {
                    if (copies.count == copies.capacity) {
                        size_t capacity = copies.capacity == 0 ? 8 : copies.capacity * 2;
                        char **items = realloc(copies.items, capacity * sizeof *items);
                        if (items == NULL) { free(line); result = -1; break; }
                        copies.items = items;
                        copies.capacity = capacity;
                    }
                    copies.items[copies.count++] = line;
                    if (strcasecmp(line, "localhost") == 0) {
                        add_localhost_rules(&parsed);
                    }
                }
            }
            cursor = end == NULL ? NULL : end + 1;
        }
    }

    pthread_rwlock_wrlock(&rules_lock);
    rule_list old_rules = configured_rules;
    name_list old_names = configured_names;
    configured_rules = parsed;
    configured_names = copies;
    // A changed allow list closes every address an allowed name opened.
    resolved_addresses.count = 0;
    pthread_rwlock_unlock(&rules_lock);

    free(old_rules.items);
    for (size_t i = 0; i < old_names.count; i++) { free(old_names.items[i]); }
    free(old_names.items);
    return result;
}

int airgap_is_address_rule(const char *text) {
    address_rule rule;
    return parse_rule(text, &rule) == 0;
}

int airgap_address_rule_matches(const char *rule_text, const char *address) {
    address_rule rule;
    address_rule target;
    if (parse_rule(rule_text, &rule) != 0 || address == NULL || strchr(address, '/') != NULL || parse_rule(address, &target) != 0) {
        return 0;
    }
    return rule_matches(&rule, target.family, target.bytes);
}

int airgap_rules_allow_address(const char *text) {
    address_rule rule;
    if (parse_rule(text, &rule) != 0) { return 0; }
    pthread_rwlock_rdlock(&rules_lock);
    int allowed = list_allows(&configured_rules, rule.family, rule.bytes);
    pthread_rwlock_unlock(&rules_lock);
    return allowed;
}

void airgap_clear_resolved(void) {
    pthread_rwlock_wrlock(&rules_lock);
    resolved_addresses.count = 0;
    pthread_rwlock_unlock(&rules_lock);
}

int airgap_resolved_count(void) {
    pthread_rwlock_rdlock(&rules_lock);
    int count = (int)resolved_addresses.count;
    pthread_rwlock_unlock(&rules_lock);
    return count;
}

void airgap_set_thread_bypass(int bypass) {
    thread_bypass = bypass;
}

int airgap_startup_mode(void) {
    return atomic_load_explicit(&startup_mode, memory_order_acquire);
}

int airgap_parse_mode(const char *text) {
    if (text == NULL) { return AIRGAP_MODE_OFF; }
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r') { text++; }
    size_t length = strlen(text);
    while (length > 0 && (text[length - 1] == ' ' || text[length - 1] == '\t' || text[length - 1] == '\n' || text[length - 1] == '\r')) {
        length--;
    }
    if (length == 0) { return AIRGAP_MODE_OFF; }
    char value[16];
    if (length >= sizeof value) { return AIRGAP_MODE_UNRECOGNISED; }
    for (size_t i = 0; i < length; i++) {
        char c = text[i];
        value[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    value[length] = '\0';
    static const char *const fail_values[] = {"fail", "1", "true", "on", "yes", "strict", "block", "error"};
    static const char *const warn_values[] = {"warn", "warning", "report"};
    static const char *const off_values[] = {"off", "0", "false", "no", "none", "disabled"};
    for (size_t i = 0; i < sizeof fail_values / sizeof *fail_values; i++) {
        if (strcmp(value, fail_values[i]) == 0) { return AIRGAP_MODE_FAIL; }
    }
    for (size_t i = 0; i < sizeof warn_values / sizeof *warn_values; i++) {
        if (strcmp(value, warn_values[i]) == 0) { return AIRGAP_MODE_WARN; }
    }
    for (size_t i = 0; i < sizeof off_values / sizeof *off_values; i++) {
        if (strcmp(value, off_values[i]) == 0) { return AIRGAP_MODE_OFF; }
    }
    return AIRGAP_MODE_UNRECOGNISED;
}

int airgap_set_child_log(const char *path) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) { return -1; }
    int previous = atomic_exchange(&child_log_fd, fd);
    if (previous >= 0) { close(previous); }
    atomic_store_explicit(&owner_pid, (int)getpid(), memory_order_release);
    return 0;
}

int airgap_child_log_owner(void) {
    return atomic_load_explicit(&owner_pid, memory_order_acquire);
}

#ifdef AIRGAP_SOCKET_LAYER

// MARK: - Reporting

// Copies `text` into `out`, replacing tabs and line breaks so a log line stays one line.
static void sanitise(char *out, size_t size, const char *text) {
    size_t i = 0;
    for (; text != NULL && text[i] != '\0' && i + 1 < size; i++) {
        char c = text[i];
        out[i] = (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
    }
    out[i] = '\0';
}

// One line per violation, appended with a single write (atomic for O_APPEND):
// "airgap\t<event>\t<port>\t<socket type>\t<pid>\t<host>\t<program>\t<protocol>\n"
static void write_log_line(int fd, int event, const char *host, int port, int socket_type, int protocol) {
    char clean_host[300];
    sanitise(clean_host, sizeof clean_host, host);
    char program[256] = "?";
    ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
    if (length > 0) { program[length] = '\0'; } else { strcpy(program, "?"); }
    char clean_program[256];
    sanitise(clean_program, sizeof clean_program, program);
    char line[900];
    int written = snprintf(line, sizeof line, "airgap\t%d\t%d\t%d\t%d\t%s\t%s\t%d\n", event, port, socket_type,
                           (int)getpid(), clean_host, clean_program, protocol);
    if (written > 0) {
        size_t size = (size_t)written < sizeof line ? (size_t)written : sizeof line - 1;
        (void)!write(fd, line, size);
    }
}

static const char *event_verb(int event) {
    switch (event) {
    case AIRGAP_EVENT_CONNECT: return "connection to";
    case AIRGAP_EVENT_RESOLVE: return "host name lookup of";
    case AIRGAP_EVENT_REVERSE: return "reverse lookup of";
    case AIRGAP_EVENT_SOCKET: return "raw socket";
    default: return "network access to";
    }
}

// Reports a call the configured rules deny. In the process that owns the Swift side, the callback
// decides: it returns 1 when the scope of the calling thread (or, on a thread no test owns, any open
// scope) allows the call, which then proceeds unreported. Returns 1 to let the call through, 0 to
// fail it.
static int report_protocol(int event, const char *host, int port, int socket_type, int protocol) {
    int saved_errno = errno;
    int allowed = 0;
    int fail = atomic_load_explicit(&fail_mode, memory_order_acquire);
    int owner = atomic_load_explicit(&owner_pid, memory_order_acquire);
    int log_fd = atomic_load_explicit(&child_log_fd, memory_order_acquire);
    int in_owner = owner != 0 && owner == (int)getpid();
    airgap_violation_callback callback = atomic_load_explicit(&violation_callback, memory_order_acquire);
    thread_bypass = 1;
    if (in_owner && callback != NULL) {
        allowed = callback(event, host, port, socket_type, protocol) == 1;
    } else if (log_fd >= 0) {
        // A child: a forked copy of the owner (its Swift state is a copy nobody reads), or a
        // process that loaded the preload library. The parent reads the log.
        write_log_line(log_fd, event, host, port, socket_type, protocol);
        char line[400];
        int written = port > 0
            ? snprintf(line, sizeof line, "Airgap (%s mode, process %d): blocked %s %s port %d\n", fail ? "fail" : "warn",
                       (int)getpid(), event_verb(event), host, port)
            : snprintf(line, sizeof line, "Airgap (%s mode, process %d): blocked %s %s\n", fail ? "fail" : "warn",
                       (int)getpid(), event_verb(event), host);
        if (written > 0) {
            (void)!write(STDERR_FILENO, line, (size_t)written < sizeof line ? (size_t)written : sizeof line - 1);
        }
    } else if (callback != NULL) {
        allowed = callback(event, host, port, socket_type, protocol) == 1;
    }
    thread_bypass = 0;
    errno = saved_errno;
    return allowed;
}

static int report(int event, const char *host, int port, int socket_type) {
    return report_protocol(event, host, port, socket_type, 0);
}

static void remember_address(int family, const void *bytes_in) {
    address_rule rule;
    memset(&rule, 0, sizeof rule);
    rule.family = family;
    if (family == AF_INET) {
        rule.prefix = 32;
        memcpy(rule.bytes, bytes_in, 4);
    } else if (family == AF_INET6) {
        rule.prefix = 128;
        memcpy(rule.bytes, bytes_in, 16);
        normalise(&rule.family, rule.bytes);
        if (rule.family == AF_INET) { rule.prefix = 32; }
    } else {
        return;
    }
    (void)rule_list_append(&resolved_addresses, &rule);
}

static void remember_resolved(const struct addrinfo *list) {
    pthread_rwlock_wrlock(&rules_lock);
    for (const struct addrinfo *info = list; info != NULL; info = info->ai_next) {
        if (info->ai_addr == NULL) { continue; }
        if (info->ai_family == AF_INET) {
            remember_address(AF_INET, &((const struct sockaddr_in *)info->ai_addr)->sin_addr);
        } else if (info->ai_family == AF_INET6) {
            remember_address(AF_INET6, &((const struct sockaddr_in6 *)info->ai_addr)->sin6_addr);
        }
    }
    pthread_rwlock_unlock(&rules_lock);
}

static void remember_hostent(const struct hostent *entry) {
    if (entry == NULL || entry->h_addr_list == NULL) { return; }
    pthread_rwlock_wrlock(&rules_lock);
    for (char **address = entry->h_addr_list; *address != NULL; address++) {
        remember_address(entry->h_addrtype, *address);
    }
    pthread_rwlock_unlock(&rules_lock);
}

static int is_numeric_host(const char *node) {
    address_rule rule;
    return strchr(node, '/') == NULL && parse_rule(node, &rule) == 0;
}

static int numeric_port(const char *service) {
    if (service == NULL || *service == '\0') { return 0; }
    char *end = NULL;
    long value = strtol(service, &end, 10);
    if (end == NULL || *end != '\0' || value < 0 || value > 65535) { return 0; }
    return (int)value;
}

// Whether looking up `name` is allowed. Called only while enforcing. Every process (the one that
// links Airgap, its forked copies, preloaded children) matches in C against the same patterns.
static int name_allowed(const char *name) {
    if (name == NULL) { return 1; }
    if (is_numeric_host(name)) { return 1; }   // not a lookup; the address is checked on use
    return c_name_allowed(name);
}

// MARK: - Addresses

typedef struct {
    int family;
    uint8_t bytes[16];
    int port;
} destination;

// Reads an AF_INET/AF_INET6 destination. Returns 1 when `address` is one (with every length the
// kernel accepts: IPv4 from 16 bytes, IPv6 from 24, where the scope id is optional), 0 for other
// families, which always pass.
static int read_destination(const struct sockaddr *address, socklen_t length, destination *out) {
    if (address == NULL || length < (socklen_t)sizeof(sa_family_t)) { return 0; }
    memset(out, 0, sizeof *out);
    out->family = address->sa_family;
    if (out->family == AF_INET) {
        // The kernel rejects shorter IPv4 addresses (EINVAL) before any packet; check anyway.
        const struct sockaddr_in *in = (const struct sockaddr_in *)address;
        if (length < (socklen_t)(offsetof(struct sockaddr_in, sin_addr) + 4)) { return 1; }
        memcpy(out->bytes, &in->sin_addr, 4);
        out->port = ntohs(in->sin_port);
        return 1;
    }
    if (out->family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)address;
        if (length >= (socklen_t)(offsetof(struct sockaddr_in6, sin6_addr) + 16)) {
            memcpy(out->bytes, &in6->sin6_addr, 16);
        }
        out->port = ntohs(in6->sin6_port);
        normalise(&out->family, out->bytes);
        return 1;
    }
    return 0;
}

static int is_loopback(const destination *d) {
    if (d->family == AF_INET) { return d->bytes[0] == 127; }
    static const uint8_t loopback6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return d->family == AF_INET6 && memcmp(d->bytes, loopback6, 16) == 0;
}

static int socket_type_of(int fd) {
    int type = 0;
    socklen_t type_length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_length) != 0) { return 0; }
    return type;
}

// The socket's protocol (IPPROTO_ICMP for a ping socket), or 0 when unknown.
static int socket_protocol_of(int fd) {
#ifdef SO_PROTOCOL
    int protocol = 0;
    socklen_t length = sizeof protocol;
    if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &length) == 0) { return protocol; }
#else
    (void)fd;
#endif
    return 0;
}

#ifdef __linux__
// Whether a UDP socket of this very process is bound to `port` on a loopback address: the
// inode of each matching line of /proc/self/net/udp{,6} is looked for among /proc/self/fd.
// Foundation's CFSocket wake-up pair (Process, RunLoop) is two such sockets talking to each
// other; traffic between sockets of one process never leaves it.
static int port_bound_by_this_process(int port) {
    unsigned long inodes[16];
    int found = 0;
    const char *tables[] = {"/proc/self/net/udp", "/proc/self/net/udp6"};
    for (int t = 0; t < 2 && found < 16; t++) {
        FILE *file = fopen(tables[t], "re");
        if (file == NULL) { continue; }
        char line[512];
        if (fgets(line, sizeof line, file) == NULL) { fclose(file); continue; }   // header
        while (fgets(line, sizeof line, file) != NULL && found < 16) {
            char local[64];
            unsigned int local_port = 0;
            unsigned long inode = 0;
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            if (sscanf(line, " %*d: %63[0-9A-Fa-f]:%x %*s %*s %*s %*s %*s %*s %*s %lu", local, &local_port, &inode) == 3
                && (int)local_port == port && inode != 0) {
                int loopback = 0;
                if (strlen(local) == 8) {
                    loopback = strncasecmp(local + 6, "7F", 2) == 0;   // little-endian 127.x.x.x
                } else if (strlen(local) == 32) {
                    loopback = strcasecmp(local, "00000000000000000000000001000000") == 0
                        || strncasecmp(local, "0000000000000000FFFF0000", 24) == 0;
                }
                if (loopback) { inodes[found++] = inode; }
            }
        }
        fclose(file);
    }
    if (found == 0) { return 0; }
    DIR *directory = opendir("/proc/self/fd");
    if (directory == NULL) { return 0; }
    int owned = 0;
    struct dirent *entry;
    while (!owned && (entry = readdir(directory)) != NULL) {
        char path[300];
        char target[64];
        snprintf(path, sizeof path, "/proc/self/fd/%.255s", entry->d_name);
        ssize_t length = readlink(path, target, sizeof target - 1);
        if (length <= 0) { continue; }
        target[length] = '\0';
        unsigned long inode = 0;
        if (sscanf(target, "socket:[%lu]", &inode) == 1) {
            for (int i = 0; i < found; i++) {
                if (inodes[i] == inode) { owned = 1; break; }
            }
        }
    }
    closedir(directory);
    return owned;
}
#else
static int port_bound_by_this_process(int port) {
    (void)port;
    return 0;
}
#endif

// Whether sending to (or connecting to) `d` from `fd` is allowed. Called only while enforcing.
// Reports the violation when it is not.
static int destination_allowed(int fd, const destination *d, int socket_type) {
    pthread_rwlock_rdlock(&rules_lock);
    int allowed = list_allows(&configured_rules, d->family, d->bytes) || list_allows(&resolved_addresses, d->family, d->bytes);
    pthread_rwlock_unlock(&rules_lock);
    if (allowed) { return 1; }
    if (socket_type == 0) { socket_type = socket_type_of(fd); }
    if (socket_type == SOCK_DGRAM && is_loopback(d) && d->port != 0 && port_bound_by_this_process(d->port)) {
        return 1;
    }
    char text[INET6_ADDRSTRLEN];
    if (inet_ntop(d->family, d->bytes, text, sizeof text) == NULL) {
        strcpy(text, "?");
    }
    return report_protocol(AIRGAP_EVENT_CONNECT, text, d->port, socket_type, socket_protocol_of(fd));
}

// Checks an address a socket call is about to use. Returns 1 to proceed, 0 to fail (errno set).
static int check_address(int fd, const struct sockaddr *address, socklen_t length) {
    destination d;
    if (!read_destination(address, length, &d)) { return 1; }
    if (destination_allowed(fd, &d, 0)) { return 1; }
    errno = ECONNREFUSED;
    return 0;
}

static int check_message(int fd, const struct msghdr *message) {
    if (message == NULL || message->msg_name == NULL || message->msg_namelen == 0) { return 1; }
    return check_address(fd, (const struct sockaddr *)message->msg_name, message->msg_namelen);
}

#define INACTIVE() (!atomic_load_explicit(&enforcing, memory_order_acquire) || thread_bypass)

// MARK: - The socket hooks

int connect(int fd, const struct sockaddr *address, socklen_t length) {
    if (INACTIVE() || check_address(fd, address, length)) {
        return real_connect()(fd, address, length);
    }
    return -1;
}

int __connect(int fd, const struct sockaddr *address, socklen_t length) {
    if (INACTIVE() || check_address(fd, address, length)) {
        return real___connect()(fd, address, length);
    }
    return -1;
}

ssize_t sendto(int fd, const void *buffer, size_t size, int flags, const struct sockaddr *address, socklen_t length) {
    // An address on an unconnected socket sends a datagram there; with MSG_FASTOPEN it opens a
    // TCP connection. Either way it is checked like a connect.
    if (INACTIVE() || address == NULL || check_address(fd, address, length)) {
        return real_sendto()(fd, buffer, size, flags, address, length);
    }
    return -1;
}

ssize_t sendmsg(int fd, const struct msghdr *message, int flags) {
    if (INACTIVE() || check_message(fd, message)) {
        return real_sendmsg()(fd, message, flags);
    }
    return -1;
}

static int messages_allowed(int fd, struct mmsghdr *messages, unsigned int count) {
    if (INACTIVE() || messages == NULL) { return 1; }
    for (unsigned int i = 0; i < count; i++) {
        if (!check_message(fd, &messages[i].msg_hdr)) { return 0; }
    }
    return 1;
}

int sendmmsg(int fd, struct mmsghdr *messages, unsigned int count, int flags) {
    if (!messages_allowed(fd, messages, count)) { return -1; }
    return real_sendmmsg()(fd, messages, count, flags);
}

// glibc's private alias (GLIBC_PRIVATE), reachable with dlvsym. Forwards to the public function
// where a C library has no such alias.
int __sendmmsg(int fd, struct mmsghdr *messages, unsigned int count, int flags) {
    if (!messages_allowed(fd, messages, count)) { return -1; }
    sendmmsg_fn real = real___sendmmsg();
    return (real != NULL ? real : real_sendmmsg())(fd, messages, count, flags);
}

// Raw IP sockets and packet sockets bypass every address check: refused while enforcing.
static int raw_socket_allowed(int domain, int type) {
    int base_type = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
#ifdef AF_PACKET
    if (domain == AF_PACKET) {
        return report(AIRGAP_EVENT_SOCKET, "AF_PACKET", 0, base_type);
    }
#endif
    if ((domain == AF_INET || domain == AF_INET6) && (base_type == SOCK_RAW
#ifdef SOCK_PACKET
                                                      || base_type == SOCK_PACKET
#endif
                                                      )) {
        const char *label = domain == AF_INET ? "AF_INET/SOCK_RAW" : "AF_INET6/SOCK_RAW";
#ifdef SOCK_PACKET
        if (base_type == SOCK_PACKET) { label = domain == AF_INET ? "AF_INET/SOCK_PACKET" : "AF_INET6/SOCK_PACKET"; }
#endif
        return report(AIRGAP_EVENT_SOCKET, label, 0, base_type);
    }
    return 1;
}

int socket(int domain, int type, int protocol) {
    if (INACTIVE() || raw_socket_allowed(domain, type)) {
        return real_socket()(domain, type, protocol);
    }
    errno = EPERM;
    return -1;
}

// glibc's private alias (GLIBC_PRIVATE), reachable with dlvsym.
int __socket(int domain, int type, int protocol) {
    if (INACTIVE() || raw_socket_allowed(domain, type)) {
        socket_fn real = real___socket();
        return (real != NULL ? real : real_socket())(domain, type, protocol);
    }
    errno = EPERM;
    return -1;
}


// MARK: - The resolver hooks

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **result) {
    if (INACTIVE() || node == NULL) {
        return real_getaddrinfo()(node, service, hints, result);
    }
    if (!name_allowed(node) && !report(AIRGAP_EVENT_RESOLVE, node, numeric_port(service), hints != NULL ? hints->ai_socktype : 0)) {
        if (result != NULL) { *result = NULL; }
        return EAI_NONAME;
    }
    int status = real_getaddrinfo()(node, service, hints, result);
    if (status == 0 && result != NULL && !is_numeric_host(node)) {
        remember_resolved(*result);
    }
    return status;
}

int getaddrinfo_a(int mode, struct gaicb *list[], int count, struct sigevent *event) {
    if (!INACTIVE() && list != NULL) {
        int denied = 0;
        for (int i = 0; i < count; i++) {
            if (list[i] != NULL && list[i]->ar_name != NULL && !name_allowed(list[i]->ar_name)
                && !report(AIRGAP_EVENT_RESOLVE, list[i]->ar_name, numeric_port(list[i]->ar_service), 0)) {
                denied = 1;
            }
        }
        if (denied) { return EAI_NONAME; }
    }
    return real_getaddrinfo_a()(mode, list, count, event);
}

// Whether a lookup of `name` is denied (and reported). Called only while enforcing.
static int lookup_denied_active(const char *name) {
    if (name == NULL || name_allowed(name)) { return 0; }
    return !report(AIRGAP_EVENT_RESOLVE, name, 0, 0);
}

// The same, for hooks that have not checked enforcement yet: one atomic load when inactive.
static int lookup_denied(const char *name) {
    return !INACTIVE() && lookup_denied_active(name);
}

struct hostent *gethostbyname(const char *name) {
    if (INACTIVE() || name == NULL) { return real_gethostbyname()(name); }
    if (lookup_denied_active(name)) {
        h_errno = HOST_NOT_FOUND;
        return NULL;
    }
    struct hostent *entry = real_gethostbyname()(name);
    if (!is_numeric_host(name)) { remember_hostent(entry); }
    return entry;
}

struct hostent *gethostbyname2(const char *name, int family) {
    if (INACTIVE() || name == NULL) { return real_gethostbyname2()(name, family); }
    if (lookup_denied_active(name)) {
        h_errno = HOST_NOT_FOUND;
        return NULL;
    }
    struct hostent *entry = real_gethostbyname2()(name, family);
    if (!is_numeric_host(name)) { remember_hostent(entry); }
    return entry;
}

int gethostbyname_r(const char *name, struct hostent *entry, char *buffer, size_t size, struct hostent **result, int *error) {
    if (INACTIVE() || name == NULL) { return real_gethostbyname_r()(name, entry, buffer, size, result, error); }
    if (lookup_denied_active(name)) {
        if (result != NULL) { *result = NULL; }
        if (error != NULL) { *error = HOST_NOT_FOUND; }
        return ENOENT;
    }
    int status = real_gethostbyname_r()(name, entry, buffer, size, result, error);
    if (status == 0 && result != NULL && !is_numeric_host(name)) { remember_hostent(*result); }
    return status;
}

int gethostbyname2_r(const char *name, int family, struct hostent *entry, char *buffer, size_t size,
                     struct hostent **result, int *error) {
    if (INACTIVE() || name == NULL) { return real_gethostbyname2_r()(name, family, entry, buffer, size, result, error); }
    if (lookup_denied_active(name)) {
        if (result != NULL) { *result = NULL; }
        if (error != NULL) { *error = HOST_NOT_FOUND; }
        return ENOENT;
    }
    int status = real_gethostbyname2_r()(name, family, entry, buffer, size, result, error);
    if (status == 0 && result != NULL && !is_numeric_host(name)) { remember_hostent(*result); }
    return status;
}

// A reverse lookup of an address that is not allowed is a violation (it asks a DNS server).
static int reverse_denied(int family, const void *bytes, int port) {
    if (INACTIVE() || bytes == NULL) { return 0; }
    destination d;
    memset(&d, 0, sizeof d);
    d.family = family;
    memcpy(d.bytes, bytes, family == AF_INET ? 4 : 16);
    normalise(&d.family, d.bytes);
    pthread_rwlock_rdlock(&rules_lock);
    int allowed = list_allows(&configured_rules, d.family, d.bytes) || list_allows(&resolved_addresses, d.family, d.bytes);
    pthread_rwlock_unlock(&rules_lock);
    if (allowed) { return 0; }
    char text[INET6_ADDRSTRLEN];
    if (inet_ntop(d.family, d.bytes, text, sizeof text) == NULL) { strcpy(text, "?"); }
    return !report(AIRGAP_EVENT_REVERSE, text, port, 0);
}

struct hostent *gethostbyaddr(const void *address, socklen_t length, int family) {
    if ((family == AF_INET && length >= 4) || (family == AF_INET6 && length >= 16)) {
        if (reverse_denied(family, address, 0)) {
            h_errno = HOST_NOT_FOUND;
            return NULL;
        }
    }
    return real_gethostbyaddr()(address, length, family);
}

int gethostbyaddr_r(const void *address, socklen_t length, int family, struct hostent *entry, char *buffer, size_t size,
                    struct hostent **result, int *error) {
    if ((family == AF_INET && length >= 4) || (family == AF_INET6 && length >= 16)) {
        if (reverse_denied(family, address, 0)) {
            if (result != NULL) { *result = NULL; }
            if (error != NULL) { *error = HOST_NOT_FOUND; }
            return ENOENT;
        }
    }
    return real_gethostbyaddr_r()(address, length, family, entry, buffer, size, result, error);
}

int getnameinfo(const struct sockaddr *address, socklen_t length, char *host, socklen_t host_length, char *service,
                socklen_t service_length, int flags) {
    if (!INACTIVE() && host != NULL && host_length > 0 && !(flags & NI_NUMERICHOST)) {
        destination d;
        if (read_destination(address, length, &d)) {
            uint8_t bytes[16];
            memcpy(bytes, d.bytes, 16);
            if (reverse_denied(d.family, bytes, d.port)) { return EAI_NONAME; }
        }
    }
    return real_getnameinfo()(address, length, host, host_length, service, service_length, flags);
}

// The first question's name of a DNS message, for the report.
static void question_name(const unsigned char *message, int length, char *out, size_t size) {
    size_t used = 0;
    int offset = 12;
    out[0] = '\0';
    while (message != NULL && offset < length && used + 1 < size) {
        int label = message[offset];
        if (label == 0 || (label & 0xC0) != 0 || offset + 1 + label > length) { break; }
        if (used > 0 && used + 1 < size) { out[used++] = '.'; }
        for (int i = 0; i < label && used + 1 < size; i++) {
            out[used++] = (char)message[offset + 1 + i];
        }
        offset += 1 + label;
    }
    out[used] = '\0';
    if (used == 0) { snprintf(out, size, "<DNS message>"); }
}

static int message_denied(const unsigned char *message, int length) {
    if (INACTIVE()) { return 0; }
    char name[256];
    question_name(message, length, name, sizeof name);
    if (strcmp(name, "<DNS message>") != 0 && name_allowed(name)) { return 0; }
    return !report(AIRGAP_EVENT_RESOLVE, name, 53, SOCK_DGRAM);
}

#define DENY_RESOLVER(value) \
    do { h_errno = HOST_NOT_FOUND; errno = ECONNREFUSED; return (value); } while (0)

int res_query(const char *name, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real_res_query()(name, class, type, answer, size);
}
int __res_query(const char *name, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real___res_query()(name, class, type, answer, size);
}
int res_search(const char *name, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real_res_search()(name, class, type, answer, size);
}
int __res_search(const char *name, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real___res_search()(name, class, type, answer, size);
}
int res_querydomain(const char *name, const char *domain, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real_res_querydomain()(name, domain, class, type, answer, size);
}
int __res_querydomain(const char *name, const char *domain, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real___res_querydomain()(name, domain, class, type, answer, size);
}
int res_send(const unsigned char *message, int length, unsigned char *answer, int size) {
    if (message_denied(message, length)) { DENY_RESOLVER(-1); }
    return real_res_send()(message, length, answer, size);
}
int __res_send(const unsigned char *message, int length, unsigned char *answer, int size) {
    if (message_denied(message, length)) { DENY_RESOLVER(-1); }
    return real___res_send()(message, length, answer, size);
}
int res_nquery(void *state, const char *name, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real_res_nquery()(state, name, class, type, answer, size);
}
int __res_nquery(void *state, const char *name, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real___res_nquery()(state, name, class, type, answer, size);
}
int res_nsearch(void *state, const char *name, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real_res_nsearch()(state, name, class, type, answer, size);
}
int __res_nsearch(void *state, const char *name, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real___res_nsearch()(state, name, class, type, answer, size);
}
int res_nquerydomain(void *state, const char *name, const char *domain, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real_res_nquerydomain()(state, name, domain, class, type, answer, size);
}
int __res_nquerydomain(void *state, const char *name, const char *domain, int class, int type, unsigned char *answer, int size) {
    if (lookup_denied(name)) { DENY_RESOLVER(-1); }
    return real___res_nquerydomain()(state, name, domain, class, type, answer, size);
}
int res_nsend(void *state, const unsigned char *message, int length, unsigned char *answer, int size) {
    if (message_denied(message, length)) { DENY_RESOLVER(-1); }
    return real_res_nsend()(state, message, length, answer, size);
}
int __res_nsend(void *state, const unsigned char *message, int length, unsigned char *answer, int size) {
    if (message_denied(message, length)) { DENY_RESOLVER(-1); }
    return real___res_nsend()(state, message, length, answer, size);
}

// MARK: - syscall(2)

#ifdef __linux__
// `syscall(SYS_connect, …)` and friends through the C library's `syscall` function. (A `syscall`
// instruction issued directly, as static binaries and the Go runtime do, is not seen.)
AIRGAP_UNINSTRUMENTED long syscall(long number, ...) {
    va_list arguments;
    va_start(arguments, number);
    long a = va_arg(arguments, long);
    long b = va_arg(arguments, long);
    long c = va_arg(arguments, long);
    long d = va_arg(arguments, long);
    long e = va_arg(arguments, long);
    long f = va_arg(arguments, long);
    va_end(arguments);
    if (!INACTIVE()) {
        int proceed = 1;
        switch (number) {
#ifdef SYS_connect
        case SYS_connect:
            proceed = check_address((int)a, (const struct sockaddr *)b, (socklen_t)c);
            break;
#endif
#ifdef SYS_sendto
        case SYS_sendto:
            proceed = e == 0 || check_address((int)a, (const struct sockaddr *)e, (socklen_t)f);
            break;
#endif
#ifdef SYS_sendmsg
        case SYS_sendmsg:
            proceed = check_message((int)a, (const struct msghdr *)b);
            break;
#endif
#ifdef SYS_sendmmsg
        case SYS_sendmmsg: {
            struct mmsghdr *messages = (struct mmsghdr *)b;
            for (unsigned int i = 0; messages != NULL && i < (unsigned int)c && proceed; i++) {
                proceed = check_message((int)a, &messages[i].msg_hdr);
            }
            break;
        }
#endif
#ifdef SYS_socket
        case SYS_socket:
            proceed = raw_socket_allowed((int)a, (int)b);
            if (!proceed) { errno = EPERM; }
            break;
#endif
        default:
            break;
        }
        if (!proceed) { return -1; }
    }
    return real_syscall()(number, a, b, c, d, e, f);
}
#endif

#endif // AIRGAP_SOCKET_LAYER

// MARK: - Call stacks

int airgap_capture_stack(void **addresses, int capacity) {
    if (addresses == NULL || capacity <= 0) { return 0; }
    return backtrace(addresses, capacity);
}

#ifdef AIRGAP_SOCKET_LAYER

// MARK: - Looking the hooks up by version

// Every function this file defines in place of the C library's, by the name glibc exports it
// under (public names and private aliases). Keep airgap_hooked_functions in step.
static const struct {
    const char *name;
    void *function;
} hooked[] = {
    {"connect", (void *)connect},
    {"__connect", (void *)__connect},
    {"sendto", (void *)sendto},
    {"sendmsg", (void *)sendmsg},
    {"sendmmsg", (void *)sendmmsg},
    {"__sendmmsg", (void *)__sendmmsg},
    {"socket", (void *)socket},
    {"__socket", (void *)__socket},
    {"getaddrinfo", (void *)getaddrinfo},
    {"getaddrinfo_a", (void *)getaddrinfo_a},
    {"gethostbyname", (void *)gethostbyname},
    {"gethostbyname2", (void *)gethostbyname2},
    {"gethostbyname_r", (void *)gethostbyname_r},
    {"gethostbyname2_r", (void *)gethostbyname2_r},
    {"gethostbyaddr", (void *)gethostbyaddr},
    {"gethostbyaddr_r", (void *)gethostbyaddr_r},
    {"getnameinfo", (void *)getnameinfo},
    {"res_query", (void *)res_query},
    {"__res_query", (void *)__res_query},
    {"res_search", (void *)res_search},
    {"__res_search", (void *)__res_search},
    {"res_querydomain", (void *)res_querydomain},
    {"__res_querydomain", (void *)__res_querydomain},
    {"res_send", (void *)res_send},
    {"__res_send", (void *)__res_send},
    {"res_nquery", (void *)res_nquery},
    {"__res_nquery", (void *)__res_nquery},
    {"res_nsearch", (void *)res_nsearch},
    {"__res_nsearch", (void *)__res_nsearch},
    {"res_nquerydomain", (void *)res_nquerydomain},
    {"__res_nquerydomain", (void *)__res_nquerydomain},
    {"res_nsend", (void *)res_nsend},
    {"__res_nsend", (void *)__res_nsend},
#ifdef __linux__
    {"syscall", (void *)syscall},
#endif
};

const char *airgap_hooked_functions(void) {
    return "connect __connect sendto sendmsg sendmmsg __sendmmsg socket __socket getaddrinfo getaddrinfo_a gethostbyname gethostbyname2 gethostbyname_r gethostbyname2_r gethostbyaddr gethostbyaddr_r getnameinfo res_query __res_query res_search __res_search res_querydomain __res_querydomain res_send __res_send res_nquery __res_nquery res_nsearch __res_nsearch res_nquerydomain __res_nquerydomain res_nsend __res_nsend"
#ifdef __linux__
           " syscall"
#endif
        ;
}

typedef void *(*dlvsym_fn)(void *, const char *, const char *);
REAL(dlvsym, dlvsym_fn)

// `dlvsym(RTLD_DEFAULT, "connect", "GLIBC_2.2.5")` names a version, and a lookup by version never
// finds an unversioned definition such as these hooks: it would hand out the C library's own
// function. For a hooked name and RTLD_DEFAULT it answers with the hook (which `dlsym` finds
// anyway); everything else goes to the C library as a tail call, so that RTLD_NEXT still counts
// from the caller's object.
AIRGAP_UNINSTRUMENTED void *dlvsym(void *handle, const char *symbol, const char *version) {
    if (handle == RTLD_DEFAULT) {
        for (size_t i = 0; i < sizeof hooked / sizeof *hooked; i++) {
            if (strcmp(hooked[i].name, symbol) == 0) { return hooked[i].function; }
        }
    }
    dlvsym_fn real = real_dlvsym();
    __attribute__((musttail)) return real(handle, symbol, version);
}

// MARK: - Load time

static void resolve_real_functions(void) {
    (void)real_connect();
    (void)real___connect();
    (void)real_getaddrinfo();
    (void)real_sendto();
    (void)real_sendmsg();
    (void)real_sendmmsg();
    (void)real_socket();
    (void)real___socket();
    (void)real___sendmmsg();
#ifdef __linux__
    (void)real_syscall();
#endif
}

#ifdef AIRGAP_PRELOAD

// Adds each comma-separated entry of `list` as an address rule or a name.
static void add_allowed_list(const char *list) {
    if (list == NULL) { return; }
    char *copy = strdup(list);
    char *save = NULL;
    for (char *entry = copy != NULL ? strtok_r(copy, ",", &save) : NULL; entry != NULL; entry = strtok_r(NULL, ",", &save)) {
        while (*entry == ' ') { entry++; }
        size_t length = strlen(entry);
        while (length > 0 && entry[length - 1] == ' ') { entry[--length] = '\0'; }
        if (length == 0) { continue; }
        if (airgap_add_rule(entry) != 0) { (void)airgap_add_name(entry); }
    }
    free(copy);
}

// Reads the whole state file at `path` (NULL when it does not exist or cannot be read).
static char *read_state_file(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { return NULL; }
    size_t capacity = 4096, size = 0;
    char *text = malloc(capacity + 1);
    while (text != NULL) {
        if (size == capacity) {
            if (capacity >= (size_t)16 << 20) { break; }
            char *grown = realloc(text, capacity * 2 + 1);
            if (grown == NULL) { break; }
            text = grown;
            capacity *= 2;
        }
        ssize_t count = read(fd, text + size, capacity - size);
        if (count < 0 && errno == EINTR) { continue; }
        if (count <= 0) { break; }
        size += (size_t)count;
    }
    close(fd);
    if (text != NULL) { text[size] = '\0'; }
    return text;
}

static void start_enforcing(int mode, const char *allowed, const char *log) {
    if (mode != AIRGAP_MODE_FAIL && mode != AIRGAP_MODE_WARN) { return; }
    add_allowed_list(allowed);
    if (log != NULL && *log != '\0') {
        int fd = open(log, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd >= 0) { atomic_store_explicit(&child_log_fd, fd, memory_order_release); }
    }
    atomic_store_explicit(&fail_mode, mode == AIRGAP_MODE_FAIL ? 1 : 0, memory_order_release);
    atomic_store_explicit(&enforcing, 1, memory_order_release);
}

// The preload library, configured by the process that started this one:
//   AIRGAP_INHERITED_STATE  the state file that process keeps (see airgap_publish_inherited_state):
//                           "airgap-state 1", then one line each for the mode (fail | warn | off),
//                           the comma-separated allowed hosts and the log file. No file: off.
// Without AIRGAP_INHERITED_STATE (a process guarded by hand):
//   AIRGAP_INHERITED_MODE     fail | warn (anything else: stay off)
//   AIRGAP_INHERITED_ALLOWED  comma-separated allowed hosts (names, *.patterns, addresses, CIDR)
//   AIRGAP_INHERITED_LOG      a log file, one line per violation
// A child that links Airgap itself has hooks of its own ahead of ours; they report to its own
// Swift side when it activates, and forward here when it does not.
__attribute__((constructor)) static void airgap_preload_load(void) {
    resolve_real_functions();
    const char *state_path = getenv("AIRGAP_INHERITED_STATE");
    if (state_path == NULL || *state_path == '\0') {
        start_enforcing(airgap_parse_mode(getenv("AIRGAP_INHERITED_MODE")), getenv("AIRGAP_INHERITED_ALLOWED"),
                        getenv("AIRGAP_INHERITED_LOG"));
        return;
    }
    char *text = read_state_file(state_path);
    if (text == NULL) { return; }
    char *lines[4] = {NULL, NULL, NULL, NULL};
    size_t count = 0;
    // strtok_r would merge an empty allowed-hosts line with its neighbours; split by hand.
    for (char *line = text; line != NULL && count < 4; count++) {
        lines[count] = line;
        char *end = strchr(line, '\n');
        if (end != NULL) { *end = '\0'; line = end + 1; } else { line = NULL; }
    }
    if (count == 4 && strcmp(lines[0], "airgap-state 1") == 0) {
        start_enforcing(airgap_parse_mode(lines[1]), lines[2], lines[3]);
    }
    free(text);
}

#else


// MARK: - Child processes

// Set once by the load-time constructor, before any thread exists, and read-only afterwards.
static char preload_library_path[PATH_MAX];   // "" when children cannot be guarded
static char inherited_state_directory[PATH_MAX];   // private (0700) directory of the state file
static char inherited_state_path[PATH_MAX];   // the state file this process publishes; "" if none
static int inheritance_status = AIRGAP_CHILDREN_NOT_FOUND;
static int state_owner_pid;

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define AIRGAP_UNDER_THREAD_SANITIZER 1
#endif
#endif

// Whether the LD_PRELOAD value `list` (space- or colon-separated) already names a preload library
// of Airgap, possibly another build's.
static int preload_list_has_airgap(const char *list) {
    static const char name[] = "libAirgapPreload.so";
    for (const char *found = list != NULL ? strstr(list, name) : NULL; found != NULL; found = strstr(found + 1, name)) {
        char after = found[sizeof name - 1];
        if ((found == list || found[-1] == '/' || found[-1] == ' ' || found[-1] == ':') &&
            (after == '\0' || after == ' ' || after == ':')) {
            return 1;
        }
    }
    return 0;
}

void airgap_remove_inherited_state(void) {
    if (state_owner_pid == (int)getpid() && inherited_state_path[0] != '\0') {
        unlink(inherited_state_path);
        rmdir(inherited_state_directory);
    }
}

// Exports LD_PRELOAD and AIRGAP_INHERITED_STATE once, at load time, while this process has a
// single thread: changing the environment later races with every thread that reads it (starting
// a `Process` copies `environ`; glibc's setenv frees the array it replaces). What changes at run
// time — mode, allowed hosts, log — goes to the state file, which each child reads as it loads.
static void export_inheritance(void) {
#ifdef AIRGAP_UNDER_THREAD_SANITIZER
    // An instrumented preload library cannot load into uninstrumented children.
    inheritance_status = AIRGAP_CHILDREN_SANITIZER;
    return;
#else
    const char *explicit_path = getenv("AIRGAP_PRELOAD_PATH");
    if (explicit_path != NULL && *explicit_path != '\0') {
        if (access(explicit_path, R_OK) != 0 || strlen(explicit_path) >= sizeof preload_library_path) {
            inheritance_status = AIRGAP_CHILDREN_EXPLICIT_PATH_MISSING;
            return;
        }
        strcpy(preload_library_path, explicit_path);
    } else {
        char executable[PATH_MAX];
        ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
        if (length <= 0) { return; }
        executable[length] = '\0';
        char *slash = strrchr(executable, '/');
        if (slash == NULL) { return; }
        *slash = '\0';
        char candidate[PATH_MAX];
        int written = snprintf(candidate, sizeof candidate, "%s/libAirgapPreload.so", executable);
        if (written <= 0 || (size_t)written >= sizeof candidate || access(candidate, R_OK) != 0) { return; }
        strcpy(preload_library_path, candidate);
    }
    const char *inherited = getenv("AIRGAP_INHERITED_STATE");
    if (inherited != NULL && *inherited != '\0') {
        // Started by a guarded process: its guard governs the processes this one starts.
        inheritance_status = AIRGAP_CHILDREN_GOVERNED_BY_PARENT;
        return;
    }
    // A directory only this user can write: another local user cannot plant a state file that
    // switches the children's guard off, nor a link that the update would write through.
    const char *directory = getenv("TMPDIR");
    if (directory == NULL || *directory == '\0') { directory = "/tmp"; }
    int written = snprintf(inherited_state_directory, sizeof inherited_state_directory, "%s/airgap-XXXXXX", directory);
    if (written <= 0 || (size_t)written + 8 >= sizeof inherited_state_directory ||
        mkdtemp(inherited_state_directory) == NULL) {
        inherited_state_directory[0] = '\0';
        inheritance_status = AIRGAP_CHILDREN_NO_STATE_DIRECTORY;
        return;
    }
    snprintf(inherited_state_path, sizeof inherited_state_path, "%s/state", inherited_state_directory);
    const char *preload = getenv("LD_PRELOAD");
    if (!preload_list_has_airgap(preload)) {
        size_t size = strlen(preload_library_path) + (preload != NULL ? strlen(preload) : 0) + 2;
        char *value = malloc(size);
        if (value == NULL) {
            rmdir(inherited_state_directory);
            inherited_state_path[0] = '\0';
            return;
        }
        if (preload != NULL && *preload != '\0') {
            snprintf(value, size, "%s %s", preload_library_path, preload);
        } else {
            snprintf(value, size, "%s", preload_library_path);
        }
        setenv("LD_PRELOAD", value, 1);
        free(value);
    }
    setenv("AIRGAP_INHERITED_STATE", inherited_state_path, 1);
    state_owner_pid = (int)getpid();
    atexit(airgap_remove_inherited_state);
    inheritance_status = AIRGAP_CHILDREN_GUARDED;
#endif
}

int airgap_children_status(void) {
    return inheritance_status;
}

const char *airgap_preload_library_path(void) {
    return preload_library_path;
}

const char *airgap_state_directory(void) {
    return inheritance_status == AIRGAP_CHILDREN_GUARDED ? inherited_state_directory : "";
}

int airgap_publish_inherited_state(int mode, const char *allowed, const char *log) {
    if (inheritance_status != AIRGAP_CHILDREN_GUARDED || state_owner_pid != (int)getpid()) {
        errno = ENOENT;
        return -1;
    }
    const char *mode_text = mode == AIRGAP_MODE_FAIL ? "fail" : (mode == AIRGAP_MODE_WARN ? "warn" : "off");
    if (allowed == NULL) { allowed = ""; }
    if (log == NULL) { log = ""; }
    if (strchr(allowed, '\n') != NULL || strchr(log, '\n') != NULL) {
        errno = EINVAL;
        return -1;
    }
    char temporary[PATH_MAX + 8];
    snprintf(temporary, sizeof temporary, "%s.new", inherited_state_path);
    unlink(temporary);   // left by an update that failed halfway
    int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) { return -1; }
    FILE *file = fdopen(fd, "w");
    if (file == NULL) {
        close(fd);
        unlink(temporary);
        return -1;
    }
    int failed = fprintf(file, "airgap-state 1\n%s\n%s\n%s\n", mode_text, allowed, log) < 0;
    failed |= fclose(file) != 0;
    // rename() replaces the file in one step: a child reads the old state or the new one.
    if (failed || rename(temporary, inherited_state_path) != 0) {
        int saved = errno;
        unlink(temporary);
        errno = saved;
        return -1;
    }
    return 0;
}


#endif

#endif // AIRGAP_SOCKET_LAYER

// MARK: - Load time (the test process)

// On Linux, with or without the socket layer: the constructor follows XCTest tests and starts
// whole-run mode (AIRGAP_MODE), which then guards at the URLSession layer alone when the socket
// layer is compiled out. (Weak undefined symbols are an ELF feature: elsewhere there is no
// constructor, and no whole-run mode.)
#if defined(__linux__) && !defined(AIRGAP_PRELOAD)

// Defined by the Airgap Swift module with @_cdecl; weak so this target links on its own.
extern void airgap_library_loaded(void) __attribute__((weak));
extern void airgap_whole_run_bootstrap(void) __attribute__((weak));
extern void airgap_whole_run_finish(void) __attribute__((weak));

__attribute__((constructor)) static void airgap_load(void) {
#ifdef AIRGAP_SOCKET_LAYER
    resolve_real_functions();
    export_inheritance();
#endif
    if (airgap_library_loaded != NULL) {
        airgap_library_loaded();
    }
    const char *text = getenv("AIRGAP_MODE");
    if (text == NULL) { return; }
    int mode = airgap_parse_mode(text);
    int value = mode == AIRGAP_MODE_WARN ? 2 : (mode == AIRGAP_MODE_OFF ? 0 : 1);
    if (mode == AIRGAP_MODE_UNRECOGNISED) { value = 3; }
    atomic_store_explicit(&startup_mode, value, memory_order_release);
    if (value == 0) { return; }
    if (airgap_whole_run_bootstrap != NULL) {
        airgap_whole_run_bootstrap();
        if (airgap_whole_run_finish != NULL) {
            atexit(airgap_whole_run_finish);
        }
    }
}

#endif
