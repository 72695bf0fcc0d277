import AirlockBase
import Foundation

/// A request as the core sees it, whatever transport it came through (a `URLProtocol`, a loopback
/// server): only the parts matching needs, with no Foundation networking types.
package struct IncomingRequest: Sendable {
    /// A query parameter, as the journal shows it too: one type from the transport to the test.
    package typealias QueryItem = RecordedRequest.QueryItem

    /// The request's parts, in one box: a request is copied on its way from the transport to the
    /// journal and the delivery, and a copy is then one reference instead of ten.
    // @unchecked Sendable: a storage is only mutated while uniquely referenced (`writable`), so a
    // storage that two values share is never written.
    private final class Storage: @unchecked Sendable {
        var method: String
        /// The URL, or the parts it is made of when nothing has asked for it yet.
        var url: URLText
        var host: String
        var path: String
        var headerFields: HeaderFieldStorage = .list([])
        var body: Data?
        var operationID: String?
        var clientAddress: String?
        var httpVersion: String?
        var addressedToServer: (@Sendable () -> Bool)?
        var rawQuery: String?
        var parsedItems: [QueryItem]?

        init(method: String, url: URLText, host: String, path: String, rawQuery: String?) {
            self.method = method
            self.url = url
            self.host = host
            self.path = path
            self.rawQuery = rawQuery
        }

        func copy() -> Storage {
            let copy = Storage(method: method, url: url, host: host, path: path, rawQuery: rawQuery)
            copy.headerFields = headerFields
            copy.body = body
            copy.operationID = operationID
            copy.clientAddress = clientAddress
            copy.httpVersion = httpVersion
            copy.addressedToServer = addressedToServer
            copy.parsedItems = parsedItems
            return copy
        }
    }

    /// A request's URL: the text as it came, or — for a request a server received in origin
    /// form — the scheme, the `Host` and the target it is made of, joined only when something
    /// reads it (a journal query, a message); matching never does.
    private enum URLText {
        case whole(String)
        /// `target` `nil`: the asterisk form (`OPTIONS *`), whose URL is the authority alone.
        case origin(scheme: String, authority: String, target: String?)

        var string: String {
            switch self {
            case .whole(let url):
                return url
            case .origin(let scheme, let authority, let target):
                var url = String()
                url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + (target?.utf8.count ?? 0))
                url.append(scheme)
                url.append("://")
                url.append(authority)
                if let target { url.append(target) }
                return url
            }
        }
    }

    private var storage: Storage

    /// The storage, copied first when another value shares it.
    private var writable: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    /// The HTTP method, uppercased.
    package var method: String {
        get { storage.method }
        set { writable.method = newValue }
    }
    /// The absolute URL as the client sent it, for messages.
    package var url: String {
        get { storage.url.string }
        set { writable.url = .whole(newValue) }
    }
    /// The host, lowercased.
    package var host: String {
        get { storage.host }
        set { writable.host = newValue }
    }
    /// The percent-decoded path; `/` when the URL has none.
    package var path: String {
        get { storage.path }
        set { writable.path = newValue }
    }
    /// The header fields, as the transport handed them over (`URLRequest` keeps a dictionary).
    package var headerFields: HeaderFieldStorage {
        get { storage.headerFields }
        set { writable.headerFields = newValue }
    }

    /// The header fields; dictionaries come out sorted by name.
    package var headers: [(name: String, value: String)] {
        get { headerFields.fields }
        set { headerFields = .list(newValue) }
    }
    /// The complete body, if any.
    package var body: Data? {
        get { storage.body }
        set { writable.body = newValue }
    }
    /// The API operation the client says it calls (a swift-openapi-generator client through
    /// `AirlockTransport` names it), if it says.
    package var operationID: String? {
        get { storage.operationID }
        set { writable.operationID = newValue }
    }
    /// The IP address of the client that sent the request (`127.0.0.1`, `::1`), when it came
    /// over a socket; `nil` for a request made in-process (`URLSession`, a generated client).
    package var clientAddress: String? {
        get { storage.clientAddress }
        set { writable.clientAddress = newValue }
    }
    /// The protocol the request came in with over a socket, as HAR and WireMock's journal write
    /// it (`HTTP/1.1`, `HTTP/1.0`, `HTTP/2`); `nil` for a request made in-process.
    package var httpVersion: String? {
        get { storage.httpVersion }
        set { writable.httpVersion = newValue }
    }
    /// Whether the request was addressed to the server that received it rather than to a host a
    /// stub could name: an origin-form request whose `Host` is the server's own loopback address
    /// (see ``isAddressedToServer(hostHeader:port:boundAddress:)``). When no stub of its own host
    /// matches it, the stubs of every host are tried.
    package var isAddressedToServer: Bool { storage.addressedToServer?() ?? false }
    /// How to tell ``isAddressedToServer``: asked only when no stub of the request's own host
    /// matches, so that the usual request never parses its `Host` header a second time.
    package var addressedToServer: (@Sendable () -> Bool)? {
        get { storage.addressedToServer }
        set { writable.addressedToServer = newValue }
    }

    /// A request whose query is still the percent-encoded text after `?`, if any.
    package init(method: String, url: String, host: String, path: String, query: String?) {
        self.init(method: method, urlText: .whole(url), host: host, path: path, query: query)
    }

    private init(method: String, urlText url: URLText, host: String, path: String, query: String?) {
        // Most methods and hosts arrive in their canonical case: check before copying.
        storage = Storage(
            method: Self.contains(method, where: { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) ? method.uppercased() : method,
            url: url,
            host: Self.contains(host, where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || $0 >= 0x80 }) ? host.lowercased() : host,
            path: path.isEmpty ? "/" : path,
            rawQuery: query
        )
    }

    /// Whether a byte of `text` passes `test`, read from its contiguous UTF-8 where it has it (a
    /// native or small string, nearly always): iterating a `UTF8View` costs more per byte.
    private static func contains(_ text: String, where test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(where: test) } ?? text.utf8.contains(where: test)
    }

    /// A request whose query parameters are already parsed.
    package init(method: String, url: String, host: String, path: String, queryItems: [QueryItem]) {
        self.init(method: method, url: url, host: host, path: path, query: nil)
        storage.parsedItems = queryItems
    }

    /// The query as sent, if it was not given as items.
    package var queryText: String? { storage.rawQuery }

    /// The query parameters in order, percent-decoded. `+` is kept as it is, as `URLComponents` does.
    /// Setting them (a cassette's `beforeRecord` closure) leaves ``url`` as it is.
    package var queryItems: [QueryItem] {
        get { parse() }
        set {
            let storage = writable
            storage.parsedItems = newValue
            storage.rawQuery = nil
        }
    }

    private func parse() -> [QueryItem] {
        if let parsedItems = storage.parsedItems { return parsedItems }
        guard let rawQuery = storage.rawQuery, !rawQuery.isEmpty else { return [] }
        return rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return QueryItem(
                name: PercentDecoding.decode(parts[0]),
                value: parts.count > 1 ? PercentDecoding.decode(parts[1]) : nil
            )
        }
    }

    /// The query as lists of values per name, each list sorted so that order does not matter.
    var queryValues: [String: [String]] {
        QueryConstraint.lists(queryItems.lazy.map { (name: $0.name, value: $0.value) })
    }
}

