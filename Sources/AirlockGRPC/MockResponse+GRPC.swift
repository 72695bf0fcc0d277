import AirlockCore
import AirlockGRPCCore
import Foundation
import HTTPTypes

extension MockResponse {
    /// A gRPC response message, written in proto3's JSON mapping, for a mock serving the method's
    /// service (``Mocking/serveGRPC(_:)``).
    ///
    /// ```swift
    /// server.addResponses(forPath: "/shop.OrderService/GetOrder", host: "*") {
    ///     MockResponse.grpc(#"{"id": "42", "status": "STATUS_OPEN"}"#, metadata: ["x-request-id": "r-1"])
    /// }
    /// ```
    /// - Parameters:
    ///   - message: The message as JSON. For a server-streaming method, a JSON array sends each
    ///     element as a message of its own.
    ///   - metadata: Sent as the response's headers.
    ///   - trailingMetadata: Sent in the trailers, beside `grpc-status`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    /// - Returns: A mocked response that ends the call with `OK`.
    public static func grpc(
        _ message: String,
        metadata: [String: String] = [:],
        trailingMetadata: [String: String] = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        MockResponse(data: Data(message.utf8), contentType: "application/json", lifetime: lifetime, delivery: delivery, headers: metadata)
            .withTrailers(HTTPFields(sortedDictionary: trailingMetadata))
    }

    /// A server stream of gRPC messages, each written in JSON and sent after its pause, for a
    /// mock serving the method's service (``Mocking/serveGRPC(_:)``).
    ///
    /// ```swift
    /// MockResponse.grpcStream([
    ///     StreamPart(#"{"orderId": "42", "status": "STATUS_OPEN"}"#),
    ///     StreamPart(#"{"orderId": "42", "status": "STATUS_SHIPPED"}"#, after: 0.5),
    /// ])
    /// ```
    /// - Parameters:
    ///   - messages: The messages as JSON, each with the pause before it.
    ///   - status: The status the call ends with after the last message. Defaults to `.ok`.
    ///   - statusMessage: The status's message (`grpc-message`), if any.
    ///   - metadata: Sent as the response's headers.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - ending: What happens after the last message. Defaults to `.close`.
    /// - Returns: A mocked response.
    public static func grpcStream(
        _ messages: [StreamPart],
        status: GRPCStatusCode = .ok,
        statusMessage: String? = nil,
        metadata: [String: String] = [:],
        lifetime: Lifetime = .single,
        ending: ResponseStream.Ending = .close
    ) -> MockResponse {
        var headers = metadata
        headers["grpc-status"] = String(status.rawValue)
        if let statusMessage { headers["grpc-message"] = statusMessage }
        return .stream(messages, contentType: "application/json", lifetime: lifetime, headers: headers, ending: ending)
    }

    /// A gRPC call's end with a status other than `OK` and no message, for a mock serving the
    /// method's service (``Mocking/serveGRPC(_:)``).
    ///
    /// ```swift
    /// MockResponse.grpcStatus(.notFound, message: "no order 42")
    /// ```
    /// - Parameters:
    ///   - status: The status (`grpc-status`).
    ///   - message: What it says (`grpc-message`), if anything.
    ///   - trailingMetadata: Sent in the trailers beside the status.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    /// - Returns: A mocked response.
    public static func grpcStatus(
        _ status: GRPCStatusCode,
        message: String? = nil,
        trailingMetadata: [String: String] = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        var headers = ["grpc-status": String(status.rawValue)]
        if let message { headers["grpc-message"] = message }
        return MockResponse(data: Data(), lifetime: lifetime, delivery: delivery, headers: headers)
            .withTrailers(HTTPFields(sortedDictionary: trailingMetadata))
    }
}
