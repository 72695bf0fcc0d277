import AirlockBase
import Foundation
import HTTPTypes
@_spi(AirlockTransport) import AirlockCore
import NIOHTTP1

/// The admin API under `/__admin/`: stubs as JSON (the stub-file format), the journal, the
/// unmatched requests with their near misses, and reset.
///
/// | request | does |
/// | --- | --- |
/// | `GET /__admin/stubs` | lists the stubs with queued and served counts |
/// | `POST /__admin/stubs` | adds stubs (a stub file's JSON) |
/// | `DELETE /__admin/stubs[?host=…]` | removes all stubs, or those of one host pattern |
/// | `GET /__admin/requests` | the journal, redacted, newest first, in WireMock's shape with Airlock's fields |
/// | `GET /__admin/requests/unmatched` | unmatched requests as WireMock logs them, each with its diagnostic |
/// | `POST /__admin/reset` | removes all stubs and the journal; scenarios start again; a WireMock root's mappings load again |
/// | `GET /__admin/scenarios` | every scenario with its state, possible states and stubs (``WireMockAdminAPI``) |
/// | `PUT /__admin/scenarios/<name>/state` | sets a scenario's state: `{"state": "…"}` (``WireMockAdminAPI``) |
/// | `POST /__admin/scenarios/reset` | returns every scenario to `Started` (``WireMockAdminAPI``) |
/// | `GET /__admin/inspector/` | the traffic page and its files; `…/feed` its live feed (``InspectorRoute``) |
///
/// WireMock's own paths (`/__admin/mappings`, request counts and finds, near misses, settings,
/// shutdown) go to ``WireMockAdminAPI``, and `/__admin/websockets` (the open WebSockets, pushes)
/// to ``WebSocketAdminAPI``, after the same checks.
///
/// Nothing a web page or another local process sends can change state it should not: on a
/// loopback server every admin request must name the server itself in `Host` (no DNS
/// rebinding) and carry no foreign `Origin`; writes must be `Content-Type: application/json`
/// (a page cannot send that cross-origin without a preflight the server never grants); `file`
/// responses stay inside ``MockServer/Configuration/adminFileRoot``; with an admin token, every
/// admin request needs it.
struct AdminAPI {
    static let prefix = "/__admin/"

    let context: ServerContext
    /// The port this connection came in on, for the `Host` check.
    let localPort: Int
    /// Whether this connection is TLS: the page's own `Origin` then starts `https://`, and an
    /// `http://` one names another origin.
    var isSecure = false

    struct Answer {
        let status: Int
        let body: Data
        /// The answer's fields; the admin API's own answers are JSON.
        var headers: HTTPFields = [.contentType: "application/json"]
    }

    func handle(_ head: HTTPRequestHead, body: Data?) -> Answer {
        if let refusal = check(head) {
            return refusal
        }
        let components = URLComponents(string: "http://admin\(head.uri)")
        let path = components?.path ?? head.uri
        let registry = context.registry
        let journal = registry.journal
        let wireMock = WireMockAdminAPI(context: context)
        if let answer = wireMock.handle(head.method, path: path, query: components?.queryItems ?? [], body: body) {
            return answer
        }
        if let answer = WebSocketAdminAPI(context: context).handle(head.method, path: path, body: body) {
            return answer
        }
        switch (head.method, path) {
        case (.GET, "/__admin/stubs"):
            return Self.encode(200, ["stubs": registry.stubSummaries])
        case (.POST, "/__admin/stubs"):
            do {
                let file = try StubFile(data: body ?? Data(), source: "request body", files: Self.fileAccess(root: context.configuration.adminFileRoot))
                let rejected = registry.register(file.registrations)
                return Self.json(rejected.isEmpty ? 201 : 400, [
                    "added": .number(Double(file.stubCount - rejected.count)), "rejected": .array(rejected.map { .string($0.description) }),
                ])
            } catch {
                return Self.json(400, ["error": .string(error.description)])
            }
        case (.DELETE, "/__admin/stubs"):
            if let host = components?.queryItems?.first(where: { $0.name == "host" })?.value {
                registry.removeAll(forHost: host)
            } else {
                registry.removeAll()
            }
            return Self.json(200, ["removed": true])
        case (.GET, "/__admin/requests"):
            // WireMock's serve events, newest first, each with Airlock's fields beside WireMock's.
            let redaction = journal.redaction
            let counts = journal.counts
            let limit = components?.queryItems?.first { $0.name == "limit" }?.value.flatMap(Int.init) ?? Int.max
            let events = journal.all.reversed().prefix(max(0, limit)).map { request -> JSONValue in
                let shown = redaction.apply(to: request)
                var event = wireMock.serveEvent(shown)
                for (key, value) in RequestRecord(shown).fields where event[key] == nil { event[key] = value }
                return .object(event)
            }
            return Self.json(200, [
                "requests": .array(events), "meta": ["total": .number(Double(counts.seen))], "requestJournalDisabled": false,
                "total": .number(Double(counts.seen)), "dropped": .number(Double(counts.dropped)),
            ])
        case (.GET, "/__admin/requests/unmatched"):
            // WireMock's logged requests, oldest first as WireMock lists them, each with its diagnostic.
            let redaction = journal.redaction
            let records = journal.all.filter { !$0.wasMatched }.map { request -> JSONValue in
                var logged = WireMockJournal.loggedRequest(redaction.apply(to: request))
                logged["diagnostic"] = .string(registry.diagnosis(for: request).render(.json))
                return .object(logged)
            }
            let counts = journal.counts
            return Self.json(200, [
                "requests": .array(records), "requestJournalDisabled": false,
                "total": .number(Double(counts.seen)), "dropped": .number(Double(counts.dropped)),
            ])
        case (.POST, "/__admin/reset"):
            registry.removeAll()
            journal.clear()
            // A WireMock root's mappings come back, as WireMock restores its files.
            return wireMock.resetMappings() ?? Self.json(200, ["reset": true])
        default:
            let endpoints = [
                "GET /__admin/stubs", "POST /__admin/stubs", "DELETE /__admin/stubs[?host=…]",
                "GET /__admin/requests", "GET /__admin/requests/unmatched", "POST /__admin/reset",
            ] + WireMockAdminAPI.endpoints + WebSocketAdminAPI.endpoints
            return Self.json(404, [
                "error": .string("no admin endpoint \(head.method.rawValue) \(path)"),
                "endpoints": .array(endpoints.map(JSONValue.string)),
            ])
        }
    }

