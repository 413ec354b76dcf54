import Foundation
import TimelineEngineValueTree

/// What evaluating one schema against one instance produced: issues, and the annotations that
/// `unevaluatedProperties` and `unevaluatedItems` need.
struct Outcome {
    var issues: [ValidationIssue] = []
    /// By Unicode scalars, as JSON Schema compares property names.
    var evaluatedProperties: Set<Value.Key> = []
    var evaluatedItemPrefix = 0
    var evaluatedItems: Set<Int> = []

    var isValid: Bool { !issues.contains { $0.severity == .error } }

    /// Keeps `other`'s issues and, when it is valid, its annotations.
    mutating func absorb(_ other: Outcome) {
        issues += other.issues
        if other.isValid { absorbAnnotations(other) }
    }

    mutating func absorbAnnotations(_ other: Outcome) {
        evaluatedProperties.formUnion(other.evaluatedProperties)
        evaluatedItemPrefix = max(evaluatedItemPrefix, other.evaluatedItemPrefix)
        evaluatedItems.formUnion(other.evaluatedItems)
    }
}

/// Where an issue is being reported: the schema location and the instance being checked.
struct Site {
    let schemaPath: String
    let path: ValuePath
    let location: SourceLocation?

    func issue(
        _ keyword: String, _ message: String, severity: ValidationIssue.Severity = .error,
        at location: SourceLocation? = nil, path issuePath: ValuePath? = nil
    ) -> ValidationIssue {
        ValidationIssue(
            severity: severity, instancePath: issuePath ?? path, schemaPath: schemaPath + "/" + keyword,
            keyword: keyword, message: message, location: location ?? self.location)
    }
}

/// Applies schema keywords to instances. Stateless apart from the schema it was given.
struct Evaluator {
    let root: Value
    let patterns: [String: CompiledPattern]
    /// `$ref` chains deeper than this are taken to be cycles that never consume the instance.
    static let maximumDepth = 512

