// CAirgapRoutes: one C function per route by which a process can reach the network, for the
// escape tests (run by AirgapProbe in a child process). Test support only.
#ifndef CAIRGAP_ROUTES_H
#define CAIRGAP_ROUTES_H

#ifdef __cplusplus
extern "C" {
#endif

/// Takes the route `name` towards the loopback listeners of the test: a TCP listener on
/// 127.0.0.1:`tcp_port` and a UDP listener on 127.0.0.1:`udp_port` (which also serves as the DNS
/// server for resolver routes, see `airgap_routes_use_nameserver`).
/// Returns 0 when the call succeeded (a connection or a datagram went out, or a resolver call
/// returned), a positive errno when it failed, -1000 - code for resolver error codes, and
/// -1 for an unknown route.
int airgap_route(const char *name, int tcp_port, int udp_port);

/// Points this thread's resolver (`_res`) at 127.0.0.1:`port`, with a 1 s time-out and one try.
void airgap_routes_use_nameserver(int port);

/// Forks a child that moves to a network namespace of its own and looks up each of the
/// comma-separated `names` with `getaddrinfo` (service "80"). Returns the child's exit status.
int airgap_routes_fork_lookups(const char *names);

/// The route names `airgap_route` knows, separated by spaces.
const char *airgap_route_names(void);

#ifdef __cplusplus
}
#endif

#endif
