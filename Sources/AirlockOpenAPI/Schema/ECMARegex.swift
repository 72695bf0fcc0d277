import Foundation

/// A JSON Schema `pattern`: an ECMA-262 regular expression, run by `NSRegularExpression` (ICU)
/// after translating where the two differ, and matched anywhere in the text (not anchored).
///
/// Translated: `\d`, `\D`, `\w`, `\W` match ASCII only, as in ECMA-262 (ICU's match any script's
/// digits and letters); `$` outside a class matches only at the very end (ICU's also matches
/// before a final line break); `\u{1F600}` is written `\x{1F600}`. ICU reads `\p{Letter}`,
/// `\p{L}`, `\p{Script=Greek}` as ECMA-262 does with its `u` flag.
///
/// Not translated: `[^]` and `[]` (ICU refuses them), `\D` and `\W` inside a class (ICU's
/// Unicode meaning), `\b` (Unicode word characters in ICU), and ECMA-262's non-`u` quirks such
/// as `\a` meaning `a`. A pattern ICU cannot compile is a ``CompileError``.
// @unchecked Sendable: NSRegularExpression is immutable once made and documented as safe to use
// from several threads at once.
struct ECMARegex: @unchecked Sendable {
    /// Why a pattern does not compile.
    struct CompileError: Error, Sendable {
        let reason: String
    }

    /// The pattern as written.
    let pattern: String
    private let regex: NSRegularExpression

    /// Compiles `pattern`.
    init(_ pattern: String) throws(CompileError) {
        self.pattern = pattern
        do {
            regex = try NSRegularExpression(pattern: Self.translated(pattern))
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw CompileError(reason: detail ?? "\(error.localizedDescription)")
        }
    }

    /// Whether the pattern matches somewhere in `text`.
    func matches(_ text: String) -> Bool {
        regex.rangeOfFirstMatch(in: text, options: [], range: NSRange(location: 0, length: text.utf16.count)).location != NSNotFound
    }

    /// The ICU spelling of an ECMA-262 pattern.
    static func translated(_ pattern: String) -> String {
        var output = ""
        var inClass = false
        var characters = pattern.makeIterator()
        while let character = characters.next() {
            switch character {
            case "\\":
                guard let escaped = characters.next() else {
                    output.append("\\")
                    continue
                }
                switch (escaped, inClass) {
                case ("d", false): output += "[0-9]"
                case ("D", false): output += "[^0-9]"
                case ("w", false): output += "[A-Za-z0-9_]"
                case ("W", false): output += "[^A-Za-z0-9_]"
                case ("d", true): output += "0-9"
                case ("w", true): output += "A-Za-z0-9_"
                case ("u", _):
                    output += "\\u"
                    if let next = characters.next() {
                        output = next == "{" ? String(output.dropLast()) + "x{" : output + String(next)
                    }
                default: output += "\\" + String(escaped)
                }
            case "[" where !inClass:
                inClass = true
                output.append(character)
            case "]" where inClass:
                inClass = false
                output.append(character)
            case "$" where !inClass:
                output += "(?!(?s:.))"
            default:
                output.append(character)
            }
        }
        return output
    }
}
