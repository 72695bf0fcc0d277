import Foundation

extension StubFile {
    /// Checks what the decoder cannot: known fault and lifetime names, one body kind per
    /// response, valid patterns.
    func validate(source: String) throws(StubFileError) {
        for (stubIndex, stub) in stubs.enumerated() {
            let at = "stubs[\(stubIndex)]"
            if let host = stub.host {
                do { _ = try HostPattern(host) } catch {
                    throw StubFileError(file: source, location: "\(at).host", problem: error.problem, expected: Self.inJSON(error.fix))
                }
            }
            do { _ = try PathPattern(stub.path) } catch {
                throw StubFileError(file: source, location: "\(at).path", problem: error.problem, expected: Self.inJSON(error.fix))
            }
            if let matching = stub.queryMatching, matching != "exact", matching != "contains" {
                throw StubFileError(file: source, location: "\(at).queryMatching", problem: "is \"\(matching)\"", expected: "\"exact\" or \"contains\"")
            }
            if stub.scenarioName == nil, stub.requiredScenarioState != nil || stub.newScenarioState != nil {
                throw StubFileError(file: source, location: "\(at).scenarioName", problem: "is missing while a scenario state is given", expected: "the scenario's name")
            }
            if stub.responses.isEmpty {
                throw StubFileError(file: source, location: "\(at).responses", problem: "is empty", expected: "at least one response")
            }
            for (index, response) in stub.responses.enumerated() {
                let place = "\(at).responses[\(index)]"
                let kinds = [response.body != nil, response.json != nil, response.file != nil, response.fault != nil].filter { $0 }
                if kinds.count > 1 {
                    throw StubFileError(file: source, location: place, problem: "has more than one of body, json, file and fault", expected: "at most one of them")
                }
                if let fault = response.fault, !MockResponse.Fault.all.contains(where: { $0.description == fault }) {
                    throw StubFileError(
                        file: source,
                        location: "\(place).fault",
                        problem: "is \"\(fault)\"",
                        expected: MockResponse.Fault.all.map { "\"\($0)\"" }.joined(separator: ", ")
                    )
                }
                if case .named(let name) = response.lifetime, name != "single", name != "eternal" {
                    throw StubFileError(file: source, location: "\(place).lifetime", problem: "is \"\(name)\"", expected: "\"single\", \"eternal\" or a count of at least 1")
                }
                if case .count(let count) = response.lifetime, count < 1 {
                    throw StubFileError(file: source, location: "\(place).lifetime", problem: "is \(count)", expected: "\"single\", \"eternal\" or a count of at least 1")
                }
                if let status = response.status, !(100...599).contains(status) {
                    throw StubFileError(file: source, location: "\(place).status", problem: "is \(status)", expected: "an HTTP status from 100 to 599")
                }
                if let delay = response.delay, let problem = ResponseLimits.durationProblem(delay, named: "the delay") {
                    throw StubFileError(file: source, location: "\(place).delay", problem: problem, expected: "a number of seconds from 0 to \(Int(ResponseLimits.maximumSeconds)) (one day)")
                }
                if let dribble = response.dribble, let problem = ResponseLimits.dribbleProblem(chunks: dribble.chunks, seconds: dribble.seconds) {
                    throw StubFileError(
                        file: source,
                        location: "\(place).dribble",
                        problem: problem,
                        expected: "\"chunks\" from 1 to \(ResponseLimits.maximumDribbleChunks) and \"seconds\" from 0 to \(Int(ResponseLimits.maximumSeconds))"
                    )
                }
                for (name, value) in response.headers ?? [:] {
                    if let problem = ResponseLimits.headerProblem(name: name, value: value) {
                        throw StubFileError(file: source, location: "\(place).headers", problem: problem, expected: ResponseLimits.headerFix)
                    }
                }
                if let file = response.file {
                    // Found now, not when the first request asks for it.
                    let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : baseDirectory.appendingPathComponent(file)
                    var isFolder: ObjCBool = false
                    if !FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
                        throw StubFileError(file: source, location: "\(place).file", problem: "\"\(file)\" does not exist (looked for \(url.path))", expected: "a file path, relative to the stub file's folder or absolute")
                    }
                    if isFolder.boolValue {
                        throw StubFileError(file: source, location: "\(place).file", problem: "\"\(file)\" is a folder (\(url.path))", expected: "a file inside it")
                    }
                    if !FileManager.default.isReadableFile(atPath: url.path) {
                        throw StubFileError(file: source, location: "\(place).file", problem: "\"\(file)\" cannot be read (\(url.path))", expected: "a file this user may read")
                    }
                }
                if response.template == true {
                    if response.file != nil {
                        throw StubFileError(file: source, location: "\(place).template", problem: "is true for a file response", expected: "a template in body or json (files are sent as they are)")
                    }
                    _ = try ResponseTemplates(response, place: place, source: source)
                }
            }
        }
    }

    /// A pattern error's fix, worded for stub-file users (fields, not Swift API).
    private static func inJSON(_ fix: String) -> String {
        fix.replacingOccurrences(of: "put the path in forPath:/Path(_:)", with: "put the path in \"path\"")
            .replacingOccurrences(of: "Give query parameters with query:/queryItems: instead of in the path", with: "Give query parameters in \"query\" instead of in the path")
    }

    /// The registrations the file describes.
    package var registrations: [Registration] {
        stubs.map { stub in
            Registration(
                host: stub.host ?? "**",
                path: stub.path,
                query: stub.query?.mapValues(\.values),
                queryMatching: stub.queryMatching == "contains" ? .contains : .exact,
                requirement: stub.method.map { RequestMatcher.method($0) },
                scenario: stub.scenarioName.map { ScenarioStep($0, when: stub.requiredScenarioState, then: stub.newScenarioState) },
                responses: stub.responses.map(response)
            )
        }
    }

    private func response(_ definition: Response) -> MockResponse {
        let status = MockResponse.Status(code: definition.status ?? 200)
        let headers = definition.headers ?? [:]
        let lifetime: MockResponse.Lifetime =
            switch definition.lifetime {
            case .named("eternal"): .eternal
            case .count(let count): count == 1 ? .single : .multiple(count)
            default: .single
            }
        let delivery: MockResponse.Delivery = (definition.delay ?? 0) > 0 ? .delayed(definition.delay!) : .instant
        if definition.template == true, definition.fault == nil, let templates = try? ResponseTemplates(definition, place: "", source: "") {
            // Validated when the file was read; rendered for each request.
            return MockResponse.computed(lifetime: lifetime, delivery: delivery) { request in
                var response = templates.render(request, status: status)
                if let dribble = definition.dribble {
                    response = response.dribbled(inChunks: dribble.chunks, over: dribble.seconds)
                }
                return response
            }
        }
        var response: MockResponse
        if let fault = definition.fault, let kind = MockResponse.Fault.all.first(where: { $0.description == fault }) {
            response = .fault(kind, lifetime: lifetime, delivery: delivery)
        } else if let json = definition.json {
            response = MockResponse(data: json.data, contentType: "application/json", status: status, lifetime: lifetime, delivery: delivery, headers: headers)
        } else if let file = definition.file {
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : baseDirectory.appendingPathComponent(file)
            response = .file(url: url, status: status, lifetime: lifetime, delivery: delivery, headers: headers)
        } else if let body = definition.body {
            response = .plaintext(body, status: status, lifetime: lifetime, delivery: delivery, headers: headers)
        } else {
            response = .empty(status: status, lifetime: lifetime, delivery: delivery, headers: headers)
        }
        if let dribble = definition.dribble {
            response = response.dribbled(inChunks: dribble.chunks, over: dribble.seconds)
        }
        return response
    }
}

