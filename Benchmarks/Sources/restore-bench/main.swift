// Index build and restore costs for every strategy and the default pipeline at 1k, 10k, 100k
// and 1M posts, memory per post, and ContentSimilarity against a brute-force scan.
//
// Usage: restore-bench [--texts cycled|sampled|real] [--no-scan] [POSTS.jsonl...] [SIZES...]
//        restore-bench [--texts …] launch-prepare DIR SIZE POSTS.jsonl; restore-bench launch DIR SITUATION [--rebuild]
//   (the first restore after launch on a cached timeline: Launch.swift)
//        restore-bench [--texts …] text-index SIZE ROUNDS POSTS.jsonl
//   (the text index alone, built ROUNDS times on every core and on one, in turn: the median and
//   the best of each)
//        restore-bench metrics
//   (the façade's restore, and what counting its outcome costs with no metrics backend: Metrics.swift)
//   --no-scan leaves out the brute-force scan (18–46 s at 1M posts), for profiling the restores.
//   cycled  (default) the corpus's texts repeated, each made unique by a "#i" suffix: every
//           text has size/corpus near-copies, the worst case for a similarity query.
//   sampled texts drawn word by word from the corpus's vocabulary and text lengths (seeded):
//           no near-copies, the typical case of a home timeline.
//   real    the corpus's texts once each, no repetition; sizes beyond the corpus are skipped.
import Foundation
import TimelineEngineKit

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

var arguments = Array(CommandLine.arguments.dropFirst())
var mode = "cycled"
if let flag = arguments.firstIndex(of: "--texts"), flag + 1 < arguments.count {
    mode = arguments[flag + 1]
    arguments.removeSubrange(flag...flag + 1)
}
if arguments.contains("launch") {
    let rest = Array(arguments.drop { $0 != "launch" }.dropFirst())
    try! await Launch.run(directory: rest[0], situation: rest[1], rebuild: rest.contains("--rebuild"))
    exit(0)
}
let scan = !arguments.contains("--no-scan")
arguments.removeAll { $0 == "--no-scan" }
let textFiles = arguments.filter { $0.hasSuffix(".jsonl") }
let requestedSizes = arguments.compactMap { Int($0) }.isEmpty ? [1_000, 10_000, 100_000, 1_000_000] : arguments.compactMap { Int($0) }
let texts: [String] = {
    let all = textFiles.flatMap { file -> [String] in
        guard let data = FileManager.default.contents(atPath: file), let timeline = try? TimelineFormat.read(data, format: .jsonl) else { return [] }
        return timeline.posts.compactMap(\.text)
    }
    return all.isEmpty ? ["a post about the timeline"] : all
}()
let sizes = mode == "real" ? requestedSizes.filter { $0 <= texts.count } : requestedSizes

/// SplitMix64: reproducible texts for a seed.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Texts drawn from the corpus: each word by its frequency in the corpus, each length from a
/// corpus text's length.
struct SampledTexts {
    let words: [Substring]
    let lengths: [Int]
    var random = Random(state: 2026)

    init(_ texts: [String]) {
        let split = texts.map { $0.split(separator: " ") }
        words = split.flatMap { $0 }
        lengths = split.map(\.count).filter { $0 > 0 }
    }

    mutating func next() -> String {
        let length = lengths[Int(random.next() % UInt64(lengths.count))]
        return (0..<length).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
    }
}

let base = Date(timeIntervalSince1970: 1_700_000_000)
@MainActor
func makePosts(_ count: Int) -> [Post] {
    var posts: [Post] = []
    posts.reserveCapacity(count)
    var sampler = SampledTexts(texts)
    for i in 0..<count {
        let text: String
        switch mode {
        case "sampled": text = sampler.next()
        case "real": text = texts[i]
        default: text = texts[i % texts.count] + " #\(i)"
        }
        // Every 3rd post is out of time order, as in an algorithmic feed.
        let age = i % 3 == 0 ? Double((i * 7919) % max(1, count)) * 30 : Double(i) * 30
        posts.append(
            Post(
                id: String(1_600_000_000_000_000_000 + i), createdAt: base.addingTimeInterval(-age),
                author: "user\(i % 997)", text: text, height: Double(80 + (i * 37) % 240)))
    }
    return posts
}