    func evaluate(
        schema: Value, schemaPath: String, instance: Value, path: ValuePath, depth: Int,
        keyLocation: SourceLocation? = nil
    ) -> Outcome {
        var outcome = Outcome()
        let site = Site(schemaPath: schemaPath, path: path, location: instance.location ?? keyLocation)
        func issue(
            _ keyword: String, _ message: String, severity: ValidationIssue.Severity = .error,
            at location: SourceLocation? = nil, path issuePath: ValuePath? = nil
        ) {
            outcome.issues.append(site.issue(keyword, message, severity: severity, at: location, path: issuePath))
        }

        if let flag = schema.boolValue {
            if !flag {
                outcome.issues.append(
                    ValidationIssue(
                        instancePath: path, schemaPath: schemaPath, keyword: "false",
                        message: "no value is allowed here", location: instance.location ?? keyLocation))
            }
            return outcome
        }
        guard let keywords = schema.dictionaryValue else { return outcome }
        if depth > Evaluator.maximumDepth {
            issue(
                "$ref",
                "the evaluation nests more than \(Evaluator.maximumDepth) levels deep: a reference cycle, or a value nested too deep for this schema")
            return outcome
        }

        func sub(
            _ subschema: Value, _ subPath: String, _ value: Value, _ valuePath: ValuePath,
            keyLocation: SourceLocation? = nil
        ) -> Outcome {
            evaluate(
                schema: subschema, schemaPath: subPath, instance: value, path: valuePath, depth: depth + 1,
                keyLocation: keyLocation)
        }

        // $ref
        if let reference = keywords["$ref"]?.value.stringValue,
            let target = SchemaCompiler.resolve(reference: reference, in: root)
        {
            let targetPath = String(reference.dropFirst())
            outcome.absorb(sub(target, targetPath, instance, path, keyLocation: keyLocation))
        }

        // type
        if let typeValue = keywords["type"]?.value {
            let names = (typeValue.arrayValue ?? [typeValue]).compactMap(\.stringValue)
            if !names.contains(where: { Evaluator.matches(type: $0, instance) }) {
                let expected = names.map(Evaluator.displayName(type:))
                issue("type", "expected \(Evaluator.list(expected, conjunction: "or")), found \(Evaluator.found(instance))")
            }
        }

        // enum and const
        if let options = keywords["enum"]?.value.arrayValue,
            !options.contains(where: { JSONEquality.equal($0, instance) })
        {
            var message =
                "\(Evaluator.literal(instance)) is not one of the allowed values: "
                + options.map(Evaluator.literal).joined(separator: ", ")
            if let text = instance.stringValue,
                let suggestion = Suggestions.closest(to: text, among: options.compactMap(\.stringValue))
            {
                message += "; did you mean \(Value.quote(suggestion))?"
            }
            issue("enum", message)
        }
        if let constant = keywords["const"]?.value, !JSONEquality.equal(constant, instance) {
            issue("const", "must be \(Evaluator.literal(constant)), found \(Evaluator.found(instance))")
        }

        // numbers
        if instance.numberValue != nil {
            checkNumber(keywords, instance, site: site, outcome: &outcome)
        }

        // strings
        if let text = instance.stringValue {
            let length = text.unicodeScalars.count
            if let minimum = keywords["minLength"].flatMap({ SchemaCompiler.nonNegativeInteger($0.value) }), length < minimum {
                issue("minLength", "string is \(length) character\(length == 1 ? "" : "s") long, shorter than the minimum \(minimum)")
            }
            if let maximum = keywords["maxLength"].flatMap({ SchemaCompiler.nonNegativeInteger($0.value) }), length > maximum {
                issue("maxLength", "string is \(length) characters long, longer than the maximum \(maximum)")
            }
            if let pattern = keywords["pattern"]?.value.stringValue, let compiled = patterns[pattern], !compiled.matches(text) {
                issue("pattern", "\(Value.quote(text)) does not match the pattern \(Value.quote(pattern))")
            }
        }

        // objects
        if let members = instance.dictionaryValue {
            checkObject(keywords, site: site, members: members, depth: depth, outcome: &outcome)
        }

        // arrays
        if let elements = instance.arrayValue {
            checkArray(keywords, site: site, elements: elements, depth: depth, outcome: &outcome)
        }

        // applicators
        if let schemas = keywords["allOf"]?.value.arrayValue {
            for (index, subschema) in schemas.enumerated() {
                outcome.absorb(sub(subschema, schemaPath + "/allOf/\(index)", instance, path, keyLocation: keyLocation))
            }
        }
        if let schemas = keywords["anyOf"]?.value.arrayValue {
            let results = schemas.enumerated().map { sub($1, schemaPath + "/anyOf/\($0)", instance, path, keyLocation: keyLocation) }
            let passing = results.filter(\.isValid)
            if passing.isEmpty {
                issue("anyOf", "matches none of the allowed forms: " + Evaluator.summarize(results))
            } else {
                for result in passing {
                    outcome.absorbAnnotations(result)
                    outcome.issues += result.issues  // warnings of matching branches
                }
            }
        }
        if let schemas = keywords["oneOf"]?.value.arrayValue {
            let results = schemas.enumerated().map { sub($1, schemaPath + "/oneOf/\($0)", instance, path, keyLocation: keyLocation) }
            let passing = results.indices.filter { results[$0].isValid }
            if passing.isEmpty {
                issue("oneOf", "matches none of the allowed forms: " + Evaluator.summarize(results))
            } else if passing.count > 1 {
                issue("oneOf", "matches more than one of the exclusive forms (oneOf \(passing.map(String.init).joined(separator: " and ")))")
            } else {
                outcome.absorbAnnotations(results[passing[0]])
                outcome.issues += results[passing[0]].issues
            }
        }
        if let negated = keywords["not"]?.value {
            if sub(negated, schemaPath + "/not", instance, path, keyLocation: keyLocation).isValid {
                // A `not` that says why (its description) is clearer than the generic message.
                issue("not", negated["description"]?.stringValue ?? "\(Evaluator.found(instance)) matches a schema it must not match")
            }
        }
        if let condition = keywords["if"]?.value {
            let test = sub(condition, schemaPath + "/if", instance, path, keyLocation: keyLocation)
            if test.isValid {
                outcome.absorbAnnotations(test)
                if let then = keywords["then"]?.value {
                    outcome.absorb(sub(then, schemaPath + "/then", instance, path, keyLocation: keyLocation))
                }
            } else if let otherwise = keywords["else"]?.value {
                outcome.absorb(sub(otherwise, schemaPath + "/else", instance, path, keyLocation: keyLocation))
            }
        }
        if let members = instance.dictionaryValue, let dependent = keywords["dependentSchemas"]?.value.dictionaryValue {
            for (name, subschema) in dependent where members[name] != nil {
                outcome.absorb(
                    sub(
                        subschema.value, schemaPath + "/dependentSchemas/" + SchemaCompiler.escape(name.string),
                        instance, path, keyLocation: keyLocation))
            }
        }

        // unevaluated* run last: they see what every other keyword evaluated.
        if let members = instance.dictionaryValue, let unevaluated = keywords["unevaluatedProperties"]?.value {
            for (name, member) in members where !outcome.evaluatedProperties.contains(name) {
                let result = sub(
                    unevaluated, schemaPath + "/unevaluatedProperties", member.value, path.appending(key: name),
                    keyLocation: member.keyLocation)
                if !result.isValid, unevaluated.boolValue == false {
                    issue(
                        "unevaluatedProperties", "key \(Value.quote(name)) is not allowed here",
                        at: member.keyLocation ?? member.value.location, path: path.appending(key: name))
                } else {
                    outcome.issues += result.issues
                }
                outcome.evaluatedProperties.insert(name)
            }
        }
        if let elements = instance.arrayValue, let unevaluated = keywords["unevaluatedItems"]?.value {
            for (index, element) in elements.enumerated()
            where index >= outcome.evaluatedItemPrefix && !outcome.evaluatedItems.contains(index) {
                outcome.issues += sub(unevaluated, schemaPath + "/unevaluatedItems", element, path.appending(index: index)).issues
            }
            outcome.evaluatedItemPrefix = elements.count
        }

        // deprecated is an annotation; a value that is present under it earns a warning.
        if keywords["deprecated"]?.value.boolValue == true {
            var message = "\(path.lastKey.map { "key \(Value.quote($0))" } ?? "this value") is deprecated"
            if let description = keywords["description"]?.value.stringValue { message += ": \(description)" }
            // A deprecated value (a `const` beside it) is described by its own note.
            if keywords["const"] != nil || keywords["enum"] != nil, let description = keywords["description"]?.value.stringValue {
                message = description
            }
            issue("deprecated", message, severity: .warning, at: keyLocation ?? instance.location)
        }
        return outcome
    }

