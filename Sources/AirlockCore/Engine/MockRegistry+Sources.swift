import AirlockBase
import Foundation

extension MockRegistry {
    /// Registers stubs that each carry a ``StubSource``, in order: one with the id of a source
    /// already registered replaces it (the old stub serves nothing more). Invalid ones are left
    /// out, returned, and reported (see ``report(to:)``); the stub they would replace stays.
    @discardableResult
    package func register(sourced registrations: [Registration]) -> [RegistrationError] {
        var errors: [RegistrationError] = []
        state.withLock { state in
            for registration in registrations {
                do throws(RegistrationError) {
                    try state.add(sourced: registration)
                } catch {
                    errors.append(error)
                }
            }
            state.registrationErrors.append(contentsOf: errors)
        }
        report(errors.map(\.description))
        return errors
    }

    /// The values of every source registered whose value is a `Value`, in the order they were
    /// first added.
    package func sources<Value: Sendable>(as type: Value.Type) -> [Value] {
        state.withLock { $0.sources.all.compactMap { $0.value as? Value } }
    }

    /// The value of the source with this id, if one is registered and its value is a `Value`.
    package func source<Value: Sendable>(id: UUID, as type: Value.Type) -> Value? {
        state.withLock { $0.sources.entries[id]?.source.value as? Value }
    }

    /// Changes the value of the source with this id, if one is registered and its value is a
    /// `Value`; whether it was.
    @discardableResult
    package func updateSource<Value: Sendable>(id: UUID, as type: Value.Type, _ change: (inout Value) -> Void) -> Bool {
        state.withLock { $0.sources.update(id, as: type, change) }
    }

    /// Removes the stub registered with this source id; whether there was one.
    @discardableResult
    package func removeSource(id: UUID) -> Bool {
        state.withLock { $0.removeSource(id: id) }
    }

    /// What every stubbed response goes through before it is served (`nil`: nothing), such as a
    /// delay a format's settings add to each. Requests already answered keep their response.
    package var responseAdjustment: (any ResponseAdjustment)? {
        get { state.withLock { $0.responseAdjustment } }
        set { state.withLock { $0.responseAdjustment = newValue } }
    }
}

/// A change every stubbed response of a registry goes through before it is served
/// (``MockRegistry/responseAdjustment``), such as a delay a format's settings add to each.
package protocol ResponseAdjustment: Sendable {
    /// The response to serve in place of `response`.
    func adjusted(_ response: MockResponse) -> MockResponse
}

extension MockRegistry.State {
    /// The stubs registered with a ``StubSource``: each with the route that serves it, in the
    /// order added.
    struct SourceIndex: Sendable {
        private(set) var order: [UUID] = []
        private(set) var entries: [UUID: (source: StubSource, route: Int?)] = [:]
        /// The source of each route that has one.
        private var byRoute: [Int: UUID] = [:]

        var isEmpty: Bool { entries.isEmpty }

        /// The id of the source a route serves, if it serves one.
        func source(ofRoute route: Int) -> UUID? {
            byRoute[route]
        }

        var all: [StubSource] { order.compactMap { entries[$0]?.source } }

        mutating func insert(_ source: StubSource, route: Int?) {
            if entries[source.id] == nil { order.append(source.id) }
            entries[source.id] = (source, route)
            if let route { byRoute[route] = source.id }
        }

        mutating func update<Value: Sendable>(_ id: UUID, as type: Value.Type, _ change: (inout Value) -> Void) -> Bool {
            guard var value = entries[id]?.source.value as? Value else { return false }
            change(&value)
            entries[id]?.source.value = value
            return true
        }

        mutating func remove(_ id: UUID) -> Int?? {
            guard let entry = entries.removeValue(forKey: id) else { return nil }
            if let route = entry.route { byRoute[route] = nil }
            order.removeAll { $0 == id }
            return .some(entry.route)
        }

        /// Drops the sources whose routes are cleared.
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

    /// Registers a stub with a source, replacing the one with its id.
    mutating func add(sourced registration: Registration) throws(RegistrationError) {
        let route = try register(registration).route
        guard let source = registration.source else { return }
        _ = removeSource(id: source.id)
        sources.insert(source, route: route)
    }

    /// Removes the stub of a source and clears its route; whether there was one.
    mutating func removeSource(id: UUID) -> Bool {
        guard let removed = sources.remove(id) else { return false }
        if let route = removed { clear(route: route) }
        return true
    }
}
