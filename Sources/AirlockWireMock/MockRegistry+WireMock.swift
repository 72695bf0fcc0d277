import AirlockBase
import AirlockCassettes
@_spi(AirlockTransport) import AirlockCore
import AirlockStubFiles
import Foundation

extension MockRegistry {
    /// Adds WireMock mappings in order; a mapping with the id of one already registered replaces
    /// it. Invalid ones are left out, returned, and reported (see ``report(to:)``).
    @discardableResult
    package func register(_ mappings: [StubMapping]) -> [RegistrationError] {
        register(sourced: mappings.map { mapping in
            var registration = mapping.registration
            registration.source = StubSource(id: mapping.id, value: mapping)
            return registration
        })
    }

    /// Every WireMock mapping registered, in the order they were added.
    package var wireMockMappings: [StubMapping] {
        sources(as: StubMapping.self)
    }

    /// The WireMock mapping with this id, if one is registered.
    package func wireMockMapping(id: UUID) -> StubMapping? {
        source(id: id, as: StubMapping.self)
    }

    /// A wait added to every stubbed response, in seconds: WireMock's global `fixedDelay`
    /// (`POST /__admin/settings`). 0 by default.
    package var addedDelay: TimeInterval {
        get { (responseAdjustment as? AddedDelay)?.seconds ?? 0 }
        set {
            let seconds = Swift.min(Swift.max(0, newValue), ResponseLimits.maximumSeconds)
            responseAdjustment = seconds > 0 ? AddedDelay(seconds: seconds) : nil
        }
    }

    /// Notes the file a mapping was saved to.
    package func noteSaved(_ id: UUID, in file: URL) {
        updateSource(id: id, as: StubMapping.self) { $0.file = file }
    }

    /// Removes the WireMock mapping with this id; whether there was one.
    @discardableResult
    package func removeWireMockMapping(id: UUID) -> Bool {
        removeSource(id: id)
    }
}

extension RecordedRequest {
    /// The id of the WireMock mapping that answered, if one did.
    package var mappingID: UUID? { sourceID }
}

/// WireMock's global `fixedDelay`: a wait added to every stubbed response.
struct AddedDelay: ResponseAdjustment {
    let seconds: TimeInterval

    func adjusted(_ response: MockResponse) -> MockResponse {
        response.with(
            lifetime: response.lifetime,
            delivery: .delayed(Swift.min(response.delivery.seconds + seconds, ResponseLimits.maximumSeconds))
        )
    }
}
