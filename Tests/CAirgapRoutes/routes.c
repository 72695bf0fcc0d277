// Every route by which a process can reach the network through the C library, each as a small
// function aimed at the loopback listeners of an escape test. Test support only.
#define _GNU_SOURCE
#include "CAirgapRoutes.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <arpa/nameser.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <resolv.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

// The GLIBC_2.34 names, which <resolv.h> renames to the __res_* forms.
extern int airgap_plain_res_query(const char *, int, int, unsigned char *, int) __asm__("res_query");
extern int airgap_plain_res_search(const char *, int, int, unsigned char *, int) __asm__("res_search");
extern int airgap_plain_res_send(const unsigned char *, int, unsigned char *, int) __asm__("res_send");
extern int __connect(int, const struct sockaddr *, socklen_t);

static const char *lookup_name = "airgap-escape.test";

static struct sockaddr_in v4(int port) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

static struct sockaddr_in6 v4_mapped(int port) {
    struct sockaddr_in6 address;
    memset(&address, 0, sizeof address);
    address.sin6_family = AF_INET6;
    address.sin6_port = htons((uint16_t)port);
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &address.sin6_addr);
    return address;
}

static int result(int fd, int status) {
    int saved = errno;
    if (fd >= 0) { close(fd); }
    return status < 0 ? (saved == 0 ? EIO : saved) : 0;
}

static int tcp_connect_v6(int port, socklen_t length) {
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 address = v4_mapped(port);
    return result(fd, connect(fd, (struct sockaddr *)&address, length));
}

static int udp_message(int port, int how) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in address = v4(port);
    char payload[] = "airgap";
    struct iovec vector = {payload, sizeof payload};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_name = &address;
    message.msg_namelen = sizeof address;
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    long status;
    switch (how) {
    case 0: status = sendto(fd, payload, sizeof payload, 0, (struct sockaddr *)&address, sizeof address); break;
    case 1: status = sendmsg(fd, &message, 0); break;
    case 2: {
        struct mmsghdr messages[1];
        memset(messages, 0, sizeof messages);
        messages[0].msg_hdr = message;
        status = sendmmsg(fd, messages, 1, 0);
        break;
    }
    default: status = syscall(SYS_sendto, fd, payload, sizeof payload, 0, (struct sockaddr *)&address, sizeof address); break;
    }
    return result(fd, status < 0 ? -1 : 0);
}

// A UDP datagram built by hand and sent through a raw IP socket (needs CAP_NET_RAW).
static int raw_udp(int port) {
    int fd = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
    if (fd < 0) { return errno; }
    unsigned char packet[8 + 6];
    struct udphdr *header = (struct udphdr *)packet;
    header->source = htons(40000);
    header->dest = htons((uint16_t)port);
    header->len = htons(sizeof packet);
    header->check = 0;
    memcpy(packet + 8, "airgap", 6);
    struct sockaddr_in address = v4(0);
    return result(fd, sendto(fd, packet, sizeof packet, 0, (struct sockaddr *)&address, sizeof address) < 0 ? -1 : 0);
}

static int packet_socket(void) {
    int fd = socket(AF_PACKET, SOCK_DGRAM, htons(0x0800));
    return result(fd, fd < 0 ? -1 : 0);
}

// glibc's private aliases, reached by version as a program that wants to bypass interposers would.
static int dlvsym_sendmmsg(int port) {
    typedef int (*sendmmsg_fn)(int, struct mmsghdr *, unsigned int, int);
    sendmmsg_fn send_messages = (sendmmsg_fn)dlvsym(RTLD_DEFAULT, "__sendmmsg", "GLIBC_PRIVATE");
    if (send_messages == NULL) { return ENOSYS; }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in address = v4(port);
    char payload[] = "airgap";
    struct iovec vector = {payload, sizeof payload};
    struct mmsghdr messages[1];
    memset(messages, 0, sizeof messages);
    messages[0].msg_hdr.msg_name = &address;
    messages[0].msg_hdr.msg_namelen = sizeof address;
    messages[0].msg_hdr.msg_iov = &vector;
    messages[0].msg_hdr.msg_iovlen = 1;
    return result(fd, send_messages(fd, messages, 1, 0) < 0 ? -1 : 0);
}

static int dlvsym_socket(void) {
    typedef int (*socket_fn)(int, int, int);
    socket_fn open_socket = (socket_fn)dlvsym(RTLD_DEFAULT, "__socket", "GLIBC_PRIVATE");
    if (open_socket == NULL) { return ENOSYS; }
    int fd = open_socket(AF_PACKET, SOCK_DGRAM, htons(0x0800));
    return result(fd, fd < 0 ? -1 : 0);
}

static int dlvsym_connect(int port) {
    typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);
    connect_fn connect_by_version = (connect_fn)dlvsym(RTLD_DEFAULT, "connect", "GLIBC_2.2.5");
    if (connect_by_version == NULL) { return ENOSYS; }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = v4(port);
    return result(fd, connect_by_version(fd, (struct sockaddr *)&address, sizeof address));
}

