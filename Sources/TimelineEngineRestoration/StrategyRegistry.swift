import TimelineEngineConfiguration
import TimelineEngineJSONSchema
import TimelineEngineLogging
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Strategy types by kind and by name, and the one factory that builds any component from a
/// spec: lookup with "did you mean", parameter validation against the type's compiled schema,
/// defaults and inherited configuration values, the components a composition combines,
/// construction, the kind check and `Weight`.
///
/// Registering compiles every parameter schema once; a schema that does not compile, a name
/// registered twice or an empty name is refused here, never skipped later.
public struct StrategyRegistry: Sendable {
    public let types: [StrategyType]
    /// The log sinks `Logging.Sinks` can name (`Stderr`, `JSONLines`, and any an app adds).
    public let logSinks: [LogSinkFactory]
    /// Each type's parameter schema, compiled with `additionalProperties: false`.
    private let compiledSchemas: [String: JSONSchema]
    /// The configuration schema composed from these types, once asked for.
    let schemaCache = ConfigurationSchemaCache()

    public init(_ types: [StrategyType], logSinks: [LogSinkFactory] = LogSinkFactory.builtIns) throws(RegistryError) {
        var sinkNames: Set<String> = []
        for sink in logSinks {
            guard !sink.name.isEmpty, sinkNames.insert(sink.name).inserted else {
                throw RegistryError("log sink \(Value.quote(sink.name)) is registered twice or has no name")
            }
        }
        var compiled: [String: JSONSchema] = [:]
        for type in types {
            guard !type.name.isEmpty, type.name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) }) else {
                throw RegistryError("strategy name \(Value.quote(type.name)) must be letters and digits only")
            }
            guard compiled[type.name] == nil else { throw RegistryError("strategy \(Value.quote(type.name)) is registered twice") }
            guard var members = type.parameterSchema.dictionaryValue else {
                throw RegistryError("\(type.name): the parameter schema is not an object schema")
            }
            members["additionalProperties"] = Value.Member(value: .bool(false))
            do {
                compiled[type.name] = try JSONSchema(Value(.dictionary(members)))
            } catch {
                throw RegistryError("\(type.name): the parameter schema does not compile: \(error)")
            }
        }
        self.types = types
        self.logSinks = logSinks
        compiledSchemas = compiled
    }

    /// `self` with `more` registered after the types already here.
    public func adding(_ more: [StrategyType]) throws(RegistryError) -> StrategyRegistry {
        try StrategyRegistry(types + more, logSinks: logSinks)
    }

    /// `self` with `more` log sinks registered after the ones already here.
    public func adding(logSinks more: [LogSinkFactory]) throws(RegistryError) -> StrategyRegistry {
        try StrategyRegistry(types, logSinks: logSinks + more)
    }

    /// The type registered under `name`.
    public subscript(name: String) -> StrategyType? {
        types.first { $0.name == name }
    }

    public func types(of kind: StrategyKind) -> [StrategyType] {
        types.filter { $0.kind == kind }
    }

    public var names: [String] { types.map(\.name) }

    /// The kinds of the registered types, in their declared order.
    public var kinds: [StrategyKind] { Set(types.map(\.kind)).sorted() }

    /// The registered types grouped by kind, in the kinds' order, each group in registration
    /// order: the order listings show.
    public var typesByKind: [StrategyType] { kinds.flatMap { types(of: $0) } }

    /// Every type that can stand in a pipeline (restoration, fallback and positioning).
    public var stageTypes: [StrategyType] {
        types.filter(\.kind.isStage)
    }

    /// Where a parameter that inherits a configuration key finds its value (nil: the
    /// parameter's own default).
    public typealias InheritedValues = @Sendable (_ key: InheritedKey) -> Value?

    /// Builds the component `node` describes, which must be of `kind` (`.restoration` accepts a
    /// fallback stage too). Compositions build their arguments with the same rules.
    public func build(
        _ node: StrategyNode, kind: StrategyKind, inherited: InheritedValues = { _ in nil },
        depth: Int = 1
    ) throws(PipelineError) -> BuiltStrategy {
        guard depth <= PipelineSpec.maximumDepth else {
            throw PipelineError("compositions nest deeper than \(PipelineSpec.maximumDepth) levels")
        }
        let type = try lookup(node.name, kind: kind)
        guard kind.admits(type.kind) else {
            if kind == .restoration, type.kind == .positioning {
                throw PipelineError("\(node.name) is a \(type.kind.rawValue) strategy; it can only come last in a pipeline")
            }
            throw PipelineError("\(node.name) is a \(type.kind.rawValue) strategy, not a \(kind.rawValue) strategy")
        }
        let parameters = try parameters(for: node, type: type, inherited: inherited)
        var options = StrategyOptions(parameters: parameters)
        if let composes = type.composes {
            guard !node.children.isEmpty else { throw PipelineError("\(node.name) needs at least one stage") }
            for child in node.children {
                options.components.append(try build(child, kind: composes, inherited: inherited, depth: depth + 1).component)
            }
        } else if !node.children.isEmpty {
            throw PipelineError("\(node.name) is not a composition and takes no stages")
        }
        let built: BuiltStrategy
        do {
            built = try type.make(options)
        } catch let error as PipelineError {
            throw error
        } catch {
            throw PipelineError("\(type.name): \(error)")
        }
        guard type.kind.accepts(built) else {
            throw PipelineError("\(node.name) did not build a \(type.kind.label == "strategy" ? "\(type.kind.rawValue) stage" : type.kind.label)")
        }
        return type.kind.finish(built, options: options)
    }

    /// The type registered under `name` among the types of `kind`'s family (every pipeline
    /// stage, the cache policies, the network policies), or an error naming them, with "did
    /// you mean".
    public func lookup(_ name: String, kind: StrategyKind) throws(PipelineError) -> StrategyType {
        let family = types.filter { $0.kind.label == kind.label }
        if let type = family.first(where: { $0.name == name }) { return type }
        let names = family.map(\.name)
        var message = "unknown \(kind.label) \(Value.quote(name))"
        if let suggestion = Suggestions.closest(to: name, among: names) {
            message += "; did you mean \(Value.quote(suggestion))?"
        } else {
            message += "."
        }
        throw PipelineError(message + " Registered: \(names.joined(separator: ", "))")
    }

    /// A node's parameters checked against its type's schema, with the defaults, then the
    /// inherited configuration values, then the node's own.
    public func parameters(for node: StrategyNode, type: StrategyType, inherited: InheritedValues) throws(PipelineError) -> Value.Dictionary {
        if let compiled = compiledSchemas[type.name] {
            let result = compiled.validate(Value(.dictionary(node.parameters)))
            if let first = result.errors.first {
                throw PipelineError("\(node.name): \(first.instancePath.isRoot ? "" : "\(first.instancePath): ")\(first.message)")
            }
        }
        var parameters = type.defaults
        for (name, member) in inheritedParameters(of: type, inherited: inherited) { parameters[name] = member }
        for (key, member) in node.parameters { parameters[key] = member }
        return parameters
    }

    /// The values a type's parameters take from configuration keys.
    public func inheritedParameters(of type: StrategyType, inherited: InheritedValues) -> Value.Dictionary {
        var result = Value.Dictionary()
        for (parameter, key) in type.inheritedKeys {
            if let value = inherited(key) { result[parameter] = Value.Member(value: value) }
        }
        return result
    }
}

/// A strategy type that cannot be registered: its name, and why.
public struct RegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