    // MARK: - Keyword groups

    private func checkNumber(_ keywords: Value.Dictionary, _ instance: Value, site: Site, outcome: inout Outcome) {
        func issue(
            _ keyword: String, _ message: String, _ severity: ValidationIssue.Severity, _ location: SourceLocation?,
            _ path: ValuePath?
        ) {
            outcome.issues.append(site.issue(keyword, message, severity: severity, at: location, path: path))
        }
        let minimum = keywords["minimum"]?.value
        let maximum = keywords["maximum"]?.value
        let exclusiveMinimum = keywords["exclusiveMinimum"]?.value
        let exclusiveMaximum = keywords["exclusiveMaximum"]?.value
        func bounds() -> String {
            var parts: [String] = []
            if let minimum { parts.append("≥ \(Evaluator.literal(minimum))") }
            if let exclusiveMinimum { parts.append("> \(Evaluator.literal(exclusiveMinimum))") }
            if let maximum { parts.append("≤ \(Evaluator.literal(maximum))") }
            if let exclusiveMaximum { parts.append("< \(Evaluator.literal(exclusiveMaximum))") }
            return parts.joined(separator: " and ")
        }
        let shown = Evaluator.literal(instance)
        if let minimum, NumberComparison.compare(instance, minimum) == .orderedAscending {
            issue("minimum", "\(shown) is less than the minimum \(Evaluator.literal(minimum)) (allowed: \(bounds()))", .error, nil, nil)
        }
        if let maximum, NumberComparison.compare(instance, maximum) == .orderedDescending {
            issue("maximum", "\(shown) is greater than the maximum \(Evaluator.literal(maximum)) (allowed: \(bounds()))", .error, nil, nil)
        }
        if let exclusiveMinimum, NumberComparison.compare(instance, exclusiveMinimum) != .orderedDescending {
            issue("exclusiveMinimum", "\(shown) must be greater than \(Evaluator.literal(exclusiveMinimum)) (allowed: \(bounds()))", .error, nil, nil)
        }
        if let exclusiveMaximum, NumberComparison.compare(instance, exclusiveMaximum) != .orderedAscending {
            issue("exclusiveMaximum", "\(shown) must be less than \(Evaluator.literal(exclusiveMaximum)) (allowed: \(bounds()))", .error, nil, nil)
        }
        if let divisor = keywords["multipleOf"]?.value, !Evaluator.isMultiple(instance, of: divisor) {
            issue("multipleOf", "\(shown) is not a multiple of \(Evaluator.literal(divisor))", .error, nil, nil)
        }
    }

