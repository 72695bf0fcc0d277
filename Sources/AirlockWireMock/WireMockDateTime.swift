import AirlockStubFiles
import Foundation

/// A date and time on the wall, without a zone: Java's `LocalDateTime`, which WireMock's date-time
/// matchers compare when a value names no zone (`2021-06-24T00:00:00`, `2021-06-24`).
struct WireMockLocalDateTime: Comparable, Hashable, Sendable {
    var year: Int
    var month: Int
    var day: Int
    var hour = 0
    var minute = 0
    var second = 0
    var nanosecond = 0

    /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar (Java's epoch day).
    static func epochDay(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of an epoch day.
    static func date(epochDay: Int) -> (year: Int, month: Int, day: Int) {
        let z = epochDay + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func length(ofMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Seconds since 1970-01-01T00:00 as if the time were UTC.
    var epochSecond: Int {
        Self.epochDay(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// 1 (Monday) to 7 (Sunday), as Java numbers the days of the week.
    var dayOfWeek: Int {
        let day = Self.epochDay(year: year, month: month, day: day)
        // 1970-01-01 was a Thursday (4).
        return ((day % 7 + 7) % 7 + 3) % 7 + 1
    }

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, nanosecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    /// The wall time of `epochSecond` (seconds since 1970 as if UTC).
    init(epochSecond: Int, nanosecond: Int) {
        let days = epochSecond >= 0 ? epochSecond / 86_400 : (epochSecond - 86_399) / 86_400
        let seconds = epochSecond - days * 86_400
        let (year, month, day) = Self.date(epochDay: days)
        self.init(year: year, month: month, day: day, hour: seconds / 3_600, minute: seconds % 3_600 / 60, second: seconds % 60, nanosecond: nanosecond)
    }

    static func < (a: Self, b: Self) -> Bool {
        let first = (a.year, a.month, a.day, a.hour, a.minute, a.second)
        let second = (b.year, b.month, b.day, b.hour, b.minute, b.second)
        return first == second ? a.nanosecond < b.nanosecond : first < second
    }

    /// The same wall time `count` days, months or years on (a day past the month's end is its
    /// last day), as Java's `plus`.
    func adding(_ count: Int, _ unit: WireMockDateTimeUnit) -> WireMockLocalDateTime {
        switch unit {
        case .seconds, .minutes, .hours:
            let seconds = count * (unit == .seconds ? 1 : unit == .minutes ? 60 : 3_600)
            return WireMockLocalDateTime(epochSecond: epochSecond + seconds, nanosecond: nanosecond)
        case .days:
            return WireMockLocalDateTime(epochSecond: epochSecond + count * 86_400, nanosecond: nanosecond)
        case .months, .years:
            let months = year * 12 + (month - 1) + (unit == .months ? count : count * 12)
            var copy = self
            copy.year = months >= 0 ? months / 12 : (months - 11) / 12
            copy.month = months - copy.year * 12 + 1
            copy.day = min(day, Self.length(ofMonth: copy.month, year: copy.year))
            return copy
        }
    }
}

/// A zone: a fixed offset from UTC (`+01:00`, `Z`) or a region whose offset changes (`Europe/Paris`).
enum WireMockZone: Sendable, Hashable {
    case offset(seconds: Int)
    case region(TimeZone)

    static let utc = WireMockZone.offset(seconds: 0)

    /// The zone the machine runs in, as Java's `ZoneId.systemDefault()`.
    static var system: WireMockZone { .region(TimeZone.current) }

    /// The offset at an instant (seconds since 1970).
    func offset(atEpochSecond second: Int) -> Int {
        switch self {
        case .offset(let seconds): seconds
        case .region(let zone): zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(second)))
        }
    }

    /// The offset of a wall time in this zone (in a gap or an overlap, the offset before it).
    func offset(of local: WireMockLocalDateTime) -> Int {
        let asUTC = local.epochSecond
        let first = offset(atEpochSecond: asUTC)
        let second = offset(atEpochSecond: asUTC - first)
        return first == second ? first : max(first, second)
    }
}

/// An instant with the zone it was written in: Java's `ZonedDateTime`.
struct WireMockZonedDateTime: Sendable, Hashable {
    /// Seconds since 1970-01-01T00:00Z.
    var epochSecond: Int
    var nanosecond: Int
    var zone: WireMockZone

    init(epochSecond: Int, nanosecond: Int, zone: WireMockZone) {
        self.epochSecond = epochSecond
        self.nanosecond = nanosecond
        self.zone = zone
    }

    /// A wall time in a zone; `offset`, when the text gave one, places it.
    init(_ local: WireMockLocalDateTime, zone: WireMockZone, offset: Int? = nil) {
        self.init(epochSecond: local.epochSecond - (offset ?? zone.offset(of: local)), nanosecond: local.nanosecond, zone: zone)
    }

    /// Now, in the machine's zone.
    static func now(in zone: WireMockZone = .system) -> WireMockZonedDateTime {
        let now = Date().timeIntervalSince1970
        let seconds = Int(now.rounded(.down))
        return WireMockZonedDateTime(epochSecond: seconds, nanosecond: Int((now - Double(seconds)) * 1e9), zone: zone)
    }

    /// The wall time in its own zone.
    var local: WireMockLocalDateTime {
        WireMockLocalDateTime(epochSecond: epochSecond + zone.offset(atEpochSecond: epochSecond), nanosecond: nanosecond)
    }

    func compare(_ other: WireMockZonedDateTime) -> Int {
        (epochSecond, nanosecond) < (other.epochSecond, other.nanosecond) ? -1 : (epochSecond, nanosecond) == (other.epochSecond, other.nanosecond) ? 0 : 1
    }

    /// Java's `plus`: seconds, minutes and hours move the instant; days, months and years the wall time.
    func adding(_ count: Int, _ unit: WireMockDateTimeUnit) -> WireMockZonedDateTime {
        switch unit {
        case .seconds, .minutes, .hours:
            let seconds = count * (unit == .seconds ? 1 : unit == .minutes ? 60 : 3_600)
            return WireMockZonedDateTime(epochSecond: epochSecond + seconds, nanosecond: nanosecond, zone: zone)
        case .days, .months, .years:
            return WireMockZonedDateTime(local.adding(count, unit), zone: zone)
        }
    }
}

/// WireMock's units for offsets from now (`now +3 days`, `expectedOffsetUnit`).
enum WireMockDateTimeUnit: String, Sendable, CaseIterable {
    case seconds, minutes, hours, days, months, years
}

/// WireMock's truncations (`truncateExpected`, `truncateActual`): the names the templates'
/// `truncateDate` reads too.
typealias WireMockDateTimeTruncation = DateTruncation

extension DateTruncation {
    /// The wall time truncated in its own zone.
    func apply(_ time: WireMockZonedDateTime) -> WireMockZonedDateTime {
        WireMockZonedDateTime(apply(time.local), zone: time.zone)
    }

    func apply(_ time: WireMockLocalDateTime) -> WireMockLocalDateTime {
        var day = WireMockLocalDateTime(year: time.year, month: time.month, day: time.day)
        switch self {
        case .firstSecondOfMinute: return WireMockLocalDateTime(year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute)
        case .firstMinuteOfHour: return WireMockLocalDateTime(year: time.year, month: time.month, day: time.day, hour: time.hour)
        case .firstHourOfDay: return day
        case .firstDayOfMonth: day.day = 1
        case .firstDayOfNextMonth: day = WireMockLocalDateTime(year: time.year, month: time.month, day: 1).adding(1, .months)
        case .lastDayOfMonth: day.day = WireMockLocalDateTime.length(ofMonth: time.month, year: time.year)
        case .firstDayOfYear: day = WireMockLocalDateTime(year: time.year, month: 1, day: 1)
        case .firstDayOfNextYear: day = WireMockLocalDateTime(year: time.year + 1, month: 1, day: 1)
        case .lastDayOfYear: day = WireMockLocalDateTime(year: time.year, month: 12, day: 31)
        }
        return day
    }
}

/// What a date-time text was read as: each of Java's readings that succeeded.
struct WireMockDateTimeReading: Sendable {
    /// With a zone or offset (`ZonedDateTime.parse`).
    var zoned: WireMockZonedDateTime?
    /// Without one (`LocalDateTime`, else a `LocalDate`, `YearMonth` or `Year` at its first moment).
    var local: WireMockLocalDateTime?

    var isEmpty: Bool { zoned == nil && local == nil }
}
