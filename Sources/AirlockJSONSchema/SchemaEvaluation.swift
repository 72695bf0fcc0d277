import AirlockBase
import Foundation

/// What applying a schema to a value found: the violations, and which of the value's
/// properties and items the schema's keywords evaluated (for `unevaluatedProperties` and
/// `unevaluatedItems`).
struct SchemaOutcome {
    var violations: [SchemaViolation] = []
    var evaluatedProperties: Set<String> = []
    var evaluatedItems: Set<Int> = []

    var isValid: Bool { violations.isEmpty }

    /// Takes in a schema applied to the same value: its violations, and its evaluated
    /// properties and items when it passed (a failing schema annotates nothing).
    mutating func absorb(_ other: SchemaOutcome) {
        violations += other.violations
        absorbAnnotations(other)
    }

    /// One violation.
    static func violation(_ keyword: String, _ value: JSONValue, at path: JSONPointer, schemaPath: JSONPointer, _ message: String) -> SchemaOutcome {
        SchemaOutcome(violations: [SchemaViolation(instancePath: path, schemaPath: schemaPath, keyword: keyword, value: value, message: message)])
    }

    mutating func absorbAnnotations(_ other: SchemaOutcome) {
        guard other.isValid else { return }
        evaluatedProperties.formUnion(other.evaluatedProperties)
        evaluatedItems.formUnion(other.evaluatedItems)
    }
}

/// One call of ``SchemaValidator/validate(_:against:direction:)``: applies schemas to values.
struct SchemaEvaluation {
    /// Where a schema is applied from.
    struct Frame {
        /// The schema's place in its document.
        var location: SchemaLocation
        /// Its base URI and dialect.
        var scope: SchemaScope
        /// The base URIs of the schema resources entered so far, outermost first (`$dynamicRef`).
        var dynamicScope: [String]
        /// The schemas reached through a reference (and the first one) since the instance location
        /// last changed: following one of them again would loop for ever.
        var refChain: [SchemaLocation]
        /// How many schemas apply one inside another.
        var depth: Int
    }

    let validator: SchemaValidator
    let direction: SchemaDirection
    /// The text of long integers by their place in the instance (see `SchemaValidator.validate`).
    var integerLiterals: [JSONPointer: String] = [:]

    var index: SchemaIndex { validator.index }

    /// Applies `schema`, found at `frame.location`, to `instance`, found at `path`.
    func evaluate(_ schema: JSONValue, _ instance: JSONValue, at path: JSONPointer, frame: Frame) -> SchemaOutcome {
        guard path.tokens.count <= SchemaValidator.maximumDepth else {
            return .violation("schema", instance, at: path, schemaPath: frame.location.pointer,
                              "cannot be checked: it nests deeper than \(SchemaValidator.maximumDepth) levels")
        }
        // Four schemas a level of the value (a `$ref`, an `allOf`, …) before giving up.
        guard frame.depth < 4 * SchemaValidator.maximumDepth else {
            return .violation("schema", instance, at: path, schemaPath: frame.location.pointer,
                              "cannot be checked: the schema applies more than \(4 * SchemaValidator.maximumDepth) schemas one inside another here")
        }
        if frame.depth > 0, frame.depth.isMultiple(of: Self.levelsPerStack) {
            return Self.onFreshStack { evaluateHere(schema, instance, at: path, frame: frame) }
        }
        return evaluateHere(schema, instance, at: path, frame: frame)
    }

    private func evaluateHere(_ schema: JSONValue, _ instance: JSONValue, at path: JSONPointer, frame: Frame) -> SchemaOutcome {
        switch schema {
        case .bool(true):
            return SchemaOutcome()
        case .bool(false):
            return .violation("false", instance, at: path, schemaPath: frame.location.pointer, "is not allowed: the schema is false")
        case .object(let members):
            var frame = frame
            if let scope = index.scope(at: frame.location) { frame.scope = scope }
            if frame.dynamicScope.last != frame.scope.base { frame.dynamicScope.append(frame.scope.base) }
            var keywords = KeywordEvaluation(evaluation: self, members: members, instance: instance, path: path, frame: frame)
            keywords.applyAll()
            return keywords.outcome
        default:
            return .violation("schema", instance, at: path, schemaPath: frame.location.pointer,
                              "cannot be checked: the contract's schema at \(frame.location.pointer.fragment) is \(describe(schema)), which is not a schema (an object or a boolean)")
        }
    }

