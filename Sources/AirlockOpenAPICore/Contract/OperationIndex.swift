import AirlockBase
import AirlockJSONSchema
@_spi(AirlockTransport) import AirlockCore

/// Finds the operation of a request: its path, after a server's base path, against the path
/// templates (a template without variables before one with them, fewer variables first, then
/// document order), and its method.
struct OperationIndex: Sendable {
    /// A path template split into segments.
    struct Template: Sendable {
        enum Segment: Sendable {
            case literal(String)
            /// A segment with variables: the literal text around them (`{id}.json`).
            case pattern(parts: [Part])
        }

        enum Part: Sendable, Equatable {
            case text(String)
            case variable(String)
        }

        let path: String
        let segments: [Segment]
        let variableCount: Int

        init(_ path: String) {
            self.path = path
            var count = 0
            segments = path.split(separator: "/", omittingEmptySubsequences: true).map { segment in
                guard segment.contains("{") else { return .literal(String(segment)) }
                var parts: [Part] = []
                var rest = Substring(segment)
                while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                    if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
                    parts.append(.variable(String(rest[rest.index(after: open)..<close])))
                    count += 1
                    rest = rest[rest.index(after: close)...]
                }
                if !rest.isEmpty { parts.append(.text(String(rest))) }
                return .pattern(parts: parts)
            }
            variableCount = count
        }

        /// The variables' values (percent-decoded) when `segments` (as sent) match.
        func match(_ sent: [Substring]) -> [String: String]? {
            guard sent.count == segments.count else { return nil }
            var values: [String: String] = [:]
            for (segment, text) in zip(segments, sent) {
                switch segment {
                case .literal(let literal):
                    guard PercentDecoding.decode(text) == literal else { return nil }
                case .pattern(let parts):
                    guard Self.match(parts[...], Substring(PercentDecoding.decode(text)), into: &values) else { return nil }
                }
            }
            return values
        }

        /// Matches parts against text; a variable takes as little as lets the rest match, and at
        /// least one character.
        private static func match(_ parts: ArraySlice<Part>, _ text: Substring, into values: inout [String: String]) -> Bool {
            guard let part = parts.first else { return text.isEmpty }
            switch part {
            case .text(let literal):
                guard text.hasPrefix(literal) else { return false }
                return match(parts.dropFirst(), text.dropFirst(literal.count), into: &values)
            case .variable(let name):
                guard !text.isEmpty else { return false }
                var end = text.index(after: text.startIndex)
                while true {
                    if match(parts.dropFirst(), text[end...], into: &values) {
                        values[name] = String(text[..<end])
                        return true
                    }
                    guard end < text.endIndex else { return false }
                    end = text.index(after: end)
                }
            }
        }
    }

    /// What a request's method and path find.
    enum Lookup {
        /// The operation, with the path variables' values.
        case operation(ContractOperation, pathValues: [String: String])
        /// A path the contract has, but not with this method: the methods it has.
        case methodNotAllowed(path: String, allowed: [String], pointer: JSONPointer)
        /// No path template matches (after any of these base paths).
        case noPath(basePaths: [String])
    }

    private let routes: [(template: Template, operations: [ContractOperation])]
    /// The path templates in document order.
    let templates: [Template]
    let basePaths: [String]

    init(_ operations: [ContractOperation], servers basePaths: [String]) {
        var order: [String] = []
        var byPath: [String: [ContractOperation]] = [:]
        for operation in operations {
            if byPath[operation.path] == nil { order.append(operation.path) }
            byPath[operation.path, default: []].append(operation)
        }
        templates = order.map(Template.init)
        let routes = order.enumerated().map { (offset: $0.offset, template: Template($0.element), operations: byPath[$0.element]!) }
        self.routes = routes.sorted { ($0.template.variableCount, $0.offset) < ($1.template.variableCount, $1.offset) }
            .map { ($0.template, $0.operations) }
        self.basePaths = basePaths.sorted { $0.count > $1.count }
    }

    /// The operation with everything its checks need.
    func operation(_ operation: OpenAPIOperation) -> ContractOperation? {
        routes.lazy.flatMap(\.operations).first { $0.public == operation }
    }

    /// The operation for a method and a path as sent (percent-encoded).
    func lookup(method: String, path: String) -> Lookup {
        var candidates: [(template: Template, operations: [ContractOperation], values: [String: String])] = []
        for base in basePaths {
            guard let rest = Self.strip(base, from: path) else { continue }
            let sent = rest.split(separator: "/", omittingEmptySubsequences: true)
            for route in routes {
                if let values = route.template.match(sent) { candidates.append((route.template, route.operations, values)) }
            }
            if !candidates.isEmpty { break }
        }
        guard let first = candidates.first else { return .noPath(basePaths: basePaths) }
        for candidate in candidates {
            if let operation = candidate.operations.first(where: { $0.method == method.uppercased() }) {
                return .operation(operation, pathValues: candidate.values)
            }
        }
        return .methodNotAllowed(path: first.template.path, allowed: first.operations.map(\.method), pointer: JSONPointer(["paths", first.template.path]))
    }

    /// The path after `base`, if it starts with it as whole segments.
    private static func strip(_ base: String, from path: String) -> Substring? {
        guard !base.isEmpty else { return Substring(path) }
        guard path.hasPrefix(base) else { return nil }
        let rest = path.dropFirst(base.count)
        return rest.isEmpty || rest.hasPrefix("/") ? rest : nil
    }
}
