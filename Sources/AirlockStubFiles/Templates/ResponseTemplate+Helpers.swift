import AirlockBase
import AirlockCore
import Foundation

extension ResponseTemplate {
    /// Every helper's name, for messages.
    package static var helperNames: String { Helper.all.joined(separator: ", ") }

    /// The helpers: Handlebars' blocks, WireMock's helpers, the string, number and conditional
    /// helpers of Handlebars.java that WireMock registers, and stubr's `any…` generators.
    enum Helper {
        /// How many values a helper takes, and which `key=` options.
        struct Shape {
            var minimum: Int
            var maximum: Int
            var options: Set<String>
            var example: String
        }

        static let shapes: [String: Shape] = {
            var shapes: [String: Shape] = [
                // Blocks and lookups.
                "if": Shape(minimum: 1, maximum: 1, options: ["includeZero"], example: "{{#if value}}…{{else}}…{{/if}}"),
                "unless": Shape(minimum: 1, maximum: 1, options: ["includeZero"], example: "{{#unless value}}…{{/unless}}"),
                "each": Shape(minimum: 1, maximum: 1, options: [], example: "{{#each list}}{{this}}{{/each}}"),
                "with": Shape(minimum: 1, maximum: 1, options: [], example: "{{#with value}}{{name}}{{/with}}"),
                "lookup": Shape(minimum: 2, maximum: 2, options: [], example: "{{lookup parameters 'name'}}"),
                "assign": Shape(minimum: 1, maximum: 1, options: [], example: "{{#assign 'name'}}value{{/assign}}"),
                // Conditionals.
                "eq": Shape(minimum: 2, maximum: 2, options: ["yes", "no"], example: "{{eq a b}}"),
                "neq": Shape(minimum: 2, maximum: 2, options: ["yes", "no"], example: "{{neq a b}}"),
                "gt": Shape(minimum: 2, maximum: 2, options: ["yes", "no"], example: "{{gt a b}}"),
                "gte": Shape(minimum: 2, maximum: 2, options: ["yes", "no"], example: "{{gte a b}}"),
                "lt": Shape(minimum: 2, maximum: 2, options: ["yes", "no"], example: "{{lt a b}}"),
                "lte": Shape(minimum: 2, maximum: 2, options: ["yes", "no"], example: "{{lte a b}}"),
                "and": Shape(minimum: 1, maximum: 64, options: ["yes", "no"], example: "{{and a b}}"),
                "or": Shape(minimum: 1, maximum: 64, options: ["yes", "no"], example: "{{or a b}}"),
                "not": Shape(minimum: 1, maximum: 1, options: ["yes", "no"], example: "{{not a}}"),
                // Numbers.
                "isEven": Shape(minimum: 1, maximum: 2, options: [], example: "{{isEven request.query.n}} or {{isEven n 'class'}}"),
                "isOdd": Shape(minimum: 1, maximum: 2, options: [], example: "{{isOdd request.query.n}}"),
                "stripes": Shape(minimum: 1, maximum: 3, options: [], example: "{{stripes @index 'even' 'odd'}}"),
                // Strings (Handlebars.java's StringHelpers).
                "abbreviate": Shape(minimum: 2, maximum: 2, options: [], example: "{{abbreviate value 10}}"),
                "capitalize": Shape(minimum: 1, maximum: 1, options: ["fully"], example: "{{capitalize value}}"),
                "capitalizeFirst": Shape(minimum: 1, maximum: 1, options: [], example: "{{capitalizeFirst value}}"),
                "decapitalize": Shape(minimum: 1, maximum: 1, options: [], example: "{{decapitalize value}}"),
                "center": Shape(minimum: 1, maximum: 1, options: ["size", "pad"], example: "{{center value size=20 pad='*'}}"),
                "ljust": Shape(minimum: 1, maximum: 1, options: ["size", "pad"], example: "{{ljust value size=20}}"),
                "rjust": Shape(minimum: 1, maximum: 1, options: ["size", "pad"], example: "{{rjust value size=20}}"),
                "cut": Shape(minimum: 1, maximum: 2, options: [], example: "{{cut value ' '}}"),
                "defaultIfEmpty": Shape(minimum: 2, maximum: 2, options: [], example: "{{defaultIfEmpty value 'none'}}"),
                "join": Shape(minimum: 2, maximum: 64, options: ["prefix", "suffix"], example: "{{join list ', '}} or {{join 'a' 'b' ', '}}"),
                "substring": Shape(minimum: 2, maximum: 3, options: [], example: "{{substring value 0 3}}"),
                "lower": Shape(minimum: 1, maximum: 1, options: [], example: "{{lower value}}"),
                "upper": Shape(minimum: 1, maximum: 1, options: [], example: "{{upper value}}"),
                "slugify": Shape(minimum: 1, maximum: 1, options: [], example: "{{slugify value}}"),
                "stripTags": Shape(minimum: 1, maximum: 1, options: [], example: "{{stripTags value}}"),
                "wordWrap": Shape(minimum: 2, maximum: 2, options: [], example: "{{wordWrap value 40}}"),
                "yesno": Shape(minimum: 1, maximum: 1, options: ["yes", "no", "maybe"], example: "{{yesno value yes='Y' no='N'}}"),
                "replace": Shape(minimum: 3, maximum: 3, options: [], example: "{{replace value 'old' 'new'}}"),
                "trim": Shape(minimum: 0, maximum: 1, options: [], example: "{{trim value}} or {{#trim}}…{{/trim}}"),
                "numberFormat": Shape(
                    minimum: 1, maximum: 2,
                    options: ["groupingUsed", "maximumFractionDigits", "minimumFractionDigits", "maximumIntegerDigits", "minimumIntegerDigits", "parseIntegerOnly", "roundingMode", "locale"],
                    example: "{{numberFormat value 'integer'|'currency'|'percent'|'#,##0.00'}}"
                ),
                "stringFormat": Shape(minimum: 1, maximum: 64, options: [], example: "{{stringFormat '%s has %d' name count}}"),
                "dateFormat": Shape(minimum: 1, maximum: 2, options: ["format", "tz"], example: "{{dateFormat (parseDate '2024-01-02') 'yyyy/MM/dd'}}"),
                // WireMock's.
                "jsonPath": Shape(minimum: 2, maximum: 2, options: ["default"], example: "{{jsonPath request.body '$.field'}}"),
                "randomValue": Shape(minimum: 0, maximum: 0, options: ["type", "length", "uppercase"], example: "{{randomValue type='UUID'}}"),
                "hostname": Shape(minimum: 0, maximum: 0, options: [], example: "{{hostname}}"),
                "now": Shape(minimum: 0, maximum: 0, options: ["format", "timezone", "offset"], example: "{{now format='yyyy-MM-dd' offset='3 days'}}"),
                "date": Shape(minimum: 1, maximum: 1, options: ["format", "timezone", "offset"], example: "{{date (parseDate request.query.d) offset='1 days'}}"),
                "parseDate": Shape(minimum: 1, maximum: 1, options: ["format"], example: "{{parseDate '2024-01-02T10:00:00Z'}}"),
                "truncateDate": Shape(minimum: 2, maximum: 2, options: [], example: "{{truncateDate (now) 'first day of month'}}"),
                "base64": Shape(minimum: 1, maximum: 1, options: ["decode", "padding"], example: "{{base64 value}} or {{base64 value decode=true}}"),
                "urlEncode": Shape(minimum: 1, maximum: 1, options: ["decode"], example: "{{urlEncode value}} or {{urlEncode value decode=true}}"),
                "formData": Shape(minimum: 2, maximum: 2, options: ["urlDecode"], example: "{{formData request.body 'form' urlDecode=true}}{{form.field}}"),
                "regexExtract": Shape(minimum: 2, maximum: 3, options: ["default"], example: "{{regexExtract request.body '[A-Z]+'}} or {{regexExtract value '(\\d+)-(\\d+)' 'parts'}}"),
                "size": Shape(minimum: 1, maximum: 1, options: [], example: "{{size value}}"),
                "pickRandom": Shape(minimum: 1, maximum: 256, options: [], example: "{{pickRandom 'a' 'b' 'c'}}"),
                "randomInt": Shape(minimum: 0, maximum: 0, options: ["lower", "upper"], example: "{{randomInt lower=1 upper=10}}"),
                "randomDecimal": Shape(minimum: 0, maximum: 0, options: ["lower", "upper"], example: "{{randomDecimal lower=0.5 upper=1.5}}"),
                "range": Shape(minimum: 2, maximum: 2, options: [], example: "{{range 1 5}}"),
                "array": Shape(minimum: 0, maximum: 256, options: [], example: "{{array 1 'two' true}}"),
                "parseJson": Shape(minimum: 1, maximum: 2, options: [], example: "{{parseJson request.body 'body'}}{{body.id}}"),
                "toJson": Shape(minimum: 1, maximum: 1, options: [], example: "{{toJson (array 1 2)}}"),
                "matches": Shape(minimum: 2, maximum: 2, options: [], example: "{{#matches value '[0-9]+'}}…{{/matches}}"),
                "contains": Shape(minimum: 2, maximum: 2, options: [], example: "{{#contains value 'text'}}…{{/contains}}"),
                "math": Shape(minimum: 3, maximum: 3, options: [], example: "{{math 1 '+' 2}} (+ - * / %)"),
                "val": Shape(minimum: 1, maximum: 1, options: ["default", "or", "assign"], example: "{{val request.query.page default=1}}"),
                // WireMock 3's lists and JSON.
                "arrayAdd": Shape(minimum: 2, maximum: 2, options: ["position"], example: "{{arrayAdd (array 1 2) 3 position='start'}}"),
                "arrayRemove": Shape(minimum: 1, maximum: 1, options: ["position"], example: "{{arrayRemove (array 1 2 3) position=1}}"),
                "arrayJoin": Shape(minimum: 2, maximum: 256, options: ["prefix", "suffix"], example: "{{arrayJoin ', ' (array 'a' 'b') prefix='[' suffix=']'}}"),
                "xPath": Shape(minimum: 2, maximum: 2, options: [], example: "{{xPath request.body '/todo-list/todo/text()'}}"),
                "soapXPath": Shape(minimum: 2, maximum: 2, options: [], example: "{{soapXPath request.body '/order/id/text()'}} (under soap:Envelope/soap:Body)"),
                "formatJson": Shape(minimum: 1, maximum: 1, options: ["format"], example: "{{formatJson request.body}}, {{formatJson request.body format='compact'}} or {{#formatJson}}{\"a\": 1}{{/formatJson}}"),
                "formatXml": Shape(minimum: 1, maximum: 1, options: ["format"], example: "{{formatXml request.body}}, {{formatXml request.body format='compact'}} or {{#formatXml}}<a> <b/> </a>{{/formatXml}}"),
                "jsonMerge": Shape(minimum: 2, maximum: 2, options: ["removeNulls"], example: "{{jsonMerge request.body '{\"added\": true}'}}"),
                "jsonRemove": Shape(minimum: 2, maximum: 2, options: [], example: "{{jsonRemove request.body '$.secret'}}"),
                "jsonSort": Shape(minimum: 2, maximum: 2, options: ["order", "nulls"], example: "{{{jsonSort request.body '$.users[*].name' order='desc' nulls='last'}}}"),
                "jsonArrayAdd": Shape(minimum: 2, maximum: 2, options: ["maxItems", "flatten", "jsonPath"], example: "{{jsonArrayAdd '[1]' '2' maxItems=10}}"),
                // stubr's generators.
                "anyRegex": Shape(minimum: 1, maximum: 1, options: [], example: "{{anyRegex '[a-z]{4}'}}"),
                "anyOf": Shape(minimum: 1, maximum: 256, options: [], example: "{{anyOf 'A' 'B'}}"),
            ]
            for name in Generated.allCases { shapes[name.rawValue] = Shape(minimum: 0, maximum: 0, options: [], example: "{{\(name.rawValue)}}") }
            return shapes
        }()