/// A stub-file response's templates, parsed: body or JSON, and header values.
struct ResponseTemplates: Sendable {
    private enum Body: Sendable {
        case none
        case text(ResponseTemplate, escaping: ResponseTemplate.Escaping)
        case json(JSONValue, [String: ResponseTemplate])
    }

    private let body: Body
    private let headers: [(name: String, template: ResponseTemplate)]
    private let contentType: String?

    init(_ definition: StubFile.Response, place: String, source: String) throws(StubFileError) {
        func parse(_ text: String, at location: String) throws(StubFileError) -> ResponseTemplate {
            do {
                return try ResponseTemplate(text)
            } catch {
                throw StubFileError(file: source, location: location, problem: error.problem, expected: error.expected)
            }
        }
        var headers: [(name: String, template: ResponseTemplate)] = []
        for (name, value) in (definition.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            headers.append((name, try parse(value, at: "\(place).headers.\(name)")))
        }
        self.headers = headers
        let declaredType = definition.headers.flatMap { HeaderFields.value(named: "Content-Type", in: $0) }
        if let json = definition.json {
            let value = (try? JSONValue.parse(json.data)) ?? .null
            var templates: [String: ResponseTemplate] = [:]
            for text in Self.strings(in: value) where templates[text] == nil {
                templates[text] = try parse(text, at: "\(place).json")
            }
            body = .json(value, templates)
            contentType = "application/json"
        } else if let text = definition.body {
            // Values inserted into a JSON body are escaped as JSON string content.
            let isJSON = declaredType?.lowercased().contains("json") == true
            body = .text(try parse(text, at: "\(place).body"), escaping: isJSON ? .jsonString : .none)
            contentType = "text/plain; charset=utf-8"
        } else {
            body = .none
            contentType = nil
        }
    }

    /// The response for a request.
    func render(_ request: RecordedRequest, status: MockResponse.Status) -> MockResponse {
        var rendered: [String: String] = [:]
        for (name, template) in headers {
            rendered[name] = template.render(request)
        }
        let data: Data
        switch body {
        case .none:
            data = Data()
        case .text(let template, let escaping):
            data = Data(template.render(request, escaping: escaping).utf8)
        case .json(let value, let templates):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            data = (try? encoder.encode(Self.rendering(value, templates, request))) ?? Data()
        }
        return MockResponse(data: data, contentType: data.isEmpty ? nil : contentType, status: status, headers: rendered)
    }

    private static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let items): items.flatMap(strings)
        case .object(let object): object.keys.sorted().flatMap { strings(in: object[$0]!) }
        default: []
        }
    }

    private static func rendering(_ value: JSONValue, _ templates: [String: ResponseTemplate], _ request: RecordedRequest) -> JSONValue {
        switch value {
        case .string(let text): .string(templates[text]?.render(request) ?? text)
        case .array(let items): .array(items.map { rendering($0, templates, request) })
        case .object(let object): .object(object.mapValues { rendering($0, templates, request) })
        default: value
        }
    }
}

/// Any JSON value, kept as written, for `json` bodies in stub files.
public struct JSONDocument: Codable, Sendable, Equatable {
    /// The value serialised, keys sorted.
    public let data: Data

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        data = try encoder.encode(value)
    }

    /// Encodes the value.
    public func encode(to encoder: any Encoder) throws {
        try JSONValue.parse(data).encode(to: encoder)
    }
}
