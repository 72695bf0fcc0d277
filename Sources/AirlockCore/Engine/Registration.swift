import AirlockBase
import Foundation

/// One stub to register: a host and path pattern, an optional query constraint, and the responses
/// to queue for them (headers from the DSL already folded in).
package struct Registration: Sendable {
    package var host: String
    package var path: String
    package var query: [String: [String]]?
    package var queryMatching: QueryMatching
    package var responses: [MockResponse]
    /// A condition the request must also meet, beyond host, path and query.
    package var requirement: RequestMatcher?
    /// Whether every response left unserved counts as unused (a cassette's recorded responses),
    /// not only a stub that served nothing.
    package var reportsEachResponse = false
    /// The scenario state the stub needs and moves to, if it is part of one.
    package var scenario: ScenarioStep?
    /// How it ranks against other stubs that match the same request.
    package var precedence = Precedence.specificity
    /// An opaque id a format gives the stub, to replace, find and remove it by its own id
    /// later (see ``MockRegistry/removeStub(id:)`` and ``MockRegistry/stubIDs``). A stub with an
    /// id always gets a queue of its own; registering another with the same id replaces it (the
    /// old one serves nothing more); the journal entry of a request it answers carries the id
    /// (``RecordedRequest/stubID``). What the id stands for stays with the format.
    package var stubID: UUID?

    /// How a stub ranks against the others that match a request.
    package enum Precedence: Sendable, Hashable {
        /// Airlock's rule: the most specific patterns win, then the stub registered first.
        case specificity
        /// An ordering key a format supplies, for formats whose documents rank stubs by a number
        /// of their own: the lowest key wins, then the stub registered last; the patterns'
        /// specificity does not count. Stubs ranked by ``specificity`` count as key 0 and come
        /// before stubs of the same key, so a format maps its own default to 0.
        case key(Int)
    }

    package init(
        host: String,
        path: String,
        query: [String: [String]]? = nil,
        queryMatching: QueryMatching = .exact,
        requirement: RequestMatcher? = nil,
        scenario: ScenarioStep? = nil,
        responses: [MockResponse]
    ) {
        self.requirement = requirement
        self.scenario = scenario
        self.host = host
        self.path = path
        self.query = query
        self.queryMatching = queryMatching
        self.responses = responses
    }

    /// How messages name this stub: `host "api.example.com", path "/users", query contains q=swift`.
    package var stubDescription: String {
        StubDescription(
            host: host,
            path: path,
            query: query.map { QueryConstraint($0, matching: queryMatching) },
            requirement: requirement?.template,
            scenario: scenario
        ).shown(by: .standard)
    }
}
