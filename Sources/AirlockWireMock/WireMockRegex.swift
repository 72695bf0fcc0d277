import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// A regular expression that must match a whole value, as Java's `Matcher.matches()` does in
/// WireMock (`"matches": "/users/[0-9]+"` does not match `/users/12/posts`).
///
/// The pattern is compiled on its own first, so that a pattern such as `a)|(b` cannot escape
/// the anchors around it, then inside `\A(?:…)\z`.
// @unchecked Sendable: NSRegularExpression is immutable once made and documented as safe to use
// from several threads at once.
struct WireMockRegex: @unchecked Sendable, CustomStringConvertible {
    /// Why a pattern does not compile.
    struct CompileError: Error, Sendable {
        let reason: String
    }

    /// The pattern as written.
    let pattern: String
    private let regex: NSRegularExpression

    /// Compiles `pattern`.
    /// - Parameters:
    ///   - pattern: An ICU regular expression (Java's syntax for what mappings use).
    ///   - options: `.dotMatchesLineSeparators` for WireMock's value matchers (Java's `DOTALL`).
    init(_ pattern: String, options: NSRegularExpression.Options) throws(CompileError) {
        self.pattern = pattern
        do {
            _ = try NSRegularExpression(pattern: pattern, options: options)
            // In free-spacing mode a comment would run on over the closing anchor: end it first.
            let end = options.contains(.allowCommentsAndWhitespace) ? "\n)\\z" : ")\\z"
            regex = try NSRegularExpression(pattern: "\\A(?:" + pattern + end, options: options)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw CompileError(reason: detail ?? "\(error.localizedDescription)")
        }
    }

    /// Whether the whole of `text` matches.
    func matchesWhole(_ text: String) -> Bool {
        regex.rangeOfFirstMatch(in: text, options: [], range: NSRange(location: 0, length: text.utf16.count)).location != NSNotFound
    }

    /// The capture groups' texts when the whole of `text` matches; `nil` when it does not.
    func captures(_ text: String) -> [String]? {
        guard let match = regex.matches(in: text, options: [], range: NSRange(location: 0, length: text.utf16.count)).first else { return nil }
        return (1..<match.numberOfRanges).map { index in
            Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
        }
    }

    var description: String { pattern }
}
