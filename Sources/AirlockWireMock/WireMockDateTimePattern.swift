import AirlockStubFiles
import Foundation

/// One of WireMock's date-time matchers — `{"before": "now +3 days"}`, `{"after": "2021-05-01T00:00:00Z"}`,
/// `{"equalToDateTime": "2021-06-24", "actualFormat": "dd/MM/yyyy"}` — with its options.
///
/// As WireMock 2.35 reads it, with WireMock 3's additions (`applyTruncationLast`, a year-month or a
/// year as a local date, its near-miss distance): the expected value is a date-time with a zone
/// (ISO 8601, RFC 1123, RFC 1036, asctime), one without (`2021-06-24T10:15:30`, `2021-06-24`,
/// `2021-06`, `2021`), or `now` with an offset (`now`, `now +3 days`, `-1 hours`, or
/// `expectedOffset` and `expectedOffsetUnit`), taken when each request is matched in the machine's
/// zone, truncated (`truncateExpected`) then shifted (or shifted then truncated, with
/// `applyTruncationLast`). The request's value is read with `actualFormat` (a Java pattern, `unix`
/// or `epoch`) or WireMock's formats, a zoned reading truncated by `truncateActual`. Two zoned
/// values compare as instants, two local ones as wall times; a zoned value against a local one
/// compares its own wall time, and a local value against a zoned one is placed in the machine's zone.
struct WireMockDateTimePattern: Sendable {
    enum Comparison: String, Sendable, CaseIterable {
        case before, after, equalToDateTime
    }

    /// What the value is compared with.
    enum Expected: Sendable {
        case zoned(WireMockZonedDateTime)
        case local(WireMockLocalDateTime)
        /// Now, when the request is matched, shifted by this many units.
        case now(amount: Int, unit: WireMockDateTimeUnit)
    }

    /// How the request's value is read.
    enum ActualFormat: Sendable {
        case pattern(WireMockDateTimeFormat)
        case epoch(WireMockDateTimeFormat.Epoch)
    }

    let comparison: Comparison
    /// The expected value as the mapping wrote it.
    let spec: String
    let expected: Expected
    let actualFormat: ActualFormat?
    let actualFormatText: String?
    let truncateExpected: WireMockDateTimeTruncation?
    let truncateActual: WireMockDateTimeTruncation?
    let applyTruncationLast: Bool

    /// The fields that may stand beside the operator.
    static let options: Set<String> = ["actualFormat", "truncateExpected", "truncateActual", "expectedOffset", "expectedOffsetUnit", "applyTruncationLast"]

    /// Reads the operator's value and options from a pattern object.
    static func decode(_ comparison: Comparison, operand: JSONNode, fields: JSONObject) throws(StubFileError) -> WireMockDateTimePattern {
        let spec = try operand.string()
        let expected = try readExpected(spec, operand: operand, fields: fields)
        var actualFormat: ActualFormat?
        var actualFormatText: String?
        if let node = fields["actualFormat"] {
            let text = try node.string()
            actualFormatText = text
            switch text.lowercased() {
            case "unix": actualFormat = .epoch(.seconds)
            case "epoch": actualFormat = .epoch(.milliseconds)
            default:
                do {
                    actualFormat = .pattern(try WireMockDateTimeFormat(pattern: text))
                } catch {
                    throw node.error(.invalidValue, "is the date-time format \"\(text)\", which \(error.reason)", expected: "a Java DateTimeFormatter pattern such as \"dd/MM/yyyy\", or \"unix\" or \"epoch\"")
                }
            }
        }
        // Checked even where WireMock does not use them (beside a fixed date), as it reads them.
        if let node = fields["expectedOffset"] { _ = try offsetAmount(node) }
        if let node = fields["expectedOffsetUnit"] { _ = try unit(node) }
        var truncateExpected: WireMockDateTimeTruncation?
        if let node = fields["truncateExpected"] { truncateExpected = try truncation(node) }
        var truncateActual: WireMockDateTimeTruncation?
        if let node = fields["truncateActual"] { truncateActual = try truncation(node) }
        return WireMockDateTimePattern(
            comparison: comparison,
            spec: spec,
            expected: expected,
            actualFormat: actualFormat,
            actualFormatText: actualFormatText,
            truncateExpected: truncateExpected,
            truncateActual: truncateActual,
            applyTruncationLast: try fields["applyTruncationLast"]?.bool() ?? false
        )
    }

