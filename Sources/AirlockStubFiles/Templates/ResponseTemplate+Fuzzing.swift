import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation

/// A response template (``ResponseTemplate``) parsed from any text and rendered for a request,
/// for the fuzz harness in `Fuzz/` (`FuzzTemplates`). Not API: the `Fuzzing` SPI may change at
/// any time.
@_spi(Fuzzing)
public struct FuzzedTemplate: Sendable {
    private let template: ResponseTemplate

    /// Why a template does not parse: ``ResponseTemplate/ParseError``. Not API.
    @_spi(Fuzzing)
    public struct ParseFailure: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the expression.
        public let problem: String
        /// What would be valid.
        public let expected: String
        /// `problem (expected …)`.
        public var description: String { "\(problem) (expected \(expected))" }
    }

    /// How inserted values are written (``ResponseTemplate/Escaping``). Not API.
    @_spi(Fuzzing)
    public enum Escaping: CaseIterable, Sendable {
        /// As they are.
        case none
        /// As the content of a JSON string.
        case jsonString
        /// As Handlebars writes `{{…}}`.
        case html
    }

    /// Parses a template as a stub file or a WireMock mapping does. Not API.
    /// - Throws: ``ParseFailure``, the template parser's only error.
    public init(_ text: String) throws(ParseFailure) {
        do {
            template = try ResponseTemplate(text)
        } catch {
            throw ParseFailure(problem: error.problem, expected: error.expected)
        }
    }

    /// Whether the template renders as its own text: no expression, comment or `~` (``ResponseTemplate/isConstant``). Not API.
    public var isConstant: Bool { template.isConstant }

    /// Renders the template for a request given as a server receives it (see
    /// `MockRegistry.respond(method:target:host:headers:body:)`). Not API.
    /// - Returns: The text, or `nil` when the target cannot be parsed.
    public func render(
        method: String,
        target: String,
        host: String?,
        headers: [String: String] = [:],
        body: Data? = nil,
        escaping: Escaping = .none,
        now: Date = Date(timeIntervalSince1970: 1_700_000_000)
    ) -> String? {
        guard var incoming = IncomingRequest(method: method, target: target, hostHeader: host) else { return nil }
        incoming.headers = headers.map { (name: $0.key, value: $0.value) }
        incoming.body = body
        let request = RecordedRequest(sequence: 0, request: incoming, date: now)
        let mode: ResponseTemplate.Escaping =
            switch escaping {
            case .none: .none
            case .jsonString: .jsonString
            case .html: .html
            }
        return template.render(request, escaping: mode, now: now)
    }
}
