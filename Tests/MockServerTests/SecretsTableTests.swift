import AirlockBase
import AsyncHTTPClient
import Foundation
import HTTPLogging
import HTTPMock
import HTTPMockTesting
import InMemoryLogging
import Logging
import MockServer
import NIOHTTP1
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One way a request carries a secret.
struct SecretForm: Sendable, CustomStringConvertible {
    let description: String
    /// Unique per form, so that a leak names its form.
    let secret: String
    var method = "POST"
    /// Path and query, after the host.
    var target = "/things"
    var headers: [(String, String)] = []
    var contentType: String?
    var body: String?
    /// Whether the secret is the URL's user-info password (URLSession only: a socket client puts
    /// it in `Authorization`).
    var inUserInfo = false
    /// Whether the secret is in the URL's fragment (never sent on a socket).
    var inFragment = false

    static func header(_ name: String, _ prefix: String = "") -> SecretForm {
        let secret = "HDR\(name.filter(\.isLetter).uppercased())SECRET"
        return SecretForm(description: "header \(name)", secret: secret, headers: [(name, prefix + secret)])
    }

    static func query(_ name: String) -> SecretForm {
        let secret = "QRY\(name.filter(\.isLetter).uppercased())SECRET"
        return SecretForm(description: "query \(name)", secret: secret, target: "/things?page=1&\(name)=\(secret)")
    }

