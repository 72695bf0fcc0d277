import Foundation

extension StubFile {
    /// Checks what the decoder cannot: known fault and lifetime names, one body kind per
    /// response, valid patterns.
    func validate(source: String) throws(StubFileError) {
        for (stubIndex, stub) in stubs.enumerated() {
            let at = "stubs[\(stubIndex)]"
            if let host = stub.host {
                do { _ = try HostPattern(host) } catch {
                    throw StubFileError(file: source, location: "\(at).host", problem: error.problem, expected: error.fix)
                }
            }
            do { _ = try PathPattern(stub.path) } catch {
                throw StubFileError(file: source, location: "\(at).path", problem: error.problem, expected: error.fix)
            }
            if let matching = stub.queryMatching, matching != "exact", matching != "contains" {
                throw StubFileError(file: source, location: "\(at).queryMatching", problem: "is \"\(matching)\"", expected: "\"exact\" or \"contains\"")
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
                if let delay = response.delay, !(delay >= 0 && delay.isFinite) {
                    throw StubFileError(file: source, location: "\(place).delay", problem: "is \(delay)", expected: "a number of seconds ≥ 0")
                }
            }
        }
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
