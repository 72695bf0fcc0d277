import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation

/// The WireMock mappings of one registry, by id: what the admin API lists, finds, changes and
/// removes. The registry keeps each mapping's stub under the mapping's id
/// (``Registration/stubID``) and knows nothing more of it; this index, kept beside it
/// (``MockRegistry/attachment(_:makingWith:)``), keeps the mappings.
///
/// The registry decides which mappings are still registered: one whose stub was removed another
/// way (`removeAll()`, a reset) is no longer listed, and is dropped when the index next lists.
final class StubMappingIndex: Sendable {
    /// Held while the registry is asked, so that the index and the registry change together;
    /// the registry never calls back into the index.
    private let mappings = Locked<[UUID: StubMapping]>([:])

    /// Registers mappings in order; a mapping with the id of one already registered replaces it.
    /// Invalid ones are left out and returned; the mapping they would replace stays.
    func register(_ added: [StubMapping], in registry: MockRegistry) -> [RegistrationError] {
        mappings.withLock { mappings in
            var errors: [RegistrationError] = []
            for mapping in added {
                var registration = mapping.registration
                registration.stubID = mapping.id
                // One at a time: a rejected mapping must not replace the one registered with its id.
                let rejected = registry.register([registration])
                if rejected.isEmpty {
                    mappings[mapping.id] = mapping
                    registry.report(mapping.warnings)
                } else {
                    errors.append(contentsOf: rejected)
                }
            }
            return errors
        }
    }

    /// The mappings still registered, in the order their ids were first registered.
    func all(in registry: MockRegistry) -> [StubMapping] {
        mappings.withLock { mappings in
            let listed = registry.stubIDs.compactMap { id in mappings[id].map { (id, $0) } }
            if listed.count != mappings.count {
                mappings = Dictionary(listed, uniquingKeysWith: { first, _ in first })
            }
            return listed.map(\.1)
        }
    }

    /// The mapping with this id, if it is still registered.
    func mapping(id: UUID, in registry: MockRegistry) -> StubMapping? {
        mappings.withLock { mappings in
            registry.containsStub(id: id) ? mappings[id] : nil
        }
    }

    /// Changes the mapping with this id, if there is one.
    func update(id: UUID, _ change: (inout StubMapping) -> Void) {
        mappings.withLock { mappings in
            if mappings[id] != nil { change(&mappings[id]!) }
        }
    }

    /// Removes the mapping with this id and its stub; whether it was registered.
    func remove(id: UUID, in registry: MockRegistry) -> Bool {
        mappings.withLock { mappings in
            guard mappings.removeValue(forKey: id) != nil else { return false }
            return registry.removeStub(id: id)
        }
    }
}
