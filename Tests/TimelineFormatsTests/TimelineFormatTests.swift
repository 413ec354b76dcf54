import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineTestSupport

@Suite("Timeline and snapshot formats", .timeLimit(.minutes(10)))
struct TimelineFormatTests {
    @Test("RFC 3339 timestamps, with fractions and offsets")
    func timestamps() {
        #expect(Timestamp.parse("2022-12-07T21:31:40Z") == Date(timeIntervalSince1970: 1_670_448_700))
        #expect(Timestamp.parse("2022-12-07T22:31:40.5+01:00") == Date(timeIntervalSince1970: 1_670_448_700.5))
        #expect(Timestamp.parse("2022-12-07T21:31:40") == nil)
        #expect(Timestamp.parse("2022-02-30T21:31:40Z") == nil)
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_670_448_700)) == "2022-12-07T21:31:40Z")
        // An offset that carries the time outside the years 1 to 9999 (UTC) is refused: no
        // timestamp could write it back (it was stored, then every export of it failed).
        #expect(Timestamp.parse("0001-01-01T00:00:00+01:00") == nil)
        #expect(Timestamp.parse("9999-12-31T23:30:00-01:00") == nil)
        #expect(Timestamp.parse("0001-01-01T00:00:00-01:00").map(Timestamp.format) == "0001-01-01T01:00:00Z")
        #expect(Timestamp.parse("9999-12-31T23:59:59.5Z").map(Timestamp.format) == "9999-12-31T23:59:59.500Z")
    }

    @Test("the engine's JSON and JSON Lines")
    func engineFormats() throws {
        let json = Data(
            "{\"viewportHeight\": 640, \"posts\": [{\"id\": \"1\", \"createdAt\": \"2022-12-07T21:31:40Z\", \"text\": \"hi\", \"height\": 120}]}".utf8
        )
        let timeline = try TimelineFormat.read(json)
        #expect(timeline.viewportHeight == 640)
        #expect(timeline.posts == [Post(id: "1", createdAt: Date(timeIntervalSince1970: 1_670_448_700), text: "hi", height: 120)])
        let lines = Data("{\"id\": \"a\", \"createdAt\": \"2022-12-07T21:31:40Z\"}\n{\"id\": \"b\", \"createdAt\": \"2022-12-07T21:30:40Z\"}\n".utf8)
        #expect(try TimelineFormat.read(lines).posts.map(\.id) == ["a", "b"])
    }

    @Test("errors carry the line")
    func errors() {
        let lines = Data("{\"id\": \"a\", \"createdAt\": \"2022-12-07T21:31:40Z\"}\n{\"id\": \"b\", \"createdAt\": \"yesterday\"}\n".utf8)
        let error = #expect(throws: TimelineFormatError.self) { try TimelineFormat.read(lines) }
        #expect(error?.description == "2:26: post b: \"createdAt\" is not an RFC 3339 timestamp: \"yesterday\"")
    }

    @Test("a Mastodon home timeline: boosts are their own entries, HTML becomes text")
    func mastodon() throws {
        let json = Data(
            """
            [{"id": "110", "created_at": "2023-01-02T10:00:00.000Z", "account": {"acct": "alice"},
              "content": "<p>Hello &amp; welcome</p><p>second<br>line</p>", "reblog": null},
             {"id": "109", "created_at": "2023-01-02T09:00:00.000Z", "account": {"acct": "bob"}, "content": "",
              "reblog": {"id": "50", "created_at": "2022-12-31T00:00:00.000Z", "account": {"acct": "carol"}, "content": "<p>original</p>"}}]
            """.utf8)
        let posts = try TimelineFormat.read(json).posts
        #expect(posts.map(\.id) == ["110", "109"])
        #expect(posts[0].text == "Hello & welcome\nsecond\nline")
        #expect(posts[1].author == "bob")
        #expect(posts[1].text == "original")
        #expect(posts[1].createdAt == Date(timeIntervalSince1970: 1_672_650_000))  // 2023-01-02T09:00:00Z
    }

    @Test("a Bluesky timeline: reposts are their own entries")
    func bluesky() throws {
        let json = Data(
            """
            {"feed": [
              {"post": {"uri": "at://did:plc:a/app.bsky.feed.post/1", "author": {"handle": "a.bsky.social"},
                        "record": {"text": "first", "createdAt": "2024-05-01T12:00:00.000Z"}}},
              {"post": {"uri": "at://did:plc:a/app.bsky.feed.post/1", "author": {"handle": "a.bsky.social"},
                        "record": {"text": "first", "createdAt": "2024-05-01T12:00:00.000Z"}},
               "reason": {"$type": "app.bsky.feed.defs#reasonRepost", "by": {"did": "did:plc:b", "handle": "b.bsky.social"},
                          "indexedAt": "2024-05-01T13:00:00.000Z"}}],
             "cursor": "x"}
            """.utf8)
        let posts = try TimelineFormat.read(json).posts
        #expect(posts.map(\.id) == ["at://did:plc:a/app.bsky.feed.post/1", "at://did:plc:a/app.bsky.feed.post/1#repost-by:did:plc:b"])
        #expect(posts[1].author == "b.bsky.social")
        #expect(posts[1].createdAt == Date(timeIntervalSince1970: 1_714_568_400))  // 2024-05-01T13:00:00Z
    }

    @Test("a Bluesky post sits where the AppView sorts it: the earlier of its record's time and the server's indexedAt")
    func blueskyFeedTime() throws {
        // Written on a clock an hour and a half ahead: the AppView sorts it at indexedAt. A
        // backdated post keeps its own time; an indexedAt that is no time is ignored.
        let json = Data(
            """
            {"feed": [
              {"post": {"uri": "at://did:plc:a/app.bsky.feed.post/ahead", "indexedAt": "2024-05-01T12:30:00.000Z",
                        "record": {"text": "from the future", "createdAt": "2024-05-01T14:00:00.000Z"}}},
              {"post": {"uri": "at://did:plc:a/app.bsky.feed.post/backdated", "indexedAt": "2024-05-01T12:20:00.000Z",
                        "record": {"text": "imported", "createdAt": "2019-01-01T00:00:00.000Z"}}},
              {"post": {"uri": "at://did:plc:a/app.bsky.feed.post/odd", "indexedAt": "soon",
                        "record": {"text": "odd", "createdAt": "2024-05-01T12:10:00.000Z"}}}],
             "cursor": "x"}
            """.utf8)
        let times = try TimelineFormat.read(json).posts.map(\.createdAt)
        #expect(times == [Timestamp.parse("2024-05-01T12:30:00Z"), Timestamp.parse("2019-01-01T00:00:00Z"), Timestamp.parse("2024-05-01T12:10:00Z")])
        let lookedUp = try BlueskyTimeline.lookedUp(
            from: JSONReader().read(
                #"{"posts": [{"uri": "at://did:plc:a/app.bsky.feed.post/ahead", "indexedAt": "2024-05-01T12:30:00Z", "record": {"createdAt": "2024-05-01T14:00:00Z"}}]}"#
            ))
        #expect(lookedUp.map(\.createdAt) == [Timestamp.parse("2024-05-01T12:30:00Z")])
    }

    @Test("snapshots round-trip")
    func snapshots() throws {
        let snapshot = PositionSnapshot(
            postId: "9", postCreatedAt: Date(timeIntervalSince1970: 1_670_448_700), viewportY: -12.5,
            contentOffset: 400, viewportHeight: 800, index: 4, timelineCount: 20,
            neighbors: .init(above: ["8", "7"], below: ["10"]), text: "hi",
            savedAt: Date(timeIntervalSince1970: 1_670_448_800), deviceId: "phone")
        #expect(try SnapshotCoding.snapshot(from: SnapshotCoding.value(of: snapshot)) == snapshot)
    }
}
