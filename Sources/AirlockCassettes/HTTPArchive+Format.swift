import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation

/// The HAR 1.2 document model: every field the specification requires is written, and reading
/// accepts what browsers and other tools write (unknown fields are ignored, optional ones may be
/// missing).
///
/// See <http://www.softwareishard.com/blog/har-12-spec/>.
enum HARFormat {
    struct Document: Codable {
        var log: Log
    }

    struct Log: Codable {
        var version: String
        var creator: Creator
        var entries: [Entry]
        /// Airlock's own field: how old the recording may grow before it is refreshed (`30d`).
        var maxAge: String?
        /// Airlock's own field: when the live service last confirmed every entry
        /// (`airlock cassette verify --update`), from which the cassette's age counts.
        var verifiedAt: String?

        enum CodingKeys: String, CodingKey {
            case version, creator, entries
            case maxAge = "_maxAge"
            case verifiedAt = "_verifiedAt"
        }
    }

    struct Creator: Codable {
        var name: String
        var version: String
    }

    struct NameValue: Codable {
        var name: String
        var value: String
    }

    struct Entry: Codable {
        var startedDateTime: String
        var time: Double
        var request: Request
        var response: Response
        var cache: Cache
        var timings: Timings
        /// Airlock's own field: the contract operation the request belongs to (its
        /// `operationId`), when a contract checked it.
        var operationID: String?
        /// Chrome DevTools' field: the frames of the WebSocket the request opened. Absent for
        /// any other request.
        var webSocketMessages: [WebSocketMessage]?

        enum CodingKeys: String, CodingKey {
            case startedDateTime, time, request, response, cache, timings
            case operationID = "_operationId"
            case webSocketMessages = "_webSocketMessages"
        }

        init(
            startedDateTime: String, time: Double, request: Request, response: Response, cache: Cache, timings: Timings, operationID: String? = nil,
            webSocketMessages: [WebSocketMessage]? = nil
        ) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.cache = cache
            self.timings = timings
            self.operationID = operationID
            self.webSocketMessages = webSocketMessages
        }

