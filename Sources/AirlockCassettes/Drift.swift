/// One difference between a recorded exchange and what the live service answers now: what kind
/// of difference, where, and the two sides.
///
/// ```swift
/// for entry in report.entries {
///     for drift in entry.drifts where drift.kind == .typeChanged {
///         print(entry.index, drift.path, drift.recorded ?? "", "→", drift.live ?? "")  // 0 $.id number → string
///     }
/// }
/// ```
public struct Drift: Hashable, Sendable, CustomStringConvertible {
    /// What kind of difference a ``Drift`` is.
    ///
    /// An opaque value with a static member for each kind, so that kinds can be added without
    /// breaking a `switch`: compare with `==`, or switch with a `default`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case status, contentType, headerAdded, headerRemoved
            case typeChanged, fieldAdded, fieldRemoved, valueChanged, bodyKind
            case eventCount, eventName
            case contractViolation
        }

        private let base: Base

        /// The status code differs (`200 → 503`).
        public static let status = Kind(base: .status)
        /// The media type of `Content-Type` differs (parameters such as `charset` aside).
        public static let contentType = Kind(base: .contentType)
        /// The live response has a header field the recording does not.
        public static let headerAdded = Kind(base: .headerAdded)
        /// The recording has a header field the live response does not.
        public static let headerRemoved = Kind(base: .headerRemoved)
        /// A JSON value has another type (`number → string`, `object → null`).
        public static let typeChanged = Kind(base: .typeChanged)
        /// A JSON object has a member the recording does not.
        public static let fieldAdded = Kind(base: .fieldAdded)
        /// A JSON object lacks a member the recording has.
        public static let fieldRemoved = Kind(base: .fieldRemoved)
        /// A value differs where ``DriftOptions/comparedValues`` asks for values to be compared.
        public static let valueChanged = Kind(base: .valueChanged)
        /// One body is JSON and the other is not.
        public static let bodyKind = Kind(base: .bodyKind)
        /// A stream of server-sent events has another number of events.
        public static let eventCount = Kind(base: .eventCount)
        /// An event of a stream has another `event:` name.
        public static let eventName = Kind(base: .eventName)
        /// The recorded or the live exchange breaks the contract ``DriftOptions/exchangeCheck``
        /// checks (`airlock cassette verify --openapi`).
        public static let contractViolation = Kind(base: .contractViolation)

        /// The kind's name, such as `typeChanged`, as the JSON report writes it.
        public var description: String { base.rawValue }
    }

    /// What kind of difference this is.
    public let kind: Kind
    /// Where: `status`, `content-type`, `header X-Trace`, `body $.items[*].id`, `events`,
    /// `events[2] event`, `events[2] data $.n`, or `contract (live)`.
    public let path: String
    /// The recorded side (`number`, `200`, `"open"`), when there is one.
    public let recorded: String?
    /// The live side, when there is one; for ``Kind/contractViolation``, the violation.
    public let live: String?

    /// Creates a drift.
    /// - Parameters:
    ///   - kind: What kind of difference it is.
    ///   - path: Where it is.
    ///   - recorded: The recorded side, if any.
    ///   - live: The live side, if any.
    public init(_ kind: Kind, at path: String, recorded: String?, live: String?) {
        self.kind = kind
        self.path = path
        self.recorded = recorded
        self.live = live
    }

    /// `body $.id: number → string`, `header X-Trace: added`, `body $.name: removed (was string)`.
    public var description: String {
        switch kind {
        case .headerAdded, .fieldAdded: "\(path): added" + (live.map { " (\($0))" } ?? "")
        case .headerRemoved, .fieldRemoved: "\(path): removed" + (recorded.map { " (was \($0))" } ?? "")
        case .contractViolation: "\(path): \(live ?? recorded ?? "")"
        default: "\(path): \(recorded ?? "none") → \(live ?? "none")"
        }
    }
}
