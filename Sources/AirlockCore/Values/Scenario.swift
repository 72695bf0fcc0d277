import AirlockBase

/// A stub's place in a stateful scenario: it answers only while the named scenario is in
/// ``requiredState`` and, when it answers, moves the scenario to ``newState``.
///
/// Every scenario starts in ``started`` and returns there when the mock's queues are cleared
/// (`clearQueues()`, `POST /__admin/reset`). The state moves under the mock's lock, so concurrent
/// requests see each transition exactly once.
///
/// ```swift
/// mock.addResponses(forPath: "/cart", host: "shop.example.com", requiring: .get, scenario: ScenarioStep("cart", when: ScenarioStep.started)) {
///     MockResponse.plaintext(#"{"items": []}"#, lifetime: .eternal)
/// }
/// mock.addResponses(forPath: "/cart", host: "shop.example.com", requiring: .post, scenario: ScenarioStep("cart", when: ScenarioStep.started, then: "item added")) {
///     MockResponse.empty(status: .created)
/// }
/// mock.addResponses(forPath: "/cart", host: "shop.example.com", requiring: .get, scenario: ScenarioStep("cart", when: "item added")) {
///     MockResponse.plaintext(#"{"items": ["book"]}"#, lifetime: .eternal)
/// }
/// ```
public struct ScenarioStep: Sendable, Hashable, CustomStringConvertible {
    /// The state every scenario starts in (WireMock's name for it).
    public static let started = "Started"

    /// The scenario's name.
    public let name: String
    /// The state the scenario must be in for the stub to answer; `nil` for any state.
    public let requiredState: String?
    /// The state the scenario moves to when the stub answers; `nil` to stay.
    public let newState: String?

    /// A step of a scenario.
    /// - Parameters:
    ///   - name: The scenario's name; stubs with the same name share its state.
    ///   - requiredState: The state the scenario must be in; `nil` for any.
    ///   - newState: The state to move to after answering; `nil` to stay.
    public init(_ name: String, when requiredState: String? = nil, then newState: String? = nil) {
        self.name = name
        self.requiredState = requiredState
        self.newState = newState
    }

    /// `scenario "cart" in "Started" → "item added"`.
    public var description: String {
        var text = "scenario \"\(name)\""
        if let requiredState { text += " in \"\(requiredState)\"" }
        if let newState { text += " → \"\(newState)\"" }
        return text
    }
}

extension Mocking {
    /// The current state of a scenario (``ScenarioStep/started`` until a stub moves it).
    /// - Parameter name: The scenario's name.
    public func scenarioState(_ name: String) -> String {
        registry.scenarioState(name)
    }

    /// Every scenario a stub names, with its current state.
    public var scenarioStates: [String: String] {
        registry.scenarioStates
    }

    /// Moves a scenario to a state, as a test setup step.
    /// - Parameters:
    ///   - name: The scenario's name.
    ///   - state: The state.
    public func setScenario(_ name: String, to state: String) {
        registry.setScenario(name, to: state)
    }

    /// Returns every scenario to ``ScenarioStep/started``; stubs and queues stay.
    public func resetScenarios() {
        registry.resetScenarios()
    }
}
