import HTTPTestSupport
import Foundation
import HTTPLogging
import HTTPMock
import InMemoryLogging
import Logging
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The logging protocol forwards to a real server on loopback and logs each exchange.
struct LoggingTests {
    @Test func logsEachExchangeAndForwardsOnceWithoutRecursing() async throws {
        try await LoopbackServer.with { server in
            let handler = InMemoryLogHandler()
            var logger = Logger(label: "test.http") { _ in handler }
            logger.logLevel = .debug
            let httpLog = HTTPLogger(logger: logger)
            let configuration = URLSessionConfiguration.ephemeral
            httpLog.install(in: configuration)
            let session = URLSession(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }

            var request = URLRequest(url: URL(string: server.url("/items?token=abc&page=1"))!)
            request.httpMethod = "POST"
            request.setValue("Bearer s3cr3t", forHTTPHeaderField: "Authorization")
            request.httpBody = Data("hello".utf8)
            let (data, response) = try await session.boundedData(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "real POST /items?token=abc&page=1 body=hello")
            #expect(server.requestCount == 1, "the request must reach the network exactly once")

            let info = try #require(handler.entries.first { $0.level == .info })
            let expectedStart = "POST http://127.0.0.1:\(server.port)/items?token=%5BREDACTED%5D&page=1 → 200, \(data.count) bytes, "
            #expect(info.message.description.hasPrefix(expectedStart))
            #expect(info.message.description.hasSuffix(" ms"))
            #expect(info.metadata["http.response.status_code"] == "200")
            let debug = try #require(handler.entries.first { $0.level == .debug })
            #expect("\(debug.metadata["http.headers"] ?? "")".contains("[REDACTED]"))
            #expect(!handler.entries.map { "\($0.message) \($0.metadata)" }.joined().contains("s3cr3t"))

            let recorded = try #require(httpLog.requests.first)
            #expect(recorded.bodyText == "hello")
            #expect(recorded.response?.status == 200)
            #expect(httpLog.redactedRequests.first?.header("Authorization") == "[REDACTED]")
        }
    }

    @Test func failuresAreLoggedAsErrors() async throws {
        let handler = InMemoryLogHandler()
        let httpLog = HTTPLogger(logger: Logger(label: "test.http") { _ in handler })
        let session = httpLog.makeURLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        // A port bound by this test that never listens: the connection is refused at once.
        let refusing = try RefusingPort()
        let url = "http://127.0.0.1:\(refusing.port)/"
        let error = await urlError { _ = try await session.boundedData(from: URL(string: url)!) }
        #expect(error?.code == .cannotConnectToHost)
        let entry = try #require(handler.entries.first { $0.level == .error })
        #expect(entry.message.description.hasPrefix("GET \(url) failed after "))
        guard case .failure(.forwardFailed(let target, _))? = httpLog.requests.first?.response?.outcome else {
            Issue.record("the journal should record the failed forward: \(String(describing: httpLog.requests.first?.response?.outcome))")
            return
        }
        #expect(target == url)
    }
}
