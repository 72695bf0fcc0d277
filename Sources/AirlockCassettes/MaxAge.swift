import Foundation

/// How old a cassette may grow before it is recorded again: `30d`, `12h`, `2w`.
///
/// A cassette's age is the time since its oldest entry was recorded. Once it is older than its
/// maximum age, a run that may record records it again, and a run that may not (`CI` set, mode
/// `none`) fails, saying how old it is and how to refresh it:
///
/// ```swift
/// let cassette = try Cassette(contentsOf: url, maxAge: .days(30))
/// ```
///
/// The file keeps it (`"_maxAge": "30d"` in its `log`), so that every later run applies it;
/// `airlock record --max-age 30d` and the `.cassette(maxAge:)` trait set it too.
public struct MaxAge: Hashable, Sendable, CustomStringConvertible {
    /// The age in seconds.
    public let seconds: TimeInterval
    private let spelling: String

    private init(seconds: TimeInterval, spelling: String) {
        self.seconds = seconds
        self.spelling = spelling
    }

    /// A number of days.
    /// - Parameter days: 1 or more.
    /// - Returns: The maximum age.
    public static func days(_ days: Int) -> MaxAge { MaxAge(seconds: Double(max(1, days)) * 86_400, spelling: "\(max(1, days))d") }

    /// A number of hours.
    /// - Parameter hours: 1 or more.
    /// - Returns: The maximum age.
    public static func hours(_ hours: Int) -> MaxAge { MaxAge(seconds: Double(max(1, hours)) * 3_600, spelling: "\(max(1, hours))h") }

    /// A maximum age as the command line and the file spell it: a whole number and a unit —
    /// `s`, `m`, `h`, `d` or `w` — such as `30d`.
    /// - Parameter text: The spelling.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = trimmed.last, let multiplier = Self.units[unit] else { return nil }
        let digits = trimmed.dropLast()
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(digits), count > 0 else { return nil }
        self.init(seconds: Double(count) * multiplier, spelling: "\(count)\(unit)")
    }

    private static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// What a maximum age must look like, for messages.
    static let expected = "a whole number and a unit (s, m, h, d, w), such as 30d"

    /// `30d`, as written.
    public var description: String { spelling }

    /// `45 days`, `3 hours`, `12 minutes`: an age, for messages.
    static func spoken(_ seconds: TimeInterval) -> String {
        let (count, unit): (Int, String) = switch seconds {
        case 172_800...: (Int(seconds / 86_400), "days")
        case 7_200...: (Int(seconds / 3_600), "hours")
        case 120...: (Int(seconds / 60), "minutes")
        default: (Int(seconds), "seconds")
        }
        return "\(count) \(count == 1 ? String(unit.dropLast()) : unit)"
    }
}
