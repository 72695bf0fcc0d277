import AirlockBase
import AirlockCore
import Foundation

extension ResponseTemplate.Scope {
    typealias Helper = ResponseTemplate.Helper

    /// A helper's value for this request. Helpers never fail while rendering: a value of the
    /// wrong kind gives empty text, as a missing request value does.
    mutating func helper(_ call: ResponseTemplate.Call) -> TemplateValue {
        var params: [TemplateValue] = []
        for argument in call.params { params.append(value(argument)) }
        var options: [String: TemplateValue] = [:]
        for (key, argument) in call.hash { options[key] = value(argument) }
        func param(_ index: Int) -> TemplateValue { index < params.count ? params[index] : .null }
        func text(_ index: Int) -> String { param(index).text }
        func flag(_ key: String) -> Bool { options[key].map { $0.isTruthy && $0.text != "false" } ?? false }
        /// `yes=`/`no=` of the conditionals, else the truth itself.
        func answer(_ truth: Bool) -> TemplateValue {
            if truth, let yes = options["yes"] { return yes }
            if !truth, let no = options["no"] { return no }
            return .bool(truth)
        }

        switch call.name {
        // Blocks used inline and lookups.
        case "if": return answer(param(0).isTruthy)
        case "unless": return answer(!param(0).isTruthy)
        case "each", "with", "assign": return .null
        case "lookup": return param(0).member(text(1)) ?? .null
        // Conditionals.
        case "eq": return answer(param(0).equals(param(1)))
        case "neq": return answer(!param(0).equals(param(1)))
        case "gt", "gte", "lt", "lte":
            let order: ComparisonResult
            if let left = param(0).number, let right = param(1).number {
                order = left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
            } else {
                order = text(0).compare(text(1))
            }
            switch call.name {
            case "gt": return answer(order == .orderedDescending)
            case "gte": return answer(order != .orderedAscending)
            case "lt": return answer(order == .orderedAscending)
            default: return answer(order != .orderedDescending)
            }
        case "and": return answer(params.allSatisfy(\.isTruthy))
        case "or": return answer(params.contains { $0.isTruthy })
        case "not": return answer(!param(0).isTruthy)
        // Numbers: Handlebars.java gives a class name, or nothing.
        // Numbers only, as Handlebars.java: the text "4" is not even.
        case "isEven", "isOdd":
            guard case .number = param(0), let number = param(0).integer else { return .null }
            let even = number % 2 == 0
            guard even == (call.name == "isEven") else { return .null }
            return params.count > 1 ? param(1) : .string(call.name == "isEven" ? "even" : "odd")
        case "stripes":
            guard case .number = param(0), let number = param(0).integer else { return .null }
            return number % 2 == 0 ? (params.count > 1 ? param(1) : .string("even")) : (params.count > 2 ? param(2) : .string("odd"))
        // Strings.
        case "abbreviate":
            let value = text(0)
            let width = max(param(1).integer ?? 4, 4)
            guard value.count > width else { return .string(value) }
            return .string(String(value.prefix(width - 3)) + "...")
        case "capitalize":
            let value = flag("fully") ? text(0).lowercased() : text(0)
            var output = ""
            var atStart = true
            for character in value {
                output += atStart ? String(character).uppercased() : String(character)
                atStart = character.isWhitespace
            }
            return .string(output)
        case "capitalizeFirst":
            let value = text(0)
            return .string(value.prefix(1).uppercased() + value.dropFirst())
        case "decapitalize":
            let value = text(0)
            return .string(value.prefix(1).lowercased() + value.dropFirst())
        case "center", "ljust", "rjust":
            let value = text(0)
            let size = min(options["size"]?.integer ?? 0, 65536)
            let pad = options["pad"]?.text.first ?? " "
            let missing = max(size - value.count, 0)
            switch call.name {
            case "ljust": return .string(value + String(repeating: pad, count: missing))
            case "rjust": return .string(String(repeating: pad, count: missing) + value)
            default:
                let left = missing / 2
                return .string(String(repeating: pad, count: left) + value + String(repeating: pad, count: missing - left))
            }
        case "cut":
            let removed = params.count > 1 ? text(1) : " "
            return .string(removed.isEmpty ? text(0) : text(0).replacingOccurrences(of: removed, with: ""))
        case "defaultIfEmpty":
            return param(0).isTruthy ? param(0) : param(1)
        case "join":
            let separator: String
            let items: [TemplateValue]
            if params.count == 2, case .list(let list, _) = param(0) {
                items = list
                separator = text(1)
            } else {
                items = Array(params.dropLast())
                separator = params.last?.text ?? ""
            }
            let prefix = options["prefix"]?.text ?? ""
            let suffix = options["suffix"]?.text ?? ""
            return .string(prefix + items.map(\.text).joined(separator: separator) + suffix)
        case "substring":
            let value = Array(text(0))
            let start = min(max(param(1).integer ?? 0, 0), value.count)
            let end = params.count > 2 ? min(max(param(2).integer ?? value.count, start), value.count) : value.count
            return .string(String(value[start..<end]))
        case "lower": return .string(text(0).lowercased())
        case "upper": return .string(text(0).uppercased())
        case "slugify":
            var output = ""
            for character in text(0).lowercased().trimmingCharacters(in: .whitespaces) {
                if character.isLetter || character.isNumber || character == "_" {
                    output.append(character)
                } else if character.isWhitespace || character == "-" {
                    if !output.hasSuffix("-") { output.append("-") }
                }
            }
            return .string(output)
        case "stripTags":
            return .string(text(0).replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression))
        case "wordWrap":
            return .string(Self.wrapped(text(0), width: max(param(1).integer ?? 1, 1)))
        case "yesno":
            switch param(0) {
            case .null: return options["maybe"] ?? .string("maybe")
            case let value: return value.isTruthy ? options["yes"] ?? .string("yes") : options["no"] ?? .string("no")
            }
        case "replace":
            let target = text(1)
            return .string(target.isEmpty ? text(0) : text(0).replacingOccurrences(of: target, with: text(2)))
        case "trim": return .string(text(0).trimmingCharacters(in: .whitespacesAndNewlines))
        case "numberFormat": return .string(Self.numberFormat(param(0), style: params.count > 1 ? text(1) : nil, options: options))
        case "stringFormat": return .string(Self.stringFormat(text(0), Array(params.dropFirst())))
        case "dateFormat":
            guard case .date(let date, _) = param(0) else { return .null }
            let format = options["format"]?.text ?? (params.count > 1 ? text(1) : "medium")
            let zone = options["tz"].flatMap { TimeZone(identifier: $0.text) } ?? TimeZone(identifier: "UTC")!
            return .string(Self.dateText(date, format: format, timeZone: zone))
        // WireMock's.
        case "jsonPath": return jsonPath(param(0), text(1), default: options["default"])
        case "xPath", "soapXPath": return xPath(param(0), text(1), underSOAPBody: call.name == "soapXPath")
        case "randomValue":
            let kind = ResponseTemplate.RandomKind(rawValue: (options["type"]?.text ?? "ALPHANUMERIC").uppercased()) ?? .alphanumeric
            let length = min(max(options["length"]?.integer ?? 36, 1), 4096)
            var made = kind == .uuid ? UUID().uuidString.lowercased() : String((0..<length).map { _ in kind.alphabet.randomElement()! })
            if flag("uppercase") { made = made.uppercased() }
            return .string(made)
        case "hostname": return .string(ProcessInfo.processInfo.hostName)
        case "now": return Self.date(now, options: options)
        case "date":
            guard case .date(let date, _) = param(0) else { return Self.parseDate(text(0), format: nil).map { Self.date($0, options: options) } ?? .null }
            return Self.date(date, options: options)
        case "parseDate":
            return Self.parseDate(text(0), format: options["format"]?.text).map { Self.date($0, options: [:]) } ?? .null
        case "truncateDate":
            let date: Date?
            if case .date(let given, _) = param(0) { date = given } else { date = Self.parseDate(text(0), format: nil) }
            guard let date, let truncation = DateTruncation(name: text(1)) else { return .null }
            return Self.date(Self.truncated(date, truncation), options: [:])
        case "base64":
            let input = text(0)
            if flag("decode") {
                var padded = input
                while padded.count % 4 != 0 { padded += "=" }
                return .string(Data(base64Encoded: padded).map { String(decoding: $0, as: UTF8.self) } ?? "")
            }
            let encoded = Data(input.utf8).base64EncodedString()
            return .string(options["padding"].map { $0.text == "false" } == true ? String(encoded.prefix { $0 != "=" }) : encoded)
        case "urlEncode":
            let input = text(0)
            if flag("decode") { return .string(input.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? input) }
            // As Java's URLEncoder (WireMock's): letters, digits and `.-*_` stay, a space is `+`.
            var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            allowed.insert(charactersIn: ".-*_ ")
            return .string((input.addingPercentEncoding(withAllowedCharacters: allowed) ?? input).replacingOccurrences(of: " ", with: "+"))
        case "formData":
            var fields: [(key: String, value: [String])] = []
            for pair in text(0).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                var name = parts[0]
                var value = parts.count > 1 ? parts[1] : ""
                if flag("urlDecode") {
                    name = name.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? name
                    value = value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
                }
                if let index = fields.firstIndex(where: { $0.key == name }) { fields[index].value.append(value) } else { fields.append((name, [value])) }
            }
            variables[text(1)] = .object(fields.map { ($0.key, TemplateValue.list($0.value.map(TemplateValue.string), text: $0.value.first ?? "")) }, text: nil, caseInsensitive: false)
            return .null
        case "regexExtract":
            guard let expression = try? NSRegularExpression(pattern: text(1)) else { return options["default"] ?? .null }
            let input = text(0)
            let matches = expression.matches(in: input, options: [], range: NSRange(input.startIndex..., in: input))
            guard let match = matches.first else {
                return options["default"] ?? .string("[ERROR: Nothing matched \(text(1))]")
            }
            func group(_ index: Int) -> String {
                Range(match.range(at: index), in: input).map { String(input[$0]) } ?? ""
            }
            guard params.count > 2 else { return .string(group(0)) }
            let groups = match.numberOfRanges > 1 ? (1..<match.numberOfRanges).map { TemplateValue.string(group($0)) } : [.string(group(0))]
            variables[text(2)] = .list(groups, text: nil)
            return .null
        case "size":
            switch param(0) {
            case .list(let items, _): return .integer(items.count)
            case .object(let members, _, _): return .integer(members.count)
            case .null: return .integer(0)
            case let value: return .integer(value.text.count)
            }
        case "pickRandom", "anyOf":
            let choices = params.count == 1 ? param(0).elements : params
            return choices.randomElement() ?? .null
        case "randomInt":
            let lower = options["lower"]?.integer ?? Int(Int32.min)
            let upper = options["upper"]?.integer ?? Int(Int32.max)
            return .integer(lower < upper ? Int.random(in: lower..<upper) : lower)
        case "randomDecimal":
            let lower = options["lower"]?.number ?? -Double(Float.greatestFiniteMagnitude)
            let upper = options["upper"]?.number ?? Double(Float.greatestFiniteMagnitude)
            return .number(lower, text: "\(lower < upper ? Double.random(in: lower..<upper) : lower)")
        case "range":
            guard let first = param(0).integer, let last = param(1).integer, last >= first, last - first <= 100_000 else { return .list([], text: nil) }
            return .list((first...last).map(TemplateValue.integer), text: nil)
        case "array": return .list(params, text: nil)
        case "parseJson":
            let parsed = (try? JSONValue.parseKeepingNumberText(Data(text(0).utf8))).map { TemplateValue.json($0.value, numberTexts: $0.numberTexts) } ?? .null
            guard params.count > 1 else { return parsed }
            variables[text(1)] = parsed
            return .null
        case "toJson":
            return .string((try? param(0).jsonValue.compactData()).map { String(decoding: $0, as: UTF8.self) } ?? "")
        case "matches":
            let input = text(0)
            guard let expression = try? NSRegularExpression(pattern: "^(?:" + text(1) + ")$", options: [.dotMatchesLineSeparators]) else { return .bool(false) }
            return .bool(expression.rangeOfFirstMatch(in: input, options: [], range: NSRange(input.startIndex..., in: input)).location != NSNotFound)
        case "contains":
            if case .list(let items, _) = param(0) { return .bool(items.contains { $0.equals(param(1)) }) }
            return .bool(text(1).isEmpty || text(0).contains(text(1)))
        case "math": return Self.math(param(0), text(1), param(2))
        case "val":
            let found = param(0)
            let result = found.isTruthy || found.text == "false" || found.number == 0 && found.text == "0" ? found : (options["default"] ?? options["or"] ?? .null)
            if let name = options["assign"]?.text {
                variables[name] = result
                return .null
            }
            return result
        // WireMock 3's lists and JSON.
        case "arrayAdd", "arrayRemove":
            var items = param(0).elements
            let position = options["position"]
            var index = call.name == "arrayAdd" ? items.count : max(items.count - 1, 0)
            if position?.text == "start" { index = 0 } else if position?.text == "end" { index = call.name == "arrayAdd" ? items.count : max(items.count - 1, 0) } else if let given = position?.integer { index = given }
            if call.name == "arrayAdd" {
                items.insert(param(1), at: min(max(index, 0), items.count))
            } else if items.indices.contains(index) {
                items.remove(at: index)
            }
            return .list(items, text: nil)
        case "arrayJoin":
            let items = params.count == 2 ? param(1).elements : Array(params.dropFirst())
            return .string((options["prefix"]?.text ?? "") + items.map(\.text).joined(separator: text(0)) + (options["suffix"]?.text ?? ""))
        case "formatJson", "formatXml":
            return .string(Self.formatted(call.name, param(0), format: options["format"]))
        case "jsonMerge":
            guard let base = Self.json(param(0)), let added = Self.json(param(1)) else { return .null }
            var merged = Self.merged(base, added)
            if flag("removeNulls") { merged = Self.removingNulls(merged) }
            return .string((try? merged.compactData()).map { String(decoding: $0, as: UTF8.self) } ?? "")
        case "jsonRemove":
            guard let value = Self.json(param(0)), let steps = ResponseTemplate.JSONSteps(text(1)) else { return param(0) }
            return .string((try? Self.removing(steps.steps[...], from: value).compactData()).map { String(decoding: $0, as: UTF8.self) } ?? "")
        case "jsonSort":
            return .string(Self.jsonSorted(param(0), by: text(1), descending: options["order"]?.text == "desc", nullsLast: options["nulls"]?.text == "last"))
        case "jsonArrayAdd":
            guard case .array(var items)? = Self.json(param(0)) else { return .null }
            let item = Self.json(param(1)) ?? .string(text(1))
            if flag("flatten"), case .array(let added) = item { items += added } else { items.append(item) }
            if let limit = options["maxItems"]?.integer, limit >= 0, items.count > limit { items = Array(items.suffix(limit)) }
            return .string((try? JSONValue.array(items).compactData()).map { String(decoding: $0, as: UTF8.self) } ?? "")
        case "anyRegex":
            return (try? RegexGenerator(text(0))).map { .string($0.generate()) } ?? .null
        default:
            guard let generated = Helper.Generated(rawValue: call.name) else { return .null }
            return Self.generate(generated)
        }
    }

    /// `jsonPath`: the value at a definite path of a JSON text (or of a value already parsed).
    private func jsonPath(_ source: TemplateValue, _ path: String, default fallback: TemplateValue?) -> TemplateValue {
        guard let steps = ResponseTemplate.JSONSteps(path) else { return fallback ?? .null }
        var current: TemplateValue?
        switch source {
        case .object, .list:
            current = source
            for component in steps.components {
                current = current?.member(component)
            }
        default:
            guard let document = try? JSONValue.parseKeepingNumberText(Data(source.text.utf8)),
                let node = document.value.value(following: steps.steps)
            else { return fallback ?? .null }
            current = TemplateValue.json(node, numberTexts: document.numberTexts, at: steps.components)
        }
        guard let current, !(current.isNull) else { return fallback ?? .null }
        return current
    }

    /// `xPath` and `soapXPath`, as WireMock 2.35.1 answers them: the first node as text (an
    /// element as indented XML), every node for `#each`, empty text when nothing matched, and
    /// `[ERROR: … is not valid XML]` for a body that is not XML.
    private func xPath(_ source: TemplateValue, _ expression: String, underSOAPBody: Bool) -> TemplateValue {
        guard !source.isNull, let engine = TemplateXMLSupport.engine else { return .string("") }
        // WireMock's soapXPath reads the document without namespaces from /Envelope/Body.
        switch engine.select((underSOAPBody ? "/Envelope/Body" : "") + expression, in: source.text) {
        case .notXML: return .string("[ERROR: \(source.text) is not valid XML]")
        case .invalidExpression: return .string("[ERROR: \(expression) is not a valid XPath expression]")
        case .nodes(let nodes):
            guard let first = nodes.first else { return .string("") }
            return .list(nodes.map(TemplateValue.string), text: first)
        }
    }

    /// `formatJson` and `formatXml` (WireMock 3's): `source` written again pretty (the default)
    /// or compact, or WireMock's `[ERROR: …]` text for what cannot be.
    static func formatted(_ name: String, _ source: TemplateValue, format: TemplateValue?) -> String {
        let isXML = name == "formatXml"
        let text: String
        switch source {
        case .list where !isXML, .object where !isXML: text = (try? source.jsonValue.compactData()).map { String(decoding: $0, as: UTF8.self) } ?? ""
        default: text = source.isNull ? "" : source.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard !text.isEmpty else {
            return "[ERROR: \(name) should take a block of \(isXML ? "XML" : "JSON") to format or a single parameter of type String]"
        }
        let chosen = format.map { $0.text } ?? "pretty"
        guard let style = ResponseTemplate.Format(rawValue: chosen) else {
            return "[ERROR: \(name): format [\(chosen)] should be one of [pretty, compact]]"
        }
        if isXML {
            guard let engine = TemplateXMLSupport.engine, let written = engine.format(text, pretty: style == .pretty) else {
                return "[ERROR: Input is not valid XML]"
            }
            return written
        }
        guard let value = try? JSONValue.parse(Data(text.utf8)),
              let data = style == .compact ? try? value.compactData() : try? value.prettyData()
        else {
            return "[ERROR: There was an error parsing the json. Please make sure the json is valid]"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `jsonSort` (WireMock's newest JSON helper): the JSON text with the array before `[*]`
    /// sorted by each element's value after it — numbers, strings (as Java compares them) or
    /// booleans, all of one kind, `null`s first unless `nullsLast`, the whole order reversed when
    /// `descending`, equal values kept in their order — written compact; WireMock's error text
    /// for what it cannot sort.
    static func jsonSorted(_ source: TemplateValue, by path: String, descending: Bool, nullsLast: Bool) -> String {
        func error(_ message: String) -> String { "[ERROR: \(message)]" }
        guard let sortPath = ResponseTemplate.SortPath(path) else {
            return path.contains("[*]")
                ? error("Invalid JSONPath expression ('\(path)')")
                : error("JSONPath must include [*] to specify array location (e.g., '$[*].name' or '$.users[*].name')")
        }
        guard let document = json(source) else { return error("Input JSON string is not valid JSON ('\(source.text)')") }
        guard case .array(let items)? = document.value(following: sortPath.array.steps) else {
            return error("JSONPath does not reference an array ('\(sortPath.arrayText)')")
        }
        // Elements without the value are left out of the values, as JSONPath's projection does.
        let keys = items.compactMap { $0.value(following: sortPath.key.steps) }
        guard keys.count == items.count else {
            if keys.isEmpty, !items.isEmpty { return error("JSONPath expression did not match any values ('\(path)')") }
            return error("Number of sort values (\(keys.count)) does not match array size (\(items.count))")
        }
        enum Kind { case number, string, bool }
        var kind: Kind?
        for key in keys {
            let this: Kind
            switch key {
            case .null: continue
            case .number: this = .number
            case .string: this = .string
            case .bool: this = .bool
            case .array, .object: return error("All sort field values must be of the same comparable type (Number, String, or Boolean)")
            }
            if let kind, kind != this { return error("All sort field values must be of the same comparable type (Number, String, or Boolean)") }
            kind = this
        }
        /// -1, 0 or 1, nulls first.
        func compare(_ a: JSONValue, _ b: JSONValue) -> Int {
            switch (a, b) {
            case (.null, .null): return 0
            case (.null, _): return nullsLast ? 1 : -1
            case (_, .null): return nullsLast ? -1 : 1
            case (.number(let x), .number(let y)): return x < y ? -1 : (x > y ? 1 : 0)
            case (.string(let x), .string(let y)): return x.utf16.lexicographicallyPrecedes(y.utf16) ? -1 : (x == y ? 0 : 1)
            case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
            default: return 0
            }
        }
        let sorted = zip(items, keys).enumerated().sorted { left, right in
            let order = compare(left.element.1, right.element.1) * (descending ? -1 : 1)
            return order != 0 ? order < 0 : left.offset < right.offset
        }.map(\.element.0)
        let result = sortPath.array.steps.isEmpty ? JSONValue.array(sorted) : replacing(sortPath.array.steps[...], in: document, with: .array(sorted))
        return (try? result.compactData()).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The value with what the steps lead to replaced.
    static func replacing(_ steps: ArraySlice<JSONValue.Step>, in value: JSONValue, with replacement: JSONValue) -> JSONValue {
        guard let step = steps.first else { return replacement }
        switch (step, value) {
        case (.member(let name), .object(var members)):
            guard let inner = members[name] else { return value }
            members[name] = replacing(steps.dropFirst(), in: inner, with: replacement)
            return .object(members)
        case (.index(let position), .array(var items)):
            guard items.indices.contains(position) else { return value }
            items[position] = replacing(steps.dropFirst(), in: items[position], with: replacement)
            return .array(items)
        default:
            return value
        }
    }

    // MARK: JSON

    /// A value as JSON: one already parsed, or text that parses.
    static func json(_ value: TemplateValue) -> JSONValue? {
        switch value {
        case .list, .object: return value.jsonValue
        default: return try? JSONValue.parse(Data(value.text.utf8))
        }
    }

    /// `added`'s members over `base`'s, objects merged member by member.
    static func merged(_ base: JSONValue, _ added: JSONValue) -> JSONValue {
        guard case .object(var members) = base, case .object(let more) = added else { return added }
        for key in more.keys {
            let value = more[key]!
            members[key] = members[key].map { merged($0, value) } ?? value
        }
        return .object(members)
    }

    static func removingNulls(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members): return .object(JSONMembers(members.keys.compactMap { key in members[key] == .null ? nil : (key: key, value: removingNulls(members[key]!)) }))
        case .array(let items): return .array(items.map(removingNulls))
        default: return value
        }
    }

    /// The value without what the steps lead to.
    static func removing(_ steps: ArraySlice<JSONValue.Step>, from value: JSONValue) -> JSONValue {
        guard let step = steps.first else { return value }
        let rest = steps.dropFirst()
        switch (step, value) {
        case (.member(let name), .object(var members)):
            guard let inner = members[name] else { return value }
            if rest.isEmpty {
                return .object(JSONMembers(members.keys.filter { $0 != name }.map { (key: $0, value: members[$0]!) }))
            }
            members[name] = removing(rest, from: inner)
            return .object(members)
        case (.index(let position), .array(var items)):
            guard items.indices.contains(position) else { return value }
            if rest.isEmpty { items.remove(at: position) } else { items[position] = removing(rest, from: items[position]) }
            return .array(items)
        default:
            return value
        }
    }

    // MARK: Numbers and text

    /// WireMock's `math`, as Java's `BigDecimal` computes it: a result has the scale (digits
    /// after the point) of its operands — the larger for `+` `-` `%`, their sum for `*`, the
    /// dividend's for `/`, rounded half up (`10 / 4` is `3`, `1.5 / 2` is `0.8`, `2 * 3.5` is `7.0`).
    static func math(_ left: TemplateValue, _ operation: String, _ right: TemplateValue) -> TemplateValue {
        guard let a = left.number, let b = right.number, a.isFinite, b.isFinite else { return .null }
        func scale(_ value: TemplateValue) -> Int {
            let text = value.text.lowercased()
            guard !text.contains("e"), let point = text.firstIndex(of: ".") else { return 0 }
            return text.distance(from: point, to: text.endIndex) - 1
        }
        let (leftScale, rightScale) = (scale(left), scale(right))
        let result: Double
        let resultScale: Int
        switch operation {
        case "+": (result, resultScale) = (a + b, max(leftScale, rightScale))
        case "-": (result, resultScale) = (a - b, max(leftScale, rightScale))
        case "*": (result, resultScale) = (a * b, leftScale + rightScale)
        case "/":
            guard b != 0 else { return .null }
            (result, resultScale) = (a / b, leftScale)
        case "%":
            guard b != 0 else { return .null }
            (result, resultScale) = (a.truncatingRemainder(dividingBy: b), max(leftScale, rightScale))
        default: return .null
        }
        let places = min(resultScale, 15)
        let factor = pow(10, Double(places))
        let rounded = (result * factor).rounded(.toNearestOrAwayFromZero) / factor
        guard rounded.isFinite, abs(rounded) < 1e15 else { return .number(rounded, text: "\(rounded)") }
        return .number(rounded, text: places == 0 ? String(Int64(rounded)) : String(format: "%.\(places)f", rounded))
    }

    /// Handlebars.java's `numberFormat`, written as Java's root locale writes numbers.
    static func numberFormat(_ value: TemplateValue, style: String?, options: [String: TemplateValue]) -> String {
        guard case .number(let number, _) = value else { return "" }
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.usesGroupingSeparator = true
        formatter.groupingSeparator = ","
        formatter.groupingSize = 3
        formatter.decimalSeparator = "."
        formatter.roundingMode = .halfEven
        formatter.maximumFractionDigits = 3
        var prefix = ""
        switch style {
        case "integer"?:
            formatter.maximumFractionDigits = 0
        case "currency"?:
            prefix = "¤"
            formatter.minimumFractionDigits = 2
            formatter.maximumFractionDigits = 2
        case "percent"?:
            formatter.numberStyle = .percent
            formatter.maximumFractionDigits = 0
        case let pattern? where pattern != "number":
            formatter.positiveFormat = pattern
        default:
            break
        }
        if let flag = options["groupingUsed"] { formatter.usesGroupingSeparator = flag.text != "false" }
        if let digits = options["maximumFractionDigits"]?.integer { formatter.maximumFractionDigits = min(max(digits, 0), 64) }
        if let digits = options["minimumFractionDigits"]?.integer { formatter.minimumFractionDigits = min(max(digits, 0), 64) }
        if let digits = options["minimumIntegerDigits"]?.integer { formatter.minimumIntegerDigits = min(max(digits, 0), 64) }
        if let digits = options["maximumIntegerDigits"]?.integer { formatter.maximumIntegerDigits = min(max(digits, 0), 64) }
        if options["roundingMode"]?.text.uppercased() == "HALF_UP" { formatter.roundingMode = .halfUp }
        return prefix + (formatter.string(from: NSNumber(value: number)) ?? value.text)
    }

    /// Java's `String.format` for `%s`, `%d`, `%f` (with a precision) and `%%`.
    static func stringFormat(_ format: String, _ values: [TemplateValue]) -> String {
        var output = ""
        var rest = Substring(format)
        var next = 0
        while let percent = rest.firstIndex(of: "%") {
            output += rest[..<percent]
            var specifier = rest[rest.index(after: percent)...]
            var precision: Int?
            if specifier.first == "." {
                let digits = specifier.dropFirst().prefix { $0.isNumber }
                precision = Int(digits).map { min($0, 32) }
                specifier = specifier.dropFirst(1 + digits.count)
            }
            guard let conversion = specifier.first else {
                output += "%"
                rest = specifier
                break
            }
            let value = next < values.count ? values[next] : .null
            switch conversion {
            case "%": output += "%"
            case "s", "S":
                output += conversion == "S" ? value.text.uppercased() : value.text
                next += 1
            case "d":
                output += value.integer.map(String.init) ?? value.text
                next += 1
            case "f":
                output += value.number.map { String(format: "%.\(precision ?? 6)f", $0) } ?? value.text
                next += 1
            case "n": output += "\n"
            default: output += "%" + String(conversion)
            }
            rest = specifier.dropFirst()
        }
        return output + rest
    }

    /// Words wrapped at `width`, as Apache's `WordUtils.wrap` breaks them (long words kept whole).
    static func wrapped(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    // MARK: Dates

    /// A date with `format`, `timezone` and `offset` applied; ISO 8601 by default.
    static func date(_ date: Date, options: [String: TemplateValue]) -> TemplateValue {
        let timeZone = options["timezone"].flatMap { TimeZone(identifier: $0.text) } ?? TimeZone(identifier: "UTC")!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let shifted = options["offset"].flatMap { ResponseTemplate.DateOffset($0.text) }.flatMap { calendar.date(byAdding: $0.unit, value: $0.amount, to: date) } ?? date
        switch options["format"]?.text {
        case nil:
            // As WireMock writes a date: to the second, `Z` in UTC, else the zone's offset.
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = timeZone
            formatter.formatOptions = [.withInternetDateTime]
            return .date(shifted, text: formatter.string(from: shifted))
        case "epoch"?: return .date(shifted, text: String(Int64((shifted.timeIntervalSince1970 * 1000).rounded(.down))))
        case "unix"?: return .date(shifted, text: String(Int64(shifted.timeIntervalSince1970.rounded(.down))))
        case let pattern?: return .date(shifted, text: dateText(shifted, format: pattern, timeZone: timeZone))
        }
    }

    /// A date written with a Java-style pattern, or `full`/`long`/`medium`/`short`.
    static func dateText(_ date: Date, format: String, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        switch format {
        case "full": formatter.dateStyle = .full
        case "long": formatter.dateStyle = .long
        case "medium": formatter.dateStyle = .medium
        case "short": formatter.dateStyle = .short
        default: formatter.dateFormat = format
        }
        return formatter.string(from: date)
    }

    /// `parseDate`: ISO 8601 (with or without a time and zone), RFC 1123, epoch milliseconds,
    /// or the text read with `format` (`unix`, `epoch`, or a pattern).
    static func parseDate(_ text: String, format: String?) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch format {
        case "epoch"?: return Double(trimmed).map { Date(timeIntervalSince1970: $0 / 1000) }
        case "unix"?: return Double(trimmed).map { Date(timeIntervalSince1970: $0) }
        case let pattern?:
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = pattern
            return formatter.date(from: trimmed)
        case nil:
            let iso = ISO8601DateFormatter()
            if let date = iso.date(from: trimmed) { return date }
            iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = iso.date(from: trimmed) { return date }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            for pattern in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss.SSS", "yyyy-MM-dd", "EEE, dd MMM yyyy HH:mm:ss zzz"] {
                formatter.dateFormat = pattern
                if let date = formatter.date(from: trimmed) { return date }
            }
            return nil
        }
    }

    /// `truncateDate`, in UTC.
    static func truncated(_ date: Date, _ truncation: DateTruncation) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func make(_ year: Int?, _ month: Int?, _ day: Int?, _ hour: Int? = 0) -> Date {
            calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: 0, second: 0)) ?? date
        }
        switch truncation {
        case .firstSecondOfMinute:
            return calendar.date(from: DateComponents(year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: 0)) ?? date
        case .firstMinuteOfHour: return make(parts.year, parts.month, parts.day, parts.hour)
        case .firstHourOfDay: return make(parts.year, parts.month, parts.day)
        case .firstDayOfMonth: return make(parts.year, parts.month, 1)
        case .firstDayOfNextMonth: return calendar.date(byAdding: .month, value: 1, to: make(parts.year, parts.month, 1)) ?? date
        case .lastDayOfMonth:
            let next = calendar.date(byAdding: .month, value: 1, to: make(parts.year, parts.month, 1)) ?? date
            return calendar.date(byAdding: .day, value: -1, to: next) ?? date
        case .firstDayOfYear: return make(parts.year, 1, 1)
        case .firstDayOfNextYear: return make(parts.year.map { $0 + 1 }, 1, 1)
        case .lastDayOfYear: return make(parts.year, 12, 31)
        }
    }
}

