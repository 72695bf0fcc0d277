import AirlockCore
import Foundation

extension JSONObject {
    /// A stub's or mapping's `scenarioName` with the states it needs and moves to
    /// (`requiredScenarioState`, `newScenarioState`: WireMock's names, which stub files share).
    package func scenarioStep() throws(StubFileError) -> ScenarioStep? {
        let required = try self["requiredScenarioState"]?.string()
        let new = try self["newScenarioState"]?.string()
        guard let name = try self["scenarioName"]?.string() else {
            if required != nil || new != nil {
                throw error(.missingField, at: "scenarioName", "is missing while a scenario state is given", expected: "the scenario's name")
            }
            return nil
        }
        return ScenarioStep(name, when: required, then: new)
    }
}
