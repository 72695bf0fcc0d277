import AirlockBase
import Foundation

extension MockRegistry {
    /// The ids of the stubs registered with one (``Registration/stubID``) and not removed, in the
    /// order each id was first registered (a stub that replaced another keeps its place).
    package var stubIDs: [UUID] {
        state.withLock { $0.stubIDs.order }
    }

    /// Whether a stub with this id is registered and not removed.
    package func containsStub(id: UUID) -> Bool {
        state.withLock { $0.stubIDs.route(of: id) != nil }
    }

    /// Removes the stub registered with this id: it serves nothing more and is no longer listed.
    /// Whether there was one.
    @discardableResult
    package func removeStub(id: UUID) -> Bool {
        state.withLock { $0.removeStub(id: id) }
    }

    /// A wait added to every stubbed response, in seconds (0, the default: none), clamped to
    /// the longest delay a response may have; read when a stub answers, so that it applies to the
    /// stubs already registered. Requests already answered keep their response. WireMock's global
    /// `fixedDelay` is one.
    package var addedDelay: TimeInterval {
        get { state.withLock { $0.addedDelay } }
        set {
            let seconds = Swift.min(Swift.max(0, newValue), ResponseLimits.maximumSeconds)
            state.withLock { $0.addedDelay = seconds }
        }
    }
}

extension MockResponse {
    /// The response with `seconds` more before it is served (see ``MockRegistry/addedDelay``).
    func delayed(by seconds: TimeInterval) -> MockResponse {
        with(lifetime: lifetime, delivery: .delayed(Swift.min(delivery.seconds + seconds, ResponseLimits.maximumSeconds)))
    }
}

extension MockRegistry.State {
    /// The route of each stub registered with an id (``Registration/stubID``).
    struct StubIDIndex: Sendable {
        /// The ids, in the order each was first registered.
        private(set) var order: [UUID] = []
        private var routes: [UUID: Int] = [:]

        func route(of id: UUID) -> Int? {
            routes[id]
        }

        /// Notes the route that now serves `id`; an id already known keeps its place.
        mutating func set(_ id: UUID, route: Int) {
            if routes.updateValue(route, forKey: id) == nil { order.append(id) }
        }

        /// Forgets `id`; the route it had, if it was known.
        mutating func remove(_ id: UUID) -> Int? {
            guard let route = routes.removeValue(forKey: id) else { return nil }
            order.removeAll { $0 == id }
            return route
        }

        /// Forgets the ids whose routes are cleared.
        mutating func removeAll(where isCleared: (Int) -> Bool) {
            routes = routes.filter { !isCleared($0.value) }
            order.removeAll { routes[$0] == nil }
        }
    }

    /// Removes the stub with this id and clears its route; whether there was one.
    mutating func removeStub(id: UUID) -> Bool {
        guard let route = stubIDs.remove(id) else { return false }
        clear(route: route)
        return true
    }
}