    /// The expected value: `now` with an offset, a zoned date-time, or a local one.
    private static func readExpected(_ spec: String, operand: JSONNode, fields: JSONObject) throws(StubFileError) -> Expected {
        guard let offset = nowOffset(spec) else {
            if let zoned = WireMockDateTimeFormat.zonedDefaults.lazy.compactMap({ $0.zoned(spec) }).first { return .zoned(zoned) }
            if let local = localDefault(spec) { return .local(local) }
            throw operand.error(
                .invalidValue,
                "is \"\(spec)\", which is not a date-time WireMock reads (WireMock would load it and never match)",
                expected: "an ISO 8601 date-time such as \"2021-06-24T10:15:30Z\" or \"2021-06-24T10:15:30\", a date such as \"2021-06-24\", or \"now\" with an offset such as \"now +3 days\""
            )
        }
        if let amountNode = fields["expectedOffset"], let unitNode = fields["expectedOffsetUnit"] {
            return .now(amount: try offsetAmount(amountNode), unit: try unit(unitNode))
        }
        guard let (amountText, unitName) = offset else { return .now(amount: 0, unit: .seconds) }
        guard let amount = Int32(amountText) else {
            throw operand.error(.invalidValue, "is \"\(spec)\", which is not an offset WireMock reads", expected: "now, or now +/-<amount> <unit>, such as \"now +3 days\" (one space between the words)")
        }
        guard let unit = WireMockDateTimeUnit(rawValue: unitName.lowercased()) else {
            throw operand.error(.invalidValue, "is \"\(spec)\", whose unit \"\(unitName)\" is not one of WireMock's", expected: "a unit: " + unitList)
        }
        return .now(amount: Int(amount), unit: unit)
    }

