import Foundation

/// Internet date-times (RFC 3339) as HAR files, journals and templates write them:
/// `2026-11-22T10:00:00.123Z`, in UTC with milliseconds.
package enum Timestamp {
    /// The date in UTC with milliseconds: `2026-11-22T10:00:00.123Z`.
    package static func string(from date: Date) -> String {
        withMilliseconds.withLock { $0.string(from: date) }
    }

    /// A date-time with or without fractional seconds; `nil` for any other text.
    package static func date(_ text: String) -> Date? {
        withMilliseconds.withLock { $0.date(from: text) } ?? withoutFractions.withLock { $0.date(from: text) }
    }

    // One formatter each, kept: making one (its ICU formatter) cost a recorded exchange more than
    // the rest of its HAR entry. A formatter is not safe to share between threads: each is used
    // under its lock.
    private static let withMilliseconds = Locked(formatter([.withInternetDateTime, .withFractionalSeconds]))
    private static let withoutFractions = Locked(formatter([.withInternetDateTime]))

    private static func formatter(_ options: ISO8601DateFormatter.Options) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = options
        return formatter
    }
}
