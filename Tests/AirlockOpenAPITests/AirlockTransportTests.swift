@_spi(AirlockTransport) import AirlockCore
import AirlockOpenAPI
import Foundation
import HTTPMock
import HTTPTestSupport
import HTTPTypes
import OpenAPIRuntime
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client swift-openapi-generator generated from petstore-expanded.yaml, answered in-process by
/// `AirlockTransport`.
@Suite struct AirlockTransportTests {
    static let petsJSON = #"[{"id": 1, "name": "Rex", "tag": "dog"}, {"id": 2, "name": "Tom"}]"#

    func client(_ mock: HTTPMock) throws -> Client {
        Client(serverURL: try Servers.Server1.url(), transport: AirlockTransport(mock: mock))
    }

    @Test func aStubByPathAnswersTheGeneratedClient() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/v2/pets", host: "petstore.swagger.io") {
            MockResponse(data: Data(Self.petsJSON.utf8), contentType: "application/json")
        }
        let output = try await client(mock).findPets(query: .init(tags: ["dog", "cat"], limit: 10))
        let pets = try output.ok.body.json
        #expect(pets.map(\.value1.name) == ["Rex", "Tom"])
        #expect(pets.map(\.value2.id) == [1, 2])
        let sent = try #require(mock.requests.first)
        #expect(sent.operationID == "findPets")
        #expect(sent.url == "https://petstore.swagger.io/v2/pets?tags=dog&tags=cat&limit=10")
        #expect(sent.header("Accept") == "application/json")
    }

    @Test func stubsMatchTheOperationTheClientNames() async throws {
        let mock = HTTPMock()
        mock.addResponses(forOperation: "addPet") {
            MockResponse.computed { request in
                let sent = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
                return MockResponse.dictionary(["id": 42, "name": sent?["name"] as? String ?? "?"])
            }
        }
        mock.addResponses(forOperation: "find pet by id") { MockResponse.dictionary(["id": 7, "name": "Rex"]) }
        let client = try client(mock)
        let added = try await client.addPet(body: .json(.init(name: "Milo", tag: nil))).ok.body.json
        #expect(added.value2.id == 42)
        #expect(added.value1.name == "Milo")
        let found = try await client.find_space_pet_space_by_space_id(path: .init(id: 7)).ok.body.json
        #expect(found.value1.name == "Rex")
        #expect(mock.requests.map(\.operationID) == ["addPet", "find pet by id"])
        #expect(mock.requests.first?.header("Content-Type") == "application/json; charset=utf-8")
    }

    @Test func theContractAnswersAndChecksTheClient() async throws {
        let contract = try Examples.contract("v3.0/petstore-expanded.yaml")
        let mock = HTTPMock()
        mock.registerStubs(from: contract)
        let violations = Violations()
        mock.validate(against: contract, onViolation: violations.record)
        let client = try client(mock)
        let pets = try await client.findPets(query: .init(limit: 3)).ok.body.json
        #expect(pets.count == 1)
        _ = try await client.deletePet(path: .init(id: 1)).noContent
        #expect(violations.messages == [])
        #expect(mock.requests.map(\.operationID) == ["findPets", "deletePet"])
    }

    /// The checks run on the calling task: a violation is an issue of this test at once.
    @Test func aViolationOfTheClientsCallIsAnIssueOfTheTest() async throws {
        let contract = try Examples.contract("v3.0/petstore-expanded.yaml")
        await withKnownIssue {
            let mock = HTTPMock()
            mock.validate(against: contract)
            mock.addResponses(forOperation: "find pet by id") { MockResponse.dictionary(["id": "seven"]) }
            _ = try? await client(mock).find_space_pet_space_by_space_id(path: .init(id: 7))
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains(#"find pet by id (GET /pets/{id}): the response body at /id is "seven", which is not of type "integer""#)
                || text.contains(#"find pet by id (GET /pets/{id}): the response body is missing required property "name" (required at #/components/schemas/NewPet/required)"#)
        }
    }

    @Test func aDribbledBodyArrivesInPieces() async throws {
        let mock = HTTPMock()
        let text = String(repeating: "0123456789", count: 10)
        mock.addResponses(forPath: "/v2/pets", host: "petstore.swagger.io") {
            MockResponse(data: Data(text.utf8), contentType: "application/json").dribbled(inChunks: 4, over: 0.04)
        }
        let transport = AirlockTransport(mock: mock)
        let (response, body) = try await transport.send(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets"), body: nil,
            baseURL: try Servers.Server1.url(), operationID: "findPets"
        )
        #expect(response.status == .ok)
        var pieces: [String] = []
        for try await chunk in try #require(body) { pieces.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(pieces.count == 4)
        #expect(pieces.joined() == text)
    }

    @Test func aWebhookGoesThroughThePassthroughSessionAfterTheResponse() async throws {
        try await LoopbackServer.with { receiver in
            let mock = HTTPMock()
            mock.addResponses(forPath: "/v2/pets", host: "petstore.swagger.io") {
                MockResponse(data: Data("[]".utf8), contentType: "application/json")
                    .webhook(Webhook(url: "http://127.0.0.1:\(receiver.port)/listed", body: "listed"))
            }
            let transport = AirlockTransport(mock: mock)
            let (response, _) = try await transport.send(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets"), body: nil,
                baseURL: try Servers.Server1.url(), operationID: "findPets"
            )
            #expect(response.status == .ok)
            try await waitUntil("the webhook's outcome is in the journal") { mock.requests.first?.webhooks.isEmpty == false }
            #expect(mock.requests.first?.webhooks.first?.outcome == .answered(status: 200))
            #expect(receiver.requestCount == 1)
        }
    }

    @Test func aFaultOrAProxiedAnswerSendsTheStubsWebhookToo() async throws {
        try await LoopbackServer.with { receiver in
            try await LoopbackServer.with { upstream in
                let mock = HTTPMock()
                mock.addResponses(forPath: "/v2/pets", host: "petstore.swagger.io") {
                    MockResponse.fault(.connectionReset).webhook(Webhook(url: "http://127.0.0.1:\(receiver.port)/after-fault"))
                }
                let mapping = #"""
                    {"request": {"urlPath": "/v2/pets/7"}, "response": {"proxyBaseUrl": "http://127.0.0.1:\#(upstream.port)"},
                     "postServeActions": [{"name": "webhook", "parameters": {"url": "http://127.0.0.1:\#(receiver.port)/after-proxy"}}]}
                    """#
                mock.registerStubs(try WireMockMappings(data: Data(mapping.utf8), source: "proxy.json", rootDirectory: FileManager.default.temporaryDirectory))
                let transport = AirlockTransport(mock: mock)
                await #expect(throws: (any Error).self) {
                    try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets"), body: nil, baseURL: try Servers.Server1.url(), operationID: "findPets")
                }
                let (proxied, _) = try await transport.send(
                    HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets/7"), body: nil, baseURL: try Servers.Server1.url(), operationID: "findPetById"
                )
                #expect(proxied.status == .ok)
                try await waitUntil("both webhooks' outcomes are in the journal") { mock.requests.count == 2 && mock.requests.allSatisfy { !$0.webhooks.isEmpty } }
                #expect(mock.requests.allSatisfy { $0.webhooks.first?.outcome == .answered(status: 200) })
                #expect(receiver.requestCount == 2 && upstream.requestCount == 1)
            }
        }
    }

    @Test func faultsAndErrorsAreThrown() async throws {
        let mock = HTTPMock()
        mock.addResponses(forOperation: "findPets") {
            MockResponse.fault(.connectionReset)
            MockResponse.error(URLError(.notConnectedToInternet))
        }
        let client = try client(mock)
        let reset = await #expect(throws: ClientError.self) { try await client.findPets() }
        #expect((reset?.underlyingError as? URLError)?.code == .networkConnectionLost)
        let offline = await #expect(throws: ClientError.self) { try await client.findPets() }
        #expect((offline?.underlyingError as? URLError)?.code == .notConnectedToInternet)
        #expect(reset?.operationID == "findPets")
    }

    /// A far-off delay: only the test's own cancellation ends the call, with CancellationError.
    @Test func cancellingTheCallEndsItsWait() async throws {
        let mock = HTTPMock()
        mock.addResponses(forOperation: "findPets") {
            MockResponse(data: Data("[]".utf8), contentType: "application/json", delivery: .delayed(600))
        }
        let client = try client(mock)
        let call = Task { try await client.findPets() }
        while mock.requests.isEmpty { await Task.yield() }
        call.cancel()
        let error = await #expect(throws: ClientError.self) { try await call.value }
        #expect(error?.underlyingError is CancellationError)
    }

    /// A task cancelled before it calls: the call ends at once with CancellationError, and the
    /// mock never sees the request (without the check, it would wait out the 600 s delay).
    @Test func aCallFromAnAlreadyCancelledTaskEndsAtOnce() async throws {
        let mock = HTTPMock()
        mock.addResponses(forOperation: "findPets") {
            MockResponse(data: Data("[]".utf8), contentType: "application/json", delivery: .delayed(600))
        }
        let transport = AirlockTransport(mock: mock)
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets")
        let baseURL = try Servers.Server1.url()
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request, body: nil, baseURL: baseURL, operationID: "findPets")
        }
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(mock.requests.isEmpty)
    }

    @Test func aCassetteReplaysThroughTheTransport() async throws {
        let recorder = HTTPMock()
        recorder.addResponses(forPath: "/v2/pets", host: "petstore.swagger.io") {
            MockResponse(data: Data(Self.petsJSON.utf8), contentType: "application/json")
        }
        _ = try await client(recorder).findPets()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-transport-\(UUID().uuidString).har")
        try recorder.exportHAR().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let replay = try HTTPMock(cassette: Cassette(contentsOf: file, mode: .none))
        let pets = try await client(replay).findPets().ok.body.json
        #expect(pets.map(\.value1.name) == ["Rex", "Tom"])
    }
}
