import AirlockBase
import AirlockCore
import Foundation

extension ResponseTemplate {
    /// What one rendering sees: the request, the time, the `parameters`, the variables that
    /// `assign` and its kin set, and the blocks open around an expression.
    struct Scope {
        let request: RecordedRequest
        let now: Date
        let escaping: Escaping
        let parameters: TemplateValue
        private var requestValue: TemplateValue?
        /// Set by `assign`, `parseJson`, `formData`, `regexExtract`.
        var variables: [String: TemplateValue] = [:]
        /// `this` of each open `each`/`with`, innermost last.
        private var contexts: [TemplateValue] = []
        /// `@index`, `@key`, `@first`, `@last` and block parameters of each open block.
        private var frames: [[String: TemplateValue]] = []
        /// Nodes rendered so far; a rendering stops at ``maximumSteps`` (nested `each` over long
        /// ranges would otherwise run for hours) with what it has.
        private var steps = 0
        /// What one rendering may do: two million nodes and iterations.
        static let maximumSteps = 2_000_000

        init(request: RecordedRequest, now: Date, escaping: Escaping, parameters: TemplateValue) {
            self.request = request
            self.now = now
            self.escaping = escaping
            self.parameters = parameters
        }

        /// The request as a value, made on first use.
        mutating func requestModel() -> TemplateValue {
            if let requestValue { return requestValue }
            let made = RequestModel.value(of: request)
            requestValue = made
            return made
        }

        mutating func render(_ nodes: [Node]) -> String {
            var output = ""
            for node in nodes {
                steps += 1
                guard steps <= Self.maximumSteps else { break }
                switch node {
                case .text(let text):
                    output += text
                case .expression(let call, let raw):
                    let value = evaluate(call).text
                    switch escaping {
                    case .none: output += value
                    case .jsonString: output += JSONValue.escapedContent(of: value)
                    case .html: output += raw ? value : ResponseTemplate.htmlEscaped(value)
                    }
                case .block(let call, let body, let inverse, let names):
                    output += block(call, body: body, inverse: inverse, names: names)
                }
            }
            return output
        }

        /// A call's value: a helper's result, or a variable's value.
        mutating func evaluate(_ call: Call) -> TemplateValue {
            if Helper.known(call.name) {
                return helper(call)
            }
            return resolve(ResponseTemplate.path(call.name))
        }

        mutating func value(_ argument: Argument) -> TemplateValue {
            switch argument {
            case .literal(let value): return value
            case .path(let segments): return resolve(segments)
            case .call(let call): return evaluate(call)
            }
        }

        /// A path's value, `null` when any part is missing.
        mutating func resolve(_ segments: [String]) -> TemplateValue {
            guard let root = segments.first else { return .null }
            var current: TemplateValue?
            var rest = segments.dropFirst()
            switch root {
            case "this", ".":
                current = contexts.last ?? .null
            case "..":
                var depth = 1
                while rest.first == ".." {
                    depth += 1
                    rest = rest.dropFirst()
                }
                current = contexts.count > depth ? contexts[contexts.count - 1 - depth] : .null
            case "request": current = requestModel()
            case "parameters": current = parameters
            default:
                if let frame = frames.last(where: { $0[root] != nil }) {
                    current = frame[root]
                } else if let variable = variables[root] {
                    current = variable
                } else {
                    current = contexts.last?.member(root)
                }
            }
            for segment in rest {
                current = current?.member(segment)
                if current == nil { break }
            }
            return current ?? .null
        }

        // MARK: Blocks

        private mutating func block(_ call: Call, body: [Node], inverse: [Node], names: [String]) -> String {
            switch call.name {
            case "if", "unless":
                let truth = call.params.first.map { value($0).isTruthy } ?? false
                return render(truth == (call.name == "if") ? body : inverse)
            case "with":
                let context = call.params.first.map { value($0) } ?? .null
                guard context.isTruthy else { return render(inverse) }
                return within(context, frame: names.first.map { [$0: context] } ?? [:], body)
            case "each":
                return each(call.params.first.map { value($0) } ?? .null, body: body, inverse: inverse, names: names)
            case "assign":
                let name = call.params.first.map { value($0).text } ?? ""
                variables[name] = .string(render(body))
                return ""
            case "trim":
                if call.params.isEmpty { return render(body).trimmingCharacters(in: .whitespacesAndNewlines) }
            case "formatJson", "formatXml":
                if call.params.isEmpty { return Self.formatted(call.name, .string(render(body)), format: call.option("format").map { value($0) }) }
            default:
                break
            }
            if Helper.known(call.name) {
                return render(helper(call).isTruthy ? body : inverse)
            }
            // A variable as a section: a list is iterated, anything else true is its context.
            let section = resolve(ResponseTemplate.path(call.name))
            if case .list = section { return each(section, body: body, inverse: inverse, names: names) }
            return section.isTruthy ? within(section, frame: [:], body) : render(inverse)
        }

        private mutating func within(_ context: TemplateValue, frame: [String: TemplateValue], _ body: [Node]) -> String {
            contexts.append(context)
            frames.append(frame)
            defer {
                contexts.removeLast()
                frames.removeLast()
            }
            return render(body)
        }

        private mutating func each(_ collection: TemplateValue, body: [Node], inverse: [Node], names: [String]) -> String {
            var keys: [String?]
            let items: [TemplateValue]
            if case .object(let members, _, _) = collection {
                keys = members.map(\.key)
                items = members.map(\.value)
            } else {
                items = collection.elements
                keys = Array(repeating: nil, count: items.count)
            }
            guard !items.isEmpty else { return render(inverse) }
            var output = ""
            for (index, item) in items.enumerated() {
                steps += 1
                guard steps <= Self.maximumSteps else { break }
                var frame: [String: TemplateValue] = [
                    "@index": .integer(index), "@first": .bool(index == 0), "@last": .bool(index == items.count - 1),
                ]
                if let key = keys[index] { frame["@key"] = .string(key) }
                if let name = names.first { frame[name] = item }
                if names.count > 1 { frame[names[1]] = keys[index].map(TemplateValue.string) ?? .integer(index) }
                output += within(item, frame: frame, body)
            }
            keys.removeAll()
            return output
        }
    }
}