        /// Only what replay needs is required: the date, the request and the response.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            startedDateTime = try container.decode(String.self, forKey: .startedDateTime)
            time = try container.decodeIfPresent(Double.self, forKey: .time) ?? 0
            request = try container.decode(Request.self, forKey: .request)
            response = try container.decode(Response.self, forKey: .response)
            cache = Cache()
            timings = try container.decodeIfPresent(Timings.self, forKey: .timings) ?? Timings(send: 0, wait: time, receive: 0)
            operationID = try container.decodeIfPresent(String.self, forKey: .operationID)
            webSocketMessages = try container.decodeIfPresent([WebSocketMessage].self, forKey: .webSocketMessages)
        }
    }

    /// One frame of a WebSocket conversation (`_webSocketMessages[i]`), as Chrome DevTools
    /// exports it: `{"type": "send", "time": 1764237600.125, "opcode": 1, "data": "hello"}`.
    /// `type` is `send` (client to server) or `receive`; `time` seconds since 1970; `opcode` 1 for
    /// text, 2 for binary (`data` in base64). Airlock adds close frames, which Chrome leaves out:
    /// opcode 8, `data` the reason, `code` the status code when there is one.
    struct WebSocketMessage: Codable {
        var type: String?
        var time: Double?
        var opcode: Int?
        var data: String?
        var code: Int?
    }

    struct Cache: Codable {}

    struct Timings: Codable {
        var send: Double
        var wait: Double
        var receive: Double
    }

    struct Request: Codable {
        var method: String
        var url: String
        var httpVersion: String
        var cookies: [NameValue]
        var headers: [NameValue]
        var queryString: [NameValue]
        var postData: PostData?
        var headersSize: Int
        var bodySize: Int

        init(method: String, url: String, headers: [NameValue], queryString: [NameValue], postData: PostData?, bodySize: Int) {
            self.method = method
            self.url = url
            httpVersion = "HTTP/1.1"
            cookies = []
            self.headers = headers
            self.queryString = queryString
            self.postData = postData
            headersSize = -1
            self.bodySize = bodySize
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            method = try container.decode(String.self, forKey: .method)
            url = try container.decode(String.self, forKey: .url)
            httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
            cookies = try container.decodeIfPresent([NameValue].self, forKey: .cookies) ?? []
            headers = try container.decodeIfPresent([NameValue].self, forKey: .headers) ?? []
            queryString = try container.decodeIfPresent([NameValue].self, forKey: .queryString) ?? []
            postData = try container.decodeIfPresent(PostData.self, forKey: .postData)
            headersSize = try container.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
            bodySize = try container.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
        }
    }

    struct PostData: Codable {
        var mimeType: String
        var params: [Param]
        var text: String?
        /// Not in HAR 1.2 itself; written by several tools (and Airlock) for binary bodies.
        var encoding: String?

        init(mimeType: String, text: String, encoding: String?) {
            self.mimeType = mimeType
            params = []
            self.text = text
            self.encoding = encoding
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
            params = try container.decodeIfPresent([Param].self, forKey: .params) ?? []
            text = try container.decodeIfPresent(String.self, forKey: .text)
            encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        }
    }

    struct Param: Codable {
        var name: String
        var value: String?
    }

    struct Response: Codable {
        var status: Int
        var statusText: String
        var httpVersion: String
        var cookies: [NameValue]
        var headers: [NameValue]
        var content: Content
        var redirectURL: String
        var headersSize: Int
        var bodySize: Int
        var _error: String?
        /// Airlock's own field: the fields that followed the body (an HTTP/2 stream's closing
        /// `HEADERS`, an HTTP/1.1 body's last chunk), in order; gRPC's status rides there.
        var _trailers: [NameValue]?

        init(status: Int, httpVersion: String = "HTTP/1.1", headers: [NameValue], content: Content, redirectURL: String, error: String?, trailers: [NameValue]? = nil) {
            self.status = status
            statusText = HTTPURLStatusText.text(for: status)
            self.httpVersion = httpVersion
            _trailers = trailers
            cookies = []
            self.headers = headers
            self.content = content
            self.redirectURL = redirectURL
            headersSize = -1
            bodySize = content.size - (content.compression ?? 0)
            _error = error
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try container.decode(Int.self, forKey: .status)
            statusText = try container.decodeIfPresent(String.self, forKey: .statusText) ?? ""
            httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion) ?? "HTTP/1.1"
            cookies = try container.decodeIfPresent([NameValue].self, forKey: .cookies) ?? []
            headers = try container.decodeIfPresent([NameValue].self, forKey: .headers) ?? []
            content = try container.decodeIfPresent(Content.self, forKey: .content) ?? Content(size: 0, mimeType: "", text: nil, encoding: nil)
            redirectURL = try container.decodeIfPresent(String.self, forKey: .redirectURL) ?? ""
            headersSize = try container.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
            bodySize = try container.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
            _error = try container.decodeIfPresent(String.self, forKey: ._error)
            _trailers = try container.decodeIfPresent([NameValue].self, forKey: ._trailers)
        }
    }

    struct Content: Codable {
        var size: Int
        var mimeType: String
        var text: String?
        var encoding: String?
        /// Airlock's own field (HAR lets tools add `_`-prefixed ones): `true` when `text` holds
        /// the body as the server sent it, still in the coding the `Content-Encoding` header
        /// names. Without it, `text` is the decoded body, as HAR 1.2 says.
        var contentEncoded: Bool?
        /// Airlock's own field: the body as the server sent it, in base64, still in the coding
        /// the `Content-Encoding` header names — written beside the decoded `text` (which every
        /// HAR reader understands), so that a replay can send the server's very bytes.
        var encodedBody: String?
        /// Bytes the content coding saved (HAR 1.2's optional `compression`).
        var compression: Int?
        /// Airlock's own field: the parts of a streamed body (server-sent events, chunks) as they
        /// arrived, each with the time before it, beside `text` (which holds them all, one after
        /// the other, for every other reader). Absent for a body that was not a stream.
        var parts: [Part]?
        /// Airlock's own field: how a streamed body ended after its last part.
        var end: End?

        enum CodingKeys: String, CodingKey {
            case size, mimeType, text, encoding, compression
            case contentEncoded = "_contentEncoded"
            case encodedBody = "_encodedBody"
            case parts = "_parts"
            case end = "_end"
        }

        init(
            size: Int, mimeType: String, text: String?, encoding: String?, contentEncoded: Bool? = nil, encodedBody: String? = nil, compression: Int? = nil,
            parts: [Part]? = nil, end: End? = nil
        ) {
            self.size = size
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.contentEncoded = contentEncoded
            self.encodedBody = encodedBody
            self.compression = compression
            self.parts = parts
            self.end = end
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            size = try container.decodeIfPresent(Int.self, forKey: .size) ?? 0
            mimeType = try container.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
            text = try container.decodeIfPresent(String.self, forKey: .text)
            encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
            contentEncoded = try container.decodeIfPresent(Bool.self, forKey: .contentEncoded)
            encodedBody = try container.decodeIfPresent(String.self, forKey: .encodedBody)
            compression = try container.decodeIfPresent(Int.self, forKey: .compression)
            parts = try container.decodeIfPresent([Part].self, forKey: .parts)
            end = try container.decodeIfPresent(End.self, forKey: .end)
        }
    }

    /// How a streamed body ended (`content._end`): `{"wait": 3000}` when the server ended it 3 s
    /// after the last part (after the head, when there is none), `{"wait": 3000, "clientLeft":
    /// true}` when the client left then, the stream still open.
    struct End: Codable {
        /// Milliseconds between the last part (or the head) and the end.
        var wait: Double
        var clientLeft: Bool?

        init(wait: Double, clientLeft: Bool?) {
            self.wait = wait
            self.clientLeft = clientLeft
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            wait = try container.decodeIfPresent(Double.self, forKey: .wait) ?? 0
            clientLeft = try container.decodeIfPresent(Bool.self, forKey: .clientLeft)
        }
    }

    /// One part of a streamed body (`content._parts[i]`): `{"wait": 250, "text": "data: hi\n\n"}`,
    /// with `"encoding": "base64"` when the bytes are not UTF-8.
    struct Part: Codable {
        /// Milliseconds between the previous part (for the first, the head) and this one.
        var wait: Double
        var text: String
        var encoding: String?

        init(wait: Double, text: String, encoding: String?) {
            self.wait = wait
            self.text = text
            self.encoding = encoding
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            wait = try container.decodeIfPresent(Double.self, forKey: .wait) ?? 0
            text = try container.decodeIfPresent(String.self, forKey: .text) ?? ""
            encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        }
    }

    /// Seconds as HAR's milliseconds, to a microsecond.
    static func milliseconds(_ seconds: TimeInterval) -> Double {
        (seconds * 1000 * 1000).rounded() / 1000
    }

    /// UTF-8 text as is (a byte-order mark included), anything else in base64: either way the
    /// bytes read back are the bytes written.
    ///
    /// Valid UTF-8 decodes to the same bytes and anything else gains a U+FFFD, so the comparison
    /// is `String(validating:as:)` without its macOS 15 / iOS 18 floor.
    static func text(_ data: Data) -> (text: String, encoding: String?) {
        let text = String(decoding: data, as: UTF8.self)
        if text.utf8.elementsEqual(data) { return (text, nil) }
        return (data.base64EncodedString(), "base64")
    }

    /// The bytes of a `text` field, decoding base64 when `encoding` says so.
    static func bytes(_ text: String, encoding: String?) -> Data? {
        guard let encoding, !encoding.isEmpty else { return Data(text.utf8) }
        guard encoding.lowercased() == "base64" else { return nil }
        return Data(base64Encoded: text, options: .ignoreUnknownCharacters)
    }

    /// `2026-11-22T10:00:00.123Z`, as HAR writes dates.
    static func string(from date: Date) -> String {
        Timestamp.string(from: date)
    }

    /// A HAR date, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        Timestamp.date(text)
    }
}

/// Reason phrases for HAR's `statusText`.
enum HTTPURLStatusText {
    static func text(for code: Int) -> String {
        switch code {
        case 101: "Switching Protocols"
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
