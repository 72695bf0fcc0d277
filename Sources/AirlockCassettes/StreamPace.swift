import Foundation

/// How fast a recorded stream replays: with the pauses it was recorded with, each pause scaled by
/// a factor, or every part at once. The parts keep their boundaries whatever the pace. A recorded
/// WebSocket conversation replays at the cassette's pace too: the server's messages after the
/// client's, each after its recorded pause so scaled.
///
/// ```swift
/// let cassette = try Cassette(contentsOf: url, pace: .instant)        // every event at once
/// let slower = try Cassette(contentsOf: url, pace: .scaled(by: 2))    // half the recorded speed
/// ```
///
/// `airlock serve CASSETTE.har --pace instant|as-recorded|<factor>` chooses it on the command
/// line, and the `.cassette(pace:)` trait (module `HTTPMockTesting`) per test.
public struct StreamPace: Hashable, Sendable, CustomStringConvertible {
    /// What each recorded pause is multiplied by: `1` as recorded, `0` at once, `2` half as fast.
    public let factor: Double

    private init(factor: Double) {
        self.factor = factor
    }

    /// The pauses as recorded: the default.
    public static let asRecorded = StreamPace(factor: 1)

    /// Every part at once, each still a part of its own.
    public static let instant = StreamPace(factor: 0)

    /// Each recorded pause multiplied by `factor`: `0.5` twice as fast, `2` half as fast.
    /// - Parameter factor: A finite number, 0 or more (anything else counts as 1).
    /// - Returns: The pace.
    public static func scaled(by factor: Double) -> StreamPace {
        StreamPace(factor: factor.isFinite && factor >= 0 ? factor : 1)
    }

    /// A pace as the command line spells it: `as-recorded`, `instant`, or a factor such as `0.5`.
    /// - Parameter text: The spelling.
    public init?(_ text: String) {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "as-recorded", "asrecorded", "recorded": self = .asRecorded
        case "instant", "at-once": self = .instant
        case let number:
            guard let factor = Double(number), factor.isFinite, factor >= 0 else { return nil }
            self = .scaled(by: factor)
        }
    }

    /// `as-recorded`, `instant`, or the factor.
    public var description: String {
        switch factor {
        case 1: "as-recorded"
        case 0: "instant"
        default: "\(factor)"
        }
    }
}
