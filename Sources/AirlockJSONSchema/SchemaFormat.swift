import AirlockBase
import Foundation

/// The `format`s a validator checks: JSON Schema's (RFC 3339 dates and times, `email`, `uuid`,
/// `uri`, `uri-reference`, `ipv4`, `ipv6`, `hostname`, `regex`) and OpenAPI's (`int32`, `int64`,
/// `float`, `double`, `byte`, `binary`). Other formats are not checked, and `hostname` checks
/// RFC 1123's syntax only: an `xn--` label is not decoded to check it against IDNA 2008.
enum SchemaFormat {
    /// Whether `value` has the format; `nil` when the format is unknown or does not apply to the
    /// value's type (`date` says nothing about a number).
    static func check(_ format: String, _ value: JSONValue) -> Bool? {
        switch value {
        case .number(let number): return checkNumber(format, number)
        case .string(let text): return checkString(format, text)
        default: return nil
        }
    }

    /// Whether an integer's text (`-9223372036854775808`) has an integer format, exactly; `nil`
    /// for other formats.
    static func checkInteger(_ format: String, _ text: String) -> Bool? {
        switch format {
        case "int32": Int32(text) != nil
        case "int64": Int64(text) != nil
        default: nil
        }
    }

    private static func checkNumber(_ format: String, _ number: Double) -> Bool? {
        switch format {
        case "int32": number == number.rounded() && number >= Double(Int32.min) && number <= Double(Int32.max)
        case "int64": number == number.rounded() && number >= -9_223_372_036_854_775_808 && number < 9_223_372_036_854_775_808
        case "float": number.isFinite && abs(number) <= Double(Float.greatestFiniteMagnitude)
        case "double": number.isFinite
        default: nil
        }
    }

    private static func checkString(_ format: String, _ text: String) -> Bool? {
        switch format {
        case "date-time": isDateTime(text)
        case "date": isDate(Substring(text))
        case "time": isTime(Substring(text))
        case "email": isEmail(text)
        case "uuid": isUUID(text)
        case "uri": isURI(text, absolute: true)
        case "uri-reference": isURI(text, absolute: false)
        case "ipv4": isIPv4(Substring(text))
        case "ipv6": isIPv6(text)
        case "hostname": isHostname(text)
        case "regex": (try? ECMARegex(text)) != nil
        case "byte": isBase64(text)
        case "binary": true
        default: nil
        }
    }

    // MARK: - RFC 3339

    static func isDateTime(_ text: String) -> Bool {
        guard let separator = text.firstIndex(where: { $0 == "T" || $0 == "t" }) else { return false }
        return isDate(text[..<separator]) && isTime(text[text.index(after: separator)...])
    }

    /// `full-date`: `2024-02-29`, the day within its month.
    static func isDate(_ text: Substring) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, let year = digits(parts[0], count: 4), let month = digits(parts[1], count: 2),
              let day = digits(parts[2], count: 2), (1...12).contains(month), day >= 1
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    /// `full-time`: `23:59:60.5+01:00`; a leap second only where the time is 23:59 in UTC.
    static func isTime(_ text: Substring) -> Bool {
        var body = text
        var offsetMinutes = 0
        if body.last == "Z" || body.last == "z" {
            body = body.dropLast()
        } else {
            guard let sign = body.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return false }
            let offset = body[body.index(after: sign)...].split(separator: ":", omittingEmptySubsequences: false)
            guard offset.count == 2, let hours = digits(offset[0], count: 2), let minutes = digits(offset[1], count: 2),
                  hours < 24, minutes < 60
            else { return false }
            offsetMinutes = (hours * 60 + minutes) * (body[sign] == "+" ? 1 : -1)
            body = body[..<sign]
        }
        if let dot = body.firstIndex(of: ".") {
            let fraction = body[body.index(after: dot)...]
            guard !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else { return false }
            body = body[..<dot]
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hour = digits(parts[0], count: 2), let minute = digits(parts[1], count: 2),
              let second = digits(parts[2], count: 2), hour < 24, minute < 60, second <= 60
        else { return false }
        guard second == 60 else { return true }
        let utc = ((hour * 60 + minute - offsetMinutes) % 1440 + 1440) % 1440
        return utc == 23 * 60 + 59
    }

    private static func digits(_ text: Substring, count: Int) -> Int? {
        guard text.count == count, text.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(text)
    }

