import Foundation

/// WireMock's date truncations, by their names in lower case with spaces
/// (`"first day of month"`); the upper-case names with underscores are read too. The templates'
/// `truncateDate` and the WireMock date-time matchers (`truncateExpected`, `truncateActual`)
/// share them.
package enum DateTruncation: String, Sendable, CaseIterable {
    case firstSecondOfMinute = "first second of minute"
    case firstMinuteOfHour = "first minute of hour"
    case firstHourOfDay = "first hour of day"
    case firstDayOfMonth = "first day of month"
    case firstDayOfNextMonth = "first day of next month"
    case lastDayOfMonth = "last day of month"
    case firstDayOfYear = "first day of year"
    case firstDayOfNextYear = "first day of next year"
    case lastDayOfYear = "last day of year"

    /// `"first day of month"` or `"FIRST_DAY_OF_MONTH"`, in any case.
    package init?(name: String) {
        self.init(rawValue: name.lowercased().replacingOccurrences(of: "_", with: " "))
    }
}
