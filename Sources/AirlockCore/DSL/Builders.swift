import AirlockBase

/// The one result builder of the DSL, for every kind of element a block lists: the hosts of
/// `registerResponses { … }`, the paths and headers of a ``Host``, the responses, headers and
/// nested paths of a ``Path``, and the responses of `addResponses(forPath:host:) { … }`.
///
/// A block may use `if`, `if`/`else`, `switch`, `for` loops and `if #available`. Each kind of
/// block has a name of its own — ``RegistrationBuilder``, ``HostBuilder``, ``PathBuilder`` and
/// ``MockResponseBuilder`` — for your own helper functions:
///
/// ```swift
/// @MockResponseBuilder
/// func pages() -> [MockResponse] {
///     for page in 1...3 { MockResponse.plaintext("page \(page)") }
/// }
/// ```
@resultBuilder
public enum ElementBuilder<Element> {
    /// One element.
    public static func buildExpression(_ element: Element) -> [Element] { [element] }
    /// Several elements, in order, such as the result of a `for` loop or a helper function.
    public static func buildExpression(_ elements: [Element]) -> [Element] { elements }
    /// The elements of a block.
    public static func buildBlock(_ components: [Element]...) -> [Element] { components.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ component: [Element]?) -> [Element] { component ?? [] }
    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: [Element]) -> [Element] { component }
    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: [Element]) -> [Element] { component }
    /// A `for` loop.
    public static func buildArray(_ components: [[Element]]) -> [Element] { components.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ component: [Element]) -> [Element] { component }
}

extension ElementBuilder where Element == HostElement {
    /// A path of the host.
    public static func buildExpression(_ path: Path) -> [HostElement] { [HostElement(kind: .path(path))] }
    /// Headers for the host's paths.
    public static func buildExpression(_ headers: Headers) -> [HostElement] { [HostElement(kind: .headers(headers))] }
}

extension ElementBuilder where Element == PathElement {
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
}

/// Builds the hosts of `registerResponses { … }`.
public typealias RegistrationBuilder = ElementBuilder<Host>

/// Builds the paths and headers of a ``Host``.
public typealias HostBuilder = ElementBuilder<HostElement>

/// Builds the responses, headers and nested paths of a ``Path``.
public typealias PathBuilder = ElementBuilder<PathElement>

/// Builds the responses of `addResponses(forPath:host:) { … }`.
public typealias MockResponseBuilder = ElementBuilder<MockResponse>