    // MARK: - Identifiers

    static func isUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) && $0.allSatisfy(\.isASCII) }
    }

    /// An addr-spec: a dot-atom or quoted local part, and a host name or an address literal
    /// (`[127.0.0.1]`, `[IPv6:::1]`).
    static func isEmail(_ text: String) -> Bool {
        guard let at = text.lastIndex(of: "@") else { return false }
        let local = text[..<at]
        let domain = text[text.index(after: at)...]
        let localIsValid: Bool
        if local.count >= 2, local.first == "\"", local.last == "\"" {
            localIsValid = true
        } else {
            let atext = Set("!#$%&'*+-/=?^_`{|}~")
            localIsValid = !local.isEmpty && !local.hasPrefix(".") && !local.hasSuffix(".") && !local.contains("..")
                && local.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || atext.contains($0) || $0 == ".") }
        }
        guard localIsValid else { return false }
        if domain.hasPrefix("["), domain.hasSuffix("]") {
            let literal = domain.dropFirst().dropLast()
            return literal.hasPrefix("IPv6:") ? isIPv6(String(literal.dropFirst(5))) : isIPv4(literal)
        }
        return isHostname(String(domain))
    }

    /// RFC 1123 host names: dot-separated labels of 1 to 63 letters, digits and hyphens, not
    /// starting or ending with a hyphen, 253 characters at most.
    static func isHostname(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    // MARK: - Addresses

    /// Four decimal numbers 0–255 without leading zeros.
    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && (part == "0" || !part.hasPrefix("0"))
                && Int(part)! <= 255
        }
    }

    /// RFC 4291 text forms: eight groups of up to four hex digits, one `::` standing for one or more
    /// zero groups, the last two groups possibly an IPv4 address.
    static func isIPv6(_ text: String) -> Bool {
        guard text.allSatisfy({ $0.isASCII }), !text.contains(":::") else { return false }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        var groups = 0
        for (position, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                let isLast = position == halves.count - 1 && index == parts.count - 1
                if isLast, part.contains(".") {
                    guard isIPv4(part) else { return false }
                    groups += 2
                } else {
                    guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit) else { return false }
                    groups += 1
                }
            }
        }
        return halves.count == 2 ? groups < 8 : groups == 8
    }

    // MARK: - URIs and base64

    /// RFC 3986: a URI (with a scheme) or a URI reference, every character one a URI may hold
    /// and every `%` followed by two hex digits.
    static func isURI(_ text: String, absolute: Bool) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%")
        guard text.allSatisfy(allowed.contains) else { return false }
        let scalars = Array(text.utf8)
        for (position, byte) in scalars.enumerated() where byte == UInt8(ascii: "%") {
            guard position + 2 < scalars.count,
                  Character(UnicodeScalar(scalars[position + 1])).isHexDigit,
                  Character(UnicodeScalar(scalars[position + 2])).isHexDigit
            else { return false }
        }
        let reference = URIReference(text)
        if let scheme = reference.scheme {
            guard let first = scheme.first, first.isLetter,
                  scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
            else { return false }
        } else if absolute {
            return false
        } else if let colon = reference.path.firstIndex(of: ":"), !reference.path[..<colon].contains("/") {
            return false
        }
        if let authority = reference.authority, !isAuthority(authority) { return false }
        let rest = reference.path + (reference.query ?? "") + (reference.fragment ?? "")
        return !rest.contains("[") && !rest.contains("]") && !(reference.fragment?.contains("#") ?? false)
    }

    /// `userinfo@host:port`: one `@` at most, a bracketed host an IPv6 address, a port of digits.
    private static func isAuthority(_ authority: String) -> Bool {
        let parts = authority.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.count == 1 || !parts[0].contains(where: { "[]".contains($0) }) else { return false }
        var host = parts.last!
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]"), isIPv6(String(host[host.index(after: host.startIndex)..<close])) else { return false }
            host = host[host.index(after: close)...]
            guard host.isEmpty || host.hasPrefix(":") else { return false }
        } else if host.contains("[") || host.contains("]") {
            return false
        }
        guard let colon = host.lastIndex(of: ":") else { return true }
        return host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit)
    }

    /// RFC 4648 base64 with padding.
    static func isBase64(_ text: String) -> Bool {
        Data(base64Encoded: text) != nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
