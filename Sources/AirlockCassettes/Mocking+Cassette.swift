import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import AirlockStubFiles
import Foundation

extension Mocking {
    /// Serves a cassette: its entries answer as stubs and, while its mode records, requests no
    /// stub answers are forwarded to the real server and recorded into it.
    ///
    /// ```swift
    /// let cassette = try Cassette(contentsOf: URL(fileURLWithPath: "Fixtures/users.har"))
    /// mock.insert(cassette)
    /// ```
    ///
    /// Stubs registered on the mock still answer first when they are more specific; a mock
    /// serves one cassette at a time (inserting another replaces it for recording).
    ///
    /// - Parameter cassette: The cassette.
    /// - Returns: Entries that could not become stubs, each saying why (also in
    ///   `registrationErrors`).
    @discardableResult
    public func insert(_ cassette: Cassette) -> [RegistrationError] {
        let registrations = cassette.replayed.registrations(
            matching: cassette.matching,
            placeholders: cassette.redaction.placeholders,
            label: cassette.url.lastPathComponent,
            pace: cassette.pace
        )
        registry.unmatchedHandler = cassette
        return registry.register(registrations)
    }

    /// The cassette this mock serves, if one was inserted.
    public var cassette: Cassette? {
        registry.unmatchedHandler as? Cassette
    }

    /// Registers the exchanges of a HAR file as stubs: identical requests get their recorded
    /// responses in recorded order, and a request must match its entry's method, query and body
    /// (by meaning) as well as its host and path.
    ///
    /// ```swift
    /// try mock.registerStubs(HTTPArchive(contentsOf: URL(fileURLWithPath: "Fixtures/checkout.har")))
    /// ```
    ///
    /// - Parameters:
    ///   - archive: A parsed HAR file, such as one saved from a browser.
    ///   - matching: How requests match entries. Defaults to method, host, path, query and body.
    /// - Returns: The entries rejected, each saying why (also in `registrationErrors`).
    @discardableResult
    public func registerStubs(_ archive: HTTPArchive, matching: Cassette.Matching = Cassette.Matching()) -> [RegistrationError] {
        registry.register(archive.registrations(matching: matching, placeholders: journal.redaction.placeholders, label: "the archive"))
    }
}
