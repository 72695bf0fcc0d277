import AirlockBase
import Foundation

/// Every route of a registry as matching reads it: the host trie, a path trie per host pattern,
/// the route groups the path tries lead to, and each route's patterns, conditions and rank.
///
/// A value: the registry changes its own copy under its lock when stubs change (registering,
/// removing) and publishes it as a ``Snapshot`` that requests then read without any lock, as
/// Hummingbird's `RouterResponder` reads the trie it built once. Nothing in it changes on a hit;
/// what does (queues, served counts) is in ``RouteTable``.
///
/// Registering stays O(1) per stub: the registry drops its published snapshot *before* changing
/// its copy, so the arrays are changed in place unless a request is still reading the old
/// snapshot at that moment (then that one change copies them).
struct RouteIndex: Sendable {
    typealias Route = MockRegistry.Route
    typealias RouteGroup = MockRegistry.RouteGroup

    /// Host patterns; each payload indexes `pathTries`.
    private(set) var hostTrie = SegmentTrie()
    private(set) var pathTries: [SegmentTrie] = []
    /// The host pattern of each path trie, shared by every route under it.
    private var hostPatterns: [MockRegistry.SharedPattern] = []
    /// Routes that share a host and path pattern and differ by query; path-trie payloads index it.
    private(set) var groups: [RouteGroup] = []
    /// Every route, by id: its position, in registration order.
    private(set) var routes: [Route] = []
    /// The last host pattern parsed, since registrations tend to come in runs for one host.
    private var lastHost: (text: String, pattern: Pattern)?

    /// The host pattern of `text`, parsed once for a run of registrations with one host.
    mutating func hostPattern(_ text: String) throws(PatternError) -> Pattern {
        if let lastHost, lastHost.text == text { return lastHost.pattern }
        let pattern = try Pattern.host(text)
        lastHost = (text, pattern)
        return pattern
    }

    /// The route registered with the same patterns and conditions that registrations may share,
    /// or a new one (`added`).
    /// - Parameter sharesQueue: Whether the registration may share a route with an earlier one
    ///   (no requirement, no explicit ordering, no source of its own).
    mutating func route(
        host: Pattern,
        path: Pattern,
        conditions: MockRegistry.RouteConditions?,
        rank: (Int) -> MockRegistry.Rank,
        sharesQueue: Bool
    ) -> (id: Int, added: Bool) {
        let pathTrie = hostTrie.value(for: host) {
            pathTries.append(SegmentTrie())
            hostPatterns.append(MockRegistry.SharedPattern(host))
            return pathTries.count - 1
        }.value
        let group = pathTries[pathTrie].value(for: path) {
            groups.append(RouteGroup())
            return groups.count - 1
        }.value
        // Found by key, so that registering many stubs on one path costs the same for each.
        let shared = MockRegistry.SharedQueueKey(conditions: conditions)
        if sharesQueue, let existing = groups[group].sharedRoute(for: shared) {
            return (existing, false)
        }
        let id = routes.count
        routes.append(Route(sharedHost: hostPatterns[pathTrie], path: path, conditions: conditions, pathTrie: pathTrie, rank: rank(id)))
        groups[group].append(id)
        if sharesQueue { groups[group].share(id, for: shared) }
        return (id, true)
    }

    /// Forgets the path trie of this exact host pattern, so that requests no longer reach its
    /// routes and a later registration for the host starts a new one. Returns the path trie.
    mutating func removeHost(_ pattern: Pattern) -> Int? {
        guard let pathTrie = hostTrie.value(for: pattern) else { return nil }
        hostTrie.setValue(nil, for: pattern)
        pathTries[pathTrie] = SegmentTrie()
        return pathTrie
    }

    // MARK: Matching

    /// Collects into `scratch.candidates` the routes whose host and path patterns and query
    /// constraint match `request`, most specific first, each once; `scratch.steps` counts the
    /// trie steps. Reads only this value: safe on any thread without a lock.
    /// - Parameters:
    ///   - allHosts: Whether to look under every host pattern rather than those matching the
    ///     request's host (a request addressed to the server itself).
    ///   - serial: The serial of the snapshot this index is, when the hosts it matched for a
    ///     host may be remembered in `scratch` for the next request.
    func collectCandidates(for request: IncomingRequest, allHosts: Bool, serial: UInt64? = nil, into scratch: inout Scratch) {
        scratch.candidates.removeAll(keepingCapacity: true)
        scratch.matchedGroups.removeAll(keepingCapacity: true)
        scratch.steps = 0
        if allHosts {
            scratch.hostsKey = nil
            scratch.matchedHosts.removeAll(keepingCapacity: true)
            scratch.matchedHosts.append(contentsOf: pathTries.indices)
        } else {
            collectHosts(request.host, serial: serial, into: &scratch)
        }
        // Only origin-form paths match (`OPTIONS *` names no resource).
        if !scratch.matchedHosts.isEmpty {
            collectGroups(request.path, hosts: scratch.matchedHosts, into: &scratch)
        }
        var requestQuery: [String: [String]]?
        for group in scratch.matchedGroups {
            for id in groups[group].ids {
                if let query = routes[id].query {
                    if requestQuery == nil { requestQuery = request.queryValues }
                    guard query.matches(requestQuery!) else { continue }
                }
                scratch.candidates.append(id)
            }
        }
        if scratch.candidates.count > 1 {
            let routes = self.routes
            scratch.candidates.sort { routes[$0].rank < routes[$1].rank }
            // A route reached along several `**` paths is listed once (equal ids are adjacent).
            var previous = -1
            scratch.candidates.removeAll { id in
                defer { previous = id }
                return id == previous
            }
        }
    }

    /// The path tries whose host pattern matches `host`, into `scratch.matchedHosts`; kept
    /// there for the next request on this thread when `serial` names this index's snapshot.
    func collectHosts(_ host: String, serial: UInt64? = nil, into scratch: inout Scratch) {
        if let serial, let key = scratch.hostsKey, key.serial == serial, key.host == host {
            scratch.steps += scratch.hostSteps
            return
        }
        scratch.matchedHosts.removeAll(keepingCapacity: true)
        SegmentView.with(host, separator: UInt8(ascii: "."), ranges: &scratch.labelRanges) { labels in
            hostTrie.collectMatches(labels, into: &scratch.matchedHosts, scratch: &scratch.match)
        }
        scratch.hostSteps = scratch.match.steps
        scratch.steps += scratch.match.steps
        scratch.hostsKey = serial.map { ($0, host) }
    }

    /// The route groups whose path pattern, under one of `hosts`, matches `path`, into
    /// `scratch.matchedGroups`. Only origin-form paths match (`OPTIONS *` names no resource).
    func collectGroups(_ path: String, hosts: [Int], into scratch: inout Scratch) {
        guard path.utf8.first == UInt8(ascii: "/") else { return }
        SegmentView.with(path, skipping: 1, separator: UInt8(ascii: "/"), ranges: &scratch.segmentRanges) { segments in
            for pathTrie in hosts {
                pathTries[pathTrie].collectMatches(segments, into: &scratch.matchedGroups, scratch: &scratch.match)
                scratch.steps += scratch.match.steps
            }
        }
    }
}
