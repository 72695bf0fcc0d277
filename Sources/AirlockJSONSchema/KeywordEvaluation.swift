import AirlockBase
import Foundation

/// The keywords of one schema object applied to one value, gathering a ``SchemaOutcome``.
///
/// Applicators (`$ref`, `allOf`, `properties`, `items`, …) are here; assertions on the value
/// itself are in `KeywordEvaluation+Assertions.swift`, references and OpenAPI's additions in
/// `KeywordEvaluation+References.swift`.
struct KeywordEvaluation {
    let evaluation: SchemaEvaluation
    let members: JSONMembers
    let instance: JSONValue
    let path: JSONPointer
    let frame: SchemaEvaluation.Frame
    var outcome = SchemaOutcome()

    var dialect: SchemaDialect { frame.scope.dialect }

    /// Applies every keyword, `unevaluatedItems` and `unevaluatedProperties` last since they
    /// depend on what the others evaluated.
    mutating func applyAll() {
        // Before `$ref`: `{"$ref": …, "nullable": true}`, common in 3.0 documents though 3.0
        // ignores a `$ref`'s siblings, allows null too.
        if dialect == .openAPI30, instance == .null, members["nullable"] == .bool(true) { return }
        applyReference()
        // Draft 4 and OpenAPI 3.0: a `$ref` stands for the whole schema; its siblings are ignored.
        if dialect.isDraft4, members["$ref"] != nil { return }
        applyDynamicReference()
        applyAllOf()
        applyChoice("anyOf")
        applyChoice("oneOf")
        applyNot()
        applyConditional()
        applyDependencies()
        applyProperties()
        applyItems()
        applyContains()
        applyAssertions()
        applyUnevaluatedItems()
        applyUnevaluatedProperties()
    }

    // MARK: - Helpers

    /// Applies the subschema at `tokens` below this schema to `value`, found at `valuePath`.
    func subschema(_ tokens: [String], _ schema: JSONValue, _ value: JSONValue, at valuePath: JSONPointer) -> SchemaOutcome {
        var location = frame.location
        tokens.forEach { location = location.appending($0) }
        let next = SchemaEvaluation.Frame(location: location, scope: frame.scope, dynamicScope: frame.dynamicScope,
                                          refChain: valuePath == path ? frame.refChain : [], depth: frame.depth + 1)
        return evaluation.evaluate(schema, value, at: valuePath, frame: next)
    }

    /// Records a violation of `keyword` by the value (or by `value` at `valuePath`).
    mutating func fail(_ keyword: String, _ message: String, value: JSONValue? = nil, at valuePath: JSONPointer? = nil,
                       schemaPath: JSONPointer? = nil)
    {
        outcome.violations.append(SchemaViolation(
            instancePath: valuePath ?? path, schemaPath: schemaPath ?? frame.location.pointer.appending(keyword),
            keyword: keyword, value: value ?? instance, message: message))
    }

    /// Records that the schema's `keyword` is malformed, so the value cannot be checked against it.
    mutating func failSchema(_ keyword: String, _ problem: String) {
        fail("schema", "cannot be checked: the schema's \(JSONValue.quoted(keyword)) \(problem)",
             schemaPath: frame.location.pointer.appending(keyword))
    }

    // MARK: - In-place applicators

    mutating func applyAllOf() {
        guard let schemas = schemaList("allOf") else { return }
        for (position, schema) in schemas.enumerated() {
            outcome.absorb(subschema(["allOf", String(position)], schema, instance, at: path))
        }
    }

    /// `anyOf` or `oneOf`: one violation when no branch (or, for `oneOf`, more than one) passes,
    /// unless a discriminator picks the branch.
    mutating func applyChoice(_ keyword: String) {
        guard let schemas = schemaList(keyword) else { return }
        if let picked = discriminatedBranch() {
            outcome.absorb(picked)
            return
        }
        var passing: [Int] = []
        var annotations = SchemaOutcome()
        for (position, schema) in schemas.enumerated() {
            let branch = subschema([keyword, String(position)], schema, instance, at: path)
            if branch.isValid {
                passing.append(position)
                annotations.absorbAnnotations(branch)
            }
        }
        if passing.isEmpty {
            fail(keyword, "matches none of the \(counted(schemas.count, "schema")) in \(keyword)")
        } else if keyword == "oneOf", passing.count > 1 {
            fail(keyword, "matches \(passing.count) of the schemas in oneOf (\(listed(passing.map(String.init), conjunction: "and"))), but must match exactly one")
        } else {
            outcome.absorbAnnotations(annotations)
        }
    }

