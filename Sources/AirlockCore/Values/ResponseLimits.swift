import AirlockBase
import Foundation

/// What a response may ask for: the limits every stub is checked against when it is registered
/// — from Swift, a stub file, the admin API or a cassette — and every computed or templated
/// response when it is made.
///
/// The checks live here once; the registry turns a problem into a ``RegistrationError`` and a
/// stub file into a `StubFileError` that names the field.
public enum ResponseLimits {
    /// The longest `delay`, and the longest time a body may be dribbled over: one day, in seconds.
    ///
    /// A day is longer than any test waits; a transport can schedule it without overflowing a
    /// clock.
    public static let maximumSeconds: TimeInterval = 86_400

    /// The most pieces a body may be dribbled in.
    public static let maximumDribbleChunks = 100_000

    /// The HTTP status codes a response may have.
    package static let statusCodes: ClosedRange<Int> = 100...599

    /// Why a response cannot be served as it is, and how to fix it; `nil` when it can.
    package static func problem(with response: MockResponse) -> (problem: String, fix: String)? {
        check(response).map { ($0.problem, $0.fix) }
    }

    /// Why a response cannot be served as it is, as the code a ``RegistrationError`` reports,
    /// and how to fix it; `nil` when it can.
    package static func check(_ response: MockResponse) -> (code: RegistrationError.Code, problem: String, fix: String)? {
        if let problem = lifetimeProblem(response.lifetime) {
            return (.invalidLifetime, problem, "Use .multiple(n) with n ≥ 1, .single or .eternal.")
        }
        if let problem = delayProblem(response.delivery) {
            return (.invalidDelay, problem, "Use .delayed(seconds) with 0 ≤ seconds ≤ \(Int(maximumSeconds)) (one day), or .instant.")
        }
        if let dribble = response.dribble {
            if let problem = dribbleProblem(chunks: dribble.chunks, seconds: dribble.seconds) {
                return (.invalidDribble, problem, "Use .dribbled(inChunks: n, over: seconds) with 1 ≤ n ≤ \(maximumDribbleChunks) and 0 ≤ seconds ≤ \(Int(maximumSeconds)).")
            }
        }
        if let stream = response.stream, let problem = streamProblem(stream) {
            return (.invalidDelay, problem, "Give each part, and the stream's ending, a wait of 0 to \(Int(maximumSeconds)) seconds (one day).")
        }
        if let problem = statusProblem(response.status) {
            return (.invalidStatus, problem, "Use a code from \(statusCodes.lowerBound) to \(statusCodes.upperBound).")
        }
        for (name, value) in response.headers {
            if let problem = headerProblem(name: name, value: value) {
                return (.invalidHeader, problem, headerFix)
            }
        }
        return nil
    }

    /// Why a lifetime would never serve its response, if it would not: `.multiple(n)` with n < 1.
    package static func lifetimeProblem(_ lifetime: MockResponse.Lifetime) -> String? {
        guard case .multiple(let count) = lifetime, count < 1 else { return nil }
        return "the lifetime .multiple(\(count)) would never serve the response"
    }

    /// Why a delivery cannot be waited for, if it cannot (see ``durationProblem(_:named:)``).
    package static func delayProblem(_ delivery: MockResponse.Delivery) -> String? {
        guard case .delayed(let seconds) = delivery else { return nil }
        return durationProblem(seconds, named: "the delay")
    }

    /// Why a stream cannot be sent as it is, if it cannot: a part's pause, or its ending's wait,
    /// that cannot be waited (see ``durationProblem(_:named:)``).
    package static func streamProblem(_ stream: ResponseStream) -> String? {
        for (index, part) in stream.parts.enumerated() {
            if let problem = durationProblem(part.delay, named: "the pause before part \(index)") { return problem }
        }
        return stream.ending.wait.flatMap { durationProblem($0, named: "the wait before the stream's end") }
    }

    /// Why a status cannot be sent, if it cannot: a code outside ``statusCodes``.
    package static func statusProblem(_ status: MockResponse.Status) -> String? {
        statusCodes.contains(status.code) ? nil : "the status \(status.code) is not an HTTP status code"
    }

    /// Why a number of seconds cannot be waited, if it cannot: not a number, negative, infinite
    /// or above ``maximumSeconds``.
    package static func durationProblem(_ seconds: Double, named what: String) -> String? {
        guard seconds.isFinite, seconds >= 0 else {
            return "\(what) \(seconds) is not a finite, non-negative number of seconds"
        }
        guard seconds <= maximumSeconds else {
            return "\(what) \(seconds) is longer than the limit of \(Int(maximumSeconds)) seconds (one day)"
        }
        return nil
    }

    /// Why a dribble cannot be carried out, if it cannot.
    package static func dribbleProblem(chunks: Int, seconds: Double) -> String? {
        guard (1...maximumDribbleChunks).contains(chunks) else {
            return "the dribble's \(chunks) chunks are not between 1 and \(maximumDribbleChunks)"
        }
        return durationProblem(seconds, named: "the dribble's duration")
    }

    /// Why a header field cannot be sent, if it cannot: a name that is not an RFC 9110 token, or a
    /// value with a control character (CR and LF would start another header; NUL ends strings).
    package static func headerProblem(name: String, value: String) -> String? {
        if name.isEmpty {
            return "a header name is empty"
        }
        if let byte = name.utf8.first(where: { !isTokenCharacter($0) }) {
            return "the header name \(JSONValue.quoted(name)) contains \(describe(byte)), which a header name (an RFC 9110 token) cannot"
        }
        if let byte = value.utf8.first(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return "the value of header \(JSONValue.quoted(name)) contains \(describe(byte)), which would "
                + (byte == 0x0D || byte == 0x0A ? "end the header and start another (header injection)" : "not be a valid field value (RFC 9110)")
        }
        return nil
    }

    package static let headerFix = "Header names are letters, digits and !#$%&'*+-.^_`|~ (no spaces or colons); values are one line, without CR, LF, NUL or other control characters."

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x0D: "a carriage return (\\r)"
        case 0x0A: "a line feed (\\n)"
        case 0x00: "a NUL byte"
        case 0x09: "a tab"
        case 0x20: "a space"
        case 0x21...0x7E: "\"\(Character(Unicode.Scalar(byte)))\""
        default: String(format: "the byte 0x%02X", byte)
        }
    }
}
