import AirlockBase

/// A host in the registration DSL, holding the paths mocked on it.
///
/// The host may be exact (`api.example.com`) or a pattern: `*` matches one label
/// (`*.example.com`), `**` matches zero or more (`**.example.com`), and `*` inside a label matches
/// within it (`api-*.example.com`). Hosts compare case-insensitively.
///
/// ```swift
/// HTTPMock.shared.registerResponses {
///     Host("api.example.com") {
///         Path("/user") {
///             MockResponse.encodable(User(id: 1, name: "Alice"))
///         }
///     }
/// }
/// ```
public struct Host: Sendable {
    /// The host or host pattern.
    public let host: String
    let elements: [HostElement]

    /// Declares a host and its paths.
    /// - Parameters:
    ///   - host: A host name or pattern, without scheme, port or path.
    ///   - content: `Path`s and `Headers` for this host.
    public init(_ host: String, @HostBuilder _ content: () -> [HostElement]) {
        self.host = host
        self.elements = content()
    }

    /// The stubs this host declares, with their inherited headers folded into each response.
    package var registrations: [Registration] {
        var headers: [Headers] = []
        var paths: [Path] = []
        for element in elements {
            switch element.kind {
            case .headers(let value): headers.append(value)
            case .path(let value): paths.append(value)
            }
        }
        // A host has no responses of its own: its non-cascading headers reach the responses of
        // its top-level paths, its cascading ones every path below it.
        let direct = headers.merged()
        let cascading = headers.merged(cascadingOnly: true)
        return paths.flatMap {
            $0.registrations(host: host, parentPath: "", inheritedDirect: direct, inheritedCascading: cascading)
        }
    }
}

/// An element of a `Host` block: a `Path` or `Headers`.
public struct HostElement: Sendable {
    enum Kind: Sendable {
        case path(Path)
        case headers(Headers)
    }

    let kind: Kind
}