        /// Helpers refused by name, with why and what to use instead.
        static let refused: [String: (problem: String, instead: String)] = [
            "systemValue": (
                "reads the server's environment variables or system properties into a response, which Airlock does not do (a mapping could send secrets to any client)",
                "the value written into the template, or a transformerParameters value"
            ),
        ]

        /// Why `name` is refused, and what to use instead; `xPath`, `soapXPath` and `formatXml`
        /// only while no XML engine is installed.
        static func refusal(_ name: String) -> (problem: String, instead: String)? {
            if let refusal = refused[name] { return refusal }
            guard TemplateXMLSupport.helpers.contains(name), TemplateXMLSupport.engine == nil else { return nil }
            return (
                "is an XML helper, and no XML engine is installed in this process (HTTPMock leaves it out so that its users never link an XML library)",
                "the product \"AirlockWireMockXML\" in this target's dependencies and one line before reading mappings: WireMockXML.install() (MockServer and airlock serve install it themselves; Linux only for now)"
            )
        }

        /// stubr's generators that take nothing.
        enum Generated: String, CaseIterable {
            case anyU8, anyU16, anyU32, anyU64, anyI8, anyI16, anyI32, anyI64
            case anyUuid, anyEmail, anyBoolean, anyFloat, anyNumber, anyDate, anyTime, anyDatetime, anyIso8601
            case anyHostname, anyIpAddress, anyAlphaNumeric, anyNonBlankString, anyNonEmptyString
        }