    static func json(_ name: String) -> SecretForm {
        let secret = "JSN\(name.filter(\.isLetter).uppercased())SECRET"
        return SecretForm(description: "JSON \(name)", secret: secret, contentType: "application/json", body: #"{"user":"alice","nested":{"\#(name)":"\#(secret)"}}"#)
    }

    static let all: [SecretForm] = [
        .header("Authorization", "Bearer "), .header("X-Amz-Security-Token"), .header("Private-Token"), .header("X-Access-Token"),
        .header("Cookie", "session="), .header("X-Api-Key"),
        .query("client_secret"), .query("refresh_token"), .query("id_token"), .query("code"), .query("X-Amz-Signature"),
        .query("X-Amz-Credential"), .query("token"), .query("access_token"),
        .json("accessToken"), .json("clientSecret"), .json("refreshToken"), .json("private_key"), .json("passwd"),
        .json("credentials"), .json("authorization"), .json("session_id"), .json("password"),
        SecretForm(description: "JSON with a byte-order mark", secret: "BOMJSONSECRET", contentType: "application/json", body: "\u{FEFF}{\"password\":\"BOMJSONSECRET\"}"),
        SecretForm(description: "NDJSON", secret: "NDJSONSECRET", contentType: "application/x-ndjson", body: "{\"a\":1}\n{\"token\":\"NDJSONSECRET\"}\n"),
        SecretForm(description: "form-encoded", secret: "FORMSECRET", contentType: "application/x-www-form-urlencoded", body: "user=alice&password=FORMSECRET"),
        SecretForm(
            description: "multipart field",
            secret: "MULTIPARTSECRET",
            contentType: "multipart/form-data; boundary=XyZ",
            body: "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nalice\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nMULTIPARTSECRET\r\n--XyZ--\r\n"
        ),
        SecretForm(description: "GraphQL text", secret: "GRAPHQLSECRET", contentType: "application/graphql", body: #"mutation { login(user: "alice", password: "GRAPHQLSECRET") { token } }"#),
        SecretForm(
            description: "Referer carrying a token",
            secret: "REFERERSECRET",
            method: "GET",
            headers: [("Referer", "https://app.example.com/callback?state=1&access_token=REFERERSECRET")]
        ),
        SecretForm(
            description: "URL-valued header carrying a signature",
            secret: "URLHEADERSECRET",
            method: "GET",
            headers: [("X-Original-URL", "https://files.example.com/report.pdf?X-Amz-Signature=URLHEADERSECRET&X-Amz-Expires=60")]
        ),
        SecretForm(description: "URL password", secret: "USERINFOSECRET", method: "GET", inUserInfo: true),
        SecretForm(description: "URL fragment", secret: "FRAGMENTSECRET", method: "GET", target: "/cb#access_token=FRAGMENTSECRET&state=1", inFragment: true),
    ]
}

/// Every secret form × every output: the secret's text appears in none of them.
///
/// Each form is sent to an `HTTPMock` (unmatched, so every diagnostic is produced), to a
/// `MockServer` over a real socket, through an `HTTPLogger` to a real upstream, and recorded into
/// a cassette. Then every output is collected: 404 bodies, `unmatchedMessage`,
/// `redactedRequests`, HAR, the admin API's journal and unmatched list, verification failures,
/// log lines, the console line, the cassette file.
struct SecretsTableTests {
    @Test(arguments: SecretForm.all)
    func theSecretAppearsInNoOutput(_ form: SecretForm) async throws {
        var outputs: [(String, String)] = []
        let upstream = HTTPMock()
        upstream.addResponses(forPath: "/**", host: "**") {
            MockResponse.plaintext("ok", lifetime: .eternal)
        }

        // In-process: an HTTPMock with a near-miss stub that requires a secret-looking value too.
        let mock = HTTPMock()
        mock.addResponses(forPath: "/things", host: "api.example.com", requiring: .header("Authorization", "Bearer STUBSECRETVALUE")) {
            MockResponse.plaintext("never")
        }
        let notFound = try await deliver(form, through: mock.urlSession, base: "https://api.example.com")
        outputs.append(("HTTPMock 404 body", notFound))
        for request in mock.requests {
            outputs.append(("unmatchedMessage", mock.unmatchedMessage(for: request)))
        }
        outputs.append(("redactedRequests", describe(mock.redactedRequests)))
        outputs.append(("HAR export", String(decoding: mock.exportHAR(), as: UTF8.self)))
        outputs.append(("verifyNoUnmatchedRequests", failures { _ = mock.verifyNoUnmatchedRequests() }))
        outputs.append(("verify", failures { _ = mock.verify(.header("Authorization", "Bearer STUBSECRETVALUE"), .exactly(1)) }))
        outputs.append(("unusedStubs", mock.unusedStubs.joined(separator: "\n")))

        // Over a socket: a MockServer whose console line, 404 and admin API are collected.
        let console = ConsoleLines()
        try await withServer(upstream) { real in
            try await withServer(HTTPMock(), configuration: .init(exchangeHandler: { console.append($0.description) })) { server in
                let base = server.baseURL.absoluteString
                if !form.inFragment {
                    outputs.append(("MockServer 404 body", try await deliver(form, through: URLSession(configuration: .ephemeral), base: base)))
                }
                try await withClient { client in
                    outputs.append(("/__admin/requests", try await fetchText(client, "\(base)/__admin/requests")))
                    outputs.append(("/__admin/requests/unmatched", try await fetchText(client, "\(base)/__admin/requests/unmatched")))
                }
                outputs.append(("console", console.text))
            }

            // HTTPLogger, forwarding to the real upstream.
            let handler = InMemoryLogHandler()
            var logger = Logger(label: "secrets") { _ in handler }
            logger.logLevel = .trace
            let httpLog = HTTPLogger(logger: logger)
            _ = try await deliver(form, through: httpLog.makeURLSession(configuration: .ephemeral), base: real.baseURL.absoluteString)
            // And to a port nothing listens on: the error text quotes the URL.
            _ = try? await deliver(form, through: httpLog.makeURLSession(configuration: .ephemeral), base: "http://127.0.0.1:9")
            outputs.append(("HTTPLogger lines", handler.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")))
            outputs.append(("HTTPLogger HAR", String(decoding: httpLog.exportHAR(), as: UTF8.self)))
            outputs.append(("HTTPLogger redactedRequests", describe(httpLog.redactedRequests)))

            // A cassette recording the exchange from the real upstream.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-secrets-\(UUID().uuidString).har")
            defer { try? FileManager.default.removeItem(at: file) }
            let cassette = try Cassette(contentsOf: file, mode: .all, environment: [:])
            let recorder = HTTPMock(cassette: cassette)
            _ = try await deliver(form, through: recorder.urlSession, base: real.baseURL.absoluteString)
            try cassette.save()
            withExtendedLifetime(recorder) {}
            outputs.append(("cassette", try String(contentsOf: file, encoding: .utf8)))
        }

        #expect(outputs.count >= 14)
        for (output, text) in outputs {
            #expect(!text.contains(form.secret), "\(form) leaks into \(output):\n\(text)")
        }
        // The secret was sent: the raw journal keeps it for assertions.
        #expect(describeRaw(mock.requests).contains(form.secret))
    }

    @Test func redirectTargetsAreRedactedLikeURLs() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/login", host: "api.example.com") {
            MockResponse.redirect(to: "https://api.example.com/callback?state=1&access_token=LOCATIONSECRET#id_token=LOCATIONFRAGMENT")
        }
        let (data, _) = try await mock.urlSession.data(from: URL(string: "https://api.example.com/login")!)
        let outputs = [
            String(decoding: data, as: UTF8.self),
            String(decoding: mock.exportHAR(), as: UTF8.self),
            describe(mock.redactedRequests),
            mock.requests.map { mock.unmatchedMessage(for: $0) }.joined(),
        ]
        #expect(String(decoding: mock.exportHAR(), as: UTF8.self).contains(#""redirectURL" : "https://api.example.com/callback?state=1&access_token=%5BREDACTED%5D"#))
        for text in outputs {
            #expect(!text.contains("LOCATIONSECRET") && !text.contains("LOCATIONFRAGMENT"), "\(text)")
        }
    }

    @Test func stubValuesAreHiddenInAProtectedServersNotFoundAndShownWithTheToken() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/things", host: "**", requiring: .header("X-Tenant", "tenant-visible")) {
            MockResponse.plaintext("x")
        }
        try await withServer(mock, configuration: .init(adminToken: "t0ken")) { server in
            try await withClient { client in
                let base = server.baseURL.absoluteString
                let notFound = try await fetchText(client, "\(base)/things")
                #expect(notFound.contains("Airlock: no stub for GET"))
                #expect(!notFound.contains("tenant-visible"))
                #expect(!notFound.contains("Nearest registered stubs"))
                let withToken = try await send(client, "\(base)/__admin/requests/unmatched", headers: [("Authorization", "Bearer t0ken")])
                #expect(withToken.text.contains("tenant-visible"))
            }
        }
    }

