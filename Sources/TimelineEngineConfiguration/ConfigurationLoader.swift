import Foundation
import Logging
import TimelineEngineJSONSchema
import TimelineEngineJSONText
import TimelineEngineLogging
import TimelineEnginePropertyList
import TimelineEngineValueTree

/// Loads `SocialFusionTimelineConfiguration` from a standalone property list (whose root either
/// is the configuration or holds it under `SocialFusionTimelineConfiguration`), from an app's
/// `Info.plist`, or from JSON with the same structure, and validates it against the schema.
///
/// In the default, lenient mode loading never fails: an unreadable or malformed file yields the
/// defaults, and each invalid value falls back to its default, with a diagnostic that is also
/// logged as a warning. In strict mode any error throws `ConfigurationError`.
public struct ConfigurationLoader: Sendable {
    /// Lenient (an invalid value falls back to its default, with a diagnostic) or strict (any
    /// error throws).
    public enum Mode: Sendable {
        /// Fall back to defaults and report; never throw.
        case lenient
        /// Throw when there is any error (warnings are allowed).
        case strict
    }

    public var mode: Mode
    /// The property-list reader, with its size and depth limits.
    public var reader: PropertyListReader
    /// Where lenient loading logs its warnings.
    public var logger: Logger
    /// The schema files are validated against: the built-in one, or the one composed from the
    /// registry in use (`StrategyRegistry.configurationSchema`), so that its strategies'
    /// parameters are checked.
    public var schema: ConfigurationSchema

    public init(
        mode: Mode = .lenient, reader: PropertyListReader = PropertyListReader(),
        logger: Logger = LogCategory.timeline.logger, schema: ConfigurationSchema = .embedded
    ) {
        self.mode = mode
        self.reader = reader
        self.logger = logger
        self.schema = schema
    }

    /// Loads the configuration file at `url`; diagnostics name it `displayName` (default: the
    /// path as given). Lenient mode logs each diagnostic as a warning and never throws; strict
    /// mode throws when there is an error.
    public func load(contentsOf url: URL, displayName: String? = nil) throws(ConfigurationError) -> LoadedConfiguration {
        try apply(mode, to: read(contentsOf: url, displayName: displayName))
    }

    /// Loads a configuration from bytes. `format` is detected when nil.
    public func load(data: Data, fileName: String? = nil, format: ConfigurationFormat? = nil) throws(ConfigurationError) -> LoadedConfiguration {
        try apply(mode, to: read(data: data, fileName: fileName, format: format))
    }

    /// Reads and validates the configuration file at `url` without logging or throwing: the
    /// result holds the effective configuration and every diagnostic.
    public func read(contentsOf url: URL, displayName: String? = nil) -> LoadedConfiguration {
        let name = displayName ?? url.relativePath
        let data: Data
        if let problem = FileData.problem(atPath: url.path) {
            return finish(unreadable: FileData.ReadError(reason: problem).description, file: name)
        }
        if let size = FileData.size(atPath: url.path), size > reader.maximumInputSize {
            return finish(unreadable: "file is \(size) bytes, more than the limit of \(reader.maximumInputSize) bytes", file: name)
        }
        do {
            data = try FileData.read(url)
        } catch {
            return finish(unreadable: error.description, file: name)
        }
        return read(data: data, fileName: name)
    }

