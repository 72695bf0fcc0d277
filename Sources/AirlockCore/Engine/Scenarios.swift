/// The scenarios of a registry: the state each is in, and every name a stub uses. A small value
/// of its own, held under the registry's lock beside the ``RouteTable``.
struct Scenarios: Sendable {
    /// The current state of each scenario that has left ``ScenarioStep/started``.
    private(set) var states: [String: String] = [:]
    /// Every scenario a stub names.
    private(set) var names: Set<String> = []

    /// A scenario's current state.
    func state(of scenario: String) -> String {
        states[scenario] ?? ScenarioStep.started
    }

    /// Whether a stub's step may answer now: it needs no state, or the one its scenario is in.
    func allows(_ step: ScenarioStep?) -> Bool {
        guard let step, let required = step.requiredState else { return true }
        return state(of: step.name) == required
    }

    /// Notes a scenario a stub names.
    mutating func noteName(_ name: String) {
        names.insert(name)
    }

    /// Moves a scenario to a state.
    mutating func set(_ name: String, to newState: String) {
        states[name] = newState
    }

    /// Moves the scenario of a step that answered to the state it names, if it names one.
    mutating func advance(_ step: ScenarioStep?) {
        if let step, let newState = step.newState { states[step.name] = newState }
    }

    /// Returns every scenario to its start.
    mutating func reset() {
        states = [:]
    }

    /// Forgets every scenario and name.
    mutating func removeAll() {
        states = [:]
        names = []
    }

    /// Every scenario named or set, with its current state.
    var all: [String: String] {
        var all: [String: String] = [:]
        for name in names.union(states.keys) { all[name] = state(of: name) }
        return all
    }
}
