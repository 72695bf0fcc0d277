/// The answer to a request; `sequence` is its number in the journal.
package enum MatchOutcome: Sendable {
    /// A stub matched; serve this response.
    case matched(MockResponse, stub: StubDescription, sequence: Int)
    /// Nothing matched; act on the policy. The message names the request and how to stub it.
    case unmatched(UnmockedPolicy, message: String, sequence: Int)
}
