import AirlockBase
import Foundation

/// How messages name a stub: `host "api.example.com", path "/users", query contains q=swift`.
package struct StubDescription: Sendable, CustomStringConvertible {
    package let host: String
    package let path: String
    let query: QueryConstraint?
    /// The description of the stub's `requiring:` matcher, if it has one.
    package let requirement: String?
    /// The scenario step the stub belongs to, if any.
    let scenario: ScenarioStep?
    /// The id a format gave the stub (``Registration/stubID``), if any; not part of the
    /// description.
    package let stubID: UUID?

    init(host: String, path: String, query: QueryConstraint?, requirement: String? = nil, scenario: ScenarioStep? = nil, stubID: UUID? = nil) {
        self.host = host
        self.path = path
        self.query = query
        self.requirement = requirement
        self.scenario = scenario
        self.stubID = stubID
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
