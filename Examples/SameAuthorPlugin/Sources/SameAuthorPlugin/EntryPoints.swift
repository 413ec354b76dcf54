import Foundation
import TimelineEngineCPlugin

// The five entry points of the plugin ABI (timeline_plugin.h), with C names.

@_cdecl("timeline_plugin_abi_version")
public func abiVersion() -> UInt32 {
    UInt32(TIMELINE_PLUGIN_ABI_VERSION)
}

/// What the plugin provides, as the engine reads it. The scenarios run before the engine uses
/// the strategy (and in `engine strategies check`).
private let description: StaticString = """
    {"strategies": [{
      "name": "SameAuthor", "kind": "restoration",
      "summary": "Stands in the saved author's post created closest in time to the saved one (a plugin).",
      "parameters": {"type": "object", "properties": {
        "Window": {"description": "Largest |Δt| in seconds between the saved post and the author's post.",
                   "type": "number", "minimum": 0, "default": 3600},
        "MaxVisited": {"description": "The most posts looked at around the saved time.",
                       "type": "integer", "minimum": 1, "maximum": 1000000, "default": 2000}}},
      "scenarios": [
        {"name": "the author's nearest post in time, not a stranger's nearer one",
         "posts": [{"id": "p0", "createdAt": "2023-11-14T22:12:50Z", "author": "bob", "height": 100},
                   {"id": "p1", "createdAt": "2023-11-14T22:12:20Z", "author": "ann", "height": 100},
                   {"id": "p2", "createdAt": "2023-11-14T22:10:30Z", "author": "cat", "height": 100},
                   {"id": "p3", "createdAt": "2023-11-14T22:10:15Z", "author": "bob", "height": 100},
                   {"id": "p4", "createdAt": "2023-11-14T22:08:20Z", "author": "ann", "height": 100},
                   {"id": "p5", "createdAt": "2023-11-14T21:58:20Z", "author": "dan", "height": 100}],
         "snapshot": {"postId": "gone", "postCreatedAt": "2023-11-14T22:10:20Z", "index": 3, "timelineCount": 7, "author": "ann"},
         "expect": {"postId": "p4", "confidence": 0.725, "method": "same_author", "placement": "standIn",
                    "explanation": "post p4 by ann was created 2 min from the saved post"}},
        {"name": "outside the window",
         "posts": [{"id": "p1", "createdAt": "2023-11-14T22:12:20Z", "author": "ann"}],
         "snapshot": {"postId": "gone", "postCreatedAt": "2023-11-14T22:10:20Z", "author": "ann"},
         "parameters": {"Window": 100},
         "expect": {"postId": null}},
        {"name": "the saved post is still there",
         "posts": [{"id": "p1", "createdAt": "2023-11-14T22:12:20Z", "author": "ann"}],
         "snapshot": {"postId": "p1", "postCreatedAt": "2023-11-14T22:12:20Z", "author": "ann"},
         "expect": {"postId": null}}
      ]}]}
    """

@_cdecl("timeline_plugin_describe")
public func describePlugin() -> UnsafePointer<CChar>? {
    UnsafeRawPointer(description.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("timeline_plugin_make")
public func make(
    _ name: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<CChar>?,
    _ capacity: Int64
) -> UnsafeMutableRawPointer? {
    guard let name, String(cString: name) == "SameAuthor" else {
        write("this plugin provides SameAuthor only", to: error, capacity: capacity)
        return nil
    }
    // The engine has validated the parameters against the schema above and filled in defaults.
    let json = parameters.map { Data(String(cString: $0).utf8) } ?? Data("{}".utf8)
    let values = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
    let strategy = SameAuthor(
        window: (values["Window"] as? NSNumber)?.doubleValue ?? 3600,
        maxVisited: (values["MaxVisited"] as? NSNumber)?.intValue ?? 2000)
    return Unmanaged.passRetained(strategy).toOpaque()
}

@_cdecl("timeline_plugin_propose")
public func propose(
    _ instance: UnsafeMutableRawPointer?, _ request: UnsafePointer<timeline_plugin_request>?,
    _ candidate: UnsafeMutablePointer<timeline_plugin_candidate>?
) -> Int32 {
    guard let instance, let request, let candidate, let timeline = request.pointee.timeline,
        let snapshot = request.pointee.snapshot
    else { return 0 }
    let strategy = Unmanaged<SameAuthor>.fromOpaque(instance).takeUnretainedValue()
    guard let best = strategy.propose(timeline.pointee, snapshot.pointee) else { return 0 }
    let window = strategy.window
    candidate.pointee.index = Int64(best.index)
    candidate.pointee.confidence = window > 0 ? 0.75 * (1 - best.delta / window) : 0.75
    candidate.pointee.placement = Int32(TIMELINE_PLUGIN_PLACEMENT_STAND_IN)
    write("same_author", to: candidate.pointee.method, capacity: candidate.pointee.method_capacity)
    let offsets = timeline.pointee.id_offsets!
    let start = Int(offsets[best.index])
    let end = Int(offsets[best.index + 1])
    let id = String(decoding: UnsafeRawBufferPointer(start: timeline.pointee.id_bytes + start, count: end - start), as: UTF8.self)
    let author = String(
        decoding: UnsafeRawBufferPointer(start: snapshot.pointee.author.bytes, count: Int(snapshot.pointee.author.length)),
        as: UTF8.self)
    write(
        "post \(id) by \(author) was created \(describe(best.delta)) from the saved post", to: candidate.pointee.explanation,
        capacity: candidate.pointee.explanation_capacity)
    return 1
}

@_cdecl("timeline_plugin_free")
public func free(_ instance: UnsafeMutableRawPointer?) {
    guard let instance else { return }
    Unmanaged<SameAuthor>.fromOpaque(instance).release()
}