        static let all: [String] = shapes.keys.sorted()

        static func known(_ name: String) -> Bool { shapes[name] != nil }

        /// Checks the count of values, the options, and what can be checked of literal values.
        static func check(_ call: Call, asBlock: Bool) throws(ParseError) {
            let shape = shapes[call.name]!
            let source = call.source
            let blockOnly: Set<String> = ["each", "with", "assign"]
            if blockOnly.contains(call.name), !asBlock {
                throw ParseError(problem: "uses {{\(source)}} outside a block", expected: shape.example)
            }
            // `trim` takes a value inline; the formatters take theirs or format their block.
            let minimum = switch call.name {
            case "trim": asBlock ? 0 : 1
            case "formatJson", "formatXml": asBlock ? 0 : 1
            default: shape.minimum
            }
            guard call.params.count >= minimum, call.params.count <= shape.maximum else {
                let count = call.params.count
                throw ParseError(problem: "gives \(call.name) \(count) value\(count == 1 ? "" : "s") in {{\(source)}}", expected: shape.example)
            }
            for (key, _) in call.hash where !shape.options.contains(key) {
                let allowed = shape.options.isEmpty ? "no key=value options" : "the options " + shape.options.sorted().joined(separator: ", ")
                throw ParseError(problem: "uses the option \"\(key)\" in {{\(source)}}", expected: "\(call.name) takes \(allowed): \(shape.example)")
            }
            func literal(_ index: Int) -> String? { index < call.params.count ? call.params[index].literalText : nil }
            func option(_ key: String) -> String? { call.option(key)?.literalText }
            switch call.name {
            case "abbreviate":
                if let text = literal(1), (Int(text) ?? 0) < 4 {
                    throw ParseError(problem: "abbreviates to \(text) characters in {{\(source)}}", expected: "a width of at least 4 (the text and \"...\")")
                }
            case "wordWrap", "substring":
                for index in 1..<call.params.count {
                    if let text = literal(index), Int(text) == nil || Int(text)! < 0 {
                        throw ParseError(problem: "uses \"\(text)\" as a position in {{\(source)}}", expected: "a whole number of 0 or more: \(shape.example)")
                    }
                }
            case "center", "ljust", "rjust":
                guard let size = call.option("size") else { throw ParseError(problem: "gives \(call.name) no size in {{\(source)}}", expected: shape.example) }
                if let text = size.literalText, Int(text) == nil || Int(text)! > 65536 {
                    throw ParseError(problem: "uses size=\(text) in {{\(source)}}", expected: "a width from 0 to 65536")
                }
            case "now", "date":
                if let zone = option("timezone"), TimeZone(identifier: zone) == nil {
                    throw ParseError(problem: "uses timezone='\(zone)' in {{\(source)}}", expected: "a time zone such as 'UTC' or 'Europe/Rome'")
                }
                if let offset = option("offset"), DateOffset(offset) == nil {
                    throw ParseError(problem: "uses offset='\(offset)' in {{\(source)}}", expected: DateOffset.expected)
                }
            case "truncateDate":
                if let truncation = literal(1), DateTruncation(name: truncation) == nil {
                    throw ParseError(problem: "truncates to '\(truncation)' in {{\(source)}}", expected: "one of " + DateTruncation.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))
                }
            case "randomValue":
                let type = (option("type") ?? "ALPHANUMERIC").uppercased()
                guard RandomKind(rawValue: type) != nil else {
                    throw ParseError(problem: "uses randomValue type='\(type)'", expected: RandomKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))
                }
                if let length = call.option("length") {
                    guard let text = length.literalText, let value = Int(text), value > 0, value <= 4096 else {
                        throw ParseError(problem: "uses randomValue length=\(length.literalText ?? "…")", expected: "a length from 1 to 4096")
                    }
                }
            case "randomInt", "randomDecimal":
                for key in ["lower", "upper"] {
                    if let text = option(key), Double(text) == nil { throw ParseError(problem: "uses \(key)=\(text) in {{\(source)}}", expected: "a number: \(shape.example)") }
                }
                if let lower = option("lower").flatMap(Double.init), let upper = option("upper").flatMap(Double.init), lower > upper || (call.name == "randomInt" && lower == upper) {
                    throw ParseError(problem: "has lower=\(option("lower")!) not below upper=\(option("upper")!) in {{\(source)}}", expected: "a lower bound below the upper one (randomInt's upper bound is excluded)")
                }
            case "range":
                if let first = literal(0).flatMap(Int.init), let last = literal(1).flatMap(Int.init), last - first > 100_000 {
                    throw ParseError(problem: "makes a range of \(last - first + 1) numbers in {{\(source)}}", expected: "at most 100 001 numbers")
                }
            case "math":
                if let operation = literal(1), !["+", "-", "*", "/", "%"].contains(operation) {
                    throw ParseError(problem: "uses the operator '\(operation)' in {{\(source)}}", expected: "one of '+', '-', '*', '/', '%'")
                }
            case "matches", "regexExtract":
                if let pattern = literal(1), (try? NSRegularExpression(pattern: pattern)) == nil {
                    throw ParseError(problem: "uses '\(pattern)', which is not a regular expression, in {{\(source)}}", expected: "a regular expression (ICU/Java syntax)")
                }
            case "jsonPath", "jsonRemove":
                if let path = literal(1), JSONSteps(path) == nil {
                    throw ParseError(problem: "uses the JSON path \"\(path)\" in {{\(source)}}", expected: "a path such as '$.user.name', '$.items[0].id', '$.items.[0]' or \"$['a key']\"")
                }
            case "xPath", "soapXPath":
                if let path = literal(1), let problem = TemplateXMLSupport.engine?.problem(inXPath: path) {
                    throw ParseError(
                        problem: "uses the XPath '\(path)', which \(problem), in {{\(source)}}",
                        expected: "an XPath 1.0 expression that selects nodes, without namespace prefixes (WireMock reads the body without namespaces): \(shape.example)"
                    )
                }
            case "jsonSort":
                if let path = literal(1), ResponseTemplate.SortPath(path) == nil {
                    throw ParseError(problem: "sorts by the JSON path \"\(path)\" in {{\(source)}}", expected: "a path with [*] where the array is, such as '$[*].name' or '$.users[*].age'")
                }
                if let order = option("order"), order != "asc", order != "desc" {
                    throw ParseError(problem: "uses order='\(order)' in {{\(source)}}", expected: "order='asc' (the default) or order='desc'")
                }
                if let nulls = option("nulls"), nulls != "first", nulls != "last" {
                    throw ParseError(problem: "uses nulls='\(nulls)' in {{\(source)}}", expected: "nulls='first' (the default) or nulls='last'")
                }
            case "formatJson", "formatXml":
                if let format = option("format"), Format(rawValue: format) == nil {
                    throw ParseError(problem: "uses format='\(format)' in {{\(source)}}", expected: "format='pretty' (the default) or format='compact': \(shape.example)")
                }
            case "anyRegex":
                if let pattern = literal(0) {
                    do {
                        _ = try RegexGenerator(pattern)
                    } catch {
                        throw ParseError(problem: "uses anyRegex '\(pattern)', which \(error.problem)", expected: RegexGenerator.supported)
                    }
                }
            default:
                break
            }
        }
    }

    /// `jsonSort`'s path: the array before `[*]`, and what to sort each element by after it.
    struct SortPath: Sendable {
        let array: JSONSteps
        let key: JSONSteps
        /// The array's path as written (`$` for the root).
        let arrayText: String

        init?(_ path: String) {
            guard let wildcard = path.range(of: "[*]") else { return nil }
            let before = String(path[..<wildcard.lowerBound])
            arrayText = before.isEmpty ? "$" : before
            guard let array = JSONSteps(arrayText), let key = JSONSteps("$" + path[wildcard.upperBound...]) else { return nil }
            self.array = array
            self.key = key
        }
    }

    /// How `formatJson` and `formatXml` write their text.
    enum Format: String, Sendable {
        case pretty, compact
    }

    /// What `randomValue type=` makes.
    enum RandomKind: String, Sendable, CaseIterable {
        case uuid = "UUID"
        case alphanumeric = "ALPHANUMERIC"
        case alphabetic = "ALPHABETIC"
        case numeric = "NUMERIC"
        case hexadecimal = "HEXADECIMAL"
        case alphanumericAndSymbols = "ALPHANUMERIC_AND_SYMBOLS"

        var alphabet: [Character] {
            switch self {
            case .uuid: []
            case .alphanumeric: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            case .alphabetic: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
            case .numeric: Array("0123456789")
            case .hexadecimal: Array("0123456789abcdef")
            case .alphanumericAndSymbols: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'()*+,-./:;<=>?@[]^_`{|}~")
            }
        }
    }

    /// `offset='3 days'`, `offset='-24 seconds'`: an amount of a calendar unit.
    struct DateOffset: Sendable {
        let amount: Int
        let unit: Calendar.Component

        static let expected = "an amount and a unit, such as '3 days' or '-24 seconds' (seconds, minutes, hours, days, weeks, months, years)"

        init?(_ text: String) {
            let units: [String: Calendar.Component] = [
                "seconds": .second, "minutes": .minute, "hours": .hour, "days": .day, "weeks": .weekOfYear, "months": .month, "years": .year,
            ]
            let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard parts.count == 2, let amount = Int(parts[0]), abs(amount) <= 1_000_000, let unit = units[parts[1].lowercased()] ?? units[parts[1].lowercased() + "s"] else { return nil }
            self.amount = amount
            self.unit = unit
        }
    }

    /// `$.a.b`, `$.items[0]`, `$.items.[0]`, `$['a key']`: the definite steps (WireMock's JSONPath
    /// patterns take the whole language in `AirlockWireMock`).
    struct JSONSteps: Sendable {
        let steps: [JSONValue.Step]

        init?(_ path: String) {
            guard path.hasPrefix("$") else { return nil }
            var steps: [JSONValue.Step] = []
            var rest = Substring(path).dropFirst()
            while let first = rest.first {
                if first == "." {
                    rest = rest.dropFirst()
                    if rest.first == "[" { continue }
                    let key = rest.prefix { $0 != "." && $0 != "[" }
                    guard !key.isEmpty else { return nil }
                    steps.append(.member(String(key)))
                    rest = rest.dropFirst(key.count)
                } else if first == "[" {
                    guard let close = rest.firstIndex(of: "]") else { return nil }
                    let inside = rest[rest.index(after: rest.startIndex)..<close]
                    if let position = Int(inside), position >= 0 {
                        steps.append(.index(position))
                    } else if inside.count >= 2, let quote = inside.first, quote == "'" || quote == "\"", inside.last == quote {
                        steps.append(.member(String(inside.dropFirst().dropLast())))
                    } else {
                        return nil
                    }
                    rest = rest[rest.index(after: close)...]
                } else {
                    return nil
                }
            }
            self.steps = steps
        }

        /// The path components of the value found, for its numbers' spelling.
        var components: [String] {
            steps.map { step in
                switch step {
                case .member(let name): name
                case .index(let position): String(position)
                }
            }
        }
    }
}