    mutating func applyNot() {
        guard let schema = members["not"] else { return }
        if subschema(["not"], schema, instance, at: path).isValid {
            fail("not", "matches the schema in \"not\", which it must not")
        }
    }

    mutating func applyConditional() {
        guard !dialect.isDraft4, let condition = members["if"] else { return }
        let test = subschema(["if"], condition, instance, at: path)
        outcome.absorbAnnotations(test)
        let branch = test.isValid ? "then" : "else"
        if let schema = members[branch] {
            outcome.absorb(subschema([branch], schema, instance, at: path))
        }
    }

    /// `dependentSchemas` and `dependentRequired` (2020-12), `dependencies` (draft 4, and read in
    /// 2020-12 too, which split it in two, for schemas written before).
    mutating func applyDependencies() {
        guard case .object(let object) = instance else { return }
        let keywords = dialect.isDraft4 ? ["dependencies"] : ["dependentSchemas", "dependentRequired", "dependencies"]
        for keyword in keywords {
            guard case .object(let dependencies)? = members[keyword] else { continue }
            for (name, dependency) in dependencies where object[name] != nil {
                if case .array(let required) = dependency {
                    for case .string(let other) in required where object[other] == nil {
                        fail(keyword, "has property \(JSONValue.quoted(name)), so it must also have \(JSONValue.quoted(other))")
                    }
                } else if keyword != "dependentRequired" {
                    outcome.absorb(subschema([keyword, name], dependency, instance, at: path))
                }
            }
        }
    }

    // MARK: - Objects

    mutating func applyProperties() {
        guard case .object(let object) = instance else { return }
        var declared = Set<String>()
        if case .object(let properties)? = members["properties"] {
            for (name, schema) in properties {
                declared.insert(name)
                guard let value = object[name] else { continue }
                outcome.evaluatedProperties.insert(name)
                if let flag = hidingFlag(schema, at: frame.location.appending("properties").appending(name)) {
                    refuseHidden(flag, value: value, at: path.appending(name))
                    continue
                }
                outcome.violations += subschema(["properties", name], schema, value, at: path.appending(name)).violations
            }
        }
        var matchedByPattern = Set<String>()
        if case .object(let patterns)? = members["patternProperties"] {
            for (pattern, schema) in patterns {
                switch evaluation.regex(pattern) {
                case .failure(let error):
                    failSchema("patternProperties", "key \(JSONValue.quoted(pattern)) is not a valid regular expression: \(error.reason)")
                case .success(let regex):
                    for (name, value) in object where regex.matches(name) {
                        matchedByPattern.insert(name)
                        outcome.violations += subschema(["patternProperties", pattern], schema, value, at: path.appending(name)).violations
                    }
                }
            }
            outcome.evaluatedProperties.formUnion(matchedByPattern)
        }
        if let schema = members["additionalProperties"] {
            let extra = Array(object.keys).filter { !declared.contains($0) && !matchedByPattern.contains($0) }
            applyToRemaining(extra, of: object, "additionalProperties", schema)
        }
        if !dialect.isDraft4, let schema = members["propertyNames"] {
            for name in object.keys {
                let result = subschema(["propertyNames"], schema, .string(name), at: path)
                if let first = result.violations.first {
                    fail("propertyNames", "has property name \(JSONValue.quoted(name)), which breaks propertyNames: it \(first.message)")
                }
            }
        }
    }

    mutating func applyUnevaluatedProperties() {
        guard !dialect.isDraft4, let schema = members["unevaluatedProperties"], case .object(let object) = instance else { return }
        let remaining = Array(object.keys).filter { !outcome.evaluatedProperties.contains($0) }
        applyToRemaining(remaining, of: object, "unevaluatedProperties", schema)
    }