// An obsolete SOCK_PACKET socket (needs CAP_NET_RAW).
static int sock_packet(void) {
    int fd = socket(AF_INET, SOCK_PACKET, htons(0x0003));
    return result(fd, fd < 0 ? -1 : 0);
}

// An ICMP echo through a ping socket, from a network namespace of this thread's own where loopback
// is up and ping sockets are allowed (needs CAP_SYS_ADMIN; the host's settings are not touched).
static int icmp_ping(void) {
    if (unshare(CLONE_NEWNET) != 0) { return errno; }
    int control = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq request;
    memset(&request, 0, sizeof request);
    strcpy(request.ifr_name, "lo");
    if (ioctl(control, SIOCGIFFLAGS, &request) == 0) {
        request.ifr_flags |= IFF_UP;
        (void)ioctl(control, SIOCSIFFLAGS, &request);
    }
    close(control);
    int range = open("/proc/sys/net/ipv4/ping_group_range", O_WRONLY);
    if (range >= 0) {
        (void)!write(range, "0 2147483647", 12);
        close(range);
    }
    int fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
    if (fd < 0) { return errno; }
    unsigned char echo[8] = {8, 0, 0, 0, 0, 0, 0, 1};
    struct sockaddr_in address = v4(0);
    return result(fd, sendto(fd, echo, sizeof echo, 0, (struct sockaddr *)&address, sizeof address) < 0 ? -1 : 0);
}

static int resolver_status(int status) {
    return status == 0 ? 0 : -1000 - (status < 0 ? -status : status);
}


void airgap_routes_use_nameserver(int port) {
    res_init();
    _res.nscount = 1;
    _res.nsaddr_list[0] = v4(port);
    _res.retrans = 1;
    _res.retry = 1;
}

int airgap_routes_fork_lookups(const char *names) {
    pid_t child = fork();
    if (child == 0) {
        // A network namespace of the child's own: an allowed name's query finds no route and
        // fails at once, so nothing leaves the machine.
        if (unshare(CLONE_NEWNET) != 0) { _exit(2); }
        char copy[8192];
        snprintf(copy, sizeof copy, "%s", names);
        char *save = NULL;
        for (char *name = strtok_r(copy, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save)) {
            struct addrinfo *list = NULL;
            if (getaddrinfo(name, "80", NULL, &list) == 0) { freeaddrinfo(list); }
        }
        _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) < 0) { return errno; }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

const char *airgap_route_names(void) {
    return "connect connect-v6-24 connect-v6-25 connect-v6-26 connect-v6-27 connect-v4-mapped __connect "
           "tcp-fastopen udp-sendto udp-sendmsg udp-sendmmsg syscall-connect syscall-sendto raw-socket packet-socket "
           "gethostbyname gethostbyname_r gethostbyname2 gethostbyname2_r getaddrinfo getaddrinfo_a gethostbyaddr "
           "getnameinfo res_query res_search res_querydomain res_send __res_query __res_search __res_send "
           "res_nquery res_nsearch res_nsend fork-connect dlvsym-sendmmsg dlvsym-socket dlvsym-connect sock-packet "
           "icmp-ping";
}

