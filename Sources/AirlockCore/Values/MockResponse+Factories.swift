import AirlockBase
import Foundation

extension MockResponse {
    /// A JSON response encoded from an `Encodable` value, with `Content-Type: application/json`.
    ///
    /// ```swift
    /// MockResponse.encodable(User(id: 1, name: "Alice"))
    /// ```
    ///
    /// If the value fails to encode, the response is still queued and the request that receives it
    /// fails with a `URLError(.cannotParseResponse)` naming the value and the encoder's error.
    ///
    /// - Parameters:
    ///   - payload: The value to encode.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headers: Response headers; they override inherited ones and the default `Content-Type`.
    ///   - jsonEncoder: The encoder. Defaults to one that sorts keys, for stable bodies.
    /// - Returns: A mocked response.
    public static func encodable<T: Encodable>(
        _ payload: T,
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:],
        jsonEncoder: JSONEncoder = .sortedKeys
    ) -> MockResponse {
        let body: Body
        do {
            body = .data(try jsonEncoder.encode(payload))
        } catch {
            body = .failure(
                "the Encodable payload of type \(T.self) could not be encoded to JSON: \(error). "
                    + "Check its encode(to:) implementation, or pass the bytes with MockResponse(data:contentType:)."
            )
        }
        return MockResponse(
            body: body,
            contentType: "application/json",
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: headers
        )
    }

    /// A JSON response serialised from a dictionary, with `Content-Type: application/json`.
    ///
    /// ```swift
    /// MockResponse.dictionary(["error": "endpoint_not_found", "code": 404], status: .notFound)
    /// ```
    ///
    /// If the dictionary holds values JSON cannot represent, the request that receives the response
    /// fails with a `URLError(.cannotParseResponse)` that says so.
    ///
    /// - Parameters:
    ///   - payload: A dictionary of JSON-compatible values (strings, numbers, booleans, `NSNull`,
    ///     arrays and dictionaries of them).
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headers: Response headers.
    /// - Returns: A mocked response.
    public static func dictionary(
        _ payload: [String: Any],
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:]
    ) -> MockResponse {
        let body: Body
        // JSONSerialization, not JSONValue: `Any` is Foundation's object model (NSNumber, NSNull,
        // bridged collections), which it alone reads whole, and it writes integers beyond 2⁵³
        // exactly where a `Double` would round them. A dictionary has no order to keep: sorted keys.
        if JSONSerialization.isValidJSONObject(payload),
            let data = try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        {
            body = .data(data)
        } else {
            body = .failure(
                "the dictionary payload cannot be serialised to JSON: \(payload). "
                    + "Use only strings, numbers, booleans, NSNull, arrays and dictionaries of them."
            )
        }
        return MockResponse(
            body: body,
            contentType: "application/json",
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: headers
        )
    }

    /// A UTF-8 text response with `Content-Type: text/plain`.
    ///
    /// - Parameters:
    ///   - payload: The text.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headers: Response headers.
    /// - Returns: A mocked response.
    public static func plaintext(
        _ payload: String,
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:]
    ) -> MockResponse {
        MockResponse(
            body: .data(Data(payload.utf8)),
            contentType: "text/plain",
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: headers
        )
    }

    /// A response with no body and no `Content-Type`.
    ///
    /// - Parameters:
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headers: Response headers.
    /// - Returns: A mocked response.
    public static func empty(
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:]
    ) -> MockResponse {
        MockResponse(
            body: .data(Data()),
            contentType: nil,
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: headers
        )
    }

    /// A response whose body is a file in a bundle, such as `Bundle.module` of a test target.
    ///
    /// The `Content-Type` is inferred from the extension unless you pass one. If the bundle has no
    /// such file, the request that receives the response fails with `URLError(.cannotParseResponse)`
    /// (over a socket, `500`) naming the file and the bundle and saying how to add it.
    ///
    /// - Parameters:
    ///   - name: The file's name without extension.
    ///   - fileExtension: The file's extension, such as `"json"`.
    ///   - bundle: The bundle that holds the file. Defaults to `Bundle.main`.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headers: Response headers.
    ///   - contentType: The `Content-Type`; `nil` infers it from the extension.
    /// - Returns: A mocked response.
    public static func file(
        named name: String,
        extension fileExtension: String? = nil,
        in bundle: Bundle = .main,
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:],
        contentType: String? = nil
    ) -> MockResponse {
        if let url = bundle.url(forResource: name, withExtension: fileExtension) {
            return file(
                url: url,
                status: status,
                lifetime: lifetime,
                delivery: delivery,
                headers: headers,
                contentType: contentType
            )
        }
        let fileName = fileExtension.map { "\(name).\($0)" } ?? name
        return MockResponse(
            body: .failure(
                "the file '\(fileName)' is not in the bundle at \(bundle.bundlePath). "
                    + "Add it to the target's resources in Package.swift (resources: [.copy(\"\(fileName)\")]) "
                    + "and pass that target's Bundle.module."
            ),
            contentType: contentType ?? ContentTypes.forExtension(fileExtension ?? ""),
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: headers
        )
    }

    /// A response whose body is the file at a URL, read when the response is delivered.
    ///
    /// A relative path resolves against the current working directory. The `Content-Type` is
    /// inferred from the extension unless you pass one. A missing or unreadable file fails the
    /// request with `URLError(.fileDoesNotExist)` or `URLError(.noPermissionsToReadFile)`, naming the
    /// path.
    ///
    /// - Parameters:
    ///   - url: A file URL.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headers: Response headers.
    ///   - contentType: The `Content-Type`; `nil` infers it from the extension.
    /// - Returns: A mocked response.
    public static func file(
        url: URL,
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:],
        contentType: String? = nil
    ) -> MockResponse {
        MockResponse(
            body: .file(url.isFileURL ? url.standardizedFileURL : url),
            contentType: contentType ?? ContentTypes.forExtension(url.pathExtension),
            status: status,
            lifetime: lifetime,
            delivery: delivery,
            headers: headers
        )
    }

    /// A response whose body is the file at a URL: the same as
    /// ``file(url:status:lifetime:delivery:headers:contentType:)``, which the original HTTPMock
    /// documents; use that.
    ///
    /// - Parameters:
    ///   - url: A file URL.
    ///   - status: The HTTP status. Defaults to `.ok`.
    ///   - lifetime: How many times the response is served. Defaults to `.single`.
    ///   - delivery: When the response is delivered. Defaults to `.instant`.
    ///   - headers: Response headers.
    ///   - contentType: The `Content-Type`; `nil` infers it from the extension.
    /// - Returns: A mocked response.
    @available(*, deprecated, renamed: "file(url:status:lifetime:delivery:headers:contentType:)", message: "Use file(url:), the one way to name a file by URL.")
    public static func file(
        _ url: URL,
        status: Status = .ok,
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        headers: [String: String] = [:],
        contentType: String? = nil
    ) -> MockResponse {
        file(url: url, status: status, lifetime: lifetime, delivery: delivery, headers: headers, contentType: contentType)
    }
}

