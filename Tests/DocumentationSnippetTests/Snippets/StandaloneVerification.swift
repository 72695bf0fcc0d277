import HTTPMock
import HTTPMockTesting

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this). Compiled, not run.

// Verification.md.
func verification(mock: HTTPMock) {
    mock.verify(.post && .path("/users") && .json(#"{"name":"Alice"}"#), .exactly(1))
    mock.verify(.path("/analytics/**"), .never)
    mock.verify(.get, .atLeast(2))
    mock.verify(.delete, .atMost(1))
    mock.verifyAllStubsUsed()          // fails listing stubs that never served
    mock.verifyNoUnmatchedRequests()   // the strict check: one failure per unmatched request, with its diagnostic
}
