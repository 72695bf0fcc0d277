/// The answer to a request.
package enum MatchOutcome: Sendable {
    /// A stub matched; serve this response.
    case matched(MockResponse, stub: StubDescription)
    /// Nothing matched; act on the policy. The message names the request and how to stub it.
    case unmatched(UnmockedPolicy, message: String)
}
