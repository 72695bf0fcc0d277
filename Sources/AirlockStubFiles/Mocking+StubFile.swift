@_spi(AirlockTransport) import AirlockCore
import Foundation

extension Mocking {
    /// Registers the stubs of a stub file — the JSON format `airlock serve` reads.
    ///
    /// ```swift
    /// try mock.registerStubs(StubFile(contentsOf: URL(fileURLWithPath: "Fixtures/stubs.json")))
    /// ```
    ///
    /// - Parameter file: A parsed stub file.
    /// - Returns: The stubs rejected, each saying why (also in `registrationErrors`).
    @discardableResult
    public func registerStubs(_ file: StubFile) -> [RegistrationError] {
        registry.register(file.registrations)
    }
}
