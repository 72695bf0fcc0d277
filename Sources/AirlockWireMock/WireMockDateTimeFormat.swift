import Foundation

/// A date-time format in the syntax of Java's `DateTimeFormatter.ofPattern` (`dd/MM/yyyy`,
/// `EEE, dd MMM yyyy HH:mm:ss zzz`), as WireMock's `actualFormat` gives it, and the formats
/// WireMock tries when none is given (ISO 8601, RFC 1123, RFC 1036, asctime). Only parsing:
/// Airlock reads request values with it, never writes dates.
///
/// The pattern letters read are `y u M L d H k K h m s S a E z VV Z X x`, quoted text (`'T'`,
/// `''`) and optional sections (`[...]`); any other letter is refused when the mapping loads.
struct WireMockDateTimeFormat: Sendable {
    /// What a pattern's letters stand for.
    enum Field: Sendable, Hashable {
        case year, month, day, hour, clockHour, hourOfAmPm, clockHourOfAmPm, minute, second, amPm, dayOfWeek
    }

    /// How an offset is written: what zero may be written as, whether a colon separates the hours
    /// and minutes, whether the minutes may be left out, and whether seconds may follow.
    struct OffsetStyle: Sendable {
        var zero: String?
        var colon: Bool
        var minutesOptional: Bool
        var secondsAllowed: Bool
    }

    indirect enum Token: Sendable {
        case literal(String)
        /// Digits, from `min` to `max` of them.
        case number(Field, min: Int, max: Int)
        /// Two digits, the year 2000 to 2099.
        case twoDigitYear
        /// The fraction of a second, from `min` to `max` digits.
        case fraction(min: Int, max: Int)
        /// A name (a month, a day of the week, AM/PM): full or short.
        case text(Field, full: Bool)
        /// A zone's name or ID (`GMT`, `PST`, `Europe/Paris`).
        case zoneName
        /// A zone's ID (`Europe/Paris`, `UTC`).
        case zoneID
        /// `GMT`, or `GMT+01:00`.
        case localizedOffset
        case offset(OffsetStyle)
        case optional([Token])
    }

    /// Why a pattern cannot be read.
    struct PatternError: Error, Sendable {
        let reason: String
    }

    let tokens: [Token]
    /// Names and literals compare ignoring case (the ISO and RFC 1123 formats).
    var caseInsensitive = false
    /// Days past the month's end are an error (Java's `STRICT` resolver, the ISO and RFC 1123
    /// formats); otherwise the day is the month's last (`SMART`, for patterns).
    var strict = false
    /// The zone a text without one is read in (asctime: GMT).
    var defaultZone: WireMockZone?

    /// `unix` (seconds since 1970) or `epoch` (milliseconds), WireMock's two names that are not patterns.
    enum Epoch: Sendable { case seconds, milliseconds }

    // MARK: Reading a pattern

    /// Reads a Java pattern; a letter Airlock does not read throws, naming it.
    init(pattern: String) throws(PatternError) {
        var characters = Array(pattern)[...]
        tokens = try Self.tokens(&characters, nested: false)
    }

    init(tokens: [Token], caseInsensitive: Bool = false, strict: Bool = false, defaultZone: WireMockZone? = nil) {
        self.tokens = tokens
        self.caseInsensitive = caseInsensitive
        self.strict = strict
        self.defaultZone = defaultZone
    }

    private static func tokens(_ characters: inout ArraySlice<Character>, nested: Bool) throws(PatternError) -> [Token] {
        var tokens: [Token] = []
        while let character = characters.first {
            if character == "]" {
                guard nested else { throw PatternError(reason: "has \"]\" without \"[\" before it") }
                characters.removeFirst()
                return tokens
            }
            if character == "[" {
                characters.removeFirst()
                let inner = try Self.tokens(&characters, nested: true)
                tokens.append(.optional(inner))
                continue
            }
            if character == "'" {
                characters.removeFirst()
                var text = ""
                var closed = false
                while let next = characters.first {
                    characters.removeFirst()
                    if next == "'" {
                        if characters.first == "'" {
                            characters.removeFirst()
                            text.append("'")
                            continue
                        }
                        closed = true
                        break
                    }
                    text.append(next)
                }
                guard closed else { throw PatternError(reason: "has a quote (') that is not closed") }
                tokens.append(.literal(text.isEmpty ? "'" : text))
                continue
            }
            if character.isASCII, character.isLetter {
                var count = 0
                while characters.first == character {
                    characters.removeFirst()
                    count += 1
                }
                tokens.append(try token(character, count))
                continue
            }
            if "#{}".contains(character) { throw PatternError(reason: "has \"\(character)\", which Java reserves") }
            characters.removeFirst()
            tokens.append(.literal(String(character)))
        }
        guard !nested else { throw PatternError(reason: "has \"[\" without \"]\" after it") }
        return tokens
    }