extension JSONEncoder {
    /// A JSON encoder with sorted keys, so encoded mock bodies are byte-for-byte stable: the
    /// default of ``MockResponse/encodable(_:status:lifetime:delivery:headers:jsonEncoder:)``.
    @usableFromInline
    static var sortedKeys: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension MockResponse {
    /// A response made from the request when it arrives: echo an id from the path, a header, a
    /// field of the JSON body.
    ///
    /// ```swift
    /// mock.addResponses(forPath: "/users/*", host: "api.example.com") {
    ///     MockResponse.computed(lifetime: .eternal) { request in
    ///         .encodable(User(id: Int(request.pathSegments[1]) ?? 0, name: "User \(request.pathSegments[1])"))
    ///     }
    /// }
    /// ```
    ///
    /// The response the closure returns may be any response — with its own status, headers,
    /// delivery, a fault or `MockResponse.error(…)`. `lifetime` says how many requests this
    /// stub answers; `delivery` delays every answer (otherwise the returned response's delivery
    /// applies). A closure that throws fails the request with an error naming the stub and the
    /// error (a `URLError` for `URLSession`, `500` on a socket).
    ///
    /// Also as the unmocked policy: `mock.unmockedPolicy = .mock(.computed { … })`.
    ///
    /// - Parameters:
    ///   - lifetime: How many requests it answers. Defaults to `.single`.
    ///   - delivery: When each answer is delivered. Defaults to `.instant` (the returned
    ///     response's own delivery).
    ///   - make: Makes the response from the request (method, URL, ``RecordedRequest/pathSegments``,
    ///     query, headers, body, ``RecordedRequest/decodeJSON(_:)``).
    /// - Returns: The response.
    public static func computed(
        lifetime: Lifetime = .single,
        delivery: Delivery = .instant,
        _ make: @escaping @Sendable (RecordedRequest) throws -> MockResponse
    ) -> MockResponse {
        MockResponse(body: .computed(Computation(make)), contentType: nil, status: .ok, lifetime: lifetime, delivery: delivery, headers: [:])
    }
}
