@_exported import AirlockOpenAPICore
@_spi(AirlockTransport) import AirlockCore

extension Journaling {
    /// Checks every exchange from now on against a contract: each request the app sends is
    /// matched to an operation and checked (method, path, query, header and cookie parameters
    /// in their styles, required body, content type, body schema, credentials the security
    /// requirement names), and so is each answer it gets (status, headers, content type, body
    /// schema) — a stub's, a template's, a cassette's, or, through an `HTTPLogger`, the real
    /// server's.
    ///
    /// ```swift
    /// let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
    /// let mock = HTTPMock()
    /// mock.validate(against: contract)
    /// ```
    ///
    /// Each violation fails the running test (an `Issue` under Swift Testing, `XCTFail` under
    /// XCTest), naming the operation, the rule's JSON pointer into the contract, the offending
    /// value and the rule, unless `onViolation` takes it instead. The check runs when the
    /// exchange ends, before the response reaches the app. The journal keeps each request's
    /// operation (`RecordedRequest.operationID`), and so do HAR exports (`_operationId`).
    ///
    /// - Parameters:
    ///   - contract: The contract.
    ///   - onViolation: Called with each violation instead of failing the test; on the thread
    ///     that delivers the response.
    ///   - fileID: Where a failure is reported: the caller's file, by default.
    ///   - filePath: The caller's file path, by default.
    ///   - line: The caller's line, by default.
    ///   - column: The caller's column, by default.
    /// - Returns: The validation: its `violations` so far, and `stop()`.
    @discardableResult
    public func validate(
        against contract: OpenAPIContract,
        onViolation: (@Sendable (ContractViolation) -> Void)? = nil,
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> ContractValidation {
        let report = onViolation ?? ContractTestFailure(fileID: fileID, filePath: filePath, line: line, column: column).report
        return ContractValidation(contract: contract, journal: journal, report: report)
    }
}

