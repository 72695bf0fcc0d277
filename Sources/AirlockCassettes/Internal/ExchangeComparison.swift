import AirlockBase
import AirlockCore
import Foundation
import HTTPTypes

/// Compares a recorded response with a live one as ``DriftOptions`` asks: status, media type,
/// header names, and the shape of a JSON body or of a stream of server-sent events.
struct ExchangeComparison {
    let ignored: [FieldRule]
    let compared: [FieldRule]
    /// Lowercased names never compared: the rules' and the transfer's own.
    let ignoredHeaders: Set<String>

    init(ignored: [FieldRule], compared: [FieldRule], ignoredHeaders: [String]) {
        self.ignored = ignored
        self.compared = compared
        self.ignoredHeaders = Set(ignoredHeaders.map { $0.lowercased() }).union(Cassette.framingFields)
    }

    func drifts(recorded: RecordedResponse, live: RecordedResponse) -> [Drift] {
        var drifts: [Drift] = []
        if recorded.status != live.status {
            drifts.append(Drift(.status, at: "status", recorded: recorded.status.map(String.init), live: live.status.map(String.init)))
        }
        let recordedType = Self.mediaType(recorded.headerFields[.contentType])
        let liveType = Self.mediaType(live.headerFields[.contentType])
        if recordedType != liveType {
            drifts.append(Drift(.contentType, at: "content-type", recorded: recordedType, live: liveType))
        }
        drifts += headerDrifts(recorded: recorded.headerFields, live: live.headerFields)
        let recordedBody = Self.decoded(recorded)
        let liveBody = Self.decoded(live)
        if recordedType == "text/event-stream" || liveType == "text/event-stream" {
            drifts += eventDrifts(recorded: Self.events(in: recordedBody), live: Self.events(in: liveBody))
        } else {
            drifts += bodyDrifts(recorded: recordedBody, live: liveBody, at: "body")
        }
        return drifts
    }

    private func headerDrifts(recorded: HTTPFields, live: HTTPFields) -> [Drift] {
        func names(_ fields: HTTPFields) -> [(key: String, name: String)] {
            var seen = Set<String>()
            return fields.compactMap { field in
                let key = field.name.canonicalName
                guard !ignoredHeaders.contains(key), seen.insert(key).inserted else { return nil }
                return (key, field.name.rawName)
            }
        }
        let recordedNames = names(recorded)
        let liveNames = names(live)
        let recordedKeys = Set(recordedNames.map(\.key))
        let liveKeys = Set(liveNames.map(\.key))
        return recordedNames.filter { !liveKeys.contains($0.key) }.map { Drift(.headerRemoved, at: "header \($0.name)", recorded: nil, live: nil) }
            + liveNames.filter { !recordedKeys.contains($0.key) }.map { Drift(.headerAdded, at: "header \($0.name)", recorded: nil, live: nil) }
    }

    /// JSON bodies by shape; a body that is JSON on one side only is a drift; other bodies are
    /// compared only where `$` is among the compared values.
    private func bodyDrifts(recorded: Data, live: Data, at location: String) -> [Drift] {
        if recorded.isEmpty, live.isEmpty { return [] }
        let recordedJSON = recorded.isEmpty ? nil : try? JSONValue.parse(recorded)
        let liveJSON = live.isEmpty ? nil : try? JSONValue.parse(live)
        switch (recordedJSON, liveJSON) {
        case (let recordedJSON?, let liveJSON?):
            var drifts: [Drift] = []
            compare(recordedJSON, liveJSON, at: [], location: location, into: &drifts)
            var seen = Set<Drift>()
            return drifts.filter { seen.insert($0).inserted }
        case (nil, nil):
            guard ignored.isEmpty || !ignored.contains(where: { $0.covers([]) }), compared.contains(where: { $0.covers([]) }), recorded != live else { return [] }
            return [Drift(.valueChanged, at: location, recorded: "\(recorded.count) bytes", live: "\(live.count) bytes")]
        default:
            guard !ignored.contains(where: { $0.covers([]) }) else { return [] }
            return [Drift(.bodyKind, at: location, recorded: recordedJSON == nil ? Self.kind(recorded) : "JSON", live: liveJSON == nil ? Self.kind(live) : "JSON")]
        }
    }