    private func checkObject(
        _ keywords: Value.Dictionary, site: Site, members: Value.Dictionary, depth: Int,
        outcome: inout Outcome
    ) {
        let schemaPath = site.schemaPath
        let path = site.path
        func issue(
            _ keyword: String, _ message: String, _ severity: ValidationIssue.Severity, _ location: SourceLocation?,
            _ path: ValuePath?
        ) {
            outcome.issues.append(site.issue(keyword, message, severity: severity, at: location, path: path))
        }
        let properties = keywords["properties"]?.value.dictionaryValue
        let patternProperties = keywords["patternProperties"]?.value.dictionaryValue
        if let required = keywords["required"]?.value.arrayValue {
            for name in required.compactMap(\.stringValue) where members[name] == nil {
                issue("required", "missing required key \(Value.quote(name))", .error, nil, nil)
            }
        }
        if let dependentRequired = keywords["dependentRequired"]?.value.dictionaryValue {
            for (name, list) in dependentRequired where members[name] != nil {
                for needed in list.value.arrayValue?.compactMap(\.stringValue) ?? [] where members[needed] == nil {
                    issue("dependentRequired", "key \(Value.quote(needed)) is required when \(Value.quote(name)) is present", .error, nil, nil)
                }
            }
        }
        if let minimum = keywords["minProperties"].flatMap({ SchemaCompiler.nonNegativeInteger($0.value) }), members.count < minimum {
            issue("minProperties", "has \(members.count) keys, fewer than the minimum \(minimum)", .error, nil, nil)
        }
        if let maximum = keywords["maxProperties"].flatMap({ SchemaCompiler.nonNegativeInteger($0.value) }), members.count > maximum {
            issue("maxProperties", "has \(members.count) keys, more than the maximum \(maximum)", .error, nil, nil)
        }
        let additional = keywords["additionalProperties"]?.value
        let propertyNames = keywords["propertyNames"]?.value
        for (name, member) in members {
            let memberPath = path.appending(key: name)
            var matched = false
            if let subschema = properties?[name]?.value {
                matched = true
                outcome.absorb(
                    evaluate(
                        schema: subschema, schemaPath: schemaPath + "/properties/" + SchemaCompiler.escape(name.string),
                        instance: member.value, path: memberPath, depth: depth + 1, keyLocation: member.keyLocation))
            }
            if let patternProperties {
                for (pattern, subschema) in patternProperties where patterns[pattern.string]?.matches(name.string) == true {
                    matched = true
                    outcome.absorb(
                        evaluate(
                            schema: subschema.value,
                            schemaPath: schemaPath + "/patternProperties/" + SchemaCompiler.escape(pattern.string),
                            instance: member.value, path: memberPath, depth: depth + 1, keyLocation: member.keyLocation))
                }
            }
            if matched {
                outcome.evaluatedProperties.insert(name)
            } else if let additional {
                if additional.boolValue == false {
                    var message = "unknown key \(Value.quote(name))"
                    // Deprecated keys stay valid but are never offered.
                    let known = (properties ?? [:]).filter { $0.value.value["deprecated"]?.boolValue != true }.map(\.key.string)
                    if let suggestion = Suggestions.closest(to: name.string, among: known) {
                        message += "; did you mean \(Value.quote(suggestion))?"
                    } else if !known.isEmpty {
                        message += "."
                    }
                    if !known.isEmpty {
                        message += " Valid keys: \(known.joined(separator: ", "))"
                    }
                    issue("additionalProperties", message, .error, member.keyLocation ?? member.value.location, memberPath)
                } else {
                    outcome.absorb(
                        evaluate(
                            schema: additional, schemaPath: schemaPath + "/additionalProperties",
                            instance: member.value, path: memberPath, depth: depth + 1, keyLocation: member.keyLocation))
                }
                outcome.evaluatedProperties.insert(name)
            }
            if let propertyNames {
                let result = evaluate(
                    schema: propertyNames, schemaPath: schemaPath + "/propertyNames",
                    instance: Value(.string(name.string), location: member.keyLocation), path: memberPath, depth: depth + 1)
                for failure in result.issues where failure.severity == .error {
                    issue(
                        "propertyNames", "key \(Value.quote(name)) is not an allowed name: \(failure.message)", .error,
                        member.keyLocation, memberPath)
                }
            }
        }
    }

