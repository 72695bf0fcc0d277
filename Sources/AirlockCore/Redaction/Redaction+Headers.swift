import AirlockBase
import Foundation

extension Redaction {
    /// What a hidden header's value becomes: the ``replacement`` — except for cookies, where only
    /// each cookie's value is hidden and names and attributes stay (`Set-Cookie: sid=[REDACTED];
    /// Path=/; HttpOnly`, `Cookie: a=[REDACTED]; b=[REDACTED]`), so a replay still sets and scopes
    /// the cookies the way the server did.
    /// - Parameters:
    ///   - name: The field name (its value is hidden: the caller checked).
    ///   - value: The field value.
    /// - Returns: The value to show or keep.
    func hiddenValue(ofHeader name: String, _ value: String) -> String {
        switch name.lowercased() {
        case "set-cookie":
            // `HTTPURLResponse` joins repeated fields with ", ": each cookie is hidden on its own.
            return Self.setCookies(in: value).map { cookie -> String in
                // name=value; Attribute=…: the first pair is the cookie.
                let end = cookie.firstIndex(of: ";") ?? cookie.endIndex
                guard let equals = cookie[..<end].firstIndex(of: "=") else { return replacement }
                return String(cookie[...equals]) + replacement + String(cookie[end...])
            }.joined(separator: ",")
        case "cookie":
            let pairs = value.split(separator: ";", omittingEmptySubsequences: false).map { pair -> String in
                guard let equals = pair.firstIndex(of: "=") else { return pair.trimmingCharacters(in: .whitespaces).isEmpty ? String(pair) : replacement }
                return String(pair[...equals]) + replacement
            }
            return pairs.joined(separator: ";")
        default:
            return replacement
        }
    }

    /// The cookies of a `Set-Cookie` value that may be several joined with `,` — a comma starts
    /// another cookie only where `name=` follows it (the comma in `Expires=Wed, 21 Oct …` does not).
    static func setCookies(in value: String) -> [Substring] {
        var cookies: [Substring] = []
        var start = value.startIndex
        var index = value.startIndex
        while let comma = value[index...].firstIndex(of: ",") {
            let next = value[value.index(after: comma)...]
            let name = next.drop { $0 == " " }.prefix { $0 != "=" && $0 != ";" && $0 != "," }
            let startsCookie = !name.isEmpty && !name.contains(" ") && next.drop { $0 == " " }.dropFirst(name.count).first == "="
            if startsCookie {
                cookies.append(value[start..<comma])
                start = value.index(after: comma)
            }
            index = value.index(after: comma)
        }
        cookies.append(value[start...])
        return cookies
    }
}