    /// Reads and validates a configuration from bytes without logging or throwing.
    public func read(data: Data, fileName: String? = nil, format: ConfigurationFormat? = nil) -> LoadedConfiguration {
        let format = format ?? ConfigurationFormat.detect(data, fileName: fileName)
        let root: Value
        switch format {
        case .plist:
            do {
                root = try reader.read(data)
            } catch {
                let kind: ConfigurationDiagnostic.Kind = error.location == nil ? .unreadable : .malformed
                return finish(
                    [
                        ConfigurationDiagnostic(
                            severity: .error, kind: kind, file: fileName, location: error.location,
                            path: nil, message: error.message)
                    ], document: nil, format: format)
            }
        case .json:
            guard data.count <= reader.maximumInputSize else {
                return finish(unreadable: "input is \(data.count) bytes, more than the limit of \(reader.maximumInputSize) bytes", file: fileName)
            }
            do {
                root = try JSONReader(maximumDepth: reader.maximumDepth).read(data)
            } catch {
                return finish(
                    [
                        ConfigurationDiagnostic(
                            severity: .error, kind: .malformed, file: fileName, location: error.location,
                            path: nil, message: error.message)
                    ], document: nil, format: format)
            }
        }
        return validate(root, fileName: fileName, format: format)
    }

    /// Validates an already-read document (a plist or JSON root) without logging or throwing.
    public func validate(_ root: Value, fileName: String?, format: ConfigurationFormat? = nil) -> LoadedConfiguration {
        let document = root[ConfigurationSchema.rootKey] ?? root
        let sections = schema.sections
        if root[ConfigurationSchema.rootKey] == nil, let members = root.dictionaryValue, !members.isEmpty,
            !members.keys.contains(where: sections.contains)
        {
            // Most likely an app's Info.plist without the configuration: one clear error instead
            // of an "unknown key" for every app key.
            let diagnostic = ConfigurationDiagnostic(
                severity: .error, kind: .schema, file: fileName, location: root.location, path: .root, keyword: "required",
                message:
                    "no \(ConfigurationSchema.rootKey) key and none of the configuration's sections (\(sections.map(\.string).joined(separator: ", ")))"
            )
            return finish([diagnostic], document: Value(.dictionary([:])), format: format)
        }
        // Compositions nested too deep are refused before the schema sees them: they would
        // otherwise read as a reference cycle, and no pipeline could be built from them.
        let (checked, tooDeep) = ConfigurationLoader.removingDeepCompositions(document, path: .root)
        var diagnostics = tooDeep.map { path, location in
            ConfigurationDiagnostic(
                severity: .error, kind: .schema, file: fileName, location: location, path: path, keyword: "Stages",
                message: "compositions nest deeper than \(ConfigurationLoader.maximumCompositionDepth) levels")
        }
        let issues = schema.compiled.validate(checked).issues
        diagnostics += issues.map { issue in
            ConfigurationDiagnostic(
                severity: issue.severity == .error ? .error : .warning, kind: .schema, file: fileName,
                location: issue.location, path: issue.instancePath, keyword: issue.keyword, message: issue.message)
        }
        diagnostics.sort { lhs, rhs in
            switch (lhs.location, rhs.location) {
            case (let l?, let r?): return l < r
            case (nil, _?): return false
            default: return lhs.location != nil
            }
        }
        return finish(diagnostics, document: checked, format: format)
    }

    /// How deep compositions (`Stages` within `Stages`) may nest in a configuration, as in a
    /// `--strategy` spec.
    public static let maximumCompositionDepth = 64

    /// `value` without the arrays whose compositions nest deeper than `maximumCompositionDepth`
    /// (the whole top-level array, as any error inside an array drops it), and where each was.
    static func removingDeepCompositions(_ value: Value, path: ValuePath) -> (Value, [(ValuePath, SourceLocation?)]) {
        guard var members = value.dictionaryValue else { return (value, []) }
        var found: [(ValuePath, SourceLocation?)] = []
        for (key, member) in members {
            let memberPath = path.appending(key: key)
            if let elements = member.value.arrayValue {
                // More than one stage in a row is itself a composition (FirstMatch), one level more.
                if let (deepPath, location) = deepStage(in: elements, path: memberPath, depth: elements.count > 1 ? 2 : 1) {
                    found.append((deepPath, location))
                    members.removeValue(forKey: key)
                }
            } else if member.value.dictionaryValue != nil {
                let (trimmed, deeper) = removingDeepCompositions(member.value, path: memberPath)
                members[key]?.value = trimmed
                found += deeper
            }
        }
        var result = value
        result.content = .dictionary(members)
        return (result, found)
    }