    private static func token(_ letter: Character, _ count: Int) throws(PatternError) -> Token {
        func tooMany() -> PatternError { PatternError(reason: "has too many pattern letters \"\(String(repeating: letter, count: count))\"") }
        func numeric(_ field: Field) throws(PatternError) -> Token {
            switch count {
            case 1: return .number(field, min: 1, max: 2)
            case 2: return .number(field, min: 2, max: 2)
            default: throw tooMany()
            }
        }
        switch letter {
        case "y", "u":
            switch count {
            case 2: return .twoDigitYear
            case 1, 3: return .number(.year, min: count, max: 9)
            default:
                guard count <= 9 else { throw tooMany() }
                return .number(.year, min: count, max: count)
            }
        case "M", "L":
            switch count {
            case 1, 2: return try numeric(.month)
            case 3: return .text(.month, full: false)
            case 4: return .text(.month, full: true)
            default: throw PatternError(reason: "has \"\(String(repeating: letter, count: count))\" (narrow month names), which Airlock does not read")
            }
        case "d": return try numeric(.day)
        case "H": return try numeric(.hour)
        case "k": return try numeric(.clockHour)
        case "K": return try numeric(.hourOfAmPm)
        case "h": return try numeric(.clockHourOfAmPm)
        case "m": return try numeric(.minute)
        case "s": return try numeric(.second)
        case "S":
            guard count <= 9 else { throw tooMany() }
            return .fraction(min: count, max: count)
        case "a":
            guard count == 1 else { throw tooMany() }
            return .text(.amPm, full: false)
        case "E":
            switch count {
            case 1, 2, 3: return .text(.dayOfWeek, full: false)
            case 4: return .text(.dayOfWeek, full: true)
            default: throw PatternError(reason: "has \"\(String(repeating: letter, count: count))\" (narrow day names), which Airlock does not read")
            }
        case "z":
            guard count <= 4 else { throw tooMany() }
            return .zoneName
        case "V":
            guard count == 2 else { throw PatternError(reason: "has \"\(String(repeating: letter, count: count))\"; a zone ID is \"VV\"") }
            return .zoneID
        case "Z":
            switch count {
            case 1, 2, 3: return .offset(OffsetStyle(zero: nil, colon: false, minutesOptional: false, secondsAllowed: false))
            case 4: return .localizedOffset
            case 5: return .offset(OffsetStyle(zero: "Z", colon: true, minutesOptional: false, secondsAllowed: true))
            default: throw tooMany()
            }
        case "X", "x":
            let zero: String? = letter == "X" ? "Z" : nil
            switch count {
            case 1: return .offset(OffsetStyle(zero: zero, colon: false, minutesOptional: true, secondsAllowed: false))
            case 2: return .offset(OffsetStyle(zero: zero, colon: false, minutesOptional: false, secondsAllowed: false))
            case 3: return .offset(OffsetStyle(zero: zero, colon: true, minutesOptional: false, secondsAllowed: false))
            case 4: return .offset(OffsetStyle(zero: zero, colon: false, minutesOptional: false, secondsAllowed: true))
            case 5: return .offset(OffsetStyle(zero: zero, colon: true, minutesOptional: false, secondsAllowed: true))
            default: throw tooMany()
            }
        default:
            throw PatternError(reason: "has the pattern letter \"\(letter)\", which Airlock does not read (it reads y u M L d H k K h m s S a E z VV Z X x, 'quoted text' and [optional sections])")
        }
    }

    // MARK: Reading a value

    /// The fields a text gave.
    struct Fields: Sendable {
        var values: [Field: Int] = [:]
        var nanosecond: Int?
        var offset: Int?
        var zone: WireMockZone?

        /// Sets a field; the same field given twice must agree.
        mutating func set(_ field: Field, _ value: Int) -> Bool {
            if let known = values[field] { return known == value }
            values[field] = value
            return true
        }
    }

    /// The fields of `text`, which must be read whole; `nil` when it does not fit the format.
    func fields(_ text: String) -> Fields? {
        let characters = Array(text.unicodeScalars)
        var fields = Fields()
        guard let end = read(tokens[...], characters, from: 0, into: &fields), end == characters.count else { return nil }
        return fields
    }

