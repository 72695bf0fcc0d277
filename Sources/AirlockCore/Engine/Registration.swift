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
    /// The identity a format gave the stub, when it registers stubs it finds, lists, replaces and
    /// removes by an id of its own (a WireMock mapping, say). A stub with a source always gets a
    /// queue of its own, and registering another with the same id replaces it.
    package var source: StubSource?

    /// How a stub ranks against the others that match a request.
    package enum Precedence: Sendable, Hashable {
        /// Airlock's rule: the most specific patterns win, then the stub registered first.
        case specificity
        /// An explicit priority: the lowest number wins, then the stub registered last; the
        /// patterns' specificity does not count. Stubs ranked by ``specificity`` count as
        /// priority ``defaultPriority`` and come before stubs of the same explicit priority.
        case priority(Int)

        /// The priority of stubs ranked by ``specificity``, and the one a format gives a stub
        /// whose document names none.
        package static let defaultPriority = 5
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

/// The identity a format gave a stub, and the format's own value for it (a WireMock mapping,
/// say): the registry keeps it beside the stub's route without knowing what it is, so that the
/// format can list, find, update and remove its stubs by their ids.
package struct StubSource: Sendable {
    /// The stub's id, unique among the sources of one registry.
    package let id: UUID
    /// The format's value, handed back by ``MockRegistry/sources(as:)`` and ``MockRegistry/source(id:as:)``.
    package var value: any Sendable

    package init(id: UUID, value: any Sendable) {
        self.id = id
        self.value = value
    }
}