/// Header fields kept the way they arrived, turned into an ordered list only when read.
package enum HeaderFieldStorage: Sendable {
    case dictionary([String: String])
    case list([(name: String, value: String)])

    package var fields: [(name: String, value: String)] {
        switch self {
        case .list(let fields):
            return fields
        case .dictionary(let dictionary):
            return dictionary.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { (name: $0.key, value: $0.value) }
        }
    }
}

extension IncomingRequest {
    /// Splits an absolute `http(s)` URL in one pass over its bytes — host (without user info,
    /// port or IPv6 brackets), percent-decoded path, raw query — instead of asking a URL type
    /// for each part (each of which parses the string again). `nil` when there is no host.
    package init?(method: String, absoluteURL url: String) {
        var text = url
        guard
            let (rawHost, rawPath, query) = text.withUTF8({ bytes -> (String, String, String?)? in
                guard let (_, authority) = Self.authority(in: bytes), let host = Self.host(in: bytes, authority: authority) else { return nil }
                let (path, query) = Self.pathAndQuery(in: bytes, from: authority.upperBound)
                return (Self.string(bytes, host), Self.string(bytes, path), query.map { Self.string(bytes, $0) })
            })
        else { return nil }
        self.init(method: method, urlText: .whole(url), rawHost: rawHost, rawPath: rawPath, query: query)
    }

