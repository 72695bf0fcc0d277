#if canImport(CLibXML2)
import AirlockWireMock
import Foundation

/// XMLUnit's placeholders (xmlunit-placeholders 2.9, which WireMock 2.35 uses): an expected text
/// or attribute value that is wholly `${xmlunit.ignore}`, `${xmlunit.isNumber}`,
/// `${xmlunit.matchesRegex(regex)}`, `${xmlunit.isDateTime}` or `${xmlunit.isDateTime(format)}`
/// (between the delimiters the mapping chooses) accepts the values it describes.
// @unchecked Sendable: NSRegularExpression is immutable once made and safe to use from several threads.
struct XMLPlaceholders: @unchecked Sendable {
    private let placeholder: NSRegularExpression

    init(opening: String, closing: String) throws(WireMockXMLEngineError) {
        do {
            placeholder = try NSRegularExpression(pattern: "\\A\\s*(?:" + opening + ")(.+)(?:" + closing + ")\\s*\\z", options: [.dotMatchesLineSeparators])
        } catch {
            throw WireMockXMLEngineError("its placeholder delimiters do not make a regular expression")
        }
    }

    /// What a placeholder asks for.
    enum Keyword {
        case ignore
        case isNumber
        case matchesRegex(String)
        case isDateTime(String?)
    }

    /// The placeholder `text` holds: `nil` for none; a failure for one XMLUnit does not know.
    func keyword(_ text: String) -> Result<Keyword, WireMockXMLEngineError>? {
        let range = NSRange(text.startIndex..., in: text)
        guard let match = placeholder.firstMatch(in: text, range: range), let inner = Range(match.range(at: 1), in: text) else { return nil }
        let content = text[inner].trimmingCharacters(in: .whitespaces)
        var name = content
        var argument: String?
        if content.hasSuffix(")"), let open = content.firstIndex(of: "(") {
            name = content[..<open].trimmingCharacters(in: .whitespaces)
            argument = String(content[content.index(after: open)..<content.index(before: content.endIndex)])
        }
        switch (name, argument) {
        case ("xmlunit.ignore", nil): return .success(.ignore)
        case ("xmlunit.isNumber", nil): return .success(.isNumber)
        case ("xmlunit.matchesRegex", let regex?):
            guard (try? NSRegularExpression(pattern: regex)) != nil else { return .failure(WireMockXMLEngineError("its placeholder \"\(content)\" holds a regular expression that does not compile")) }
            return .success(.matchesRegex(regex))
        case ("xmlunit.isDateTime", let format): return .success(.isDateTime(format.map { $0.trimmingCharacters(in: .whitespaces) }))
        default:
            return .failure(WireMockXMLEngineError("it holds the placeholder \"\(content)\", which XMLUnit does not know (xmlunit.ignore, xmlunit.isNumber, xmlunit.matchesRegex(…), xmlunit.isDateTime)"))
        }
    }

    /// Every placeholder of the expected document, checked when the mapping is read.
    func check(_ nodes: [XMLTree.Node]) throws(WireMockXMLEngineError) {
        for node in nodes {
            switch node {
            case .text(let text):
                if case .failure(let error)? = keyword(text) { throw error }
            case .element(let element):
                for attribute in element.attributes {
                    if case .failure(let error)? = keyword(attribute.value) { throw error }
                }
                try check(element.children)
            default: continue
            }
        }
    }

    /// Whether the expected value is `${xmlunit.ignore}`.
    func ignores(_ control: String) -> Bool {
        if case .success(.ignore)? = keyword(control) { true } else { false }
    }

    /// Whether the expected value is a placeholder that `test` satisfies.
    func accepts(control: String, test: String) -> Bool {
        guard case .success(let keyword)? = keyword(control) else { return false }
        let value = test.trimmingCharacters(in: .whitespacesAndNewlines)
        switch keyword {
        case .ignore:
            return true
        case .isNumber:
            return value.range(of: #"\A[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[dDfF]?\z"#, options: .regularExpression) != nil
        case .matchesRegex(let regex):
            return (try? NSRegularExpression(pattern: "\\A(?:" + regex + ")\\z"))?.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
        case .isDateTime(let format):
            return Self.isDateTime(value, format: format)
        }
    }

    /// XMLUnit's `isDateTime`: the value reads with the given pattern, or as an ISO 8601 or
    /// XML Schema date or date-time.
    static func isDateTime(_ value: String, format: String?) -> Bool {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.isLenient = false
        let patterns = format.map { [$0] } ?? [
            "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX", "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ss",
            "yyyy-MM-dd'T'HH:mmXXXXX", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-ddXXXXX", "yyyy-MM-dd",
        ]
        for pattern in patterns {
            formatter.dateFormat = pattern
            if formatter.date(from: value) != nil { return true }
        }
        return false
    }
}
#endif
