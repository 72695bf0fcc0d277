import AirlockBase
import AirlockOpenAPI
import Foundation
import HTTPMock
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Airlock's verdict on requests and responses, compared case by case with a validator no one
/// here wrote: openapi-core (PyPI), driven by `Tests/Tools/contract_tools.py openapi-core` (see
/// `Tests/Tools/README.md`).
///
/// Airlock's verdict comes the user's way: an `HTTPMock` validating against the contract
/// (`validate(against:onViolation:)`), a stub answering the case's response, the request sent
/// through the mock's `URLSession`; a request (or response) is valid when no violation of its
/// side was reported. openapi-core's verdict is `validate_request` / `validate_response` on the
/// same request and response. Each case must get the same verdict from both, unless it is listed
/// with a `disagreement`: then each tool's verdict is pinned, with the reason.
struct OpenAPICoreAgreementTests {
    @Test(arguments: AgreementCase.documents)
    func airlockAndOpenAPICoreGiveTheSameVerdicts(_ document: String) async throws {
        let cases = AgreementCase.all.filter { $0.document == document }
        try #require(!cases.isEmpty)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-openapi-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let spec: URL
        if document == AgreementCase.ownDocument {
            spec = folder.appendingPathComponent("orders.yaml")
            try Data(AgreementCase.ordersYAML.utf8).write(to: spec)
        } else {
            spec = SchemathesisTests.examples.appendingPathComponent(document)
        }
        let contract = try OpenAPIContract(contentsOf: spec)
        let casesFile = folder.appendingPathComponent("cases.json")
        try JSONSerialization.data(withJSONObject: cases.map(\.json), options: [.prettyPrinted]).write(to: casesFile)

        let run = try await ToolScriptRun.run(["openapi-core", "--spec", spec.path, "--cases", casesFile.path], script: "contract_tools.py")
        run.expectSuccess()
        let verdicts = try #require(run.result?["verdicts"] as? [[String: Any]], "no verdicts in \(run.resultLine ?? "nothing")")
        try #require(verdicts.count == cases.count)

        var coreVerdicts: [Bool] = []
        for (agreementCase, verdict) in zip(cases, verdicts) {
            let airlock = try await agreementCase.airlockVerdict(contract)
            let request = try #require(verdict["request"] as? [String: Any])
            let core = Verdicts(request: request["valid"] as? Bool ?? false, response: (verdict["response"] as? [String: Any])?["valid"] as? Bool)
            coreVerdicts += [core.request] + (core.response.map { [$0] } ?? [])
            let coreErrors = [request["errors"], (verdict["response"] as? [String: Any])?["errors"]].compactMap { $0 as? [String] }.flatMap { $0 }
            let explanation = """
                \(agreementCase.name) (\(document)): Airlock \(airlock), openapi-core \(core)
                  Airlock's violations: \(airlock.violations.isEmpty ? "none" : airlock.violations.joined(separator: "\n    "))
                  openapi-core's errors: \(coreErrors.isEmpty ? "none" : coreErrors.joined(separator: "\n    "))
                """
            if let disagreement = agreementCase.disagreement {
                // A pinned difference: each tool's verdict exactly as described.
                #expect(airlock.sides == disagreement.airlock && core == disagreement.openAPICore, "\(explanation)\n  pinned: \(disagreement.reason)")
            } else {
                #expect(airlock.sides == core, "\(explanation)")
            }
        }
        // A table whose cases are all valid, or all invalid, would prove little.
        #expect(coreVerdicts.contains(true) && coreVerdicts.contains(false), "\(document): openapi-core's verdicts \(coreVerdicts)")
    }

    @Test func theTableCoversEachDocumentAndBothVerdicts() {
        #expect(AgreementCase.all.count >= 40)
        #expect(Set(AgreementCase.all.map(\.name)).count == AgreementCase.all.count, "case names are unique")
        for document in AgreementCase.documents {
            let cases = AgreementCase.all.filter { $0.document == document }
            #expect(cases.contains { $0.response != nil }, "\(document) has a case with a response")
        }
        #expect(AgreementCase.all.filter { $0.disagreement != nil }.count <= 3, "the pinned differences stay few")
    }
}

/// A request's verdict and, when the case has a response, the response's: valid or not.
struct Verdicts: Equatable, CustomStringConvertible {
    var request: Bool
    var response: Bool?

    var description: String {
        "request \(request ? "valid" : "invalid")" + (response.map { ", response \($0 ? "valid" : "invalid")" } ?? "")
    }
}

/// Airlock's verdicts, with its violations for a message.
struct AirlockVerdicts: CustomStringConvertible {
    var sides: Verdicts
    var violations: [String]
    var description: String { sides.description }
}

/// One case of the table: a request, and optionally the response a server answered.
struct AgreementCase: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body: String?
    }

    /// A difference between the tools, pinned: each one's verdict, and why both are defensible.
    struct Disagreement: Sendable {
        var airlock: Verdicts
        var openAPICore: Verdicts
        var reason: String
    }

    var document: String
    var name: String
    var method: String
    var url: String
    var headers: [String: String] = [:]
    var body: String?
    var response: Response?
    var disagreement: Disagreement?

    /// The case as the script reads it.
    var json: [String: Any] {
        var entry: [String: Any] = ["name": name, "method": method, "url": url, "headers": headers.map { [$0.key, $0.value] }]
        if let body { entry["body"] = body }
        if let response {
            var answer: [String: Any] = ["status": response.status, "headers": response.headers.map { [$0.key, $0.value] }]
            if let body = response.body { answer["body"] = body }
            entry["response"] = answer
        }
        return entry
    }

    /// Airlock's verdict: the request sent through an `HTTPMock` that validates against the
    /// contract, answered by a stub with the case's response (`204` without one, its verdict
    /// left out).
    func airlockVerdict(_ contract: OpenAPIContract) async throws -> AirlockVerdicts {
        let mock = HTTPMock()
        let found = Locked<[ContractViolation]>([])
        mock.validate(against: contract) { violation in found.withLock { $0.append(violation) } }
        let answer = response.map { response in
            MockResponse(data: Data((response.body ?? "").utf8), status: .other(response.status), headers: response.headers)
        } ?? MockResponse(data: Data(), status: .other(204))
        mock.addResponses(forPath: "/**", host: "**", responses: [answer])
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        _ = try await mock.urlSession.data(for: request)
        let violations = found.withLock { $0 }
        return AirlockVerdicts(
            sides: Verdicts(
                request: !violations.contains { $0.side == .request },
                response: response == nil ? nil : !violations.contains { $0.side == .response }
            ),
            violations: violations.map(\.description)
        )
    }
}