    /// A request from the parts of its URL, host and path still percent-encoded.
    private init(method: String, urlText: URLText, rawHost: String, rawPath: String, query: String?) {
        self.init(
            method: method,
            urlText: urlText,
            host: Self.contains(rawHost, where: { $0 == UInt8(ascii: "%") }) ? PercentDecoding.decode(Substring(rawHost)) : rawHost,
            path: Self.contains(rawPath, where: { $0 == UInt8(ascii: "%") }) ? PercentDecoding.decode(Substring(rawPath)) : rawPath,
            query: query
        )
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// A request head as a server receives it. The target is in origin form (`/users?page=2`,
    /// host from the `Host` header), absolute form (`http://api.example.com/users`, as proxies
    /// get it; the target's host wins over the header) or asterisk form (`*`, for `OPTIONS *`;
    /// its path is `*`, which no stub matches). `nil` when the target is none of these or the
    /// `Host` header is not a host (it may not carry a path, user info or spaces).
    package init?(method: String, target: String, hostHeader: String?, scheme: String = "http") {
        let first = target.utf8.first
        if first != UInt8(ascii: "/") && target != "*" {
            let lowered = target.prefix(8).lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
            self.init(method: method, absoluteURL: target)
            return
        }
        let host = hostHeader.map(Self.trimmingOptionalWhitespace) ?? ""
        let authority = host.isEmpty ? "localhost" : host
        guard !Self.contains(authority, where: Self.isForbiddenInHostHeader) else { return nil }
        // The host is read from the authority and the path and query from the target, each in
        // one pass over its bytes; the URL they make is joined only if something asks for it.
        var authorityText = authority
        guard
            let rawHost = authorityText.withUTF8({ bytes in
                Self.host(in: bytes, authority: 0..<bytes.count).map { Self.string(bytes, $0) }
            })
        else { return nil }
        if target == "*" {
            self.init(method: method, urlText: .origin(scheme: scheme, authority: authority, target: nil), rawHost: rawHost, rawPath: "/", query: nil)
            path = "*"
            return
        }
        var targetText = target
        let (rawPath, query) = targetText.withUTF8 { bytes in
            let (path, query) = Self.pathAndQuery(in: bytes, from: 0)
            return (Self.string(bytes, path), query.map { Self.string(bytes, $0) })
        }
        self.init(method: method, urlText: .origin(scheme: scheme, authority: authority, target: target), rawHost: rawHost, rawPath: rawPath, query: query)
    }

    /// Whether an origin-form request with this `Host` header was addressed to a server listening
    /// on `port` itself: no header, or one naming `localhost`, a 127.x address, `::1` or the
    /// bound address, with the server's port (or none, when the server is on port 80).
    package static func isAddressedToServer(hostHeader: String?, port: Int, boundAddress: String?) -> Bool {
        let authority = hostHeader.map(trimmingOptionalWhitespace)?.lowercased() ?? ""
        if authority.isEmpty { return true }
        var host = Substring(authority)
        var portText: Substring?
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            guard rest.isEmpty || rest.hasPrefix(":") else { return false }
            if !rest.isEmpty { portText = rest.dropFirst() }
        } else if let colon = host.lastIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        let named = portText.map { Int($0) } ?? 80
        guard named == port else { return false }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let isLoopback = host == "localhost" || host == "::1"
            || octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
        return isLoopback || boundAddress.map { host == $0.lowercased() } == true
    }

