extension MockServer {
    /// Starts the server, runs `body`, and shuts the server down when `body` returns — or throws,
    /// so that a failing test never leaves a server holding its port.
    ///
    /// ```swift
    /// let server = MockServer()
    /// server.addResponses(forPath: "/users", host: "api.example.com") { MockResponse.plaintext("[]") }
    /// try await server.whileServing {
    ///     // call server.baseURL (http://127.0.0.1:<port>) here
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: The caller's actor, on which `body` runs.
    ///   - body: The work that needs the server; ``baseURL`` and ``port`` are set when it runs.
    /// - Returns: What `body` returns.
    /// - Throws: What ``start()`` throws (then `body` does not run), else what `body` throws, else
    ///   what ``shutdown()`` throws.
    public func whileServing<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try await start()
        let result: Result
        do {
            result = try await body()
        } catch {
            try? await shutdown()
            throw error
        }
        try await shutdown()
        return result
    }
}
