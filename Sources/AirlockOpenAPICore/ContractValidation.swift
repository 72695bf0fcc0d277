import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation

/// A contract checking a mock's or a logger's exchanges, from `validate(against:)`
/// (`AirlockOpenAPI`).
public final class ContractValidation: Sendable, ExchangeObserver {
    /// The contract.
    public let contract: OpenAPIContract
    /// Weak: the journal keeps its observers, and a validation must not keep its mock alive.
    private weak let journal: RequestJournal?
    private let report: @Sendable (ContractViolation) -> Void
    private let found = Locked<[ContractViolation]>([])

    /// Starts checking the exchanges `journal` records, handing each violation to `report`.
    package init(contract: OpenAPIContract, journal: RequestJournal, report: @escaping @Sendable (ContractViolation) -> Void) {
        self.contract = contract
        self.journal = journal
        self.report = report
        journal.addObserver(self)
    }

    /// Every violation found so far, oldest first.
    public var violations: [ContractViolation] {
        found.withLock { $0 }
    }

    /// Stops checking: exchanges that start from now on are not checked.
    public func stop() {
        journal?.removeObserver(self)
    }

    package func exchangeEnded(_ request: RecordedRequest, response: RecordedResponse, redaction: Redaction) -> ExchangeObservation? {
        let (operation, violations) = check(request, response: response, redaction: redaction)
        if !violations.isEmpty {
            found.withLock { $0.append(contentsOf: violations) }
            violations.forEach(report)
        }
        return ExchangeObservation(operationID: operation?.name, problems: violations.map(\.description))
    }

    /// The request's operation and every violation of the exchange.
    func check(_ request: RecordedRequest, response: RecordedResponse?, redaction: Redaction) -> (OpenAPIOperation?, [ContractViolation]) {
        contract.check(request, response: response, redaction: redaction)
    }
}

extension OpenAPIContract {
    /// Every violation of one exchange, checked without a mock or a journal: for exchanges you
    /// hold, such as a cassette's entries.
    ///
    /// ```swift
    /// let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
    /// for entry in try HTTPArchive(contentsOf: cassetteURL).entries {
    ///     if let response = entry.response {
    ///         print(contract.violations(of: entry, response: response))
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request, as recorded.
    ///   - response: Its response.
    ///   - redaction: What the violations' messages hide. Defaults to `standard`.
    /// - Returns: Every violation, the request's first; empty when the exchange keeps the contract.
    public func violations(of request: RecordedRequest, response: RecordedResponse, redaction: Redaction = .standard) -> [ContractViolation] {
        check(request, response: response, redaction: redaction).1
    }

    /// The contract as a check of one exchange returning each violation as a sentence: what
    /// `DriftOptions.exchangeCheck` (AirlockCassettes) takes, so that verifying a cassette against
    /// the live service checks every recorded and every live exchange against the contract too,
    /// as `airlock cassette verify --openapi` does.
    ///
    /// ```swift
    /// let contract = try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml"))
    /// var options = DriftOptions()
    /// options.exchangeCheck = contract.exchangeCheck()
    /// let report = try await cassette.verify(against: staging, options: options)
    /// ```
    ///
    /// - Parameter redaction: What the violations' messages hide. Defaults to `standard`.
    /// - Returns: A check giving ``violations(of:response:redaction:)``'s descriptions.
    public func exchangeCheck(redaction: Redaction = .standard) -> @Sendable (RecordedRequest, RecordedResponse) -> [String] {
        { request, response in violations(of: request, response: response, redaction: redaction).map(\.description) }
    }

    /// The request's operation and every violation of the exchange.
    func check(_ request: RecordedRequest, response: RecordedResponse?, redaction: Redaction) -> (OpenAPIOperation?, [ContractViolation]) {
        var check = ExchangeCheck(contract: self, request: request, redaction: redaction)
        let operation = check.checkRequest()
        if let operation, let response, case .response = response.outcome {
            check.checkResponse(response, of: operation)
        }
        return (operation?.public, check.finish(secrets: redaction.secretValues(in: request)))
    }
}
