import AirlockBase

extension Mocking {
    /// Queues responses for a path on a host. Each matching request takes the next response.
    ///
    /// ```swift
    /// HTTPMock.shared.addResponses(
    ///     forPath: "/user",
    ///     host: "api.example.com",
    ///     responses: [.encodable(User(id: 1, name: "Alice")), .empty(status: .notFound)]
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - path: A path or path pattern starting with `/`.
    ///   - host: A host or host pattern.
    ///   - queryItems: Query parameters the request must carry; `nil` accepts any query.
    ///   - queryMatching: `.exact` (the default) or `.contains`.
    ///   - responses: The responses, served in order.
    public func addResponses(
        forPath path: String,
        host: String,
        queryItems: [String: String]? = nil,
        queryMatching: QueryMatching = .exact,
        responses: [MockResponse]
    ) {
        registry.register([
            Registration(
                host: host,
                path: path,
                query: queryItems?.mapValues { [$0] },
                queryMatching: queryMatching,
                responses: responses
            )
        ])
    }

    /// Queues responses for a path on a host, for query parameters that repeat (`?id=1&id=2`).
    ///
    /// - Parameters:
    ///   - path: A path or path pattern starting with `/`.
    ///   - host: A host or host pattern.
    ///   - queryItems: The values each parameter must carry, in any order.
    ///   - queryMatching: `.exact` (the default) or `.contains`.
    ///   - responses: The responses, served in order.
    public func addResponses(
        forPath path: String,
        host: String,
        queryItems: [String: [String]],
        queryMatching: QueryMatching = .exact,
        responses: [MockResponse]
    ) {
        registry.register([
            Registration(host: host, path: path, query: queryItems, queryMatching: queryMatching, responses: responses)
        ])
    }

    /// Queues responses for a path on a host, listed in a builder block.
    ///
    /// ```swift
    /// HTTPMock.shared.addResponses(forPath: "/user", host: "api.example.com") {
    ///     MockResponse.encodable(User(id: 1, name: "Alice"))
    ///     MockResponse.empty(status: .notFound)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: A path or path pattern starting with `/`.
    ///   - host: A host or host pattern.
    ///   - queryItems: Query parameters the request must carry; `nil` accepts any query.
    ///   - queryMatching: `.exact` (the default) or `.contains`.
    ///   - responses: The responses, served in order.
    public func addResponses(
        forPath path: String,
        host: String,
        queryItems: [String: String]? = nil,
        queryMatching: QueryMatching = .exact,
        @MockResponseBuilder _ responses: () -> [MockResponse]
    ) {
        addResponses(
            forPath: path,
            host: host,
            queryItems: queryItems,
            queryMatching: queryMatching,
            responses: responses()
        )
    }

    /// Queues responses for requests that also satisfy a matcher: only `POST`, only with this JSON
    /// body, only with this header.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/users", host: "api.example.com", requiring: .post && .json(#"{"name":"Alice"}"#)) {
    ///     MockResponse.empty(status: .created)
    /// }
    /// ```
    ///
    /// A stub with a requirement beats one without at the same pattern specificity, so a general
    /// stub for the path can still answer everything else.
    ///
    /// - Parameters:
    ///   - path: A path or path pattern starting with `/`.
    ///   - host: A host or host pattern.
    ///   - queryItems: Query parameters the request must carry; `nil` accepts any query.
    ///   - queryMatching: `.exact` (the default) or `.contains`.
    ///   - requirement: What else the request must satisfy.
    ///   - responses: The responses, served in order.
    public func addResponses(
        forPath path: String,
        host: String,
        queryItems: [String: String]? = nil,
        queryMatching: QueryMatching = .exact,
        requiring requirement: RequestMatcher,
        @MockResponseBuilder _ responses: () -> [MockResponse]
    ) {
        register(path, host, queryItems, queryMatching, requirement, scenario: nil, responses())
    }

    /// Queues responses that answer only while a scenario is in a state, and may move it on:
    /// flows such as "after `POST /cart`, `GET /cart` has one item", whatever order the code
    /// under test calls in.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/cart", host: "shop.example.com", requiring: .post,
    ///                   scenario: ScenarioStep("cart", when: ScenarioStep.started, then: "item added")) {
    ///     MockResponse.empty(status: .created)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: A path or path pattern starting with `/`.
    ///   - host: A host or host pattern.
    ///   - queryItems: Query parameters the request must carry; `nil` accepts any query.
    ///   - queryMatching: `.exact` (the default) or `.contains`.
    ///   - requirement: What else the request must satisfy, such as `.post`; `nil` for nothing.
    ///   - scenario: The state the stub needs and the state it moves to.
    ///   - responses: The responses, served in order.
    public func addResponses(
        forPath path: String,
        host: String,
        queryItems: [String: String]? = nil,
        queryMatching: QueryMatching = .exact,
        requiring requirement: RequestMatcher? = nil,
        scenario: ScenarioStep,
        @MockResponseBuilder _ responses: () -> [MockResponse]
    ) {
        register(path, host, queryItems, queryMatching, requirement, scenario: scenario, responses())
    }

    /// One stub with single-valued query items, a requirement and a scenario step.
    private func register(
        _ path: String,
        _ host: String,
        _ queryItems: [String: String]?,
        _ queryMatching: QueryMatching,
        _ requirement: RequestMatcher?,
        scenario: ScenarioStep?,
        _ responses: [MockResponse]
    ) {
        registry.register([
            Registration(
                host: host,
                path: path,
                query: queryItems?.mapValues { [$0] },
                queryMatching: queryMatching,
                requirement: requirement,
                scenario: scenario,
                responses: responses
            )
        ])
    }

    /// Registers hosts, paths, headers and responses declared with the DSL.
    ///
    /// ```swift
    /// HTTPMock.shared.registerResponses {
    ///     Host("api.example.com") {
    ///         Headers(["X-Env": "Test"], cascade: true)
    ///         Path("/user") {
    ///             MockResponse.encodable(User(id: 1, name: "Alice"))
    ///             MockResponse.empty(status: .notFound)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter hosts: The hosts to register.
    public func registerResponses(@RegistrationBuilder _ hosts: () -> [Host]) {
        registry.register(hosts().flatMap(\.registrations))
    }
}