    /// `additionalProperties` or `unevaluatedProperties`: `false` refuses each name at the object.
    private mutating func applyToRemaining(_ names: [String], of object: JSONMembers, _ keyword: String, _ schema: JSONValue) {
        for name in names {
            outcome.evaluatedProperties.insert(name)
            if schema == .bool(false) {
                fail(keyword, "has property \(JSONValue.quoted(name)), which the schema does not allow")
            } else {
                outcome.violations += subschema([keyword], schema, object[name]!, at: path.appending(name)).violations
            }
        }
    }

    // MARK: - Arrays

    mutating func applyItems() {
        guard case .array(let elements) = instance else { return }
        // Draft 4: `items` is one schema for all, or a list followed by `additionalItems`.
        // 2020-12: `prefixItems` is the list, `items` the schema for the rest.
        let listKeyword = dialect.isDraft4 ? "items" : "prefixItems"
        var restKeyword = "items"
        var first = 0
        if case .array(let schemas)? = members[listKeyword] {
            for (position, schema) in schemas.enumerated().prefix(elements.count) {
                outcome.evaluatedItems.insert(position)
                outcome.violations += subschema([listKeyword, String(position)], schema, elements[position], at: path.appending(position)).violations
            }
            first = schemas.count
            if dialect.isDraft4 { restKeyword = "additionalItems" }
        }
        guard let schema = members[restKeyword], elements.count > first else { return }
        applyToRemaining(Array(first..<elements.count), of: elements, restKeyword, schema)
    }

    mutating func applyUnevaluatedItems() {
        guard !dialect.isDraft4, let schema = members["unevaluatedItems"], case .array(let elements) = instance else { return }
        let remaining = elements.indices.filter { !outcome.evaluatedItems.contains($0) }
        applyToRemaining(remaining, of: elements, "unevaluatedItems", schema)
    }

    /// `items`, `additionalItems` or `unevaluatedItems` over the given positions: `false` refuses
    /// them at the array.
    private mutating func applyToRemaining(_ positions: [Int], of elements: [JSONValue], _ keyword: String, _ schema: JSONValue) {
        guard !positions.isEmpty else { return }
        outcome.evaluatedItems.formUnion(positions)
        if schema == .bool(false) {
            fail(keyword, "has \(counted(elements.count, "item")), and the schema does not allow the one at \(positions[0])\(positions.count > 1 ? " or those after it" : "")")
            return
        }
        for position in positions {
            outcome.violations += subschema([keyword], schema, elements[position], at: path.appending(position)).violations
        }
    }

    mutating func applyContains() {
        guard !dialect.isDraft4, let schema = members["contains"], case .array(let elements) = instance else { return }
        let matching = elements.indices.filter { subschema(["contains"], schema, elements[$0], at: path.appending($0)).isValid }
        outcome.evaluatedItems.formUnion(matching)
        let minimum = count("minContains") ?? 1
        if matching.count < minimum {
            let keyword = members["minContains"] == nil ? "contains" : "minContains"
            fail(keyword, matching.isEmpty && minimum == 1
                ? "has no item that matches the schema in contains"
                : "has \(counted(matching.count, "item")) that match the schema in contains, fewer than minContains \(minimum)")
        }
        if let maximum = count("maxContains"), matching.count > maximum {
            fail("maxContains", "has \(counted(matching.count, "item")) that match the schema in contains, more than maxContains \(maximum)")
        }
    }

    // MARK: - Keyword values

    /// The keyword's list of schemas, or `nil` (and a schema violation when it is not a list).
    mutating func schemaList(_ keyword: String) -> [JSONValue]? {
        guard let value = members[keyword] else { return nil }
        guard case .array(let schemas) = value else {
            failSchema(keyword, "is \(describe(value)), which is not a list of schemas")
            return nil
        }
        return schemas
    }

    /// The keyword's count (a non-negative integer), or `nil` (and a schema violation when it is not one).
    mutating func count(_ keyword: String) -> Int? {
        guard let value = members[keyword] else { return nil }
        guard case .number(let number) = value, number >= 0, number == number.rounded(), number < 1e15 else {
            failSchema(keyword, "is \(describe(value)), which is not a count")
            return nil
        }
        return Int(number)
    }

    /// The keyword's number, or `nil` (and a schema violation when it is not a number).
    mutating func number(_ keyword: String) -> Double? {
        guard let value = members[keyword] else { return nil }
        guard case .number(let number) = value else {
            failSchema(keyword, "is \(describe(value)), which is not a number")
            return nil
        }
        return number
    }
}