    /// How many schemas apply one inside another on one thread's stack: about 110 KB in a debug
    /// build, and under 400 KB with ThreadSanitizer's larger frames, so that a caller on a thread
    /// with a small stack (512 KB, as on Apple platforms' secondary threads) has room left. Values
    /// nest less deeply than this in nearly every API; deeper ones cost a thread per 24 levels.
    static let levelsPerStack = 24

    /// Runs `body` on a thread of its own with a 4 MB stack, and waits for it: deep values and
    /// long `$ref` chains go on there, never deeper than ``levelsPerStack`` levels a thread, so the
    /// recursion cannot exhaust any stack whatever thread validation is called on.
    private static func onFreshStack(_ body: @escaping @Sendable () -> SchemaOutcome) -> SchemaOutcome {
        onThread(stackSize: 4 << 20, body)
    }

    /// Runs `body` on a new thread with a stack of `stackSize` bytes, and waits for its result.
    static func onThread<Result: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> Result) -> Result {
        let result = Locked<Result?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = body()
            result.withLock { $0 = value }
            finished.signal()
        }
        thread.stackSize = stackSize
        thread.start()
        finished.wait()
        return result.withLock { $0! }
    }

    /// Applies the schema that `uri`, the absolute form of the schema's `keyword` (`$ref`,
    /// `$dynamicRef`, `discriminator`), names to `instance`.
    func jump(to uri: String, _ instance: JSONValue, at path: JSONPointer, from frame: Frame, keyword: String) -> SchemaOutcome {
        let broken = { (problem: String) in
            SchemaOutcome.violation("$ref", instance, at: path, schemaPath: frame.location.pointer.appending(keyword),
                                    "cannot be checked: the schema's \(keyword) \(JSONValue.quoted(uri)) \(problem)")
        }
        guard let location = index.location(of: uri), let schema = index.value(at: location) else {
            return broken("names nothing in the contract")
        }
        // A schema already being applied to this value is not applied again inside itself: that
        // application reports what this one would, and a loop of `$ref`s (`Pet` → `oneOf` →
        // `Cat` → `allOf` → `Pet`, as OpenAPI documents mixing a discriminator with inheritance
        // have) would never end.
        guard !frame.refChain.contains(location) else { return SchemaOutcome() }
        let scope = index.scope(at: location) ?? SchemaScope(base: URIReference.withoutFragment(uri), dialect: frame.scope.dialect)
        let next = Frame(location: location, scope: scope, dynamicScope: frame.dynamicScope, refChain: frame.refChain + [location], depth: frame.depth + 1)
        return evaluate(schema, instance, at: path, frame: next)
    }

    /// The compiled `pattern`.
    func regex(_ pattern: String) -> Result<ECMARegex, ECMARegex.CompileError> {
        index.patterns[pattern] ?? Result { () throws(ECMARegex.CompileError) in try ECMARegex(pattern) }
    }
}

/// A value in a message: compact JSON, cut short after 60 characters.
func describe(_ value: JSONValue) -> String {
    guard let data = try? value.compactData(), let text = String(data: data, encoding: .utf8) else { return "\(value)" }
    return text.unicodeScalars.count <= 60 ? text : String(String.UnicodeScalarView(text.unicodeScalars.prefix(59))) + "…"
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func listed(_ items: [String], conjunction: String = "or") -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
}

/// `1 item`, `2 items`.
func counted(_ count: Int, _ noun: String) -> String {
    count == 1 ? "1 \(noun)" : "\(count) \(noun == "property" ? "properties" : noun + "s")"
}
