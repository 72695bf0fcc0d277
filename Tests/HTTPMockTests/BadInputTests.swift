import HTTPTestSupport
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct BadInputTests {
    @Test func aMissingFileFailsTheRequestNamingTheFileAndStub() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/data", host: "api.example.com") {
            MockResponse.file(url: URL(fileURLWithPath: "/nonexistent/airlock/response.json"))
        }
        let error = await urlError { _ = try await mock.fetch("https://api.example.com/data") }
        #expect(error?.code == .fileDoesNotExist)
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("/nonexistent/airlock/response.json"))
        #expect(message.contains(#"host "api.example.com", path "/data""#))
        #expect(message.contains("does not exist"))
    }

    @Test func aMissingBundleResourceFailsTheRequestSayingHowToAddIt() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/data", host: "a.test") {
            MockResponse.file(named: "no-such-fixture", extension: "json", in: Bundle.module)
        }
        let error = await urlError { _ = try await mock.fetch("https://a.test/data") }
        #expect(error?.code == .cannotParseResponse)
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("no-such-fixture.json"))
        #expect(message.contains("resources:"))
    }

    @Test func anUnreadableFileFailsTheRequest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mock = HTTPMock()
        // A directory exists but cannot be read as a file.
        mock.addResponses(forPath: "/d", host: "a.test") { MockResponse.file(url: directory) }
        let error = await urlError { _ = try await mock.fetch("https://a.test/d") }
        #expect(error?.code == .noPermissionsToReadFile)
        #expect(error?.localizedDescription.contains(directory.path) == true)
    }

    struct Unencodable: Encodable {
        func encode(to encoder: any Encoder) throws {
            throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "refuses to encode"))
        }
    }

    @Test func anEncodableThatFailsFailsTheRequestNamingIt() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/e", host: "a.test") {
            MockResponse.encodable(Unencodable())
            MockResponse.plaintext("the queue goes on")
        }
        let error = await urlError { _ = try await mock.fetch("https://a.test/e") }
        #expect(error?.code == .cannotParseResponse)
        #expect(error?.localizedDescription.contains("Unencodable") == true)
        #expect(error?.localizedDescription.contains("refuses to encode") == true)
        #expect(try await mock.fetch("https://a.test/e").text == "the queue goes on")
    }

    @Test func aDictionaryJSONCannotHoldFailsTheRequest() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/d", host: "a.test") { MockResponse.dictionary(["date": Date()]) }
        let error = await urlError { _ = try await mock.fetch("https://a.test/d") }
        #expect(error?.code == .cannotParseResponse)
        #expect(error?.localizedDescription.contains("cannot be serialised to JSON") == true)
    }

    @Test(arguments: [
        ("", "/x", "the host is empty"),
        ("https://api.example.com", "/x", "contains a scheme or a path"),
        ("api..example.com", "/x", "has an empty label"),
        ("api.example.com", "users", #"does not start with "/""#),
        ("api.example.com", "/users?page=1", #"contains "?""#),
        ("api.example.com", "/api/v**/x", #"has "**" inside the segment"#),
    ])
    func invalidPatternsAreRejectedClearly(host: String, path: String, problem: String) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: path, host: host) { MockResponse.plaintext("never") }
        let errors = mock.registrationErrors
        #expect(errors.count == 1)
        #expect(errors.first?.problem.contains(problem) == true, "\(errors)")
        #expect(errors.first?.description.contains(#"host "\#(host)", path "\#(path)""#) == true)
        #expect(errors.first?.fix.isEmpty == false)

        // A request that then goes unmatched says why its stub is missing.
        let fetched = try await mock.fetch("https://api.example.com/users")
        #expect(fetched.status == 404)
        #expect(fetched.text.contains("were rejected when registered"))
        #expect(fetched.text.contains(problem))
    }

    @Test func aNestedPathWithoutSlashIsRejected() {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/admin") {
                    Path("audit") { MockResponse.plaintext("x") }
                }
            }
        }
        #expect(mock.registrationErrors.map(\.problem) == [#"the path "audit" does not start with "/""#])
        #expect(mock.registrationErrors.first?.fix == #"Write it as "/audit"."#)
    }

    @Test(arguments: [
        (MockResponse.plaintext("x", lifetime: .multiple(0)), "lifetime .multiple(0)"),
        (MockResponse.plaintext("x", delivery: .delayed(-1)), "the delay -1.0 is not a finite, non-negative number of seconds"),
        (MockResponse.plaintext("x", status: .other(42)), "status 42"),
    ])
    func invalidResponsesAreRejected(response: MockResponse, problem: String) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test", responses: [response])
        #expect(mock.registrationErrors.first?.problem.contains(problem) == true)
        #expect(try await mock.fetch("https://a.test/x").status == 404)
    }

    @Test func aSessionOfAReleasedMockFailsWithAnExplanation() async throws {
        var mock: HTTPMock? = HTTPMock()
        let configuration = try #require(mock?.urlSession.configuration)
        mock = nil
        let orphan = URLSession(configuration: configuration)
        defer { orphan.invalidateAndCancel() }
        let error = await urlError { _ = try await orphan.boundedData(from: URL(string: "https://a.test/")!) }
        #expect(error?.code == .unknown)
        #expect(error?.localizedDescription.contains("HTTPMock has been released") == true)
    }

    @Test func aSessionBuiltFromAMocksConfigurationIsAnsweredByThatMock() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/x", host: "a.test") { MockResponse.plaintext("same mock") }
        let sibling = URLSession(configuration: mock.urlSession.configuration)
        defer { sibling.invalidateAndCancel() }
        let (data, _) = try await sibling.boundedData(from: URL(string: "https://a.test/x")!)
        #expect(String(decoding: data, as: UTF8.self) == "same mock")
    }
}
