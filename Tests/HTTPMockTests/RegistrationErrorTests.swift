import Foundation
import HTTPMock
import Testing

/// A stub rejected when it is registered is listed in `registrationErrors` with a code that says
/// what kind of problem it has, beside the message that says how to fix it.
struct RegistrationErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let host: String
        let path: String
        let response: MockResponse
        let code: RegistrationError.Code

        var testDescription: String { "\(code)" }

        static func pattern(host: String = "a.test", path: String = "/x", _ code: RegistrationError.Code) -> Case {
            Case(host: host, path: path, response: .plaintext("x"), code: code)
        }

        static func response(_ response: MockResponse, _ code: RegistrationError.Code) -> Case {
            Case(host: "a.test", path: "/x", response: response, code: code)
        }
    }

    static let cases: [Case] = [
        .pattern(host: "", .invalidHost),
        .pattern(host: "https://api.example.com", .invalidHost),
        .pattern(host: "api..example.com", .invalidHost),
        .pattern(path: "users", .invalidPath),
        .pattern(path: "/users?page=1", .invalidPath),
        .pattern(path: "/api/v**/x", .invalidPath),
        .response(.plaintext("x", lifetime: .multiple(0)), .invalidLifetime),
        .response(.plaintext("x", delivery: .delayed(-1)), .invalidDelay),
        .response(.plaintext("x").dribbled(inChunks: 0, over: 1), .invalidDribble),
        .response(.stream([StreamPart("a", after: -1)]), .invalidDelay),
        .response(.events([ServerSentEvent("a")], ending: .closeAfter(.infinity)), .invalidDelay),
        .response(.events([ServerSentEvent("a")], ending: .clientLeft(after: 100_000)), .invalidDelay),
        .response(.plaintext("x", status: .other(42)), .invalidStatus),
        .response(.plaintext("x", headers: ["X-A": "b\r\nSet-Cookie: c=1"]), .invalidHeader),
        .response(.plaintext("x", headers: ["Bad Name": "v"]), .invalidHeader),
    ]

    @Test(arguments: cases)
    func aRejectedStubCarriesTheCodeOfItsProblem(_ bad: Case) async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: bad.path, host: bad.host, responses: [bad.response])
        let errors = mock.registrationErrors
        #expect(errors.map(\.code) == [bad.code], "\(errors)")
        // The message is the one users see, whatever the code.
        #expect(errors.first?.description == "Airlock rejected the stub for \(errors.first?.stub ?? ""): \(errors.first?.problem ?? ""). \(errors.first?.fix ?? "")")
        #expect(try await mock.fetch("https://a.test/x").status == 404)
    }

    @Test func aNestedPathWithoutSlashInTheBuilderIsInvalidPath() {
        let mock = HTTPMock()
        mock.registerResponses {
            Host("a.test") {
                Path("/admin") {
                    Path("audit") { MockResponse.plaintext("x") }
                }
            }
        }
        #expect(mock.registrationErrors.map(\.code) == [.invalidPath])
        #expect(mock.registrationErrors.first?.code.description == "invalidPath")
    }

    @Test func errorsCompareByCodeAndText() {
        let mock = HTTPMock()
        mock.addResponses(forPath: "users", host: "a.test") { MockResponse.plaintext("x") }
        mock.addResponses(forPath: "users", host: "a.test") { MockResponse.plaintext("y") }
        let errors = mock.registrationErrors
        #expect(errors.count == 2)
        #expect(errors[0] == errors[1])
        #expect(Set(errors.map(\.code)) == [.invalidPath])
    }
}
