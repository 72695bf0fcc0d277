import AirlockBase
import Foundation

/// How messages name a stub: `host "api.example.com", path "/users", query contains q=swift`.
package struct StubDescription: Sendable, CustomStringConvertible {
    package let host: String
    package let path: String
    /// What only some stubs have, out of line: a stub without any is two strings to copy.
    private let details: Details?

    /// A stub's query constraint, `requiring:` matcher, scenario step and id; shared by every
    /// description of one route (made once, when it is registered).
    final class Details: Sendable {
        let query: QueryConstraint?
        let requirement: String?
        let scenario: ScenarioStep?
        let stubID: UUID?

        /// The details, or `nil` when there are none.
        static func make(query: QueryConstraint?, requirement: String?, scenario: ScenarioStep?, stubID: UUID?) -> Details? {
            query == nil && requirement == nil && scenario == nil && stubID == nil
                ? nil : Details(query: query, requirement: requirement, scenario: scenario, stubID: stubID)
        }

        private init(query: QueryConstraint?, requirement: String?, scenario: ScenarioStep?, stubID: UUID?) {
            self.query = query
            self.requirement = requirement
            self.scenario = scenario
            self.stubID = stubID
        }
    }

    var query: QueryConstraint? { details?.query }
    /// The description of the stub's `requiring:` matcher, if it has one.
    package var requirement: String? { details?.requirement }
    /// The scenario step the stub belongs to, if any.
    var scenario: ScenarioStep? { details?.scenario }
    /// The id a format gave the stub (``Registration/stubID``), if any; not part of the
    /// description.
    package var stubID: UUID? { details?.stubID }

    init(host: String, path: String, query: QueryConstraint?, requirement: String? = nil, scenario: ScenarioStep? = nil, stubID: UUID? = nil) {
        self.init(host: host, path: path, details: .make(query: query, requirement: requirement, scenario: scenario, stubID: stubID))
    }

    init(host: String, path: String, details: Details?) {
        self.host = host
        self.path = path
        self.details = details
    }

    /// The description with marked values shown as `redaction` allows.
    package func shown(by redaction: Redaction) -> String {
        redaction.render(description)
    }

    /// The description, values marked for the output pass (see ``Redaction/render(_:)``).
    package var description: String {
        var text = "host \"\(host)\", path \"\(path)\""
        if let query {
            text += ", query \(query.matching == .exact ? "exactly" : "contains") " + QueryConstraint.describe(query.values)
        }
        if let requirement {
            text += ", requiring \(requirement)"
        }
        if let scenario {
            text += ", \(scenario)"
        }
        return text
    }
}
