import Foundation
import AirlockCore
import NIOHTTP1

/// The admin API under `/__admin/`: stubs as JSON (the stub-file format), the journal, the
/// unmatched requests with their near misses, and reset.
///
/// | request | does |
/// | --- | --- |
/// | `GET /__admin/stubs` | lists the stubs with queued and served counts |
/// | `POST /__admin/stubs` | adds stubs (a stub file's JSON) |
/// | `DELETE /__admin/stubs[?host=…]` | removes all stubs, or those of one host pattern |
/// | `GET /__admin/requests` | the journal, redacted |
/// | `GET /__admin/requests/unmatched` | unmatched requests, each with its diagnostic |
/// | `POST /__admin/reset` | removes all stubs and the journal |
struct AdminAPI {
    static let prefix = "/__admin/"

    let context: ServerContext

    struct Answer {
        let status: Int
        let body: Data
    }

    func handle(_ head: HTTPRequestHead, body: Data?) -> Answer {
        if let token = context.configuration.adminToken, !token.isEmpty {
            let given = head.headers.first(name: "Authorization")
            guard given == "Bearer \(token)" else {
                return Self.json(401, ["error": "the admin API needs the header Authorization: Bearer <admin token>"])
            }
        }
        let components = URLComponents(string: "http://admin\(head.uri)")
        let path = components?.path ?? head.uri
        let registry = context.registry
        let journal = registry.journal
        switch (head.method, path) {
        case (.GET, "/__admin/stubs"):
            return Self.encode(200, ["stubs": registry.stubSummaries])
        case (.POST, "/__admin/stubs"):
            do {
                let file = try StubFile(
                    data: body ?? Data(),
                    source: "request body",
                    baseDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                )
                let rejected = registry.register(file.registrations)
                return Self.json(rejected.isEmpty ? 201 : 400, ["added": file.stubs.count - rejected.count, "rejected": rejected.map(\.description)])
            } catch {
                return Self.json(400, ["error": error.description])
            }
        case (.DELETE, "/__admin/stubs"):
            if let host = components?.queryItems?.first(where: { $0.name == "host" })?.value {
                registry.removeAll(forHost: host)
            } else {
                registry.removeAll()
            }
            return Self.json(200, ["removed": true])
        case (.GET, "/__admin/requests"):
            let redaction = journal.redaction
            return Self.encode(200, ["requests": journal.all.map { RequestRecord(redaction.apply(to: $0)) }])
        case (.GET, "/__admin/requests/unmatched"):
            let redaction = journal.redaction
            let records = journal.all.filter { !$0.wasMatched }.map { request in
                RequestRecord(redaction.apply(to: request), diagnostic: registry.diagnosis(for: request).render(.json))
            }
            return Self.encode(200, ["requests": records])
        case (.POST, "/__admin/reset"):
            registry.removeAll()
            journal.clear()
            return Self.json(200, ["reset": true])
        default:
            return Self.json(404, [
                "error": "no admin endpoint \(head.method.rawValue) \(path)",
                "endpoints": [
                    "GET /__admin/stubs", "POST /__admin/stubs", "DELETE /__admin/stubs[?host=…]",
                    "GET /__admin/requests", "GET /__admin/requests/unmatched", "POST /__admin/reset",
                ],
            ])
        }
    }

    /// A journal entry as the admin API shows it.
    struct RequestRecord: Encodable {
        let sequence: Int
        let method: String
        let url: String
        let headers: [[String: String]]
        let body: String?
        let stub: String?
        let status: Int?
        let error: String?
        let diagnostic: String?

        init(_ request: RecordedRequest) {
            self.init(request, diagnostic: nil)
        }

        init(_ request: RecordedRequest, diagnostic: String?) {
            sequence = request.sequence
            method = request.method
            url = request.url
            headers = request.headers.map { ["name": $0.name, "value": $0.value] }
            body = request.body.map { String(data: $0, encoding: .utf8) ?? $0.base64EncodedString() }
            stub = request.stub
            status = request.response?.status
            error = request.response?.error
            self.diagnostic = diagnostic
        }
    }

    private static func json(_ status: Int, _ object: [String: Any]) -> Answer {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])) ?? Data("{}".utf8)
        return Answer(status: status, body: data)
    }

    private static func encode(_ status: Int, _ value: some Encodable) -> Answer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Answer(status: status, body: (try? encoder.encode(value)) ?? Data("{}".utf8))
    }
}
