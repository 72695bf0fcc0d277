import Foundation

/// A scenario as the admin API lists it: its state, the states its stubs name, and its stubs.
package struct ScenarioSummary: Sendable {
    /// The scenario's name.
    package let name: String
    /// The state it is in now.
    package let state: String
    /// ``ScenarioStep/started``, then every other state its stubs need or move to, in the order
    /// the stubs were registered.
    package let possibleStates: [String]
    /// Its stubs, in registration order, each with its step.
    package let stubs: [(stub: StubDescription, step: ScenarioStep)]
}

/// What setting a scenario's state from outside came to.
package enum ScenarioChange: Sendable, Equatable {
    /// The scenario is in the state asked for.
    case set
    /// No registered stub names the scenario.
    case unknownScenario
    /// None of the scenario's stubs needs or moves to the state: the scenario could never leave
    /// it through its stubs (WireMock refuses it so too).
    case unknownState(possible: [String])
}

extension MockRegistry {
    /// Every scenario a registered stub names, sorted by name, each with its current state, its
    /// possible states and its stubs.
    package var scenarioSummaries: [ScenarioSummary] {
        state.withLock { state in
            var stubs: [String: [(stub: StubDescription, step: ScenarioStep)]] = [:]
            for (route, _) in state.liveRoutes {
                guard let step = route.scenario else { continue }
                stubs[step.name, default: []].append((route.stub, step))
            }
            return stubs.keys.sorted().map { name in
                let steps = stubs[name] ?? []
                return ScenarioSummary(
                    name: name,
                    state: state.scenarios.state(of: name),
                    possibleStates: Self.possibleStates(of: steps.map { $0.step }),
                    stubs: steps
                )
            }
        }
    }

    /// Moves a scenario a registered stub names to one of the states its stubs name (`Started`
    /// included), in one step under the registry's lock.
    package func setScenarioState(_ name: String, to newState: String) -> ScenarioChange {
        state.withLock { state in
            let steps = state.liveRoutes.compactMap { $0.route.scenario }.filter { $0.name == name }
            guard !steps.isEmpty else { return .unknownScenario }
            let possible = Self.possibleStates(of: steps)
            guard possible.contains(newState) else { return .unknownState(possible: possible) }
            state.scenarios.set(name, to: newState)
            return .set
        }
    }

    /// `Started`, then the states the steps need or move to, each once, in order.
    private static func possibleStates(of steps: [ScenarioStep]) -> [String] {
        var known = [ScenarioStep.started]
        for step in steps {
            for name in [step.requiredState, step.newState].compactMap({ $0 }) where !known.contains(name) {
                known.append(name)
            }
        }
        return known
    }
}
