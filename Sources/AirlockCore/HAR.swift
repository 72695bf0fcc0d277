import Foundation

/// HAR 1.2 (HTTP Archive) export of recorded requests, for browser dev tools, Charles, Proxyman
/// and other HTTP tools.
///
/// ```swift
/// try mock.exportHAR().write(to: URL(fileURLWithPath: "traffic.har"))
/// ```
public enum HAR {
    /// A HAR 1.2 document (`log.entries` with request, response and timings) for `requests`,
    /// with credentials hidden by `redaction`.
    /// - Parameters:
    ///   - requests: The requests, such as `mock.requests`.
    ///   - redaction: What to hide. Defaults to ``Redaction/standard``.
    /// - Returns: The JSON document.
    public static func document(for requests: [RecordedRequest], redaction: Redaction = .standard) -> Data {
        let log = Log(
            log: .init(
                version: "1.2",
                creator: .init(name: "Airlock HTTPMock", version: "0.1"),
                entries: requests.map { Entry(redaction.apply(to: $0)) }
            )
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Every member is a plain value; encoding cannot fail.
        return (try? encoder.encode(log)) ?? Data("{}".utf8)
    }

    struct Log: Encodable {
        struct Body: Encodable {
            let version: String
            let creator: Creator
            let entries: [Entry]
        }

        struct Creator: Encodable {
            let name: String
            let version: String
        }

        let log: Body
    }

    struct NameValue: Encodable {
        let name: String
        let value: String
    }

    struct Entry: Encodable {
        struct Request: Encodable {
            struct PostData: Encodable {
                let mimeType: String
                let text: String
                let encoding: String?
            }

            let method: String
            let url: String
            let httpVersion = "HTTP/1.1"
            let cookies: [NameValue] = []
            let headers: [NameValue]
            let queryString: [NameValue]
            let postData: PostData?
            let headersSize = -1
            let bodySize: Int
        }

        struct Response: Encodable {
            struct Content: Encodable {
                let size: Int
                let mimeType: String
                let text: String?
                let encoding: String?
            }

            let status: Int
            let statusText: String
            let httpVersion = "HTTP/1.1"
            let cookies: [NameValue] = []
            let headers: [NameValue]
            let content: Content
            let redirectURL: String
            let headersSize = -1
            let bodySize: Int
            let _error: String?
        }

        struct Timings: Encodable {
            let send: Double
            let wait: Double
            let receive: Double
        }

        let startedDateTime: String
        let time: Double
        let request: Request
        let response: Response
        let cache: [String: String] = [:]
        let timings: Timings

        init(_ recorded: RecordedRequest) {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            startedDateTime = formatter.string(from: recorded.date)
            let milliseconds = (recorded.response?.duration ?? 0) * 1000
            time = milliseconds
            timings = Timings(send: 0, wait: milliseconds, receive: 0)
            let requestType = recorded.header("Content-Type") ?? "application/octet-stream"
            request = Request(
                method: recorded.method,
                url: recorded.url,
                headers: recorded.headers.map { NameValue(name: $0.name, value: $0.value) },
                queryString: recorded.queryItems.map { NameValue(name: $0.name, value: $0.value ?? "") },
                postData: recorded.body.map { body in
                    let text = Entry.text(body)
                    return Request.PostData(mimeType: requestType, text: text.text, encoding: text.encoding)
                },
                bodySize: recorded.body?.count ?? 0
            )
            let response = recorded.response
            let headers = (response?.headers ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
            let responseType = headers.first { $0.key.lowercased() == "content-type" }?.value ?? "application/octet-stream"
            let body = response?.body ?? Data()
            let text = Entry.text(body)
            self.response = Response(
                status: response?.status ?? 0,
                statusText: response?.status.map { HTTPURLStatusText.text(for: $0) } ?? "",
                headers: headers.map { NameValue(name: $0.key, value: $0.value) },
                content: .init(size: body.count, mimeType: responseType, text: body.isEmpty ? nil : text.text, encoding: text.encoding),
                redirectURL: headers.first { $0.key.lowercased() == "location" }?.value ?? "",
                bodySize: body.count,
                _error: response?.error
            )
        }

        /// UTF-8 text as is, anything else in base64.
        static func text(_ data: Data) -> (text: String, encoding: String?) {
            if let text = String(data: data, encoding: .utf8) { return (text, nil) }
            return (data.base64EncodedString(), "base64")
        }
    }
}

/// Reason phrases for HAR's `statusText`.
enum HTTPURLStatusText {
    static func text(for code: Int) -> String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
