import MockServer

// A sample that shows its imports is compiled in a file with exactly those imports, so that it
// compiles as a reader's own file would (CodeBlockTests checks this). Compiled, not run.

// ServingMocksOverASocket.md, README.md.
func servingOverASocket() async throws {
    let server = MockServer()                   // binds 127.0.0.1, port 0 (a free one)
    server.addResponses(forPath: "/users", host: "**") { MockResponse.plaintext("[]") }
    try await server.start()
    // GET \(server.baseURL)/users → 200 "[]"
    try await server.shutdown()
}