extension TemplateValue {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension ResponseTemplate.Scope {
    /// stubr's generators: a random value of the kind each names.
    static func generate(_ kind: ResponseTemplate.Helper.Generated) -> TemplateValue {
        func letters(_ alphabet: String, _ count: Int) -> String { String((0..<count).map { _ in alphabet.randomElement()! }) }
        let lower = "abcdefghijklmnopqrstuvwxyz"
        let alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        let utc = TimeZone(identifier: "UTC")!
        let someDate = Date(timeIntervalSince1970: Double.random(in: 0..<4_102_444_800).rounded(.down))
        switch kind {
        case .anyU8: return .integer(Int.random(in: 0...Int(UInt8.max)))
        case .anyU16: return .integer(Int.random(in: 0...Int(UInt16.max)))
        case .anyU32: return .integer(Int.random(in: 0...Int(UInt32.max)))
        case .anyU64:
            let value = UInt64.random(in: 0...UInt64.max)
            return .number(Double(value), text: String(value))
        case .anyI8: return .integer(Int.random(in: Int(Int8.min)...Int(Int8.max)))
        case .anyI16: return .integer(Int.random(in: Int(Int16.min)...Int(Int16.max)))
        case .anyI32: return .integer(Int.random(in: Int(Int32.min)...Int(Int32.max)))
        case .anyI64: return .integer(Int.random(in: Int.min...Int.max))
        case .anyUuid: return .string(UUID().uuidString.lowercased())
        case .anyEmail: return .string(letters(lower, 8) + "@" + letters(lower, 6) + ".com")
        case .anyBoolean: return .bool(Bool.random())
        case .anyFloat: return .double(Double.random(in: -1_000_000...1_000_000))
        case .anyNumber: return Bool.random() ? .integer(Int.random(in: -1_000_000...1_000_000)) : .double(Double.random(in: -1_000_000...1_000_000))
        case .anyDate: return .string(dateText(someDate, format: "yyyy-MM-dd", timeZone: utc))
        case .anyTime: return .string(dateText(someDate, format: "HH:mm:ss", timeZone: utc))
        case .anyDatetime: return .string(dateText(someDate, format: "yyyy-MM-dd'T'HH:mm:ss", timeZone: utc))
        case .anyIso8601: return .string(dateText(someDate, format: "yyyy-MM-dd'T'HH:mm:ss'Z'", timeZone: utc))
        case .anyHostname: return .string(letters(lower, 8) + "." + letters(lower, 5) + ".com")
        case .anyIpAddress: return .string((0..<4).map { _ in String(Int.random(in: 0...255)) }.joined(separator: "."))
        case .anyAlphaNumeric: return .string(letters(alphanumeric, Int.random(in: 1...16)))
        case .anyNonBlankString: return .string(letters(alphanumeric + " ", Int.random(in: 0...8)) + letters(alphanumeric, 1) + letters(alphanumeric + " ", Int.random(in: 0...8)))
        case .anyNonEmptyString: return .string(letters(alphanumeric + " _-", Int.random(in: 1...16)))
        }
    }
}
