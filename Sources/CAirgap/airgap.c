// The socket layer of Airgap: `connect` and `getaddrinfo` hooks forwarding to the C library.
// See include/CAirgap.h for the contract.

#define _GNU_SOURCE
#include "CAirgap.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>

// MARK: - The real functions

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*getaddrinfo_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);

static _Atomic(connect_fn) real_connect_ptr;
static _Atomic(getaddrinfo_fn) real_getaddrinfo_ptr;

static connect_fn real_connect(void) {
    connect_fn fn = atomic_load_explicit(&real_connect_ptr, memory_order_acquire);
    if (fn == NULL) {
        fn = (connect_fn)dlsym(RTLD_NEXT, "connect");
        atomic_store_explicit(&real_connect_ptr, fn, memory_order_release);
    }
    return fn;
}

static getaddrinfo_fn real_getaddrinfo(void) {
    getaddrinfo_fn fn = atomic_load_explicit(&real_getaddrinfo_ptr, memory_order_acquire);
    if (fn == NULL) {
        fn = (getaddrinfo_fn)dlsym(RTLD_NEXT, "getaddrinfo");
        atomic_store_explicit(&real_getaddrinfo_ptr, fn, memory_order_release);
    }
    return fn;
}

// MARK: - Policy

static atomic_int enforcing;       // the only thing an inactive hook reads
static atomic_int fail_mode = 1;
static atomic_int startup_mode;
static _Atomic(airgap_name_callback) name_callback;
static _Atomic(airgap_violation_callback) violation_callback;
static _Thread_local int thread_bypass;

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

static pthread_rwlock_t rules_lock = PTHREAD_RWLOCK_INITIALIZER;
static rule_list configured_rules;   // from allowedHosts
static rule_list resolved_addresses; // what allowed names resolved to

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

// MARK: - Public configuration

void airgap_set_callbacks(airgap_name_callback name, airgap_violation_callback violation) {
    atomic_store_explicit(&name_callback, name, memory_order_release);
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

int airgap_is_address_rule(const char *text) {
    address_rule rule;
    return parse_rule(text, &rule) == 0;
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

// MARK: - Reporting

static void report(int event, const char *host, int port, int socket_type, int blocked) {
    airgap_violation_callback callback = atomic_load_explicit(&violation_callback, memory_order_acquire);
    if (callback == NULL) { return; }
    int saved_errno = errno;
    thread_bypass = 1;
    callback(event, host, port, socket_type, blocked);
    thread_bypass = 0;
    errno = saved_errno;
}

static void remember_resolved(const struct addrinfo *list) {
    pthread_rwlock_wrlock(&rules_lock);
    for (const struct addrinfo *info = list; info != NULL; info = info->ai_next) {
        address_rule rule;
        memset(&rule, 0, sizeof rule);
        if (info->ai_family == AF_INET && info->ai_addr != NULL) {
            const struct sockaddr_in *in = (const struct sockaddr_in *)info->ai_addr;
            rule.family = AF_INET;
            rule.prefix = 32;
            memcpy(rule.bytes, &in->sin_addr, 4);
        } else if (info->ai_family == AF_INET6 && info->ai_addr != NULL) {
            const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)info->ai_addr;
            rule.family = AF_INET6;
            rule.prefix = 128;
            memcpy(rule.bytes, &in6->sin6_addr, 16);
            normalise(&rule.family, rule.bytes);
            if (rule.family == AF_INET) { rule.prefix = 32; }
        } else {
            continue;
        }
        (void)rule_list_append(&resolved_addresses, &rule);
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

// MARK: - The hooks

int connect(int fd, const struct sockaddr *address, socklen_t length) {
    if (!atomic_load_explicit(&enforcing, memory_order_acquire) || thread_bypass || address == NULL) {
        return real_connect()(fd, address, length);
    }
    int family = address->sa_family;
    uint8_t bytes[16] = {0};
    int port = 0;
    if (family == AF_INET && length >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)address;
        memcpy(bytes, &in->sin_addr, 4);
        port = ntohs(in->sin_port);
    } else if (family == AF_INET6 && length >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)address;
        memcpy(bytes, &in6->sin6_addr, 16);
        port = ntohs(in6->sin6_port);
        normalise(&family, bytes);
    } else {
        // AF_UNIX, AF_UNSPEC (disconnecting a datagram socket), AF_NETLINK, …: always pass.
        return real_connect()(fd, address, length);
    }

    pthread_rwlock_rdlock(&rules_lock);
    int allowed = list_allows(&configured_rules, family, bytes) || list_allows(&resolved_addresses, family, bytes);
    pthread_rwlock_unlock(&rules_lock);
    if (allowed) {
        return real_connect()(fd, address, length);
    }

    int socket_type = 0;
    socklen_t type_length = sizeof socket_type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &socket_type, &type_length) != 0) {
        socket_type = 0;
    }
    char text[INET6_ADDRSTRLEN];
    if (inet_ntop(family, bytes, text, sizeof text) == NULL) {
        strcpy(text, "?");
    }
    int fail = atomic_load_explicit(&fail_mode, memory_order_acquire);
    report(AIRGAP_EVENT_CONNECT, text, port, socket_type, fail);
    if (fail) {
        errno = ECONNREFUSED;
        return -1;
    }
    return real_connect()(fd, address, length);
}

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **result) {
    if (!atomic_load_explicit(&enforcing, memory_order_acquire) || thread_bypass || node == NULL
        || is_numeric_host(node)) {
        return real_getaddrinfo()(node, service, hints, result);
    }

    int allowed = 0;
    airgap_name_callback decide = atomic_load_explicit(&name_callback, memory_order_acquire);
    if (decide != NULL) {
        thread_bypass = 1;
        allowed = decide(node);
        thread_bypass = 0;
    }
    if (!allowed) {
        int socket_type = hints != NULL ? hints->ai_socktype : 0;
        int fail = atomic_load_explicit(&fail_mode, memory_order_acquire);
        report(AIRGAP_EVENT_RESOLVE, node, numeric_port(service), socket_type, fail);
        if (fail) {
            if (result != NULL) { *result = NULL; }
            return EAI_NONAME;
        }
    }
    int status = real_getaddrinfo()(node, service, hints, result);
    if (status == 0 && result != NULL) {
        // Warn mode remembers too, so the connect that follows is not reported a second time.
        remember_resolved(*result);
    }
    return status;
}

// MARK: - Whole-run mode

// Defined by the Airgap Swift module with @_cdecl; weak so this target links on its own.
extern void airgap_whole_run_bootstrap(void) __attribute__((weak));
extern void airgap_whole_run_finish(void) __attribute__((weak));

__attribute__((constructor)) static void airgap_load(void) {
    (void)real_connect();
    (void)real_getaddrinfo();
    const char *mode = getenv("AIRGAP_MODE");
    if (mode == NULL) { return; }
    int value = 0;
    if (strcasecmp(mode, "fail") == 0) { value = 1; }
    if (strcasecmp(mode, "warn") == 0) { value = 2; }
    atomic_store_explicit(&startup_mode, value, memory_order_release);
    if (value == 0) { return; }
    if (airgap_whole_run_bootstrap != NULL) {
        airgap_whole_run_bootstrap();
        if (airgap_whole_run_finish != NULL) {
            atexit(airgap_whole_run_finish);
        }
    }
}