    // MARK: Sending

    /// Sends the form's request through a URLSession; returns the body (or the error's text).
    private func deliver(_ form: SecretForm, through session: URLSession, base: String) async throws -> String {
        var address = base + form.target
        if form.inUserInfo {
            address = address.replacingOccurrences(of: "://", with: "://alice:\(form.secret)@")
        }
        var request = URLRequest(url: URL(string: address)!)
        request.httpMethod = form.method
        for (name, value) in form.headers { request.setValue(value, forHTTPHeaderField: name) }
        if let type = form.contentType { request.setValue(type, forHTTPHeaderField: "Content-Type") }
        request.httpBody = form.body.map { Data($0.utf8) }
        let (data, _) = try await session.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }

    private func fetchText(_ client: HTTPClient, _ url: String) async throws -> String {
        try await send(client, url).text
    }

    /// The test failures `body` records, as text.
    private func failures(_ body: () -> Void) -> String {
        let collected = ConsoleLines()
        withKnownIssue {
            body()
        } matching: { issue in
            collected.append(issue.comments.map(\.rawValue).joined(separator: "\n") + "\(issue)")
            return true
        }
        return collected.text
    }

    /// Every field of redacted requests, as text.
    private func describe(_ requests: [RecordedRequest]) -> String {
        requests.map { request in
            var text = "\(request) \(request.url) \(request.headers) \(request.queryItems) \(request.bodyText ?? "")"
            if let response = request.response {
                text += " \(response.headers) \(String(decoding: response.body, as: UTF8.self)) \(response.error ?? "")"
            }
            return text
        }.joined(separator: "\n")
    }

    private func describeRaw(_ requests: [RecordedRequest]) -> String {
        requests.map { "\($0.url) \($0.headers) \($0.bodyText ?? "")" }.joined(separator: "\n")
    }
}

/// Lines collected from callbacks on other threads.
final class ConsoleLines: Sendable {
    private let lines = Locked<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}
