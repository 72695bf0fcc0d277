import AirlockBase
import AirlockCore

extension StubFile {
    /// What a stub matches, as the fuzz harness in `Fuzz/` needs it to make a request for each
    /// stub. Not API: the `Fuzzing` SPI may change at any time.
    @_spi(Fuzzing)
    public struct StubRoute: Sendable {
        /// The one method the stub answers; `nil` for any.
        public let method: String?
        /// The host pattern (`**` when the file gives none).
        public let host: String
        /// The path pattern.
        public let path: String
        /// The query parameters the stub requires, if any.
        public let query: [String: [String]]?
    }

    /// Each stub's route, in order. Not API: the `Fuzzing` SPI may change at any time.
    @_spi(Fuzzing)
    public var routes: [StubRoute] {
        zip(registrations, methods).map { registration, method in
            StubRoute(method: method, host: registration.host, path: registration.path, query: registration.query)
        }
    }
}