    private func read(_ tokens: ArraySlice<Token>, _ text: [Unicode.Scalar], from start: Int, into fields: inout Fields) -> Int? {
        var position = start
        var index = tokens.startIndex
        while index < tokens.endIndex {
            let token = tokens[index]
            switch token {
            case .literal(let literal):
                guard let next = match(literal, text, at: position) else { return nil }
                position = next
            case .number(let field, let min, let max):
                // Java's adjacent value parsing: fixed-width numbers right after keep their digits.
                var reserved = 0
                var following = index + 1
                while following < tokens.endIndex {
                    switch tokens[following] {
                    case .number(_, let low, let high) where low == high: reserved += low
                    case .twoDigitYear: reserved += 2
                    case .fraction(let low, let high) where low == high: reserved += low
                    default: following = tokens.endIndex
                    }
                    following += 1
                }
                var digits = 0
                while position + digits < text.count, digits < 18, Self.isDigit(text[position + digits]) { digits += 1 }
                let width = Swift.min(max, digits - (max > min ? reserved : 0))
                guard width >= min, let value = Self.number(text, position, width), fields.set(field, value) else { return nil }
                position += width
            case .twoDigitYear:
                guard let value = Self.number(text, position, 2), fields.set(.year, 2000 + value) else { return nil }
                position += 2
            case .fraction(let min, let max):
                var digits = 0
                while position + digits < text.count, digits < max, Self.isDigit(text[position + digits]) { digits += 1 }
                guard digits >= min else { return nil }
                var nanos = digits == 0 ? 0 : Self.number(text, position, digits) ?? 0
                for _ in digits..<9 { nanos *= 10 }
                if let known = fields.nanosecond, known != nanos { return nil }
                fields.nanosecond = nanos
                position += digits
            case .text(let field, let full):
                let names = Self.names(field, full: full)
                guard let (value, next) = names.lazy.compactMap({ name in self.match(name.text, text, at: position).map { (name.value, $0) } }).first,
                    fields.set(field, value)
                else { return nil }
                position = next
            case .zoneName, .zoneID:
                var namesToo = false
                if case .zoneName = token { namesToo = true }
                guard let (zone, next) = Self.zone(text, at: position, namesToo: namesToo) else { return nil }
                fields.zone = zone
                position = next
            case .localizedOffset:
                guard let next = match("GMT", text, at: position) else { return nil }
                position = next
                if let (offset, after) = Self.offset(text, at: position, style: OffsetStyle(zero: nil, colon: true, minutesOptional: true, secondsAllowed: true)) {
                    fields.offset = offset
                    position = after
                } else {
                    fields.offset = 0
                }
            case .offset(let style):
                if let zero = style.zero, let next = match(zero, text, at: position) {
                    fields.offset = 0
                    position = next
                } else {
                    guard let (offset, next) = Self.offset(text, at: position, style: style) else { return nil }
                    fields.offset = offset
                    position = next
                }
            case .optional(let inner):
                var attempt = fields
                if let next = read(inner[...], text, from: position, into: &attempt) {
                    fields = attempt
                    position = next
                }
            }
            index += 1
        }
        return position
    }

