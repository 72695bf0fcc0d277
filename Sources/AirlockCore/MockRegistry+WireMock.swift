import Foundation

extension MockRegistry {
    /// Adds WireMock mappings in order; a mapping with the id of one already registered replaces
    /// it. Invalid ones are left out, returned, and reported (see ``report(to:)``).
    @discardableResult
    package func register(_ mappings: [WireMockMapping]) -> [RegistrationError] {
        var errors: [RegistrationError] = []
        state.withLock { state in
            for mapping in mappings {
                do throws(RegistrationError) {
                    try state.add(mapping)
                } catch {
                    errors.append(error)
                }
            }
            state.registrationErrors.append(contentsOf: errors)
        }
        report(errors.map(\.description))
        return errors
    }

    /// Every WireMock mapping registered, in the order they were added.
    package var wireMockMappings: [WireMockMapping] {
        state.withLock { $0.mappings.all }
    }

    /// The WireMock mapping with this id, if one is registered.
    package func wireMockMapping(id: UUID) -> WireMockMapping? {
        state.withLock { $0.mappings.entries[id]?.mapping }
    }

    /// A wait added to every stubbed response, in seconds: WireMock's global `fixedDelay`
    /// (`POST /__admin/settings`). 0 by default.
    package var addedDelay: TimeInterval {
        get { state.withLock { $0.addedDelay } }
        set { state.withLock { $0.addedDelay = Swift.min(Swift.max(0, newValue), ResponseLimits.maximumSeconds) } }
    }

    /// Notes the file a mapping was saved to.
    package func noteSaved(_ id: UUID, in file: URL) {
        state.withLock { $0.mappings.noteSaved(id, in: file) }
    }

    /// Removes the WireMock mapping with this id; whether there was one.
    @discardableResult
    package func removeWireMockMapping(id: UUID) -> Bool {
        state.withLock { $0.removeMapping(id: id) }
    }
}

extension MockRegistry.State {
    /// The WireMock mappings registered: each with the route that serves it, in the order added.
    struct MappingIndex: Sendable {
        private(set) var order: [UUID] = []
        private(set) var entries: [UUID: (mapping: WireMockMapping, route: Int?)] = [:]
        /// The mapping each route serves.
        private var byRoute: [Int: UUID] = [:]

        var isEmpty: Bool { entries.isEmpty }

        /// The id of the mapping a route serves, if it serves one.
        func mapping(ofRoute route: Int) -> UUID? {
            byRoute[route]
        }

        var all: [WireMockMapping] { order.compactMap { entries[$0]?.mapping } }

        mutating func insert(_ mapping: WireMockMapping, route: Int?) {
            if entries[mapping.id] == nil { order.append(mapping.id) }
            entries[mapping.id] = (mapping, route)
            if let route { byRoute[route] = mapping.id }
        }

        mutating func noteSaved(_ id: UUID, in file: URL) {
            entries[id]?.mapping.file = file
        }

        mutating func remove(_ id: UUID) -> Int?? {
            guard let entry = entries.removeValue(forKey: id) else { return nil }
            if let route = entry.route { byRoute[route] = nil }
            order.removeAll { $0 == id }
            return .some(entry.route)
        }

        /// Drops the mappings whose routes are cleared.
        mutating func removeAll(where isCleared: (Int) -> Bool) {
            for id in order {
                if let route = entries[id]?.route, isCleared(route) {
                    entries[id] = nil
                    byRoute[route] = nil
                }
            }
            order.removeAll { entries[$0] == nil }
        }
    }

    /// Registers a mapping, replacing the one with its id.
    mutating func add(_ mapping: WireMockMapping) throws(RegistrationError) {
        let route = try register(mapping.registration).route
        _ = removeMapping(id: mapping.id)
        mappings.insert(mapping, route: route)
    }

    /// Removes a mapping and clears its route; whether there was one.
    mutating func removeMapping(id: UUID) -> Bool {
        guard let removed = mappings.remove(id) else { return false }
        if let route = removed { clear(route: route) }
        return true
    }
}
