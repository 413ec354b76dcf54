import Foundation
import TimelineEngineConfiguration
import TimelineEngineJSONSchema
import TimelineEngineSupport

/// Holds a registry's composed and compiled configuration schema, computed once.
final class ConfigurationSchemaCache: Sendable {
    private let schema = Locked<ConfigurationSchema?>(nil)

    func value(_ make: () throws -> ConfigurationSchema) rethrows -> ConfigurationSchema {
        try schema.withLock { schema in
            if let schema { return schema }
            let made = try make()
            schema = made
            return made
        }
    }
}

extension StrategyRegistry {
    /// The configuration schema for this registry: the embedded one when the registry holds
    /// exactly the built-ins (the embedded file is their composition, kept in step by a test),
    /// otherwise composed from these types and compiled, once per registry.
    public var configurationSchema: ConfigurationSchema {
        do {
            return try composedConfigurationSchema()
        } catch {
            // Every parameter schema compiled when it was registered, and its local
            // references are rewritten into the composition, so the composition compiles.
            preconditionFailure("the composed configuration schema does not compile: \(error)")
        }
    }

    /// The configuration schema for this registry, composed and compiled now; an error when it
    /// does not compile. `PluginLoader` asks for it, so that a plugin whose schema cannot be
    /// composed is refused at load.
    public func composedConfigurationSchema() throws -> ConfigurationSchema {
        try schemaCache.value {
            if names == BuiltInStrategies.registry.names,
                zip(types, BuiltInStrategies.all).allSatisfy({ $0.parameterSchema == $1.parameterSchema && $0.summary == $1.summary })
            {
                return .embedded
            }
            return try ConfigurationSchema(document: ConfigurationSchemaComposer.compose(registry: self))
        }
    }
}
