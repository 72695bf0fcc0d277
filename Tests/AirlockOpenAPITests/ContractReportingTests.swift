import AirlockBase
import AirlockCore
import AirlockOpenAPI
import Foundation
import HTTPMock
import Testing
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Without `onViolation`, a violation fails the test that asked for the check.
@Suite struct ContractReportingTests {
    /// The exchange ends on a `URLSession` thread: the issue still belongs to this test, at the
    /// line of `validate(against:)`, before the response reaches the app.
    @Test func aViolationIsAnIssueOfTheTestThatAskedAtItsLine() async throws {
        let petstore = try Examples.contract("v3.0/petstore.yaml")
        let line = Locked(0)
        let issues = Locked(0)
        try await withKnownIssue {
            let mock = HTTPMock()
            mock.validate(against: petstore); line.withLock { $0 = #line }
            mock.unmockedPolicy = .mock(.empty(status: .noContent))
            try await mock.send("GET", "http://petstore.swagger.io/v1/owners")
        } matching: { issue in
            issues.withLock { $0 += 1 }
            return issue.comments.map(\.rawValue) == [
                #"Contract violation: GET http://petstore.swagger.io/v1/owners: the request path is /v1/owners, which matches no path of the contract after its server path "/v1" (path at #/paths)"#,
            ] && issue.sourceLocation?.line == line.withLock { $0 } && issue.sourceLocation?.fileName == "ContractReportingTests.swift"
        }
        #expect(issues.withLock { $0 } == 1)
    }
}

/// Under XCTest, a violation is a failure of the running test case.
final class ContractXCTestReportingTests: XCTestCase {
    private let failures = Locked<[String]>([])

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        guard description.contains("Contract violation") else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        failures.withLock { $0.append("\(URL(fileURLWithPath: filePath).lastPathComponent):\(lineNumber): \(description)") }
    }

    func testAViolationFailsTheRunningTestCase() async throws {
        let petstore = try Examples.contract("v3.0/petstore.yaml")
        let mock = HTTPMock()
        mock.validate(against: petstore); let line = #line
        mock.addResponses(forPath: "/v1/pets", host: "petstore.swagger.io") { MockResponse.empty(status: .created) }
        try await mock.send("POST", "http://petstore.swagger.io/v1/pets")
        XCTAssertEqual(failures.withLock { $0 }, [
            "ContractReportingTests.swift:\(line): Contract violation: createPets (POST /pets): the request body is missing (required at #/paths/~1pets/post/requestBody/required)",
        ])
    }
}
