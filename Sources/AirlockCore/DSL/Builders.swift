import AirlockBase

/// Builds the hosts of `registerResponses { … }`.
@resultBuilder
public enum RegistrationBuilder {
    /// A host.
    public static func buildExpression(_ host: Host) -> [Host] { [host] }
    /// Several hosts, such as the result of a `for` loop.
    public static func buildExpression(_ hosts: [Host]) -> [Host] { hosts }
    /// The hosts of a block.
    public static func buildBlock(_ components: [Host]...) -> [Host] { components.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ component: [Host]?) -> [Host] { component ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: [Host]) -> [Host] { component }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: [Host]) -> [Host] { component }
    /// A `for` loop.
    public static func buildArray(_ components: [[Host]]) -> [Host] { components.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ component: [Host]) -> [Host] { component }
}

/// Builds the paths and headers of a `Host`.
@resultBuilder
public enum HostBuilder {
    /// A path.
    public static func buildExpression(_ path: Path) -> [HostElement] { [HostElement(kind: .path(path))] }
    /// Headers for the host's paths.
    public static func buildExpression(_ headers: Headers) -> [HostElement] { [HostElement(kind: .headers(headers))] }
    /// The elements of a block.
    public static func buildBlock(_ components: [HostElement]...) -> [HostElement] { components.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ component: [HostElement]?) -> [HostElement] { component ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: [HostElement]) -> [HostElement] { component }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: [HostElement]) -> [HostElement] { component }
    /// A `for` loop.
    public static func buildArray(_ components: [[HostElement]]) -> [HostElement] { components.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ component: [HostElement]) -> [HostElement] { component }
}

/// Builds the responses, headers and nested paths of a `Path`.
@resultBuilder
public enum PathBuilder {
    /// A response to queue.
    public static func buildExpression(_ response: MockResponse) -> [PathElement] { [PathElement(kind: .response(response))] }
    /// Responses to queue, in order.
    public static func buildExpression(_ responses: [MockResponse]) -> [PathElement] {
        responses.map { PathElement(kind: .response($0)) }
    }
    /// Headers for this path's responses.
    public static func buildExpression(_ headers: Headers) -> [PathElement] { [PathElement(kind: .headers(headers))] }
    /// A nested path.
    public static func buildExpression(_ path: Path) -> [PathElement] { [PathElement(kind: .path(path))] }
    /// The elements of a block.
    public static func buildBlock(_ components: [PathElement]...) -> [PathElement] { components.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ component: [PathElement]?) -> [PathElement] { component ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: [PathElement]) -> [PathElement] { component }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: [PathElement]) -> [PathElement] { component }
    /// A `for` loop.
    public static func buildArray(_ components: [[PathElement]]) -> [PathElement] { components.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ component: [PathElement]) -> [PathElement] { component }
}

/// Builds the responses of `addResponses(forPath:host:) { … }`.
@resultBuilder
public enum MockResponseBuilder {
    /// A response to queue.
    public static func buildExpression(_ response: MockResponse) -> [MockResponse] { [response] }
    /// Responses to queue, in order.
    public static func buildExpression(_ responses: [MockResponse]) -> [MockResponse] { responses }
    /// The responses of a block.
    public static func buildBlock(_ components: [MockResponse]...) -> [MockResponse] { components.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ component: [MockResponse]?) -> [MockResponse] { component ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: [MockResponse]) -> [MockResponse] { component }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: [MockResponse]) -> [MockResponse] { component }
    /// A `for` loop.
    public static func buildArray(_ components: [[MockResponse]]) -> [MockResponse] { components.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ component: [MockResponse]) -> [MockResponse] { component }
}