    private func checkArray(_ keywords: Value.Dictionary, site: Site, elements: [Value], depth: Int, outcome: inout Outcome) {
        let schemaPath = site.schemaPath
        let path = site.path
        func issue(
            _ keyword: String, _ message: String, _ severity: ValidationIssue.Severity, _ location: SourceLocation?,
            _ path: ValuePath?
        ) {
            outcome.issues.append(site.issue(keyword, message, severity: severity, at: location, path: path))
        }
        if let minimum = keywords["minItems"].flatMap({ SchemaCompiler.nonNegativeInteger($0.value) }), elements.count < minimum {
            issue("minItems", "has \(elements.count) item\(elements.count == 1 ? "" : "s"), fewer than the minimum \(minimum)", .error, nil, nil)
        }
        if let maximum = keywords["maxItems"].flatMap({ SchemaCompiler.nonNegativeInteger($0.value) }), elements.count > maximum {
            issue("maxItems", "has \(elements.count) items, more than the maximum \(maximum)", .error, nil, nil)
        }
        if keywords["uniqueItems"]?.value.boolValue == true {
            search: for i in elements.indices {
                for j in elements.indices where j > i && JSONEquality.equal(elements[i], elements[j]) {
                    issue("uniqueItems", "items \(i) and \(j) are equal; items must be unique", .error, elements[j].location, nil)
                    break search
                }
            }
        }
        var prefixCount = 0
        if let prefix = keywords["prefixItems"]?.value.arrayValue {
            prefixCount = min(prefix.count, elements.count)
            for index in 0..<prefixCount {
                outcome.absorb(
                    evaluate(
                        schema: prefix[index], schemaPath: schemaPath + "/prefixItems/\(index)",
                        instance: elements[index], path: path.appending(index: index), depth: depth + 1))
            }
            outcome.evaluatedItemPrefix = max(outcome.evaluatedItemPrefix, prefixCount)
        }
        if let items = keywords["items"]?.value {
            for index in prefixCount..<max(prefixCount, elements.count) {
                let result = evaluate(
                    schema: items, schemaPath: schemaPath + "/items", instance: elements[index],
                    path: path.appending(index: index), depth: depth + 1)
                if !result.isValid, items.boolValue == false {
                    issue(
                        "items", "no item is allowed at index \(index) (at most \(prefixCount) item\(prefixCount == 1 ? "" : "s"))",
                        .error, elements[index].location, path.appending(index: index))
                } else {
                    outcome.absorb(result)
                }
            }
            outcome.evaluatedItemPrefix = elements.count
        }
        if let contains = keywords["contains"]?.value {
            var matches: [Int] = []
            for (index, element) in elements.enumerated()
            where evaluate(
                schema: contains, schemaPath: schemaPath + "/contains", instance: element,
                path: path.appending(index: index), depth: depth + 1
            ).isValid {
                matches.append(index)
            }
            outcome.evaluatedItems.formUnion(matches)
            let minimum = keywords["minContains"].flatMap { SchemaCompiler.nonNegativeInteger($0.value) } ?? 1
            if matches.count < minimum {
                issue(
                    keywords["minContains"] == nil ? "contains" : "minContains",
                    minimum == 1
                        ? "no item matches the \"contains\" schema"
                        : "\(matches.count) items match the \"contains\" schema, fewer than \(minimum)", .error, nil, nil)
            }
            if let maximum = keywords["maxContains"].flatMap({ SchemaCompiler.nonNegativeInteger($0.value) }), matches.count > maximum {
                issue("maxContains", "\(matches.count) items match the \"contains\" schema, more than \(maximum)", .error, nil, nil)
            }
        }
    }

