import Foundation
import Testing
import TimelineEngineContentSimilarity
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineSearch
import TimelineEngineTestSupport

/// ContentSimilarity on real tweets (`Tests/Fixtures/posts`, see its README): a post deleted and
/// re-drafted under a new id, with the same or a lightly edited text, is found.
@Suite("ContentSimilarity on real posts", .ownThread, .timeLimit(.minutes(30)))
struct RealPostsTests {
    static let posts: [Post] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/posts/tweets-rtweet.jsonl")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var posts: [Post] = []
        for line in text.split(separator: "\n").prefix(1500) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = object["id"] as? String, let body = object["text"] as? String
            else { continue }
            posts.append(Post(id: id, createdAt: Date(timeIntervalSince1970: Double(posts.count)), text: body))
        }
        return posts
    }()

    /// Light edits a person makes when re-drafting: a typo fixed, a word added, punctuation changed.
    static func edit(_ text: String, _ kind: Int) -> String {
        var words = text.split(separator: " ").map(String.init)
        switch kind % 3 {
        case 0: return text
        case 1: words.append("(edited)")
        default:
            if let longest = words.indices.max(by: { words[$0].count < words[$1].count }) { words[longest] = String(words[longest].dropLast()) }
        }
        return words.joined(separator: " ")
    }

    @Test("re-drafted posts are found among 1,500 real tweets")
    func redrafts() throws {
        #expect(Self.posts.count >= 1000)
        // Distinct, substantial texts, so that "the right answer" is well defined.
        var seen = Set<String>()
        let candidates = Self.posts.indices.filter { index in
            let text = Self.posts[index].text ?? ""
            return TextIndexWords.count(text) >= 8 && seen.insert(text).inserted
        }
        let stage = ContentSimilarityStrategy()
        var found = 0
        let sample = stride(from: 0, to: candidates.count, by: max(1, candidates.count / 60)).map { candidates[$0] }
        for (number, position) in sample.enumerated() {
            var posts = Self.posts
            let original = posts[position]
            posts[position] = Post(id: "redraft-\(original.id)", createdAt: original.createdAt, text: Self.edit(original.text!, number))
            let request = RestorationRequest(
                snapshot: PositionSnapshot(postId: original.id, text: original.text),
                index: TimelineIndex(Timeline(posts: posts)))
            var trace: [StageVerdict] = []
            if let candidate = stage.propose(request, trace: &trace, depth: 0), posts[candidate.index].id == "redraft-\(original.id)" {
                found += 1
                #expect(candidate.confidence >= 0.5)
            }
        }
        print("ContentSimilarity found \(found) of \(sample.count) re-drafted real posts")
        #expect(Double(found) >= 0.95 * Double(sample.count))
    }
}

enum TextIndexWords {
    static func count(_ text: String) -> Int { TextIndex.words(text).count }
}
