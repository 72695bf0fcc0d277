/// A request as the core sees it, whatever transport it came through (a `URLProtocol`, a loopback
/// server): only the parts matching needs, with no Foundation networking types.
package struct IncomingRequest: Sendable {
    /// A query parameter; repeated names stay separate items.
    package struct QueryItem: Hashable, Sendable {
        package var name: String
        package var value: String?

        package init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// The HTTP method, uppercased.
    package var method: String
    /// The absolute URL as the client sent it, for messages.
    package var url: String
    /// The host, lowercased.
    package var host: String
    /// The percent-decoded path; `/` when the URL has none.
    package var path: String
    /// The query parameters in order.
    package var queryItems: [QueryItem]

    package init(method: String, url: String, host: String, path: String, queryItems: [QueryItem]) {
        self.method = method.uppercased()
        self.url = url
        self.host = host.lowercased()
        self.path = path.isEmpty ? "/" : path
        self.queryItems = queryItems
    }

    /// The query as lists of values per name, each list sorted so that order does not matter.
    var queryValues: [String: [String]] {
        var values: [String: [String]] = [:]
        for item in queryItems {
            values[item.name, default: []].append(item.value ?? "")
        }
        return values.mapValues { $0.sorted() }
    }
}
