/// How messages name a stub: `host "api.example.com", path "/users", query contains q=swift`.
package struct StubDescription: Sendable, CustomStringConvertible {
    package let host: String
    package let path: String
    let query: QueryConstraint?

    init(host: String, path: String, query: QueryConstraint?) {
        self.host = host
        self.path = path
        self.query = query
    }

    package var description: String {
        var text = "host \"\(host)\", path \"\(path)\""
        if let query {
            text += ", query \(query.matching == .exact ? "exactly" : "contains") " + QueryConstraint.describe(query.values)
        }
        return text
    }
}
