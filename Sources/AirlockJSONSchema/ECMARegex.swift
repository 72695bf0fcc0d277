import Foundation

/// A JSON Schema `pattern`: an ECMA-262 regular expression, run by `NSRegularExpression` (ICU)
/// after translating where the two differ, and matched anywhere in the text (not anchored).
///
/// Translated: `\d`, `\D`, `\w`, `\W` match ASCII only, as in ECMA-262 (ICU's match any script's
/// digits and letters); `\s` and `\S` take ECMA-262's white space (with U+FEFF); `$` outside a class matches only at the very end (ICU's also matches
/// before a final line break); `\u{1F600}` is written `\x{1F600}`. ICU reads `\p{Letter}`,
/// `\p{L}`, `\p{Script=Greek}` as ECMA-262 does with its `u` flag.
///
/// `[]` and `[^]` become what ICU spells them. Patterns are read as with ECMA-262's `u` flag:
/// `\a`, `(?i)` and `(?#…)`, which ICU reads and ECMA-262 does not, are refused. Not translated:
/// `\D` and `\W` inside a class (ICU's Unicode meaning) and `\b` (Unicode word characters in
/// ICU). A pattern refused, or that ICU cannot compile (such as a lookbehind of unbounded
/// length, `(?<=a+)b`, which ECMA-262 allows), is a ``CompileError``.
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
        } catch let error as CompileError {
            throw error
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw CompileError(reason: detail ?? "\(error.localizedDescription)")
        }
    }

    /// Whether the pattern matches somewhere in `text`.
    func matches(_ text: String) -> Bool {
        regex.rangeOfFirstMatch(in: text, options: [], range: NSRange(location: 0, length: text.utf16.count)).location != NSNotFound
    }

    /// ECMA-262's `\s`: its WhiteSpace and LineTerminator (ICU's lacks U+000B and U+FEFF).
    private static let whiteSpace = #"\t\n\x{0B}\f\r\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}"#

    /// The ICU spelling of an ECMA-262 pattern.
    /// - Throws: ``CompileError`` for what ICU would read but ECMA-262 (with its `u` flag) refuses:
    ///   an escaped letter ECMA-262 gives no meaning (`\a`), and groups it has no syntax for
    ///   (`(?i)`, `(?#…)`, Python's `(?P<name>…)`).
    static func translated(_ pattern: String) throws(CompileError) -> String {
        var output = ""
        var inClass = false
        let characters = Array(pattern)
        var position = 0
        func next() -> Character? {
            defer { position += 1 }
            return position < characters.count ? characters[position] : nil
        }
        while let character = next() {
            switch character {
            case "\\":
                guard let escaped = next() else {
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
                case ("s", false): output += "[" + Self.whiteSpace + "]"
                case ("S", false): output += "[^" + Self.whiteSpace + "]"
                case ("s", true): output += Self.whiteSpace
                case ("u", _) where position < characters.count && characters[position] == "{":
                    output += "\\x"
                case _ where escaped.isLetter && escaped.isASCII && !"dDwWsSbBnrtfvcxupPk".contains(escaped):
                    throw CompileError(reason: "\\\(escaped) is not an escape of ECMA-262")
                default: output += "\\" + String(escaped)
                }
            case "(" where !inClass && position < characters.count && characters[position] == "?":
                let rest = String(characters[(position + 1)...].prefix(2))
                guard rest.hasPrefix(":") || rest.hasPrefix("=") || rest.hasPrefix("!") || rest.hasPrefix("<") else {
                    throw CompileError(reason: "(?\(rest.prefix(1)) is not a group of ECMA-262")
                }
                output.append(character)
            case "[" where !inClass:
                // ECMA-262's `[]` matches nothing and `[^]` anything; ICU refuses both.
                if position < characters.count, characters[position] == "]" {
                    output += "(?!)"
                    position += 1
                } else if position + 1 < characters.count, characters[position] == "^", characters[position + 1] == "]" {
                    output += "[\\s\\S]"
                    position += 2
                } else {
                    inClass = true
                    output.append(character)
                }
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
