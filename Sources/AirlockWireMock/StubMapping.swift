import AirlockBase
import AirlockCassettes
@_spi(AirlockTransport) import AirlockCore
import AirlockStubFiles
import Foundation

/// One WireMock stub mapping, read and checked: what it matches, what it answers, and its JSON as
/// the admin API lists it.
///
/// Decoded in one pass with ``JSONNode``: a field Airlock does not support is refused with its
/// JSON path and what to do instead, never ignored, since an ignored matcher would make a stub
/// answer requests its author meant it to refuse.
package struct StubMapping: Sendable {
    /// The mapping's id (`id` or `uuid` in the file; made up when it has none).
    package let id: UUID
    /// Its `name`, if it has one.
    package let name: String?
    /// The file it was read from or saved to, if it is on disk: `POST /__admin/mappings/save`
    /// writes the mappings without one.
    package var file: URL?
    /// Its `metadata`, if it has any.
    package let metadata: JSONValue?
    /// The mapping's JSON with its id, as `GET /__admin/mappings` lists it.
    package let json: JSONValue
    /// What it matches.
    package let request: WireMockRequestPattern
    /// The stub the registry keeps for it.
    package let registration: Registration
    /// What WireMock drops from the mapping and Airlock drops too, one warning each
    /// (``WireMockDroppedFields``), reported when the mapping is registered.
    package let warnings: [String]

    /// The priority of a mapping whose document names none, and the one WireMock's rules give
    /// every stub that is not a mapping (Airlock's own, ranked by specificity): 1 is the highest.
    package static let defaultPriority = 5

    /// The fields of a mapping.
    enum Fields {
        static let mapping: Set<String> = [
            "id", "uuid", "name", "request", "response", "priority", "scenarioName", "requiredScenarioState",
            "newScenarioState", "persistent", "metadata", "insertionIndex", "postServeActions", "serveEventListeners",
        ]
    }

    /// Reads one mapping.
    /// - Parameters:
    ///   - node: The mapping object.
    ///   - files: Where `bodyFileName` resolves (the `__files` folder) and which files it may name.
    ///   - file: The file it is read from, if it is on disk.
    package init(_ node: JSONNode, files: ResponseFile.Access, file: URL? = nil) throws(StubFileError) {
        let fields = try node.object("a WireMock mapping", fields: Fields.mapping)
        var id = UUID()
        for key in ["uuid", "id"] {
            guard let field = fields[key] else { continue }
            let text = try field.string()
            guard let parsed = UUID(uuidString: text) else {
                throw field.error(.invalidValue, "is \"\(text)\"", expected: "a UUID such as \"\(UUID().uuidString.lowercased())\" (or no \(key): one is made up)")
            }
            id = parsed
        }
        self.id = id
        name = try fields["name"]?.string()
        self.file = file
        _ = try fields["persistent"]?.bool()
        if let metadata = fields["metadata"] {
            _ = try metadata.members("a JSON object of metadata")
        }
        metadata = fields["metadata"]?.value
        var priority = Self.defaultPriority
        if let field = fields["priority"] {
            priority = try field.integer()
            guard priority >= 1 else { throw field.error(.invalidValue, "is \(priority)", expected: "a priority of 1 or more (1 is the highest)") }
        }
        let scenario = try fields.scenarioStep()
        // WireMock reads a mapping without a request as one for every request, and one without a
        // response as an empty 200.
        let nothing = JSONNode(document: .object([:]), source: node.source)
        let pattern = try WireMockRequestPattern(fields["request"] ?? nothing)
        request = pattern
        warnings = fields["request"].map(WireMockDroppedFields.warnings) ?? []
        var response = try WireMockResponse.response(fields["response"] ?? nothing, files: files)
        let webhooks = try Self.webhooks(fields)
        if !webhooks.isEmpty { response = response.with(webhooks: webhooks) }
        var registration = Registration(
            host: "**",
            path: pattern.pathPattern,
            // WireMock's distance ranks the mapping among the near misses of a request it rejects.
            requirement: pattern.matcher?.measuring { pattern.distance(to: $0) },
            scenario: scenario,
            responses: [response]
        )
        // The registry ranks stubs without a key (Airlock's own) as key 0: WireMock's default.
        registration.precedence = .key(priority - Self.defaultPriority)
        self.registration = registration
        json = Self.listed(node.value, id: id)
    }

    /// The webhooks of `postServeActions` (WireMock 2.35: an array of `{"name", "parameters"}`,
    /// or an object of names and parameters) and `serveEventListeners` (WireMock 3), in that
    /// order. An action other than `webhook` is an extension's, which Airlock cannot run.
    private static func webhooks(_ fields: JSONObject) throws(StubFileError) -> [Webhook] {
        var webhooks: [Webhook] = []
        for key in ["postServeActions", "serveEventListeners"] {
            guard let field = fields[key] else { continue }
            var actions: [(name: String, node: JSONNode, parameters: JSONNode?)] = []
            if case .object = field.value, key == "postServeActions" {
                for (name, parameters) in try field.members("an object of action names and their parameters") {
                    actions.append((name, parameters, parameters))
                }
            } else {
                for entry in try field.array(of: "actions, each {\"name\": \"webhook\", \"parameters\": {…}}") {
                    let action = try entry.object("an action", fields: ["name", "parameters"])
                    actions.append((try action.required("name").string(), entry, action["parameters"]))
                }
            }
            for action in actions {
                guard action.name == "webhook" else {
                    throw action.node.error(
                        .unsupported,
                        "names the action \"\(action.name)\", an extension of WireMock's that Airlock cannot run",
                        expected: "\"webhook\" (the one built-in action), or no action; check the call your app makes with POST /__admin/requests/find instead"
                    )
                }
                guard let parameters = action.parameters else {
                    throw action.node.error(.missingField, "has no \"parameters\"", expected: "the webhook's \"parameters\": {\"method\", \"url\", \"headers\", \"body\", \"delay\"}")
                }
                // WireMock renders every webhook field as a template of `originalRequest`.
                webhooks.append(try Webhook(parameters: parameters, root: "originalRequest", escaping: WireMockVersion.reading.insertedEscaping, delay: WireMockResponse.distribution))
            }
        }
        return webhooks
    }

    /// The mapping's JSON with `id` and `uuid` set to its id, as WireMock lists it.
    private static func listed(_ value: JSONValue, id: UUID) -> JSONValue {
        guard case .object(var members) = value else { return value }
        let text = JSONValue.string(id.uuidString.lowercased())
        members["id"] = text
        members["uuid"] = text
        return .object(members)
    }

    /// The mappings of a document: `{"mappings": [...]}` or a single mapping.
    /// - Parameters:
    ///   - document: The parsed document.
    ///   - files: Where `bodyFileName` resolves.
    ///   - file: The file the document is, if it is on disk.
    ///   - skipping: Whether a mapping that cannot be read is left out, its error returned, rather
    ///     than thrown.
    package static func mappings(
        in document: JSONNode,
        files: ResponseFile.Access,
        file: URL?,
        skipping: Bool = false
    ) throws(StubFileError) -> (mappings: [StubMapping], skipped: [StubFileError]) {
        guard case .object(let members) = document.value else {
            throw document.mismatch(expected: "a WireMock mapping (an object with \"request\" and \"response\") or {\"mappings\": [...]}")
        }
        let nodes: [JSONNode]
        if members["mappings"] != nil {
            let top = try document.object("a WireMock mappings file", fields: ["mappings", "meta"])
            nodes = try top.required("mappings").array(of: "WireMock mappings")
        } else {
            nodes = [document]
        }
        var mappings: [StubMapping] = []
        var skipped: [StubFileError] = []
        for node in nodes {
            do {
                mappings.append(try StubMapping(node, files: files, file: file))
            } catch {
                guard skipping else { throw error }
                skipped.append(error)
            }
        }
        return (mappings, skipped)
    }
}
