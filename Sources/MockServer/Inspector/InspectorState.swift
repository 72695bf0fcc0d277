import AirlockBase
import AirlockCassettes
@_spi(AirlockTransport) import AirlockCore
import Foundation

/// What the traffic page shows beside the exchanges: every scenario with its state, and the
/// cassette the server replays or records into, with how many exchanges it has recorded.
enum InspectorState {
    static func json(_ registry: MockRegistry) -> JSONValue {
        let states = registry.scenarioStates
        var members: [(String, JSONValue)] = [
            ("scenarios", .array(states.keys.sorted().map { name in .members([("name", .string(name)), ("state", .string(states[name] ?? ""))]) })),
        ]
        if let cassette = registry.unmatchedHandler as? Cassette {
            members.append(("cassette", .members([
                ("file", .string(cassette.url.lastPathComponent)),
                ("mode", .string(cassette.mode.rawValue)),
                ("recording", .bool(cassette.isRecording)),
                ("recorded", .number(Double(cassette.recordedEntries.count))),
                ("entries", .number(Double(cassette.entries.count))),
            ])))
        } else {
            members.append(("cassette", .null))
        }
        return .members(members)
    }
}
