import AirlockBase
import AirlockCassettes
@_spi(AirlockTransport) import AirlockCore
import AirlockStubFiles
import Foundation

extension MockRegistry {
    /// This registry's WireMock mappings by id, made on first use.
    private var stubMappings: StubMappingIndex {
        attachment(StubMappingIndex.self) { StubMappingIndex() }
    }

    /// Adds WireMock mappings in order; a mapping with the id of one already registered replaces
    /// it. Invalid ones are left out, returned, and reported (see ``report(to:)``).
    @discardableResult
    package func register(_ mappings: [StubMapping]) -> [RegistrationError] {
        stubMappings.register(mappings, in: self)
    }

    /// Every WireMock mapping registered, in the order they were added.
    package var wireMockMappings: [StubMapping] {
        stubMappings.all(in: self)
    }

    /// The WireMock mapping with this id, if one is registered.
    package func wireMockMapping(id: UUID) -> StubMapping? {
        stubMappings.mapping(id: id, in: self)
    }

    /// Notes the file a mapping was saved to.
    package func noteSaved(_ id: UUID, in file: URL) {
        stubMappings.update(id: id) { $0.file = file }
    }

    /// Removes the WireMock mapping with this id; whether there was one.
    @discardableResult
    package func removeWireMockMapping(id: UUID) -> Bool {
        stubMappings.remove(id: id, in: self)
    }
}

extension RecordedRequest {
    /// The id of the WireMock mapping that answered, if one did.
    package var mappingID: UUID? { stubID }
}