    /// Compares two values at `place`: their types, an object's members, an array's elements —
    /// and their values where a compared rule covers them, unless `valuesToo` is false (an extra
    /// live element, compared by shape alone with a recorded element that is not its own).
    private func compare(_ recorded: JSONValue, _ live: JSONValue, at place: [JSONValue.Step], location: String, valuesToo: Bool = true, into drifts: inout [Drift]) {
        if ignored.contains(where: { $0.covers(place) }) { return }
        let spelled = "\(location) \(FieldRule.spelling(of: place))"
        let recordedType = Self.typeName(recorded)
        let liveType = Self.typeName(live)
        guard recordedType == liveType else {
            drifts.append(Drift(.typeChanged, at: spelled, recorded: recordedType, live: liveType))
            return
        }
        let comparesValue = valuesToo && compared.contains { $0.covers(place) }
        switch (recorded, live) {
        case (.object(let recordedMembers), .object(let liveMembers)):
            for (key, value) in recordedMembers {
                let inner = place + [.member(key)]
                if let other = liveMembers[key] {
                    compare(value, other, at: inner, location: location, valuesToo: valuesToo, into: &drifts)
                } else if !ignored.contains(where: { $0.covers(inner) }) {
                    drifts.append(Drift(.fieldRemoved, at: "\(location) \(FieldRule.spelling(of: inner))", recorded: Self.typeName(value), live: nil))
                }
            }
            for (key, value) in liveMembers where recordedMembers[key] == nil {
                let inner = place + [.member(key)]
                if !ignored.contains(where: { $0.covers(inner) }) {
                    drifts.append(Drift(.fieldAdded, at: "\(location) \(FieldRule.spelling(of: inner))", recorded: nil, live: Self.typeName(value)))
                }
            }
        case (.array(let recordedElements), .array(let liveElements)):
            if comparesValue, recordedElements.count != liveElements.count {
                drifts.append(Drift(.valueChanged, at: spelled, recorded: "\(recordedElements.count) elements", live: "\(liveElements.count) elements"))
            }
            // Every live element: against the recorded one at its position, and past the recorded
            // ones against the first (the recording's element shape), by shape alone. A recorded
            // empty array shows no element shape, so its live elements have none to differ from
            // (their number is a value: compared under --compare-values).
            guard let shape = recordedElements.first else { break }
            for (position, element) in liveElements.enumerated() {
                let own = position < recordedElements.count
                compare(own ? recordedElements[position] : shape, element, at: place + [.index(position)], location: location, valuesToo: valuesToo && own, into: &drifts)
            }
        default:
            if comparesValue, recorded != live {
                drifts.append(Drift(.valueChanged, at: spelled, recorded: Self.shown(recorded), live: Self.shown(live)))
            }
        }
    }

    /// Streams by their events: how many, each one's name, and the shape of each one's data.
    private func eventDrifts(recorded: [ServerSentEventText], live: [ServerSentEventText]) -> [Drift] {
        var drifts: [Drift] = []
        if recorded.count != live.count {
            drifts.append(Drift(.eventCount, at: "events", recorded: "\(recorded.count)", live: "\(live.count)"))
        }
        for position in 0..<min(recorded.count, live.count) {
            let (old, new) = (recorded[position], live[position])
            if old.name != new.name {
                drifts.append(Drift(.eventName, at: "events[\(position)] event", recorded: old.name ?? "message", live: new.name ?? "message"))
            }
            drifts += bodyDrifts(recorded: Data((old.data ?? "").utf8), live: Data((new.data ?? "").utf8), at: "events[\(position)] data")
        }
        return drifts
    }

    // MARK: Reading

    /// An event of a `text/event-stream` body: its `event:` name and its `data:` lines joined.
    struct ServerSentEventText: Equatable {
        var name: String?
        var data: String?
    }

    /// The events of a stream body, as the WHATWG's parsing rules read them (comments and
    /// blocks with neither data nor a name left out).
    static func events(in body: Data) -> [ServerSentEventText] {
        let text = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var events: [ServerSentEventText] = []
        var current = ServerSentEventText()
        func dispatch() {
            if current.name != nil || current.data != nil { events.append(current) }
            current = ServerSentEventText()
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty {
                dispatch()
                continue
            }
            if line.hasPrefix(":") { continue }
            let field: Substring
            var value: Substring = ""
            if let colon = line.firstIndex(of: ":") {
                field = line[..<colon]
                value = line[line.index(after: colon)...]
                if value.hasPrefix(" ") { value = value.dropFirst() }
            } else {
                field = line
            }
            switch field {
            case "event": current.name = String(value)
            case "data": current.data = current.data.map { $0 + "\n" + value } ?? String(value)
            default: break
            }
        }
        dispatch()
        return events
    }

    /// The body without its content coding, when it has one Airlock can read.
    static func decoded(_ response: RecordedResponse) -> Data {
        guard let coding = response.headerFields.contentCoding else { return response.body }
        return ContentCoding.decode(response.body, coding: coding) ?? response.body
    }

    /// `application/json` from `application/json; charset=utf-8`.
    static func mediaType(_ value: String?) -> String? {
        guard let value else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type.isEmpty ? nil : type
    }

    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// A scalar as JSON writes it, shortened.
    static func shown(_ value: JSONValue) -> String {
        let text = (try? value.compactData()).map { String(decoding: $0, as: UTF8.self) } ?? typeName(value)
        return text.count > 60 ? String(text.prefix(57)) + "…" : text
    }

    private static func kind(_ body: Data) -> String {
        body.isEmpty ? "empty" : "not JSON"
    }
}