if arguments.first == "metrics" {
    try await metricsBench()
    exit(0)
}
if let at = arguments.firstIndex(of: "launch-prepare") {
    try! await Launch.prepare(directory: arguments[at + 1], posts: makePosts(Int(arguments[at + 2])!))
    exit(0)
}
if let at = arguments.firstIndex(of: "text-index") {
    let size = Int(arguments[at + 1])!
    let rounds = Int(arguments[at + 2])!
    let sample = makePosts(size).map { $0.text ?? "" }
    var every: [Double] = []
    var one: [Double] = []
    for _ in 0..<rounds {
        for parallelism in [nil, 1] {
            let start = now()
            let index = TextIndex(sample, parallelism: parallelism)
            let time = Double(now() - start) / 1e6
            precondition(index.textCount == size)
            if parallelism == nil { every.append(time) } else { one.append(time) }
        }
    }
    print("| posts (\(mode)) | rounds | every core, median | every core, best | one core, median | one core, best |")
    print("|---|---|---|---|---|---|")
    print(String(format: "| %d | %d | %.0f ms | %.0f ms | %.0f ms | %.0f ms |", size, rounds, median(every), every.min()!, median(one), one.min()!))
    exit(0)
}
print("Texts: \(mode), from \(texts.count) corpus texts\n")
print("| posts | decode JSON Lines | index build | text index build, every core | text index build, one core | index memory/post | Post struct |")
print("|---|---|---|---|---|---|---|")
var restoreRows: [String] = []
var similarityRows: [String] = []
for size in sizes {
    let posts = makePosts(size)
    // Decode: the same timeline as JSON Lines.
    var jsonl = ""
    jsonl.reserveCapacity(size * 200)
    for post in posts { jsonl += (try! JSONWriter().write(PostCoding.value(of: post))) + "\n" }
    let data = Data(jsonl.utf8)
    jsonl = ""
    var start = now()
    let decoded = try! TimelineFormat.read(data, format: .jsonl)
    let decodeTime = Double(now() - start) / 1e6
    start = now()
    let index = TimelineIndex(Timeline(posts: decoded.posts, viewportHeight: 800))
    let buildTime = Double(now() - start) / 1e6
    let indexMemory = Double(index.memoryFootprint) / Double(size)
    let postsMemory = Double(MemoryLayout<Post>.stride)
    // The text index, built once here, outside the timed restores; then again on one core.
    start = now()
    _ = index.textIndex
    let textIndexTime = Double(now() - start) / 1e6
    start = now()
    _ = TextIndex(decoded.posts.map { $0.text ?? "" }, parallelism: 1)
    let serialTextIndexTime = Double(now() - start) / 1e6
    print(
        String(
            format: "| %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.0f B | %.0f B + strings |", size, decodeTime, buildTime, textIndexTime,
            serialTextIndexTime, indexMemory, postsMemory))

    // Snapshots of posts that survive (present), are gone (deleted) or were re-drafted.
    var generator = SystemRandomNumberGenerator()
    let samples = (0..<200).map { _ in Int.random(in: 0..<size, using: &generator) }
    func snapshot(_ i: Int, id: String? = nil) -> PositionSnapshot {
        let post = decoded.posts[i]
        return PositionSnapshot(
            postId: id ?? post.id, postCreatedAt: post.createdAt, viewportY: -20, contentOffset: index.y(of: i) + 20,
            viewportHeight: 800, index: i, timelineCount: size,
            neighbors: .init(
                above: (max(0, i - 5)..<i).reversed().map { decoded.posts[$0].id },
                below: (i + 1..<min(size, i + 6)).map { decoded.posts[$0].id }),
            text: post.text)
    }
    for type in BuiltInStrategies.registry.types where type.kind == .restoration || type.kind == .fallback {
        guard !type.isComposition, let stage = try! type.make(StrategyOptions(parameters: type.defaults)).as((any RestorationStage).self) else {
            continue
        }
        var times: [Double] = []
        for i in samples {
            let request = RestorationRequest(snapshot: snapshot(i, id: type.name == "ExactMatch" ? nil : "gone"), index: index)
            var trace: [StageVerdict] = []
            let t0 = now()
            _ = stage.propose(request, trace: &trace, depth: 0)
            times.append(Double(now() - t0) / 1e3)
        }
        restoreRows.append(String(format: "| %@ | %d | %.2f µs |", type.name, size, median(times)))
    }
    guard let anchor = try! BuiltInStrategies.registry["ViewportAnchor"]!.make(StrategyOptions()).as((any PositioningStage).self) else {
        fatalError("ViewportAnchor is not a positioning strategy")
    }
    var anchorTimes: [Double] = []
    for i in samples {
        let candidate = Candidate(index: i, confidence: 1, method: .exactMatch, placement: .standIn, strategy: "x", explanation: "")
        let t0 = now()
        _ = anchor.place(candidate, request: RestorationRequest(snapshot: snapshot(i), index: index))
        anchorTimes.append(Double(now() - t0) / 1e3)
    }
    restoreRows.append(String(format: "| ViewportAnchor | %d | %.2f µs |", size, median(anchorTimes)))
    let pipeline = try! PipelineBuilder().build()
    for (label, id) in [("default pipeline, post present", nil as String?), ("default pipeline, post deleted", "gone")] {
        var times: [Double] = []
        for i in samples {
            let t0 = now()
            _ = pipeline.restore(RestorationRequest(snapshot: snapshot(i, id: id), index: index))
            times.append(Double(now() - t0) / 1e3)
        }
        restoreRows.append(String(format: "| %@ | %d | %.2f µs |", label, size, median(times)))
    }
    // ContentSimilarity against a brute-force scan of every text.
    let textIndex = index.textIndex
    var indexed: [Double] = []
    var brute: [Double] = []
    for i in samples.prefix(!scan ? 0 : size >= 1_000_000 ? 1 : size >= 100_000 ? 3 : 20) {
        let query = decoded.posts[i].text ?? ""
        var t0 = now()
        _ = textIndex.mostSimilar(to: query, threshold: 0.3, limit: 1)
        indexed.append(Double(now() - t0) / 1e6)
        t0 = now()
        var best = (0, 0.0)
        for (j, post) in decoded.posts.enumerated() {
            let similarity = textIndex.similarity(query, post.text ?? "")
            if similarity > best.1 { best = (j, similarity) }
        }
        brute.append(Double(now() - t0) / 1e6)
    }
    if scan {
        similarityRows.append(
            String(format: "| %d | %.2f ms | %.1f ms | %.0f× |", size, median(indexed), median(brute), median(brute) / median(indexed)))
    }
}
print("\n| stage | posts | median restore |")
print("|---|---|---|")
for row in restoreRows { print(row) }
print("\n| posts | ContentSimilarity (inverted index) | brute-force scan | speed-up |")
print("|---|---|---|---|")
for row in similarityRows { print(row) }
