import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Reads a plugin's describe JSON into strategy types whose factory makes plugin instances.
/// Every field is checked; the first problem is an error naming where it is.
struct PluginDescription {
    let library: PluginLibrary

    /// The kinds a plugin can provide.
    static let kinds: [StrategyKind] = [.restoration, .fallback]

    func types() throws(PluginError) -> [StrategyType] {
        let root = try library.description()
        guard let strategies = root["strategies"]?.arrayValue, !strategies.isEmpty else {
            throw problem("describe: \"strategies\" must be a non-empty array")
        }
        var types: [StrategyType] = []
        for (number, entry) in strategies.enumerated() {
            types.append(try type(entry, at: "strategies[\(number)]"))
        }
        return types
    }

    private func problem(_ message: String) -> PluginError {
        PluginError(path: library.path, message)
    }

    private func type(_ entry: Value, at path: String) throws(PluginError) -> StrategyType {
        guard let name = entry["name"]?.stringValue, !name.isEmpty else { throw problem("describe: \(path).name must be a non-empty string") }
        guard let kindName = entry["kind"]?.stringValue, let kind = Self.kinds.first(where: { $0.rawValue == kindName }) else {
            let found = entry["kind"].map(\.description) ?? "nothing"
            throw problem("describe: \(path).kind must be one of \(Self.kinds.map(\.rawValue).joined(separator: ", ")), found \(found)")
        }
        guard let summary = entry["summary"]?.stringValue, !summary.isEmpty else {
            throw problem("describe: \(path).summary must be a non-empty string")
        }
        let parameters = entry["parameters"] ?? .dictionary([("type", .string("object")), ("properties", .dictionary([]))])
        guard parameters.dictionaryValue != nil else { throw problem("describe: \(path).parameters must be a JSON Schema object") }
        var scenarios: [StrategyScenario] = []
        for (number, scenario) in (entry["scenarios"]?.arrayValue ?? []).enumerated() {
            scenarios.append(try self.scenario(scenario, at: "\(path).scenarios[\(number)]"))
        }
        let library = library
        let examples = scenarios
        return StrategyType(name: name, kind: kind, summary: summary, parameterSchema: parameters, examples: examples) { options in
            .restoration(PluginStage(name: name, instance: try library.instance(of: name, parameters: options.parameters)))
        }
    }

    private func scenario(_ entry: Value, at path: String) throws(PluginError) -> StrategyScenario {
        guard let name = entry["name"]?.stringValue else { throw problem("describe: \(path).name must be a string") }
        var posts: [Post] = []
        for (number, post) in (entry["posts"]?.arrayValue ?? []).enumerated() {
            guard let id = post["id"]?.stringValue, let created = post["createdAt"]?.stringValue.flatMap(Timestamp.parse) else {
                throw problem("describe: \(path).posts[\(number)] needs an \"id\" and an RFC 3339 \"createdAt\"")
            }
            posts.append(
                Post(
                    id: id, createdAt: created, author: post["author"]?.stringValue, text: post["text"]?.stringValue,
                    height: post["height"]?.numberValue))
        }
        var snapshot: PositionSnapshot?
        if let saved = entry["snapshot"], saved != .null {
            do {
                snapshot = try SnapshotCoding.snapshot(from: saved)
            } catch {
                throw problem("describe: \(path).snapshot: \(error.message)")
            }
        }
        guard let expect = entry["expect"]?.dictionaryValue, let expectedPost = expect["postId"]?.value else {
            throw problem("describe: \(path).expect.postId must be given (a post id, or null for no candidate)")
        }
        var placement: Placement?
        if let written = expect["placement"]?.value {
            switch written.stringValue {
            case "standIn": placement = .standIn
            case "postAtTop": placement = .postAtTop
            case "topOfTimeline": placement = .topOfTimeline
            default:
                guard let offset = written["contentOffset"]?.numberValue else {
                    throw problem("describe: \(path).expect.placement must be standIn, postAtTop, topOfTimeline or {\"contentOffset\": N}")
                }
                placement = .contentOffset(offset)
            }
        }
        return StrategyScenario(
            name: name, timeline: Timeline(posts: posts, viewportHeight: entry["viewportHeight"]?.numberValue ?? 800), snapshot: snapshot,
            parameters: entry["parameters"]?.dictionaryValue ?? [:], expectedPostId: expectedPost.stringValue,
            expectedMethod: expect["method"]?.value.stringValue.map(RestorationMethod.init(rawValue:)),
            expectedConfidence: expect["confidence"]?.value.numberValue, expectedPlacement: placement,
            expectedExplanation: expect["explanation"]?.value.stringValue)
    }
}
