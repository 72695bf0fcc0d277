/// gRPC's 17 status codes (<https://grpc.github.io/grpc/core/md_doc_statuscodes.html>), sent as
/// the number in the `grpc-status` trailer.
public enum GRPCStatusCode: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Success.
    case ok = 0
    /// The caller cancelled the call.
    case cancelled = 1
    /// An error of no other kind (and any code a peer sends outside 0…16).
    case unknown = 2
    /// The request is invalid whatever the state of the system.
    case invalidArgument = 3
    /// The deadline (`grpc-timeout`) passed first.
    case deadlineExceeded = 4
    /// What the request names does not exist.
    case notFound = 5
    /// What the request would create exists already.
    case alreadyExists = 6
    /// The caller may not do this.
    case permissionDenied = 7
    /// A quota or limit ran out (a message over the length limit too).
    case resourceExhausted = 8
    /// The system is not in the state the call needs.
    case failedPrecondition = 9
    /// Aborted by a concurrency conflict.
    case aborted = 10
    /// Past the valid range.
    case outOfRange = 11
    /// The method is not implemented or not supported (a stub miss, or an unsupported `grpc-encoding`).
    case unimplemented = 12
    /// An internal error (gRPC's `INTERNAL`; a broken message stream too).
    case internalError = 13
    /// The service is unavailable for now; a retry may work.
    case unavailable = 14
    /// Data was lost or corrupted.
    case dataLoss = 15
    /// The call has no valid credentials.
    case unauthenticated = 16

    /// The code's name as gRPC spells it (`NOT_FOUND`).
    public var name: String {
        switch self {
        case .ok: "OK"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .deadlineExceeded: "DEADLINE_EXCEEDED"
        case .notFound: "NOT_FOUND"
        case .alreadyExists: "ALREADY_EXISTS"
        case .permissionDenied: "PERMISSION_DENIED"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .failedPrecondition: "FAILED_PRECONDITION"
        case .aborted: "ABORTED"
        case .outOfRange: "OUT_OF_RANGE"
        case .unimplemented: "UNIMPLEMENTED"
        case .internalError: "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        case .dataLoss: "DATA_LOSS"
        case .unauthenticated: "UNAUTHENTICATED"
        }
    }

    /// The code named `NOT_FOUND` (also `not_found`, `NotFound`, or its number as text).
    public init?(name: String) {
        let folded = name.replacingOccurrences(of: "_", with: "").lowercased()
        if let number = Int(name), let code = Self(rawValue: number) {
            self = code
        } else if let code = Self.allCases.first(where: { $0.name.replacingOccurrences(of: "_", with: "").lowercased() == folded }) {
            self = code
        } else {
            return nil
        }
    }

    /// The code a `grpc-status` value stands for: a number outside 0…16, or no number, is
    /// `UNKNOWN`, as the gRPC spec asks of clients.
    package init(grpcStatusValue: String) {
        self = Int(grpcStatusValue).flatMap(Self.init(rawValue:)) ?? .unknown
    }

    /// The number and the name: `5 NOT_FOUND`.
    public var description: String { "\(rawValue) \(name)" }
}
