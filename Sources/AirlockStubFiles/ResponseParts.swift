import AirlockBase
import AirlockCore
import Foundation
import HTTPTypes

/// The parts of a response read from a JSON document, each already a checked domain value, and
/// the one place they are put together into a ``MockResponse``.
///
/// A format's decoder reads each field once with the ``JSONNode`` decoders below (which apply
/// ``ResponseLimits`` where the field is read, so the error names the field) and fills these in;
/// stub files do, and so can any other format of the same responses.
package struct ResponseParts: Sendable {
    /// What the response sends.
    package enum Body: Sendable {
        /// No body.
        case empty
        /// Text, `text/plain` unless a `Content-Type` header says otherwise.
        case text(String)
        /// A JSON document, serialised, sent as `application/json`.
        case json(Data)
        /// A file, read when the response is sent.
        case file(URL)
        /// A fault on the connection instead of a response.
        case fault(MockResponse.Fault)
        /// Server-sent events or raw parts, each after its pause.
        case stream(StreamParts)
    }

    /// The status; `.ok` unless given.
    package var status: MockResponse.Status = .ok
    /// The header fields, checked against ``ResponseLimits``, in the document's order (sent so).
    package var headers = HTTPFields()
    /// What is sent.
    package var body: Body = .empty
    /// How many requests it answers.
    package var lifetime: MockResponse.Lifetime = .single
    /// When it is sent.
    package var delivery: MockResponse.Delivery = .instant
    /// The body in pieces over time, if so.
    package var dribble: DribblePlan?
    /// Set for a response made from each request (body, JSON strings and headers as templates).
    package var templates: TemplatedResponse?
    /// A stream's templates, by their text, when the response is templated.
    var streamTemplates: [String: ResponseTemplate] = [:]

    package init() {}

    /// The response.
    package var response: MockResponse {
        let dribble = dribble
        if let templates, !isFault {
            let status = status
            if case .stream(let stream) = body {
                let streamTemplates = streamTemplates
                return MockResponse.computed(lifetime: lifetime, delivery: delivery) { request in
                    // The headers rendered as any response's; each item's strings rendered here.
                    let head = templates.render(request, status: status)
                    let rendered = stream.stream { text, escaping in streamTemplates[text]?.render(request, escaping: escaping) ?? text }
                    return Self.streaming(rendered, status: status, lifetime: .single, delivery: .instant, headers: head.headerFields)
                }
            }
            return MockResponse.computed(lifetime: lifetime, delivery: delivery) { request in
                let response = templates.render(request, status: status)
                return dribble.map(response.dribbled) ?? response
            }
        }
        // The headers in the document's order, over the factory's own `Content-Type`.
        let response: MockResponse =
            switch body {
            case .fault(let fault): .fault(fault, lifetime: lifetime, delivery: delivery)
            case .json(let data): MockResponse(data: data, contentType: "application/json", status: status, lifetime: lifetime, delivery: delivery).inheriting(fields: headers)
            case .file(let url): MockResponse.file(url: url, status: status, lifetime: lifetime, delivery: delivery).inheriting(fields: headers)
            case .text(let text): MockResponse.plaintext(text, status: status, lifetime: lifetime, delivery: delivery).inheriting(fields: headers)
            case .empty: MockResponse.empty(status: status, lifetime: lifetime, delivery: delivery).inheriting(fields: headers)
            case .stream(let stream): Self.streaming(stream.stream(), status: status, lifetime: lifetime, delivery: delivery, headers: headers)
            }
        return dribble.map(response.dribbled) ?? response
    }

    /// A stream's response: the headers in the document's order, over a `Content-Type` for its
    /// kind (`text/event-stream` for events) and, for events, `Cache-Control: no-cache`.
    private static func streaming(_ stream: ResponseStream, status: MockResponse.Status, lifetime: MockResponse.Lifetime, delivery: MockResponse.Delivery, headers: HTTPFields) -> MockResponse {
        var defaults = HTTPFields()
        if stream.kind == .events, !headers.contains(.cacheControl) { defaults[.cacheControl] = "no-cache" }
        let fields = headers.laid(over: defaults)
        return MockResponse(
            body: .stream(stream),
            contentType: stream.kind == .events ? "text/event-stream" : nil,
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headerFields: fields
        )
    }

    /// A fault has no body or headers to fill in: its templates are checked, never rendered.
    private var isFault: Bool {
        if case .fault = body { return true }
        return false
    }
}

/// Decoders of response fields into checked domain values, shared by every JSON format.
extension JSONNode {
    /// An HTTP status code (an integer in ``ResponseLimits/statusCodes``).
    package func status() throws(StubFileError) -> MockResponse.Status {
        let code = try integer()
        let status = MockResponse.Status(code: code)
        guard ResponseLimits.statusProblem(status) == nil else {
            let codes = ResponseLimits.statusCodes
            throw error(.invalidValue, "is \(code)", expected: "an HTTP status from \(codes.lowerBound) to \(codes.upperBound)")
        }
        return status
    }

    /// A wait before the response, given in seconds (`.instant` for 0), within ``ResponseLimits``.
    /// - Parameter seconds: The wait this field gives, converted from the format's unit.
    package func delivery(seconds: Double) throws(StubFileError) -> MockResponse.Delivery {
        let delivery: MockResponse.Delivery = seconds == 0 ? .instant : .delayed(seconds)
        if let problem = ResponseLimits.delayProblem(delivery) {
            throw error(.invalidValue, problem, expected: "a number of seconds from 0 to \(Int(ResponseLimits.maximumSeconds)) (one day)")
        }
        return delivery
    }

    /// A body sent in pieces over time, within ``ResponseLimits``.
    /// - Parameters:
    ///   - chunks: How many pieces.
    ///   - seconds: Over how many seconds, converted from the format's unit.
    ///   - fields: How the format names the two, for the error: `"chunks"` and `"seconds"`.
    package func dribble(chunks: Int, seconds: Double, fields: (chunks: String, seconds: String)) throws(StubFileError) -> DribblePlan {
        if let problem = ResponseLimits.dribbleProblem(chunks: chunks, seconds: seconds) {
            throw error(
                .invalidValue,
                problem,
                expected: "\"\(fields.chunks)\" from 1 to \(ResponseLimits.maximumDribbleChunks) and \"\(fields.seconds)\" from 0 to \(Int(ResponseLimits.maximumSeconds))"
            )
        }
        return DribblePlan(chunks: chunks, seconds: seconds)
    }

    /// Header fields: an object of names and string values that ``ResponseLimits`` accepts. Each
    /// comes with its node, for errors in what is made of it (a template).
    package func headers() throws(StubFileError) -> [(name: String, value: String, node: JSONNode)] {
        var headers: [(name: String, value: String, node: JSONNode)] = []
        for (name, node) in try members("an object of header names and string values") {
            let value = try node.string()
            if let problem = ResponseLimits.headerProblem(name: name, value: value) {
                throw error(.invalidHeader, problem, expected: ResponseLimits.headerFix)
            }
            headers.append((name, value, node))
        }
        return headers
    }

    /// The value serialised as a JSON body: keys sorted, slashes as they are.
    package func jsonBody() throws(StubFileError) -> Data {
        do {
            return try value.sortingKeys().compactData()
        } catch {
            throw self.error(.invalidValue, "cannot be sent as JSON (\(error))", expected: "a JSON value of finite numbers")
        }
    }
}
