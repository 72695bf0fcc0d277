/// gRPC's 17 status codes (<https://grpc.github.io/grpc/core/md_doc_statuscodes.html>), sent as
/// the number in the `grpc-status` trailer.
package enum GRPCStatusCode: Int, Sendable, CaseIterable, CustomStringConvertible {
    case ok = 0
    case cancelled = 1
    case unknown = 2
    case invalidArgument = 3
    case deadlineExceeded = 4
    case notFound = 5
    case alreadyExists = 6
    case permissionDenied = 7
    case resourceExhausted = 8
    case failedPrecondition = 9
    case aborted = 10
    case outOfRange = 11
    case unimplemented = 12
    case internalError = 13
    case unavailable = 14
    case dataLoss = 15
    case unauthenticated = 16

    /// The code's name as gRPC spells it (`NOT_FOUND`).
    package var name: String {
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
    package init?(name: String) {
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

    package var description: String { "\(rawValue) \(name)" }
}