    // MARK: - Helpers

    static func matches(type name: String, _ instance: Value) -> Bool {
        switch (name, instance.content) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .dictionary): return true
        case ("number", .integer), ("number", .real), ("integer", .integer): return true
        case ("integer", .real(let real)): return real == real.rounded(.towardZero)
        default: return false
        }
    }

    /// Schema type names as the value tree calls them (`object` is a dictionary).
    static func displayName(type name: String) -> String {
        name == "object" ? "dictionary" : name
    }

    /// `string "5"`, `integer 12`, `dictionary`, …
    static func found(_ instance: Value) -> String {
        switch instance.content {
        case .array, .dictionary, .data: return instance.typeName
        case .null: return "null"
        default: return "\(instance.typeName) \(instance)"
        }
    }

    /// A value as a literal in messages: strings quoted, numbers and booleans bare.
    static func literal(_ value: Value) -> String {
        switch value.content {
        case .real(let real) where real == real.rounded() && abs(real) < 1e15: return String(Int64(real))
        case .array, .dictionary: return (try? JSONTextBridge.compact(value)) ?? value.description
        default: return value.description
        }
    }

    static func list(_ items: [String], conjunction: String) -> String {
        switch items.count {
        case 0: return "nothing"
        case 1: return items[0]
        default: return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
        }
    }

    static func summarize(_ results: [Outcome]) -> String {
        results.enumerated().map { index, result in
            let first = result.issues.first { $0.severity == .error }
            return "(\(index + 1)) " + (first.map { $0.instancePath.isRoot ? $0.message : "\($0.instancePath): \($0.message)" } ?? "invalid")
        }.joined(separator: "; ")
    }

    static func isMultiple(_ value: Value, of divisor: Value) -> Bool {
        if case .integer(let a) = value.content, case .integer(let b) = divisor.content, b.magnitude != 0 {
            return a.magnitude % b.magnitude == 0
        }
        guard let x = value.numberValue, let m = divisor.numberValue, m > 0 else { return false }
        let quotient = x / m
        guard quotient.isFinite else { return false }
        if quotient == quotient.rounded() { return true }
        // Tolerate the rounding of decimal fractions such as 0.0075 / 0.0001.
        let nearest = quotient.rounded()
        return abs(quotient - nearest) <= 1e-9 * max(1, abs(nearest))
    }
}