    private static var unitList: String { WireMockDateTimeUnit.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") }

    /// For `now` and its offsets (`now +3 days`, `+3 days`, `3 days`, in any case): `.some(nil)` for
    /// `now` alone, the amount and unit texts for an offset; `nil` for any other text.
    static func nowOffset(_ spec: String) -> (String, String)?? {
        if spec.lowercased() == "now" { return .some(nil) }
        // WireMock removes every "now " (any case), then wants `[+-]digits letters`.
        var rest = Substring(spec)
        var stripped = ""
        while !rest.isEmpty {
            if rest.count >= 4, rest.prefix(4).lowercased() == "now " {
                rest = rest.dropFirst(4)
                continue
            }
            stripped.append(rest.removeFirst())
        }
        let parts = stripped.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        var amount = parts[0]
        if amount.first == "+" || amount.first == "-" { amount = amount.dropFirst() }
        guard !amount.isEmpty, amount.allSatisfy({ $0.isASCII && $0.isNumber }), !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        // WireMock reads the offset from the text split at each space: two words or three ("now +3 days").
        let words = spec.split(separator: " ", omittingEmptySubsequences: false)
        switch words.count {
        case 2: return .some((String(words[0]), String(words[1])))
        case 3: return .some((String(words[1]), String(words[2])))
        default: return .some(("", ""))
        }
    }

    private static func offsetAmount(_ node: JSONNode) throws(StubFileError) -> Int {
        let amount = try node.integer()
        guard Int(Int32.min)...Int(Int32.max) ~= amount else { throw node.error(.invalidValue, "is \(amount)", expected: "a whole number of units that fits in 32 bits") }
        return amount
    }

    private static func unit(_ node: JSONNode) throws(StubFileError) -> WireMockDateTimeUnit {
        let name = try node.string()
        guard let unit = WireMockDateTimeUnit(rawValue: name.lowercased()) else {
            throw node.error(.invalidValue, "is \"\(name)\", which is not one of WireMock's units", expected: "a unit: " + unitList)
        }
        return unit
    }

    private static func truncation(_ node: JSONNode) throws(StubFileError) -> WireMockDateTimeTruncation {
        let name = try node.string()
        guard let truncation = WireMockDateTimeTruncation(name: name) else {
            throw node.error(
                .invalidValue,
                "is \"\(name)\", which is not one of WireMock's truncations",
                expected: "one of " + WireMockDateTimeTruncation.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            )
        }
        return truncation
    }

    /// WireMock's local readings without a format: a date-time, a date, a year-month, a year.
    static func localDefault(_ text: String) -> WireMockLocalDateTime? {
        WireMockDateTimeFormat.isoLocalDateTime.local(text)
            ?? WireMockDateTimeFormat.isoLocalDate.local(text)
            ?? WireMockDateTimeFormat.isoYearMonth.local(text)
            ?? WireMockDateTimeFormat.isoYear.local(text)
    }

    // MARK: Matching

    /// The request's value read as WireMock reads it: zoned (then truncated) and local.
    func reading(_ value: String) -> WireMockDateTimeReading {
        var reading = WireMockDateTimeReading()
        switch actualFormat {
        case nil:
            reading.zoned = WireMockDateTimeFormat.zonedDefaults.lazy.compactMap { $0.zoned(value) }.first
            reading.local = Self.localDefault(value)
        case .pattern(let format)?:
            reading.zoned = format.zoned(value)
            reading.local = format.local(value)
        case .epoch(let unit)?:
            // Java's Long.parseLong: an optional sign, then digits.
            let digits = value.first == "+" || value.first == "-" ? value.dropFirst() : Substring(value)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(value.first == "+" ? String(digits) : value),
                number.magnitude < UInt(Int.max / 1_000)
            else { return reading }
            let milliseconds = unit == .seconds ? number * 1_000 : number
            let seconds = milliseconds >= 0 ? milliseconds / 1_000 : (milliseconds - 999) / 1_000
            let zoned = WireMockZonedDateTime(epochSecond: seconds, nanosecond: (milliseconds - seconds * 1_000) * 1_000_000, zone: .utc)
            reading.zoned = zoned
            reading.local = zoned.local
        }
        if let truncateActual, let zoned = reading.zoned { reading.zoned = truncateActual.apply(zoned) }
        return reading
    }

    /// The expected value now: a fixed one, or now shifted and truncated.
    func expectedValue(now: () -> WireMockZonedDateTime = { .now() }) -> (zoned: WireMockZonedDateTime?, local: WireMockLocalDateTime?) {
        switch expected {
        case .zoned(let zoned): return (zoned, nil)
        case .local(let local): return (nil, local)
        case .now(let amount, let unit):
            let now = now()
            if applyTruncationLast {
                let shifted = now.adding(amount, unit)
                return (truncateExpected.map { $0.apply(shifted) } ?? shifted, nil)
            }
            return ((truncateExpected.map { $0.apply(now) } ?? now).adding(amount, unit), nil)
        }
    }

    /// How the value fares: WireMock's four cases in its order, and its distance.
    func verdict(for value: String?) -> WireMockVerdict {
        guard let value else { return .miss }
        let actual = reading(value)
        let (zonedExpected, localExpected) = expectedValue()
        let system = WireMockZone.system
        let order: Int?
        var distance = 1.0
        if let zonedExpected, let zoned = actual.zoned {
            order = zoned.compare(zonedExpected)
            distance = Self.distance(Self.milliseconds(zoned), Self.milliseconds(zonedExpected))
        } else if let localExpected, let local = actual.local {
            order = local == localExpected ? 0 : local < localExpected ? -1 : 1
            distance = Self.distance(Self.milliseconds(local), Self.milliseconds(localExpected))
        } else if let localExpected, let zoned = actual.zoned {
            let local = zoned.local
            order = local == localExpected ? 0 : local < localExpected ? -1 : 1
            distance = Self.distance(Self.milliseconds(local), Self.milliseconds(localExpected))
        } else if let zonedExpected, let local = actual.local {
            let placed = WireMockZonedDateTime(local, zone: system)
            order = placed.compare(zonedExpected)
            distance = Self.distance(Self.milliseconds(placed), Self.milliseconds(zonedExpected))
        } else {
            order = nil
        }
        guard let order else { return .miss }
        let matched = switch comparison {
        case .before: order < 0
        case .after: order > 0
        case .equalToDateTime: order == 0
        }
        return WireMockVerdict(matched: matched, distance: distance)
    }

    private static func milliseconds(_ time: WireMockZonedDateTime) -> Double { Double(time.epochSecond) * 1_000 + Double(time.nanosecond / 1_000_000) }
    private static func milliseconds(_ time: WireMockLocalDateTime) -> Double { Double(time.epochSecond) * 1_000 + Double(time.nanosecond / 1_000_000) }

    /// WireMock 3's distance: the difference over itself plus two years.
    private static func distance(_ a: Double, _ b: Double) -> Double {
        let difference = abs(a - b)
        return difference / (difference + 2 * 365 * 86_400_000)
    }

    /// `before "now +3 days" (actualFormat "dd/MM/yyyy")`, in WireMock's words.
    var template: String {
        var options: [String] = []
        if let actualFormatText { options.append("actualFormat \"\(actualFormatText)\"") }
        if let truncateExpected { options.append("truncateExpected \"\(truncateExpected.rawValue)\"") }
        if let truncateActual { options.append("truncateActual \"\(truncateActual.rawValue)\"") }
        if applyTruncationLast { options.append("applyTruncationLast") }
        var shown = spec
        if case .now(let amount, let unit) = expected, spec.lowercased() == "now", amount != 0 {
            shown = "now \(amount >= 0 ? "+" : "")\(amount) \(unit.rawValue)"
        }
        return "\(comparison.rawValue) \"\(shown)\"" + (options.isEmpty ? "" : " (" + options.joined(separator: ", ") + ")")
    }
}