int airgap_route(const char *name, int tcp_port, int udp_port) {
    struct sockaddr_in tcp = v4(tcp_port);
    unsigned char answer[512];
    errno = 0;
    if (strcmp(name, "connect") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        return result(fd, connect(fd, (struct sockaddr *)&tcp, sizeof tcp));
    }
    if (strncmp(name, "connect-v6-", 11) == 0) {
        return tcp_connect_v6(tcp_port, (socklen_t)atoi(name + 11));
    }
    if (strcmp(name, "connect-v4-mapped") == 0) {
        return tcp_connect_v6(tcp_port, sizeof(struct sockaddr_in6));
    }
    if (strcmp(name, "__connect") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        return result(fd, __connect(fd, (struct sockaddr *)&tcp, sizeof tcp));
    }
    if (strcmp(name, "tcp-fastopen") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        return result(fd, sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&tcp, sizeof tcp) < 0 ? -1 : 0);
    }
    if (strcmp(name, "udp-sendto") == 0) { return udp_message(udp_port, 0); }
    if (strcmp(name, "udp-sendmsg") == 0) { return udp_message(udp_port, 1); }
    if (strcmp(name, "udp-sendmmsg") == 0) { return udp_message(udp_port, 2); }
    if (strcmp(name, "syscall-sendto") == 0) { return udp_message(udp_port, 3); }
    if (strcmp(name, "syscall-connect") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        return result(fd, syscall(SYS_connect, fd, (struct sockaddr *)&tcp, sizeof tcp) < 0 ? -1 : 0);
    }
    if (strcmp(name, "raw-socket") == 0) { return raw_udp(udp_port); }
    if (strcmp(name, "packet-socket") == 0) { return packet_socket(); }
    if (strcmp(name, "dlvsym-sendmmsg") == 0) { return dlvsym_sendmmsg(udp_port); }
    if (strcmp(name, "dlvsym-socket") == 0) { return dlvsym_socket(); }
    if (strcmp(name, "dlvsym-connect") == 0) { return dlvsym_connect(tcp_port); }
    if (strcmp(name, "sock-packet") == 0) { return sock_packet(); }
    if (strcmp(name, "icmp-ping") == 0) { return icmp_ping(); }
    if (strcmp(name, "fork-connect") == 0) {
        pid_t child = fork();
        if (child == 0) {
            int fd = socket(AF_INET, SOCK_STREAM, 0);
            _exit(connect(fd, (struct sockaddr *)&tcp, sizeof tcp) == 0 ? 0 : 1);
        }
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) < 0) { return errno; }
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECONNREFUSED;
    }

    // Resolver routes: the UDP listener is the DNS server (airgap_routes_use_nameserver).
    if (strcmp(name, "gethostbyname") == 0) { return gethostbyname(lookup_name) != NULL ? 0 : -1000 - h_errno; }
    if (strcmp(name, "gethostbyname2") == 0) { return gethostbyname2(lookup_name, AF_INET) != NULL ? 0 : -1000 - h_errno; }
    if (strcmp(name, "gethostbyname_r") == 0 || strcmp(name, "gethostbyname2_r") == 0) {
        struct hostent entry;
        struct hostent *found = NULL;
        char buffer[2048];
        int error = 0;
        int status = strcmp(name, "gethostbyname_r") == 0
            ? gethostbyname_r(lookup_name, &entry, buffer, sizeof buffer, &found, &error)
            : gethostbyname2_r(lookup_name, AF_INET, &entry, buffer, sizeof buffer, &found, &error);
        return found != NULL ? 0 : -1000 - (status != 0 ? status : error);
    }
    if (strcmp(name, "getaddrinfo") == 0) {
        struct addrinfo *list = NULL;
        int status = getaddrinfo(lookup_name, "80", NULL, &list);
        if (list != NULL) { freeaddrinfo(list); }
        return resolver_status(status);
    }
    if (strcmp(name, "getaddrinfo_a") == 0) {
        struct gaicb request;
        memset(&request, 0, sizeof request);
        request.ar_name = lookup_name;
        struct gaicb *list[1] = {&request};
        int status = getaddrinfo_a(GAI_WAIT, list, 1, NULL);
        if (status == 0) { status = gai_error(&request); }
        if (request.ar_result != NULL) { freeaddrinfo(request.ar_result); }
        return resolver_status(status);
    }
    if (strcmp(name, "gethostbyaddr") == 0) {
        struct in_addr address;
        inet_pton(AF_INET, "192.0.2.1", &address);
        return gethostbyaddr(&address, sizeof address, AF_INET) != NULL ? 0 : -1000 - h_errno;
    }
    if (strcmp(name, "getnameinfo") == 0) {
        struct sockaddr_in address = v4(80);
        inet_pton(AF_INET, "192.0.2.1", &address.sin_addr);
        char host[256];
        return resolver_status(getnameinfo((struct sockaddr *)&address, sizeof address, host, sizeof host, NULL, 0, NI_NAMEREQD));
    }
    if (strcmp(name, "res_query") == 0) { return resolver_status(airgap_plain_res_query(lookup_name, C_IN, T_A, answer, sizeof answer) < 0); }
    if (strcmp(name, "res_search") == 0) { return resolver_status(airgap_plain_res_search(lookup_name, C_IN, T_A, answer, sizeof answer) < 0); }
    if (strcmp(name, "__res_query") == 0) { return resolver_status(res_query(lookup_name, C_IN, T_A, answer, sizeof answer) < 0); }
    if (strcmp(name, "__res_search") == 0) { return resolver_status(res_search(lookup_name, C_IN, T_A, answer, sizeof answer) < 0); }
    if (strcmp(name, "res_querydomain") == 0) { return resolver_status(res_querydomain("airgap-escape", "test", C_IN, T_A, answer, sizeof answer) < 0); }
    if (strcmp(name, "res_nquery") == 0 || strcmp(name, "res_nsearch") == 0) {
        int status = strcmp(name, "res_nquery") == 0
            ? res_nquery(&_res, lookup_name, C_IN, T_A, answer, sizeof answer)
            : res_nsearch(&_res, lookup_name, C_IN, T_A, answer, sizeof answer);
        return resolver_status(status < 0);
    }
    if (strcmp(name, "res_send") == 0 || strcmp(name, "__res_send") == 0 || strcmp(name, "res_nsend") == 0) {
        unsigned char query[512];
        int length = res_mkquery(QUERY, lookup_name, C_IN, T_A, NULL, 0, NULL, query, sizeof query);
        if (length < 0) { return EINVAL; }
        int status;
        if (strcmp(name, "res_send") == 0) {
            status = airgap_plain_res_send(query, length, answer, sizeof answer);
        } else if (strcmp(name, "__res_send") == 0) {
            status = res_send(query, length, answer, sizeof answer);
        } else {
            status = res_nsend(&_res, query, length, answer, sizeof answer);
        }
        return resolver_status(status < 0);
    }
    return -1;
}
