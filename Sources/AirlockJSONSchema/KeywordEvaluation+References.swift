import AirlockBase
import Foundation

/// `$ref`, `$dynamicRef`, and OpenAPI's `discriminator`, `readOnly` and `writeOnly`.
extension KeywordEvaluation {
    mutating func applyReference() {
        guard let reference = members["$ref"] else { return }
        guard case .string(let text) = reference else {
            failSchema("$ref", "is \(describe(reference)), which is not a reference in a string")
            return
        }
        follow(URIReference.resolve(text, against: frame.scope.base), keyword: "$ref")
    }

    /// `$dynamicRef`: when it names a `$dynamicAnchor`, the outermost schema resource in the
    /// dynamic scope with a `$dynamicAnchor` of that name is used instead; otherwise it is a `$ref`.
    mutating func applyDynamicReference() {
        guard !dialect.isDraft4, let reference = members["$dynamicRef"] else { return }
        guard case .string(let text) = reference else {
            failSchema("$dynamicRef", "is \(describe(reference)), which is not a reference in a string")
            return
        }
        var target = URIReference.resolve(text, against: frame.scope.base)
        if evaluation.index.isDynamicAnchor(target), let name = URIReference.fragment(of: target),
           let outermost = frame.dynamicScope.first(where: { evaluation.index.isDynamicAnchor($0 + "#" + name) })
        {
            target = outermost + "#" + name
        }
        follow(target, keyword: "$dynamicRef")
    }

    private mutating func follow(_ uri: String, keyword: String) {
        outcome.absorb(evaluation.jump(to: uri, instance, at: path, from: frame, keyword: keyword))
    }

    // MARK: - Discriminator

    /// What the branch the `discriminator` picks makes of the value, or `nil` when it picks none
    /// (no discriminator, the value is not an object or lacks the property). A value of the
    /// property that names no schema is a `discriminator` violation.
    ///
    /// The value is looked up in `mapping` (a schema name or a `$ref`), else taken as the name of
    /// a schema under `#/components/schemas/`.
    mutating func discriminatedBranch() -> SchemaOutcome? {
        guard dialect.isOpenAPI, case .object(let discriminator)? = members["discriminator"],
              case .string(let property)? = discriminator["propertyName"],
              case .object(let object) = instance, case .string(let name)? = object[property]
        else { return nil }
        var mapping = JSONMembers()
        if case .object(let declared)? = discriminator["mapping"] { mapping = declared }
        var target = "#/components/schemas/" + name
        if case .string(let mapped)? = mapping[name] {
            target = mapped.contains("#") || mapped.contains("/") ? mapped : "#/components/schemas/" + mapped
        }
        let uri = URIReference.resolve(target, against: frame.scope.base)
        guard let location = evaluation.index.location(of: uri), evaluation.index.value(at: location) != nil else {
            // The mapping's values, then the branches no value of the mapping leads to.
            let mapped = Set(mapping.values.compactMap { value -> String? in
                guard case .string(let target) = value else { return nil }
                return target.split(separator: "/").last.map(String.init)
            })
            let known = Array(mapping.keys) + branchNames().filter { !mapped.contains($0) }
            fail("discriminator", "has \(JSONValue.quoted(property)): \(JSONValue.quoted(name)), which names none of the schemas the discriminator knows (\(listed(known.map(JSONValue.quoted))))")
            return SchemaOutcome(violations: [])
        }
        return evaluation.jump(to: uri, instance, at: path, from: frame, keyword: "discriminator")
    }

    /// The schema names the `oneOf`/`anyOf` branches refer to: `Cat` for `#/components/schemas/Cat`.
    private func branchNames() -> [String] {
        ["oneOf", "anyOf"].flatMap { keyword -> [String] in
            guard case .array(let branches)? = members[keyword] else { return [] }
            return branches.compactMap { branch in
                guard case .object(let branch) = branch, case .string(let reference)? = branch["$ref"] else { return nil }
                return reference.split(separator: "/").last.map(String.init)
            }
        }
    }

    // MARK: - readOnly and writeOnly

    /// Where `schema` (at `location`, or the schema its `$ref`s lead to) says the property must
    /// not travel in this direction: its `readOnly: true` in a request, `writeOnly: true` in a
    /// response; `nil` when it may.
    func hidingFlag(_ schema: JSONValue, at location: SchemaLocation) -> SchemaLocation? {
        let flag: String
        switch evaluation.direction {
        case .request: flag = "readOnly"
        case .response: flag = "writeOnly"
        case .neither: return nil
        }
        var schema = schema
        var location = location
        for _ in 0..<32 {
            guard case .object(let members) = schema else { return nil }
            if members[flag] == .bool(true) { return location.appending(flag) }
            guard case .string(let reference)? = members["$ref"] else { return nil }
            let base = evaluation.index.scope(at: location)?.base ?? frame.scope.base
            guard let target = evaluation.index.location(of: URIReference.resolve(reference, against: base)),
                  let value = evaluation.index.value(at: target)
            else { return nil }
            schema = value
            location = target
        }
        return nil
    }

    /// Records that the property at `valuePath` must not travel in this direction.
    mutating func refuseHidden(_ flag: SchemaLocation, value: JSONValue, at valuePath: JSONPointer) {
        let keyword = flag.pointer.tokens.last ?? "readOnly"
        let message = keyword == "readOnly" ? "is read-only, so a request must not send it" : "is write-only, so a response must not return it"
        fail(keyword, message, value: value, at: valuePath, schemaPath: flag.pointer)
    }
}
