/// RFC 3339 timestamps and `1.5s` durations as proto3's JSON mapping writes and reads them.
enum TimestampText {
    /// `2024-05-01T10:00:20.021Z`: UTC, with 0, 3, 6 or 9 fraction digits.
    static func format(seconds: Int64, nanos: Int32) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(days: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2) + ":"
            + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2) + fraction(nanos) + "Z"
    }

    /// `.021`, `.021000001` or nothing: 0, 3, 6 or 9 digits.
    static func fraction(_ nanos: Int32) -> String {
        guard nanos != 0 else { return "" }
        if nanos % 1_000_000 == 0 { return "." + pad(Int64(nanos / 1_000_000), 3) }
        if nanos % 1000 == 0 { return "." + pad(Int64(nanos / 1000), 6) }
        return "." + pad(Int64(nanos), 9)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.f…]` and `Z` or `±HH:MM`.
    static func parse(_ text: String) -> (Int64, Int32)? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard let year = digits(0, 4), bytes[4] == UInt8(ascii: "-"), let month = digits(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = digits(8, 2), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), let hour = digits(11, 2),
            bytes[13] == UInt8(ascii: ":"), let minute = digits(14, 2), bytes[16] == UInt8(ascii: ":"), let second = digits(17, 2),
            year >= 1, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var nanos: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var count = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                guard count < 9 else { return nil }
                nanos = nanos * 10 + Int64(bytes[index] - 48)
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<9 { nanos *= 10 }
        }
        guard index < bytes.count else { return nil }
        var offset: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let hours = digits(index + 1, 2), bytes[index + 3] == UInt8(ascii: ":"),
                let minutes = digits(index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return (seconds, Int32(nanos))
    }

    /// `-1.5s`: seconds with up to 9 fraction digits, and `s`.
    static func parseDuration(_ text: String) -> (Int64, Int32)? {
        var bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.count <= 32, bytes.removeLast() == UInt8(ascii: "s") else { return nil }
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes.removeFirst() }
        var seconds: Int64 = 0
        var nanos: Int64 = 0
        var index = 0
        var count = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
            guard count < 12 else { return nil }
            seconds = seconds * 10 + Int64(bytes[index] - 48)
            index += 1
            count += 1
        }
        guard count > 0 else { return nil }
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: ".") else { return nil }
            index += 1
            var fraction = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                guard fraction < 9 else { return nil }
                nanos = nanos * 10 + Int64(bytes[index] - 48)
                fraction += 1
                index += 1
            }
            guard fraction > 0, index == bytes.count else { return nil }
            for _ in fraction..<9 { nanos *= 10 }
        }
        return negative ? (-seconds, Int32(-nanos)) : (seconds, Int32(nanos))
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day since 1970-01-01 (`civil_from_days`).
    static func civil(days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
