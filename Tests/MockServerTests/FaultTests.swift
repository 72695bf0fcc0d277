import AsyncHTTPClient
import Foundation
import HTTPMock
import MockServer
import NIOCore
import NIOHTTP1
import Testing

/// Every fault kind, observed from a real client on the other end of the socket.
struct FaultTests {
    @Test(arguments: [
        MockResponse.Fault.connectionReset, .emptyResponse, .malformedChunkedBody, .randomBytesThenClose,
    ])
    func aClientSeesTheFaultAndTheNextRequestWorks(fault: MockResponse.Fault) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/flaky", host: "**") {
            MockResponse.fault(fault)
            MockResponse.plaintext("recovered")
        }
        try await withServer(mock) { server in
            try await withClient { client in
                await #expect(throws: (any Error).self, "\(fault) must fail the request") {
                    _ = try await send(client, "\(server.baseURL.absoluteString)/flaky")
                }
            }
            // A new client, so that no pooled connection from the faulty exchange is reused.
            try await withClient { client in
                let retry = try await send(client, "\(server.baseURL.absoluteString)/flaky")
                #expect(retry.text == "recovered")
            }
            #expect(mock.requests.first?.response?.error == "fault \(fault)")
        }
    }

    @Test func aDribbledBodyArrivesInPiecesOverTime() async throws {
        let body = String(repeating: "0123456789", count: 40)
        let mock = HTTPMock()
        // Three pieces three seconds apart: the client sees at least two of them apart unless it
        // stalls for the whole six seconds between the head and reading the body (200 ms gaps
        // were not enough under ThreadSanitizer on a busy machine, and once, with a fresh-clone
        // CI building beside it, neither was one gap of three seconds).
        mock.addResponses(forPath: "/drip", host: "**") { MockResponse.plaintext(body).dribbled(inChunks: 3, over: 6) }
        try await withServer(mock) { server in
            try await withClient { client in
                let clock = ContinuousClock()
                let start = clock.now
                let response = try await client.execute(HTTPClientRequest(url: "\(server.baseURL.absoluteString)/drip"), timeout: hangGuard)
                var pieces = 0
                var received = ByteBuffer()
                for try await var chunk in response.body {
                    pieces += 1
                    received.writeBuffer(&chunk)
                }
                #expect(String(buffer: received) == body)
                #expect(pieces >= 2, "the body should arrive in several pieces, got \(pieces)")
                #expect(clock.now - start >= .milliseconds(5_900))
            }
        }
    }
}