    /// The first stage in `stages` (and the stages they compose) beyond the allowed depth.
    private static func deepStage(in stages: [Value], path: ValuePath, depth: Int) -> (ValuePath, SourceLocation?)? {
        for (position, stage) in stages.enumerated() {
            let stagePath = path.appending(index: position)
            guard let children = stage["Stages"]?.arrayValue else { continue }
            if depth >= maximumCompositionDepth { return (stagePath.appending(key: "Stages"), stage["Stages"]?.location ?? stage.location) }
            if let deeper = deepStage(in: children, path: stagePath.appending(key: "Stages"), depth: depth + 1) { return deeper }
        }
        return nil
    }

    private func apply(_ mode: Mode, to loaded: LoadedConfiguration) throws(ConfigurationError) -> LoadedConfiguration {
        if mode == .strict, !loaded.errors.isEmpty {
            throw ConfigurationError(diagnostics: loaded.diagnostics)
        }
        for diagnostic in loaded.diagnostics {
            var metadata: Logger.Metadata = ["problem": "\(diagnostic.message)", "severity": "\(diagnostic.severity.rawValue)"]
            if let file = diagnostic.file { metadata["file"] = "\(file)" }
            if let location = diagnostic.location {
                metadata["line"] = "\(location.line)"
                if let column = location.column { metadata["column"] = "\(column)" }
            }
            if let path = diagnostic.path, !path.isRoot { metadata["keyPath"] = "\(path)" }
            let message: Logger.Message =
                switch diagnostic.severity {
                case .error where diagnostic.path.map({ !$0.isRoot }) ?? false: "invalid configuration value; its default is used"
                case .error: "unusable configuration; the defaults are used"
                default: "configuration warning"
                }
            logger.warning(message, metadata: metadata)
        }
        return loaded
    }

    // MARK: - Resolution

    private func finish(unreadable message: String, file: String?) -> LoadedConfiguration {
        finish(
            [ConfigurationDiagnostic(severity: .error, kind: .unreadable, file: file, location: nil, path: nil, message: message)],
            document: nil, format: nil)
    }

    private func finish(_ diagnostics: [ConfigurationDiagnostic], document: Value?, format: ConfigurationFormat?) -> LoadedConfiguration {
        let sanitized = ConfigurationLoader.sanitize(document ?? Value(.dictionary([:])), schema: schema)
        let resolved = DefaultsResolver.fill(sanitized, schema: schema.document)
        return LoadedConfiguration(
            configuration: TimelineConfiguration(resolved: resolved, given: sanitized),
            diagnostics: diagnostics, document: document, resolved: resolved, format: format)
    }

    /// Removes every invalid value, so that its default applies. A problem inside an array
    /// removes the whole array (a pipeline with a broken stage falls back to the default
    /// pipeline rather than running without that stage).
    static func sanitize(_ document: Value, schema: ConfigurationSchema) -> Value {
        var current = document
        for _ in 0..<8 {
            let errors = schema.compiled.validate(current).errors
            if errors.isEmpty { return current }
            for error in errors {
                var components: [ValuePath.Component] = []
                for component in error.instancePath.components {
                    if case .index = component { break }
                    components.append(component)
                }
                if components.isEmpty { return Value(.dictionary([:])) }
                current = removing(ValuePath(components), from: current)
            }
        }
        return Value(.dictionary([:]))
    }

    private static func removing(_ path: ValuePath, from value: Value) -> Value {
        guard let first = path.components.first, case .key(let key) = first, var members = value.dictionaryValue else { return value }
        if path.components.count == 1 {
            members.removeValue(forKey: key)
        } else if let child = members[key] {
            members[key]?.value = removing(ValuePath(Array(path.components.dropFirst())), from: child.value)
        }
        var result = value
        result.content = .dictionary(members)
        return result
    }
}
