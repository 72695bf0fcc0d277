import Airgap
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The URLSession layer on its own — all of Airgap where there is no socket layer (Apple
/// platforms, or Linux built with `AIRGAP_NO_SOCKET_LAYER`). This file uses only Airgap's public
/// API, Foundation and Swift Testing, so that the package in `Tests/AirgapPortable` runs it in a
/// build without the socket layer, as CI does; `swift test` runs it with the socket layer.
///
/// Every request goes to an `.invalid` name on a session the guard protocol answers
/// (`URLSession.shared`, or an `Airgap.protect`ed configuration). Loopback stays allowed: the guard
/// is process-wide, and other suites of the process talk to servers on 127.0.0.1 meanwhile.
@Suite(.aloneAmongGuardedTests, .airgapped(mode: .warn, allowedHosts: ["localhost", "127.0.0.1", "::1"]))
struct URLProtocolGuardTests {
    /// A URLError code, or the HTTP status of an answer.
    enum Outcome: Equatable, Sendable {
        case status(Int)
        case urlError(Int)
    }

    /// The outcome of `request`. Its time-out is a hang guard (the suite's 300 s), not a limit:
    /// the guard answers at once.
    static func fetch(_ session: URLSession, _ request: URLRequest) async -> Outcome {
        var request = request
        request.timeoutInterval = 300
        do {
            let (_, response) = try await session.data(for: request)
            return .status((response as? HTTPURLResponse)?.statusCode ?? 0)
        } catch {
            return .urlError((error as NSError).code)
        }
    }

    static func fetch(_ session: URLSession, _ url: String) async -> Outcome {
        await fetch(session, URLRequest(url: URL(string: url)!))
    }

    /// A session whose configuration lists the guard first.
    static func protectedSession(_ classes: [AnyClass] = []) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = classes + (configuration.protocolClasses ?? [])
        return URLSession(configuration: Airgap.protect(configuration))
    }

    /// Collects what the reporter is called with (the scope restores the reporter when it ends).
    static func collectReports() -> Reports {
        let reports = Reports()
        Airgap.violationReporter = { violation in reports.append(violation.url) }
        return reports
    }

    /// URLs the reporter was called with, behind a pthread lock (`NSLock`).
    final class Reports: @unchecked Sendable {
        // @unchecked Sendable: `urls` is only touched with `lock` held.
        private let lock = NSLock()
        private var urls: [String] = []

        func append(_ url: String) {
            lock.withLock { urls.append(url) }
        }

        var all: [String] {
            lock.withLock { urls }
        }
    }

    #if AIRGAP_NO_SOCKET_LAYER
    /// This build is the one it claims to be: `connect` is the C library's own. (With the socket
    /// layer, the test binary's hook is the `connect` every caller in the process finds.)
    @Test func theSocketLayerIsCompiledOut() throws {
        let everywhere = try #require(dlsym(dlopen(nil, RTLD_NOW), "connect"))
        let libc = try #require(dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD), "the C library is not loaded as libc.so.6")
        #expect(everywhere == dlsym(libc, "connect"), "the process's connect is not the C library's: a hook is linked in")
    }
    #endif

    @Test func theSharedSessionIsBlockedAndReportedBeforeTheRequestReturns() async {
        let reports = Self.collectReports()
        let url = "http://airgap-portable-shared.invalid/a"
        let outcome = await Self.fetch(URLSession.shared, url)
        // Read at once: a report that came after the request returned would be missing.
        let reported = reports.all
        let listed = Airgap.violations.map(\.url)
        // A miss here means URLSession.shared was made without the guard in its classes: say which it has.
        #expect(outcome == .urlError(URLError.Code.notConnectedToInternet.rawValue), "URLSession.shared asks \((URLSession.shared.configuration.protocolClasses ?? []).map { "\($0)" })")
        #expect(reported == [url])
        #expect(listed == [url])
    }

    @Test func aProtectedSessionIsBlockedWithTheRequestsDetails() async {
        let reports = Self.collectReports()
        var request = URLRequest(url: URL(string: "https://api.airgap-portable.invalid/items?id=7")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("{}".utf8)
        let outcome = await Self.fetch(Self.protectedSession(), request)
        let reported = reports.all
        let violations = Airgap.violations
        #expect(outcome == .urlError(URLError.Code.notConnectedToInternet.rawValue))
        #expect(reported == ["https://api.airgap-portable.invalid/items?id=7"])
        #expect(violations.map(\.httpMethod) == ["POST"])
        #expect(violations.map(\.kind) == [.request])
        #expect(violations.first?.contentType == "application/json")
        #expect(violations.first?.testName == "URLProtocolGuardTests/aProtectedSessionIsBlockedWithTheRequestsDetails()")
        #expect(violations.first?.callStack.isEmpty == false)
    }

    @Test func errorCodeIsTheAnswer() async {
        Airgap.errorCode = URLError.Code.timedOut.rawValue
        let outcome = await Self.fetch(Self.protectedSession(), "http://airgap-portable-code.invalid/")
        #expect(outcome == .urlError(URLError.Code.timedOut.rawValue))
    }

    @Test func allowedHostsAndInactiveGuardsLetRequestsThroughToTheNextProtocol() async {
        // The next protocol is a stub, so nothing leaves the process.
        let session = Self.protectedSession([PortableStubProtocol.self])
        Airgap.allowedHosts = Airgap.allowedHosts.union(["allowed.airgap-portable.invalid"])
        #expect(await Self.fetch(session, "http://allowed.airgap-portable.invalid/") == .status(204))
        #expect(await Self.fetch(session, "http://other.airgap-portable.invalid/") == .urlError(URLError.Code.notConnectedToInternet.rawValue))
        #expect(Airgap.violations.map(\.url) == ["http://other.airgap-portable.invalid/"])
        Airgap.clearViolations()
        await Airgap.withNetworkAccessAllowed {
            #expect(await Self.fetch(session, "http://other.airgap-portable.invalid/") == .status(204))
        }
        #expect(Airgap.violations.isEmpty)
    }

    @Test func passthroughProtocolsAnswerWhatTheyMock() async {
        Airgap.passthroughProtocols = [PortableStubProtocol.self]
        let session = Self.protectedSession([PortableStubProtocol.self])
        #expect(await Self.fetch(session, "http://mocked.airgap-portable.invalid/") == .status(204))
        #expect(await Self.fetch(session, "http://unmocked.airgap-portable.invalid/") == .urlError(URLError.Code.notConnectedToInternet.rawValue))
        #expect(Airgap.violations.map(\.url) == ["http://unmocked.airgap-portable.invalid/"])
    }

    @Test func aReportIsWrittenOnlyWhenThereAreViolations() async throws {
        let saved = Airgap.reportPath
        defer { Airgap.reportPath = saved }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("airgap-portable-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = (directory as NSString).appendingPathComponent("report.json")
        // Nothing to write is success: no path, or no violations (no file, not even its folder).
        Airgap.reportPath = nil
        #expect(Airgap.writeReport())
        Airgap.reportPath = path
        #expect(Airgap.writeReport())
        #expect(!FileManager.default.fileExists(atPath: directory))
        _ = await Self.fetch(URLSession.shared, "http://airgap-portable-report.invalid/r")
        #expect(Airgap.writeReport())
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let written = try decoder.decode([Violation].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written.map(\.url) == ["http://airgap-portable-report.invalid/r"])
        // A folder where the file should be: the report cannot be written.
        Airgap.reportPath = directory
        #expect(!Airgap.writeReport())
    }
}

/// Answers `204` to three `.airgap-portable.invalid` hosts (`mocked`, `allowed`, `other`), as a
/// mocking library's protocol would; declines everything else.
final class PortableStubProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool {
        ["mocked.airgap-portable.invalid", "allowed.airgap-portable.invalid", "other.airgap-portable.invalid"].contains(request.url?.host ?? "")
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        let response = HTTPURLResponse(url: request.url!, statusCode: 204, httpVersion: "HTTP/1.1", headerFields: [:])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
