import AirlockBase
import Foundation
@_spi(AirlockTransport) import AirlockCore
@_spi(AirlockTransport) import AirlockWireMock
import NIOHTTP1

/// WireMock's admin API, as WireMock serves it, for the clients written for it (the PyPI
/// `wiremock` client, go-wiremock, WireMock's own Java client): mappings, the request journal
/// in WireMock's shapes, near misses, scenarios, settings and shutdown.
///
/// ``AdminAPI`` checks every request first (token, `Host`, `Origin`, JSON writes) and hands the
/// paths WireMock defines here; `/__admin/requests` and `/__admin/requests/unmatched` answer in
/// WireMock's shape with Airlock's fields added (see ``AdminAPI``).
struct WireMockAdminAPI {
    let context: ServerContext

    private var registry: MockRegistry { context.registry }

    /// The answer for a WireMock admin path, or `nil` when the path is not one of them.
    func handle(_ method: HTTPMethod, path: String, query: [URLQueryItem], body: Data?) -> AdminAPI.Answer? {
        let parts = path.dropFirst(AdminAPI.prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let resource = parts.joined(separator: "/")
        // The one variable segment: a mapping's or a request's id.
        let id = parts.count == 2 ? parts[1] : ""
        switch (method, resource) {
        case (.GET, "mappings"):
            return listMappings(query)
        case (.POST, "mappings"):
            return addMapping(body, id: nil)
        case (.DELETE, "mappings"):
            for mapping in registry.wireMockMappings { remove(mapping) }
            return Self.empty(200)
        case (.POST, "mappings/remove-by-metadata"):
            return withMetadataPattern(body) { matching in
                for mapping in matching { remove(mapping) }
                return Self.empty(200)
            }
        case (.POST, "mappings/find-by-metadata"):
            return withMetadataPattern(body) { matching in
                AdminAPI.json(200, ["mappings": .array(matching.map(listed)), "meta": ["total": .number(Double(matching.count))]])
            }
        case (.POST, "mappings/reset"):
            return resetMappings() ?? Self.empty(200)
        case (.POST, "mappings/save"):
            return saveMappings()
        case (.GET, "mappings/\(id)") where parts.count == 2:
            guard let uuid = UUID(uuidString: id), let mapping = registry.wireMockMapping(id: uuid) else { return Self.noMapping(id) }
            return AdminAPI.json(200, listed(mapping))
        case (.PUT, "mappings/\(id)") where parts.count == 2:
            guard let uuid = UUID(uuidString: id), registry.wireMockMapping(id: uuid) != nil else { return Self.noMapping(id) }
            return addMapping(body, id: uuid)
        case (.DELETE, "mappings/\(id)") where parts.count == 2:
            guard let uuid = UUID(uuidString: id), let mapping = registry.wireMockMapping(id: uuid) else { return Self.noMapping(id) }
            remove(mapping)
            return Self.empty(200)
        case (.GET, "requests/\(id)") where parts.count == 2 && !["unmatched", "count", "find", "reset"].contains(id):
            let redaction = registry.journal.redaction
            guard let sequence = WireMockJournal.sequence(of: id),
                let request = registry.journal.all.first(where: { $0.sequence == sequence })
            else {
                return AdminAPI.json(404, ["errors": [["title": .string("no request \(id) in the journal")]]])
            }
            return AdminAPI.json(200, .object(serveEvent(redaction.apply(to: request))))
        case (.DELETE, "requests"), (.POST, "requests/reset"):
            registry.journal.clear()
            return Self.empty(200)
        case (.POST, "requests/count"):
            return withPattern(body) { pattern in
                AdminAPI.json(200, ["count": .number(Double(registry.journal.all.filter(pattern.matches).count)), "requestJournalDisabled": false])
            }
        case (.POST, "requests/find"):
            return withPattern(body) { pattern in
                let redaction = registry.journal.redaction
                let found = registry.journal.all.filter(pattern.matches).map { JSONValue.object(WireMockJournal.loggedRequest(redaction.apply(to: $0))) }
                return AdminAPI.json(200, ["requests": .array(found), "requestJournalDisabled": false])
            }
        case (.GET, "requests/unmatched/near-misses"):
            let unmatched = registry.journal.all.filter { !$0.wasMatched }
            return AdminAPI.json(200, ["nearMisses": .array(unmatched.flatMap { nearMisses(for: $0) })])
        case (.POST, "near-misses/request"):
            guard let request = body.flatMap(WireMockJournal.request(from:)) else {
                return Self.invalid("send a logged request: {\"url\": \"/path\", \"method\": \"GET\", \"headers\": {…}, \"body\": \"…\"}", pointer: "")
            }
            return AdminAPI.json(200, ["nearMisses": .array(nearMisses(for: request))])
        case (.POST, "near-misses/request-pattern"):
            // As sent, members in order.
            let echoed = body.flatMap { try? JSONValue.parse($0) } ?? [:]
            return withPattern(body) { pattern in
                let redaction = registry.journal.redaction
                // The journal's requests nearest to the pattern, each with the pattern echoed.
                let misses = registry.journal.all
                    .map { (request: $0, distance: pattern.distance(to: $0)) }
                    .sorted { $0.distance < $1.distance }
                    .prefix(Self.nearMissCount)
                    .map { miss -> JSONValue in
                        [
                            "request": .object(WireMockJournal.loggedRequest(redaction.apply(to: miss.request))),
                            "requestPattern": echoed,
                            "matchResult": ["distance": .number(miss.distance)],
                        ]
                    }
                return AdminAPI.json(200, ["nearMisses": .array(Array(misses))])
            }
        case (.GET, "scenarios"):
            return AdminAPI.json(200, ["scenarios": .array(registry.scenarioSummaries.map(listed))])
        case (.POST, "scenarios/reset"):
            registry.resetScenarios()
            return Self.empty(200)
        case (.PUT, _) where parts.count >= 3 && parts[0] == "scenarios" && parts[parts.count - 1] == "state":
            // The name as sent, `/` and all: everything between `scenarios/` and `/state`.
            return setScenarioState(parts[1..<(parts.count - 1)].joined(separator: "/"), body: body)
        case (.GET, "settings"):
            return AdminAPI.json(200, ["settings": ["fixedDelay": .number((registry.addedDelay * 1000).rounded())]])
        case (.POST, "settings"), (.PUT, "settings"):
            return updateSettings(body)
        case (.POST, "shutdown"):
            guard let handler = context.configuration.shutdownRequestHandler else {
                return AdminAPI.json(403, [
                    "error": "this server was started by code, which stops it (MockServer.shutdown()); POST /__admin/shutdown stops `airlock serve` only",
                ])
            }
            // After the answer is on its way.
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { handler() }
            return Self.empty(200)
        default:
            return nil
        }
    }

    /// The paths this API answers, for the admin API's list of endpoints.
    static let endpoints = [
        "GET /__admin/scenarios", "PUT /__admin/scenarios/<name>/state", "POST /__admin/scenarios/reset",
        "GET /__admin/mappings", "POST /__admin/mappings", "DELETE /__admin/mappings", "GET /__admin/mappings/<id>",
        "PUT /__admin/mappings/<id>", "DELETE /__admin/mappings/<id>", "POST /__admin/mappings/reset", "POST /__admin/mappings/save",
        "DELETE /__admin/requests", "GET /__admin/requests/<id>", "POST /__admin/requests/count", "POST /__admin/requests/find",
        "POST /__admin/requests/reset", "GET /__admin/requests/unmatched/near-misses", "POST /__admin/near-misses/request",
        "POST /__admin/near-misses/request-pattern", "GET /__admin/settings", "POST /__admin/settings", "POST /__admin/shutdown",
    ]

    /// How many near misses WireMock lists for one request.
    static let nearMissCount = 3

    // MARK: Mappings

    private func listMappings(_ query: [URLQueryItem]) -> AdminAPI.Answer {
        // (`limit` and `offset` as WireMock pages them.)
        let all = registry.wireMockMappings
        let offset = max(0, query.first { $0.name == "offset" }?.value.flatMap(Int.init) ?? 0)
        let limit = query.first { $0.name == "limit" }?.value.flatMap(Int.init) ?? all.count
        // WireMock lists the newest first.
        let page = all.reversed().dropFirst(offset).prefix(max(0, limit)).map(listed)
        return AdminAPI.json(200, ["mappings": .array(Array(page)), "meta": ["total": .number(Double(all.count))]])
    }

    /// Adds a mapping from a request body (with `id` for `PUT /mappings/<id>`): `201` with the
    /// mapping as listed, or `422` naming the field, as WireMock answers.
    private func addMapping(_ body: Data?, id: UUID?) -> AdminAPI.Answer {
        do {
            var data = body ?? Data()
            if let id { data = try WireMockJournal.settingID(id, in: data) }
            let mappings = try WireMockMappings(data: data, source: "request body", rootDirectory: fileRoot, version: context.configuration.wireMockVersion)
            let rejected = registry.register(mappings.mappings)
            if let first = rejected.first {
                return Self.invalid(first.description, pointer: "")
            }
            guard let mapping = mappings.mappings.first.flatMap({ registry.wireMockMapping(id: $0.id) }) else {
                return Self.invalid("the request body holds no mapping", pointer: "")
            }
            return AdminAPI.json(id == nil ? 201 : 200, listed(mapping))
        } catch {
            return Self.invalid(error.description, pointer: WireMockJournal.pointer(error.location))
        }
    }

    /// The folder `bodyFileName` must stay in for admin-added mappings: the root's `__files`.
    private var fileRoot: URL {
        context.configuration.wireMockRoot ?? URL(fileURLWithPath: "/nonexistent-airlock-wiremock-root")
    }

    /// Removes every mapping and loads the root folder's again; an answer when that fails.
    func resetMappings() -> AdminAPI.Answer? {
        for mapping in registry.wireMockMappings { registry.removeWireMockMapping(id: mapping.id) }
        guard let root = context.configuration.wireMockRoot else { return nil }
        do {
            registry.register(try WireMockMappings(directory: root, version: context.configuration.wireMockVersion).mappings)
            return nil
        } catch {
            return AdminAPI.json(500, ["errors": [["title": .string(error.description)]]])
        }
    }

    /// Writes the mappings not on disk yet into the root's `mappings/`, one file each, named by id.
    private func saveMappings() -> AdminAPI.Answer {
        guard let root = context.configuration.wireMockRoot else {
            return AdminAPI.json(409, ["error": "this server has no WireMock root folder to save to: start it with airlock serve --wiremock DIR"])
        }
        let folder = root.appendingPathComponent("mappings", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for mapping in registry.wireMockMappings where mapping.file == nil {
                let file = Self.savedFile(of: mapping.id, in: folder)
                try JSONEncoder.mappingFile.encode(mapping.json).write(to: file, options: .atomic)
                registry.noteSaved(mapping.id, in: file)
            }
        } catch {
            return AdminAPI.json(500, ["errors": [["title": .string("could not save to \(folder.path): \(error.localizedDescription)")]]])
        }
        return Self.empty(200)
    }

    /// Where a mapping is saved. The name comes from the id alone: nothing a client sends
    /// chooses a path.
    private static func savedFile(of id: UUID, in folder: URL) -> URL {
        folder.appendingPathComponent("\(id.uuidString.lowercased()).json")
    }

    /// Removes a mapping, and the file `POST /__admin/mappings/save` wrote for it, as WireMock
    /// removes a saved mapping's file. Files of the folder that hold other mappings stay.
    private func remove(_ mapping: StubMapping) {
        registry.removeWireMockMapping(id: mapping.id)
        guard let file = mapping.file, let root = context.configuration.wireMockRoot,
            file.standardizedFileURL == Self.savedFile(of: mapping.id, in: root.appendingPathComponent("mappings", isDirectory: true)).standardizedFileURL
        else { return }
        try? FileManager.default.removeItem(at: file)
    }

    /// Runs `answer` with the mappings whose `metadata` a WireMock content pattern (`{"matchesJsonPath": …}`,
    /// `{"equalToJson": …}`) matches, or answers `422` naming the field.
    private func withMetadataPattern(_ body: Data?, _ answer: ([StubMapping]) -> AdminAPI.Answer) -> AdminAPI.Answer {
        // The pattern is a body pattern, asked of each mapping's metadata as a JSON body.
        guard let body, let pattern = try? JSONValue.parse(body), case .object = pattern,
            let wrapped = try? JSONValue.members([("bodyPatterns", [pattern])]).compactData()
        else {
            return Self.invalid("send a content pattern such as {\"matchesJsonPath\": {\"expression\": \"$.group\", \"equalTo\": \"a\"}}", pointer: "")
        }
        return withPattern(wrapped) { pattern in
            answer(registry.wireMockMappings.filter { mapping in
                guard let metadata = mapping.metadata, let data = try? metadata.compactData(),
                    let request = IncomingRequest(method: "POST", absoluteURL: "http://localhost/")
                else { return false }
                var incoming = request
                incoming.body = data
                return pattern.matches(RecordedRequest(sequence: 0, request: incoming, date: Date()))
            })
        }
    }

    /// A request as a serve event, with the mapping that answered it if it is still registered.
    func serveEvent(_ request: RecordedRequest) -> JSONMembers {
        let mapping = request.mappingID.flatMap(registry.wireMockMapping(id:)).map(listed)
        return WireMockJournal.serveEvent(request, stubMapping: mapping)
    }

    /// A mapping as the admin API lists it: its JSON, with secret values hidden by the journal's
    /// redaction (header, cookie and query patterns of secret names, basic-auth passwords).
    private func listed(_ mapping: StubMapping) -> JSONValue {
        WireMockJournal.redacted(mapping.json, by: registry.journal.redaction)
    }

    // MARK: Requests

    /// Runs `answer` with the request pattern in `body`, or answers `422` naming the field.
    private func withPattern(_ body: Data?, _ answer: (WireMockRequestPattern) -> AdminAPI.Answer) -> AdminAPI.Answer {
        do {
            let node = try JSONNode.parse(body ?? Data(), source: "request body", expected: "a WireMock request pattern")
            return answer(try WireMockRequestPattern(node))
        } catch {
            return Self.invalid(error.description, pointer: WireMockJournal.pointer(error.location))
        }
    }

    /// The stubs nearest to a request, nearest first, as WireMock lists near misses: the core's
    /// unmatched-request diagnosis ranks them (Airlock's own stubs and WireMock mappings alike,
    /// a mapping by WireMock's distance), and each comes with the request as logged, the stub
    /// (a mapping as listed; one of Airlock's own by its description) and the distance, plus
    /// Airlock's verdict per part in `diagnostic`. Everything shown is redacted.
    private func nearMisses(for request: RecordedRequest) -> [JSONValue] {
        let diagnosis = registry.diagnosis(for: request)
        let redaction = diagnosis.redaction
        let logged = JSONValue.object(WireMockJournal.loggedRequest(redaction.apply(to: request)))
        return diagnosis.nearest.map { miss in
            [
                "request": logged,
                "stubMapping": stubMapping(id: miss.stubID, description: miss.stub, redaction: redaction, secrets: diagnosis.secrets),
                "matchResult": ["distance": .number(miss.distance)],
                "diagnostic": .string(redaction.text(miss.verdicts.joined(separator: "  "), secrets: diagnosis.secrets)),
            ]
        }
    }

    /// A stub as WireMock names one: a mapping as the admin API lists it; one of Airlock's own
    /// (which has no mapping) by its description, as `name`, with its id if a format gave it one.
    private func stubMapping(id: UUID?, description: String, redaction: Redaction, secrets: [String] = []) -> JSONValue {
        if let id, let mapping = registry.wireMockMapping(id: id) { return listed(mapping) }
        var members = JSONMembers()
        if let id { members["id"] = .string(id.uuidString.lowercased()) }
        members["name"] = .string(redaction.text(description, secrets: secrets))
        return .object(members)
    }

    // MARK: Scenarios

    /// A scenario as WireMock 3 lists it: `id` and `name` (both its name), `state`,
    /// `possibleStates` and its `mappings` (each of Airlock's own stubs by its description and
    /// step).
    private func listed(_ scenario: ScenarioSummary) -> JSONValue {
        let redaction = registry.journal.redaction
        let mappings = scenario.stubs.map { stub, step -> JSONValue in
            guard case .object(var members) = stubMapping(id: stub.stubID, description: stub.description, redaction: redaction) else { return [:] }
            if stub.stubID.flatMap(registry.wireMockMapping(id:)) == nil {
                members["scenarioName"] = .string(step.name)
                members["requiredScenarioState"] = step.requiredState.map(JSONValue.string)
                members["newScenarioState"] = step.newState.map(JSONValue.string)
            }
            return .object(members.filter { $0.value != .null })
        }
        return [
            "id": .string(scenario.name),
            "name": .string(scenario.name),
            "state": .string(scenario.state),
            "possibleStates": .array(scenario.possibleStates.map(JSONValue.string)),
            "mappings": .array(mappings),
        ]
    }

    /// `PUT /__admin/scenarios/<name>/state` as WireMock answers it: `{"state": "…"}` moves the
    /// scenario to one of the states its stubs name, an empty body returns it to `Started`;
    /// `200 {}`, `404` for a scenario no stub names, `422` for a state none of them names.
    private func setScenarioState(_ name: String, body: Data?) -> AdminAPI.Answer {
        var state = ScenarioStep.started
        if let body, !body.isEmpty {
            guard case .object(let object)? = try? JSONValue.parse(body), case .string(let given)? = object["state"] else {
                return Self.invalid("send {\"state\": \"<state>\"} to move the scenario \(name) to a state, or no body to return it to \(ScenarioStep.started)", pointer: "/state")
            }
            state = given
        }
        switch registry.setScenarioState(name, to: state) {
        case .set:
            return AdminAPI.json(200, [:])
        case .unknownScenario:
            let known = registry.scenarioSummaries.map { JSONValue.quoted($0.name) }
            let names = known.isEmpty ? "no stub names a scenario" : "the scenarios are " + known.joined(separator: ", ")
            return AdminAPI.json(404, ["errors": [["code": 404, "title": .string("Scenario \(name) does not exist (\(names))")]]])
        case .unknownState(let possible):
            let states = possible.map(JSONValue.quoted).joined(separator: ", ")
            return AdminAPI.json(422, ["errors": [["code": 11, "title": .string("Scenario \(name) does not support state \(state): its stubs name \(states)")]]])
        }
    }

    // MARK: Settings

    private func updateSettings(_ body: Data?) -> AdminAPI.Answer {
        guard let body, case .object(let object)? = try? JSONValue.parse(body) else {
            return Self.invalid("send {\"fixedDelay\": <milliseconds>}", pointer: "")
        }
        // WireMock's client sends the settings themselves, or wrapped in "settings".
        var settings = object
        if case .object(let wrapped)? = object["settings"] { settings = wrapped }
        if let delay = settings["fixedDelay"] {
            guard case .number(let milliseconds) = delay, milliseconds >= 0, milliseconds / 1000 <= ResponseLimits.maximumSeconds else {
                return Self.invalid("fixedDelay must be a number of milliseconds from 0 to \(Int(ResponseLimits.maximumSeconds) * 1000)", pointer: "/fixedDelay")
            }
            registry.addedDelay = milliseconds / 1000
        }
        return AdminAPI.json(200, ["settings": ["fixedDelay": .number((registry.addedDelay * 1000).rounded())]])
    }

    // MARK: Answers

    private static func empty(_ status: Int) -> AdminAPI.Answer {
        AdminAPI.Answer(status: status, body: Data())
    }

    private static func noMapping(_ id: String) -> AdminAPI.Answer {
        AdminAPI.json(404, ["errors": [["title": .string("no mapping with the id \(id)")]]])
    }

    /// WireMock's `422` for a request it cannot use: `{"errors": [{"code": 10, "source": {"pointer": …}, "title": …}]}`.
    private static func invalid(_ message: String, pointer: String) -> AdminAPI.Answer {
        AdminAPI.json(422, ["errors": [["code": 10, "source": ["pointer": .string(pointer)], "title": .string(message)]]])
    }
}

extension JSONEncoder {
    /// How saved mapping files are written: readable, stable.
    fileprivate static var mappingFile: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
