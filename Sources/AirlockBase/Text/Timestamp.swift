import Foundation

/// Internet date-times (RFC 3339) as HAR files, journals and templates write them:
/// `2026-11-22T10:00:00.123Z`, in UTC with milliseconds.
package enum Timestamp {
    /// The date in UTC with milliseconds: `2026-11-22T10:00:00.123Z`.
    package static func string(from date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A date-time with or without fractional seconds; `nil` for any other text.
    package static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
