import TimelineEngineConfiguration
import TimelineEngineFirstMatch
import TimelineEngineValueTree

/// The compact pipeline notation of the command line:
/// `ExactMatch > TemporalProximity(Window: 1800) > Fallback(Mode: TopOfTimeline)`.
///
/// Stages are separated by `>` (a FirstMatch); a stage is `Name` or `Name(Key: value, …)`; a
/// composition's arguments are specs themselves: `BestConfidence(ExactMatch, ContentSimilarity(Threshold: 0.5))`.
/// Values are numbers, `true`/`false`, bare words or quoted strings. A positioning stage may
/// follow the whole spec after `|` (`ExactMatch > Fallback | ViewportAnchor`), as the tools
/// print pipelines. Compositions nest at most `maximumDepth` deep, and a stage names each
/// parameter once.
public indirect enum PipelineSpec: Sendable, Equatable {
    case stage(name: String, parameters: [(String, Value)], arguments: [PipelineSpec])
    case sequence([PipelineSpec])
    /// A spec and the positioning stage after its `|`.
    case positioned(PipelineSpec, by: PipelineSpec)

    /// The composition `A > B > C` stands for: the stages in order, the first confident one wins.
    public static let sequenceComposition = FirstMatchStrategy.type.name

    /// `scalar` as an error shows it: what prints as nothing (a zero-width space, a
    /// bidirectional control) as `\uXXXX`, so that a reader sees why a name did not match.
    static func shown(_ scalar: Unicode.Scalar) -> String {
        Value.isInvisible(scalar) || scalar.value < 0x20 ? "\\u" + String(format: "%04X", scalar.value) : String(scalar)
    }

    /// How deep compositions may nest: deeper specs are refused rather than risk the stack.
    public static let maximumDepth = ConfigurationLoader.maximumCompositionDepth

    public static func == (lhs: PipelineSpec, rhs: PipelineSpec) -> Bool {
        switch (lhs, rhs) {
        case (.sequence(let a), .sequence(let b)): return a == b
        case (.positioned(let a, let p), .positioned(let b, let q)): return a == b && p == q
        case (.stage(let n1, let p1, let a1), .stage(let n2, let p2, let a2)):
            return n1 == n2 && a1 == a2 && p1.count == p2.count && zip(p1, p2).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// A malformed spec, with the character position (1-based) of the problem.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public let column: Int
        public var description: String { "column \(column): \(message)" }
    }

    public static func parse(_ text: String) throws(SyntaxError) -> PipelineSpec {
        var parser = SpecParser(Array(text.unicodeScalars))
        var spec = try parser.parseSequence(depth: 1)
        parser.skipSpaces()
        if parser.peek == "|" {
            parser.position += 1
            let positioning = try parser.parseStage(depth: 1)
            spec = .positioned(spec, by: positioning)
            parser.skipSpaces()
        }
        if !parser.atEnd { throw parser.error("unexpected '\(PipelineSpec.shown(parser.peek!))'") }
        return spec
    }
}

private struct SpecParser {
    let scalars: [Unicode.Scalar]
    var position = 0

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    var atEnd: Bool { position >= scalars.count }
    var peek: Unicode.Scalar? { atEnd ? nil : scalars[position] }

    func error(_ message: String) -> PipelineSpec.SyntaxError {
        PipelineSpec.SyntaxError(message: message, column: position + 1)
    }

    mutating func skipSpaces() {
        while let scalar = peek, scalar.properties.isWhitespace { position += 1 }
    }

    mutating func parseSequence(depth: Int) throws(PipelineSpec.SyntaxError) -> PipelineSpec {
        var stages = [try parseStage(depth: depth)]
        skipSpaces()
        while peek == ">" {
            position += 1
            stages.append(try parseStage(depth: depth))
            skipSpaces()
        }
        return stages.count == 1 ? stages[0] : .sequence(stages)
    }

    mutating func identifier() -> String {
        var name = ""
        while let scalar = peek, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" || scalar == "." {
            name.unicodeScalars.append(scalar)
            position += 1
        }
        return name
    }

    mutating func parseStage(depth: Int) throws(PipelineSpec.SyntaxError) -> PipelineSpec {
        skipSpaces()
        guard depth <= PipelineSpec.maximumDepth else {
            throw error("compositions nest deeper than \(PipelineSpec.maximumDepth) levels")
        }
        let name = identifier()
        guard !name.isEmpty else { throw error(atEnd ? "expected a strategy name at the end" : "expected a strategy name, found '\(peek!)'") }
        skipSpaces()
        var parameters: [(String, Value)] = []
        var arguments: [PipelineSpec] = []
        if peek == "(" {
            position += 1
            skipSpaces()
            if peek != ")" {
                while true {
                    skipSpaces()
                    let start = position
                    let word = identifier()
                    skipSpaces()
                    if !word.isEmpty, peek == ":" {
                        if parameters.contains(where: { $0.0 == word }) {
                            position = start
                            throw error("\(name) is given the parameter \(word) twice")
                        }
                        position += 1
                        skipSpaces()
                        parameters.append((word, try parseValue()))
                    } else {
                        position = start
                        arguments.append(try parseSequence(depth: depth + 1))
                    }
                    skipSpaces()
                    if peek == "," {
                        position += 1
                        continue
                    }
                    if peek == ")" { break }
                    throw error(atEnd ? "missing ')' after the arguments of \(name)" : "expected ',' or ')', found '\(peek!)'")
                }
            }
            position += 1
        }
        return .stage(name: name, parameters: parameters, arguments: arguments)
    }

    mutating func parseValue() throws(PipelineSpec.SyntaxError) -> Value {
        if peek == "\"" || peek == "'" {
            let quote = peek!
            position += 1
            var text = ""
            while let scalar = peek, scalar != quote {
                text.unicodeScalars.append(scalar)
                position += 1
            }
            guard peek == quote else { throw error("unterminated string") }
            position += 1
            return .string(text)
        }
        var word = ""
        while let scalar = peek, !",)".unicodeScalars.contains(scalar), !scalar.properties.isWhitespace {
            word.unicodeScalars.append(scalar)
            position += 1
        }
        guard !word.isEmpty else { throw error("expected a value") }
        if word == "true" { return .bool(true) }
        if word == "false" { return .bool(false) }
        if let integer = Int(word) { return .integer(integer) }
        if let real = Double(word), real.isFinite { return .real(real) }
        return .string(word)
    }
}
