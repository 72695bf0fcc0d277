import AirlockBase
import Foundation

extension MockResponse {
    /// Fails the request with an error instead of answering it: a timeout, no connection, or
    /// any `Error` of yours.
    ///
    /// ```swift
    /// MockResponse.error(URLError(.timedOut))
    /// MockResponse.error(URLError(.notConnectedToInternet), delivery: .delayed(0.5))
    /// ```
    ///
    /// The client sees the error as the task's error (`URLSession.data(for:)` throws it).
    ///
    /// - Parameters:
    ///   - error: The error the request fails with.
    ///   - lifetime: How many requests it fails. Defaults to `.single`.
    ///   - delivery: When the failure is delivered. Defaults to `.instant`.
    /// - Returns: A mocked failure.
    public static func error(
        _ error: any Error,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        MockResponse(
            body: .error(ErrorBox(error)),
            contentType: nil,
            status: .ok,
            lifetime: lifetime,
            delivery: delivery,
            headers: [:]
        )
    }

    /// A redirect that the session follows: a 3xx response with a `Location` header.
    ///
    /// ```swift
    /// Path("/old") { MockResponse.redirect(to: "/new") }
    /// Path("/new") { MockResponse.plaintext("moved here") }
    /// ```
    ///
    /// The session then requests the new location, which the mock answers like any other
    /// request. 303 turns any method but `HEAD` into `GET`, 301 and 302 turn `POST` into `GET`,
    /// 307 and 308 keep the method and body.
    ///
    /// - Parameters:
    ///   - location: An absolute URL or a path relative to the request's URL.
    ///   - status: `.found` (302, the default), `.movedPermanently`, `.other(303)`,
    ///     `.temporaryRedirect` or `.permanentRedirect`.
    ///   - headers: Other response headers.
    ///   - lifetime: How many times it is served. Defaults to `.single`.
    ///   - delivery: When it is delivered. Defaults to `.instant`.
    /// - Returns: A mocked redirect.
    public static func redirect(
        to location: String,
        status: Status = .found,
        headers: [String: String] = [:],
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant
    ) -> MockResponse {
        MockResponse(
            body: .data(Data()),
            contentType: nil,
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: HeaderFields.merging(headers, with: ["Location": location])
        )
    }
}
