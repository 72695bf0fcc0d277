import AirlockBase

/// What a mock does with a request that no queued response matches.
public enum UnmockedPolicy: Sendable {
    /// Answer `404 Not Found` with a short `text/plain` body that names the request and says how to
    /// stub it. The default.
    case notFound
    /// Return this response for every unmocked request. Its lifetime is ignored: it is served as
    /// if it were `.eternal`.
    case mock(MockResponse)
    /// Send the request to the real network through the mock's passthrough session.
    case passthrough
    /// Stop the process with `fatalError`, naming the request. For strict local runs only: it ends
    /// the whole test process.
    case fatalError
}

extension UnmockedPolicy {
    /// Whether the policy sends the request on to the network.
    package var forwards: Bool {
        if case .passthrough = self { return true }
        return false
    }
}
