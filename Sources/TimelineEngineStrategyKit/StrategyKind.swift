/// A kind of strategy: what its components decide, and how the registry treats them. The module
/// that declares a kind's protocol declares the kind as a static member beside it
/// (`StrategyKind.merge` in TimelineEngineSyncModel), so a new kind is new code in its own module and no edit
/// here.
public struct StrategyKind: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name, as `engine strategies list` and messages write it (`restoration`, `merge`).
    public let rawValue: String
    /// What one is called in messages (`cache policy`). Kinds that share a label are looked up
    /// together: every pipeline stage is a `strategy`.
    public let label: String
    /// Where the kind sorts in listings, lowest first.
    public let order: Int
    /// The other kinds a slot of this kind accepts (a restoration slot takes a fallback stage).
    public let alsoAccepts: [String]
    /// The parameters every type of this kind takes, which the registry applies so that no
    /// strategy handles them (`Weight` for restoration and fallback stages).
    public let commonParameters: [ParameterDeclaration]
    /// How a configuration key names components of this kind, which the schema composer
    /// writes under `$defs/<name>` (nil: no key names one).
    public let configuration: ConfigurationFace?
    /// True when a value a factory built is a component of this kind.
    private let conforms: @Sendable (any Sendable) -> Bool
    /// What the registry makes of a built component given its options (a stage with a `Weight`
    /// other than 1 is wrapped to vote with it).
    private let finishing: @Sendable (any Sendable, StrategyOptions) -> any Sendable

    /// A kind whose components conform to `Component` (a protocol's existential, such as
    /// `(any MergePolicy).self`).
    public init<Component: Sendable>(
        _ rawValue: String, label: String, order: Int, component: Component.Type, alsoAccepts: [String] = [],
        commonParameters: [ParameterDeclaration] = [], configuration: ConfigurationFace? = nil,
        finish: @escaping @Sendable (Component, StrategyOptions) -> Component = { component, _ in component }
    ) {
        self.rawValue = rawValue
        self.label = label
        self.order = order
        self.alsoAccepts = alsoAccepts
        self.commonParameters = commonParameters
        self.configuration = configuration
        conforms = { $0 is Component }
        finishing = { built, options in
            guard let component = built as? Component else { return built }
            return finish(component, options) as any Sendable
        }
    }

    /// True when `built` is a component of this kind.
    public func accepts(_ built: BuiltStrategy) -> Bool {
        conforms(built.component)
    }

    /// `built` as the registry hands it out, given the options it was built with.
    public func finish(_ built: BuiltStrategy, options: StrategyOptions) -> BuiltStrategy {
        BuiltStrategy(finishing(built.component, options))
    }

    /// True when a slot of this kind takes a type of `kind`.
    public func admits(_ kind: StrategyKind) -> Bool {
        kind == self || alsoAccepts.contains(kind.rawValue)
    }

    public var description: String { rawValue }

    public static func == (lhs: StrategyKind, rhs: StrategyKind) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public static func < (lhs: StrategyKind, rhs: StrategyKind) -> Bool {
        (lhs.order, lhs.rawValue) < (rhs.order, rhs.rawValue)
    }
}

extension StrategyKind {
    /// How a configuration key names components of a kind: the schema composer writes it under
    /// `$defs/<kind's name>` with every registered type it lists and their parameters, and a key
    /// declared with `@ComponentSetting(kind:)` or `@DerivedComponentListSetting(kind:)` refers
    /// there. A new kind with a face needs no change to the composer.
    public struct ConfigurationFace: Sendable {
        /// How one component is written.
        public enum Form: Sendable {
            /// Its name alone when it takes no parameter, or a dictionary (`Sync.Policy`).
            case nameOrDictionary
            /// Always a dictionary, its name under `Strategy` (`Network.Policy`).
            case dictionary
        }

        /// The definition's title (`Merge policy`).
        public let title: String
        /// What one component is, before the list of registered ones.
        public let description: String
        public let form: Form
        /// Other kinds whose types the same keys take (a pipeline takes fallback and positioning
        /// stages beside restoration ones), by name.
        public let alsoLists: [String]

        public init(title: String, description: String, form: Form, alsoLists: [String] = []) {
            self.title = title
            self.description = description
            self.form = form
            self.alsoLists = alsoLists
        }

        /// A kind written as its name alone or as a dictionary, described as such: "A registered
        /// merge policy: its name, or a dictionary with its name under Strategy and its
        /// parameters beside it."
        public static func nameOrDictionary(title: String) -> ConfigurationFace {
            ConfigurationFace(
                title: title,
                description:
                    "A registered \(title.lowercased()): its name, or a dictionary with its name under Strategy and its parameters beside it.",
                form: .nameOrDictionary)
        }
    }

    /// The `$defs` reference of this kind's configuration face.
    public var schemaReference: String { "#/$defs/\(rawValue)" }
}