    /// Why an admin request is refused, if it is: no admin token where the server has one, a
    /// `Host` that is not this server (DNS rebinding), a foreign `Origin`, or a write that is not
    /// JSON (a form or `text/plain` post from a web page).
    /// - Parameter requiringToken: `false` for the traffic page's own files, which hold no data
    ///   (a browser cannot send a header when it opens a page; the page sends the token with
    ///   every request for data).
    func check(_ head: HTTPRequestHead, requiringToken: Bool = true) -> Answer? {
        if requiringToken, let token = context.configuration.adminToken, !token.isEmpty {
            let given = head.headers.first(name: "Authorization")
            guard given == "Bearer \(token)" else {
                return Self.json(401, ["error": "the admin API needs the header Authorization: Bearer <admin token>"])
            }
        }
        return refusal(head)
    }

    /// Why an admin request is refused by where it comes from or what it is: a `Host` that is not
    /// this server (DNS rebinding), a foreign `Origin`, or a write that is not JSON (a form or
    /// `text/plain` post from a web page).
    private func refusal(_ head: HTTPRequestHead) -> Answer? {
        let configuration = context.configuration
        let method = head.method
        let isWrite = method != .GET && method != .HEAD && method != .OPTIONS
        // POST is the one write a web page can send to another origin without a preflight (as a
        // form or `text/plain`); PUT, PATCH and DELETE always need one, which is never granted.
        if method == .POST {
            let type = head.headers.first(name: "Content-Type")?.lowercased() ?? ""
            guard type.hasPrefix("application/json") else {
                return Self.json(415, [
                    "error": .string(
                        "admin POST requests need Content-Type: application/json (got \(type.isEmpty ? "none" : "\"\(type)\"")); "
                            + "web pages cannot send that to another origin without a preflight, which this server never grants"
                    ),
                ])
            }
        }
        // A server on loopback answers only requests addressed to itself. (One that serves other
        // machines is reached under names it cannot know, and needs a token instead.)
        guard !configuration.allowsNonLoopbackBinding || configuration.adminToken?.isEmpty != false else { return nil }
        let host = head.headers.first(name: "Host")?.lowercased() ?? ""
        guard isOwnAuthority(host) else {
            return Self.json(403, [
                "error": .string("the admin API answers only requests whose Host is this server (localhost:\(localPort) or 127.0.0.1:\(localPort)); got \"\(host)\""),
            ])
        }
        if let origin = head.headers.first(name: "Origin")?.lowercased(), origin != "null" || isWrite {
            // The server's own origin has the scheme this connection serves: a page over TLS
            // sends `https://`, and a page of the same host and port under the other scheme is
            // another origin.
            let scheme = isSecure ? "https://" : "http://"
            let authority = origin.hasPrefix(scheme) ? String(origin.dropFirst(scheme.count).prefix { $0 != "/" }) : ""
            guard isOwnAuthority(authority) else {
                return Self.json(403, [
                    "error": .string("the admin API does not answer requests from web pages of other origins (Origin: \(origin); this server's is \(scheme)127.0.0.1:\(localPort))"),
                ])
            }
        }
        return nil
    }

    /// Whether `authority` (`host[:port]`) names this server. An authority without a port names
    /// the scheme's default one (80, or 443 over TLS), as a browser reads it: a page served from
    /// `http://localhost` is not this server's on another port.
    private func isOwnAuthority(_ authority: String) -> Bool {
        var host = Substring(authority)
        var port: Int?
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let rest = host[host.index(after: close)...]
            port = rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            port = Int(host[host.index(after: colon)...])
            host = host[..<colon]
        }
        guard (port ?? (isSecure ? 443 : 80)) == localPort else { return false }
        let own: Set<String> = ["localhost", "127.0.0.1", "::1", context.configuration.host.lowercased()]
        return own.contains(String(host))
    }

    /// The files stubs added through the admin API may serve: those inside the server's folder for
    /// them (``MockServer/Configuration/adminFileRoot``), or none when it has no folder.
    private static func fileAccess(root: URL?) -> ResponseFile.Access {
        guard let root else {
            return .refused(
                problem: "cannot be added through the admin API unless the server has a folder for file responses",
                expected: "a server started with airlock serve --files DIR (or Configuration.adminFileRoot set), and a path inside it"
            )
        }
        return .inside(root, expected: "a file inside that folder: admin-added file responses must stay in it (start with --files DIR to choose another)")
    }

    /// A journal entry as the admin API shows it: Airlock's fields, beside WireMock's in
    /// `GET /__admin/requests`.
    struct RequestRecord {
        let sequence: Int
        let method: String
        let url: String
        /// `HTTP/1.1`, `HTTP/1.0` or `HTTP/2`.
        let httpVersion: String?
        /// In the order sent, repeated names too.
        let headers: [(name: String, value: String)]
        let body: String?
        /// The body's full length, also when only a prefix is kept.
        let bodySize: Int
        let stub: String?
        let status: Int?
        let error: String?
        /// The webhooks the stub sent, each with its outcome.
        let webhooks: [RecordedWebhook]

        init(_ request: RecordedRequest) {
            sequence = request.sequence
            method = request.method
            url = request.url
            httpVersion = request.httpVersion
            headers = request.headers.map { ($0.name, $0.value) }
            body = request.body.map { String(data: $0, encoding: .utf8) ?? $0.base64EncodedString() }
            bodySize = request.bodySize
            stub = request.stub
            status = request.response?.status
            error = request.response?.error
            webhooks = request.webhooks
        }

        /// The record as JSON members; those without a value are left out.
        var fields: JSONMembers {
            var fields: JSONMembers = [
                "sequence": .number(Double(sequence)),
                "method": .string(method),
                "url": .string(url),
                "headers": .array(headers.map { ["name": .string($0.name), "value": .string($0.value)] }),
            ]
            fields["httpVersion"] = httpVersion.map(JSONValue.string)
            fields["body"] = body.map(JSONValue.string)
            fields["bodySize"] = .number(Double(bodySize))
            fields["stub"] = stub.map(JSONValue.string)
            fields["status"] = status.map { .number(Double($0)) }
            fields["error"] = error.map(JSONValue.string)
            if !webhooks.isEmpty {
                fields["webhooks"] = .array(webhooks.map { webhook in
                    var members: JSONMembers = [
                        "method": .string(webhook.method), "url": .string(webhook.url), "outcome": .string(webhook.summary),
                        "delayMs": .number((webhook.delay * 1000).rounded()), "durationMs": .number((webhook.duration * 1000).rounded()),
                    ]
                    switch webhook.outcome {
                    case .answered(let status): members["status"] = .number(Double(status))
                    case .failed(let reason): members["error"] = .string(reason)
                    case .refused(let reason): members["refused"] = .string(reason)
                    }
                    return .object(members)
                })
            }
            return fields
        }
    }

    /// A JSON answer, pretty-printed as WireMock's admin API writes one (Jackson's printer),
    /// members in the order given.
    static func json(_ status: Int, _ value: JSONValue) -> Answer {
        Answer(status: status, body: (try? value.prettyData()) ?? Data("{}".utf8))
    }

    static func encode(_ status: Int, _ value: some Encodable) -> Answer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Answer(status: status, body: (try? encoder.encode(value)) ?? Data("{}".utf8))
    }
}