    private func match(_ literal: String, _ text: [Unicode.Scalar], at position: Int) -> Int? {
        var index = position
        for scalar in literal.unicodeScalars {
            guard index < text.count else { return nil }
            let actual = text[index]
            let same = caseInsensitive
                ? String(actual).lowercased() == String(scalar).lowercased()
                : actual == scalar
            guard same else { return nil }
            index += 1
        }
        return index
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func number(_ text: [Unicode.Scalar], _ position: Int, _ width: Int) -> Int? {
        guard width > 0, position + width <= text.count else { return nil }
        var value = 0
        for scalar in text[position..<(position + width)] {
            guard isDigit(scalar) else { return nil }
            value = value * 10 + Int(scalar.value - 48)
        }
        return value
    }

    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    private static let days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// The English names a text field is written with, longest first.
    private static func names(_ field: Field, full: Bool) -> [(text: String, value: Int)] {
        switch field {
        case .month: months.enumerated().map { (text: full ? $1 : String($1.prefix(3)), value: $0 + 1) }
        case .dayOfWeek: days.enumerated().map { (text: full ? $1 : String($1.prefix(3)), value: $0 + 1) }
        default: [(text: "AM", value: 0), (text: "PM", value: 1)]
        }
    }

    /// `+01`, `+0100`, `+01:00`, `+01:00:30` as the style writes it.
    private static func offset(_ text: [Unicode.Scalar], at start: Int, style: OffsetStyle) -> (Int, Int)? {
        guard start < text.count, text[start] == "+" || text[start] == "-" else { return nil }
        let sign = text[start] == "-" ? -1 : 1
        var position = start + 1
        guard let hours = number(text, position, 2), hours <= 18 else { return nil }
        position += 2
        var minutes = 0
        var seconds = 0
        func part(_ position: inout Int) -> Int? {
            var at = position
            if style.colon {
                guard at < text.count, text[at] == ":" else { return nil }
                at += 1
            }
            guard let value = number(text, at, 2), value <= 59 else { return nil }
            position = at + 2
            return value
        }
        if let value = part(&position) {
            minutes = value
            if style.secondsAllowed, let value = part(&position) { seconds = value }
        } else if !style.minutesOptional {
            return nil
        }
        let total = hours * 3_600 + minutes * 60 + seconds
        guard total <= 18 * 3_600 else { return nil }
        return (sign * total, position)
    }

    /// A zone ID (`Europe/Paris`, `UTC`, `GMT`, `Z`), an offset written as an ID (`+01:00`,
    /// `UTC+01:00`), or with `namesToo` an abbreviation (`PST`, `CET`).
    private static func zone(_ text: [Unicode.Scalar], at start: Int, namesToo: Bool) -> (WireMockZone, Int)? {
        var end = start
        while end < text.count, text[end].properties.isAlphabetic || isDigit(text[end]) || "/_-+:".unicodeScalars.contains(text[end]), end - start < 64 {
            end += 1
        }
        // The longest run that names a zone.
        while end > start {
            let name = String(String.UnicodeScalarView(text[start..<end]))
            if let zone = zone(named: name, namesToo: namesToo) { return (zone, end) }
            end -= 1
        }
        return nil
    }

    private static func zone(named name: String, namesToo: Bool) -> WireMockZone? {
        switch name {
        case "Z", "UTC", "GMT", "UT": return .utc
        default: break
        }
        for prefix in ["UTC", "GMT", "UT", ""] where name.hasPrefix(prefix) {
            let rest = Array(name.dropFirst(prefix.count).unicodeScalars)
            if let (seconds, end) = Self.offset(rest, at: 0, style: OffsetStyle(zero: nil, colon: true, minutesOptional: true, secondsAllowed: true)), end == rest.count {
                return .offset(seconds: seconds)
            }
        }
        if name.contains("/"), let zone = TimeZone(identifier: name) { return .region(zone) }
        if namesToo, name.count >= 3, name.allSatisfy(\.isUppercase), let zone = TimeZone(abbreviation: name) { return .region(zone) }
        return nil
    }

    // MARK: Resolving

    /// The date the fields give, checked; `nil` without a year, month and day.
    private func date(_ fields: Fields) -> WireMockLocalDateTime? {
        guard let year = fields.values[.year], let month = fields.values[.month], let day = fields.values[.day] else { return nil }
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        let length = WireMockLocalDateTime.length(ofMonth: month, year: year)
        guard !strict || day <= length else { return nil }
        let date = WireMockLocalDateTime(year: year, month: month, day: min(day, length))
        if let dayOfWeek = fields.values[.dayOfWeek], dayOfWeek != date.dayOfWeek { return nil }
        return date
    }

    /// The time of day; `nil` without an hour. Minutes, seconds and the fraction default to zero.
    private func time(_ fields: Fields) -> (hour: Int, minute: Int, second: Int, nanosecond: Int)? {
        var hour: Int?
        if let value = fields.values[.hour] {
            guard (0...23).contains(value) else { return nil }
            hour = value
        }
        if let value = fields.values[.clockHour] {
            guard (1...24).contains(value), hour == nil || hour == value % 24 else { return nil }
            hour = value % 24
        }
        if let amPm = fields.values[.amPm] {
            var ofAmPm: Int?
            if let value = fields.values[.hourOfAmPm] {
                guard (0...11).contains(value) else { return nil }
                ofAmPm = value
            }
            if let value = fields.values[.clockHourOfAmPm] {
                guard (1...12).contains(value) else { return nil }
                ofAmPm = value % 12
            }
            if let ofAmPm {
                guard hour == nil || hour == amPm * 12 + ofAmPm else { return nil }
                hour = amPm * 12 + ofAmPm
            }
        }
        guard let hour else { return nil }
        let minute = fields.values[.minute] ?? 0
        let second = fields.values[.second] ?? 0
        guard (0...59).contains(minute), (0...59).contains(second) else { return nil }
        return (hour, minute, second, fields.nanosecond ?? 0)
    }

    /// `ZonedDateTime.parse(text, format)`: a date, a time and a zone.
    func zoned(_ text: String) -> WireMockZonedDateTime? {
        guard let parsed = fields(text), var local = date(parsed), let clock = time(parsed) else { return nil }
        (local.hour, local.minute, local.second, local.nanosecond) = clock
        if let zone = parsed.zone { return WireMockZonedDateTime(local, zone: zone, offset: parsed.offset) }
        if let seconds = parsed.offset { return WireMockZonedDateTime(local, zone: .offset(seconds: seconds)) }
        if let defaultZone { return WireMockZonedDateTime(local, zone: defaultZone) }
        return nil
    }

    /// `LocalDateTime.parse`, else `LocalDate`, `YearMonth` and `Year` (WireMock 3) at their first moment.
    func local(_ text: String) -> WireMockLocalDateTime? {
        guard let parsed = fields(text) else { return nil }
        if var local = date(parsed) {
            if let clock = time(parsed) { (local.hour, local.minute, local.second, local.nanosecond) = clock }
            return local
        }
        guard parsed.values[.day] == nil, let year = parsed.values[.year] else { return nil }
        let month = parsed.values[.month] ?? 1
        guard (1...12).contains(month) else { return nil }
        return WireMockLocalDateTime(year: year, month: month, day: 1)
    }

    // MARK: WireMock's formats

    private static let isoDate: [Token] = [.number(.year, min: 4, max: 4), .literal("-"), .number(.month, min: 2, max: 2), .literal("-"), .number(.day, min: 2, max: 2)]
    private static let isoTime: [Token] = [
        .number(.hour, min: 2, max: 2), .literal(":"), .number(.minute, min: 2, max: 2),
        .optional([.literal(":"), .number(.second, min: 2, max: 2), .optional([.literal("."), .fraction(min: 0, max: 9)])]),
    ]
    private static let isoOffset = Token.offset(OffsetStyle(zero: "Z", colon: true, minutesOptional: true, secondsAllowed: true))

    /// `ISO_LOCAL_DATE_TIME`: `2021-06-24T10:15[:30[.123]]`.
    static let isoLocalDateTime = WireMockDateTimeFormat(tokens: isoDate + [.literal("T")] + isoTime, caseInsensitive: true, strict: true)
    /// `ISO_LOCAL_DATE`: `2021-06-24`.
    static let isoLocalDate = WireMockDateTimeFormat(tokens: isoDate, strict: true)
    /// `YearMonth.parse`: `2021-06`.
    static let isoYearMonth = WireMockDateTimeFormat(tokens: [.number(.year, min: 4, max: 4), .literal("-"), .number(.month, min: 2, max: 2)], strict: true)
    /// `Year.parse`: `2021`.
    static let isoYear = WireMockDateTimeFormat(tokens: [.number(.year, min: 4, max: 4)], strict: true)

    /// The formats WireMock reads a zoned value with, in order: `ISO_ZONED_DATE_TIME`
    /// (`2021-06-24T10:15:30+01:00[Europe/Paris]`), RFC 1123 (`Thu, 24 Jun 2021 10:15:30 GMT`),
    /// RFC 1036 (`Thursday, 24-Jun-21 10:15:30 GMT`) and the two asctime forms (`Thu Jun 24 10:15:30 2021`, in GMT).
    static let zonedDefaults: [WireMockDateTimeFormat] = [
        WireMockDateTimeFormat(tokens: isoDate + [.literal("T")] + isoTime + [isoOffset, .optional([.literal("["), .zoneID, .literal("]")])], caseInsensitive: true, strict: true),
        WireMockDateTimeFormat(
            tokens: [
                .optional([.text(.dayOfWeek, full: false), .literal(", ")]), .number(.day, min: 1, max: 2), .literal(" "), .text(.month, full: false), .literal(" "),
                .number(.year, min: 4, max: 4), .literal(" "), .number(.hour, min: 2, max: 2), .literal(":"), .number(.minute, min: 2, max: 2),
                .optional([.literal(":"), .number(.second, min: 2, max: 2)]), .literal(" "),
                .offset(OffsetStyle(zero: "GMT", colon: false, minutesOptional: false, secondsAllowed: false)),
            ],
            caseInsensitive: true,
            strict: true
        ),
        try! WireMockDateTimeFormat(pattern: "EEEE, dd-MMM-yy HH:mm:ss zzz"),
        WireMockDateTimeFormat(tokens: try! WireMockDateTimeFormat(pattern: "EEE MMM dd HH:mm:ss yyyy").tokens, defaultZone: .utc),
        WireMockDateTimeFormat(tokens: try! WireMockDateTimeFormat(pattern: "EEE MMM  d HH:mm:ss yyyy").tokens, defaultZone: .utc),
    ]
}