    /// Whether a byte cannot appear in a `Host` header's value: it would move the authority's end.
    private static func isForbiddenInHostHeader(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\\"):
            return true
        default:
            return false
        }
    }

    /// A field value without the spaces and tabs around it (HTTP's optional whitespace), without
    /// copying when there are none — which is nearly always: servers hand values over trimmed.
    private static func trimmingOptionalWhitespace(_ value: String) -> String {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = value.utf8.first, let last = value.utf8.last, isWhitespace(first) || isWhitespace(last) else { return value }
        let trimmed = value.utf8.drop(while: isWhitespace).reversed().drop(while: isWhitespace).reversed()
        return String(decoding: trimmed, as: UTF8.self)
    }

    /// The authority of an absolute URL that names a server, with the scheme's port when it names
    /// none (`http://u@127.0.0.1:8080/x` → `127.0.0.1:8080`, `https://host/` → `host:443`); `nil`
    /// for text that is not one.
    package static func serverAuthority(ofAbsolute url: String) -> String? {
        var text = url
        return text.withUTF8 { bytes -> String? in
            guard let (schemeEnd, authority) = authority(in: bytes), !authority.isEmpty else { return nil }
            let named = String(decoding: UnsafeBufferPointer(rebasing: bytes[authority]), as: UTF8.self)
            let hasPort = named.hasPrefix("[") ? named.contains("]:") : named.contains(":")
            guard !hasPort else { return named }
            let isHTTPS = schemeEnd == 5 && String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<5]), as: UTF8.self).lowercased() == "https"
            return "\(named):\(isHTTPS ? 443 : 80)"
        }
    }

    /// Where an absolute URL's scheme ends (its `:`) and its authority is, without the user
    /// information; `nil` when the text has no `scheme://`.
    private static func authority(in bytes: UnsafeBufferPointer<UInt8>) -> (schemeEnd: Int, authority: Range<Int>)? {
        let slash = UInt8(ascii: "/")
        guard let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.count > schemeEnd + 2,
            bytes[schemeEnd + 1] == slash, bytes[schemeEnd + 2] == slash
        else { return nil }
        let authorityStart = schemeEnd + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count, bytes[authorityEnd] != slash, bytes[authorityEnd] != UInt8(ascii: "?"), bytes[authorityEnd] != UInt8(ascii: "#") {
            authorityEnd += 1
        }
        var hostStart = authorityStart
        for index in authorityStart..<authorityEnd where bytes[index] == UInt8(ascii: "@") {
            hostStart = index + 1
        }
        return (schemeEnd, hostStart..<authorityEnd)
    }

    /// The host within `authority` (a range of `bytes` without user information): without the
    /// port or an IPv6 address's brackets; `nil` when it is empty or a bracket is not closed.
    private static func host(in bytes: UnsafeBufferPointer<UInt8>, authority: Range<Int>) -> Range<Int>? {
        var hostStart = authority.lowerBound
        var hostEnd = authority.upperBound
        if hostStart < hostEnd, bytes[hostStart] == UInt8(ascii: "[") {
            // [IPv6]:port
            guard let close = (hostStart..<hostEnd).first(where: { bytes[$0] == UInt8(ascii: "]") }) else { return nil }
            hostStart += 1
            hostEnd = close
        } else if let port = (hostStart..<hostEnd).last(where: { bytes[$0] == UInt8(ascii: ":") }) {
            hostEnd = port
        }
        return hostStart < hostEnd ? hostStart..<hostEnd : nil
    }

    /// The path (up to `?` or `#`) from `start`, and the query (from `?` up to `#`), if any.
    private static func pathAndQuery(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (path: Range<Int>, query: Range<Int>?) {
        let question = UInt8(ascii: "?")
        let hash = UInt8(ascii: "#")
        var pathEnd = start
        while pathEnd < bytes.count, bytes[pathEnd] != question, bytes[pathEnd] != hash {
            pathEnd += 1
        }
        var query: Range<Int>?
        if pathEnd < bytes.count, bytes[pathEnd] == question {
            var queryEnd = pathEnd + 1
            while queryEnd < bytes.count, bytes[queryEnd] != hash { queryEnd += 1 }
            query = (pathEnd + 1)..<queryEnd
        }
        return (start..<pathEnd, query)
    }
}
