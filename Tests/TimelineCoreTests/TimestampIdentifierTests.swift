import Foundation
import Testing
import TimelineEngineCore

/// The time a Bluesky post's record key holds (atproto.com/specs/tid), checked against the
/// published examples of TID codecs.
@Suite("Timestamp identifiers", .timeLimit(.minutes(1)))
struct TimestampIdentifierTests {
    @Test("a TID, alone or as the key of a post's at:// URI, gives the time it holds; anything else gives none")
    func creationTimes() {
        // @atcute/tid's example: 3l25zusnsfctk holds 1724171495793000 µs and clock id 816.
        #expect(TimestampIdentifier.microseconds(of: "3l25zusnsfctk") == 1_724_171_495_793_000)
        #expect(TimestampIdentifier.microseconds(of: "3l25zusnsfck2") == 1_724_171_495_793_000)
        #expect(TimestampIdentifier.microseconds(of: "2222222222222") == 0)
        let uri = "at://did:plc:z72i7hdynmk6r22z27h6tvur/app.bsky.feed.post/3l25zusnsfctk"
        #expect(TimestampIdentifier.creationTime(ofPostId: uri) == Date(timeIntervalSince1970: 1_724_171_495.793))
        for other in [
            "113456789012345678", "at://did:plc:x/app.bsky.feed.like/3l25zusnsfctk", "at://did:plc:x/app.bsky.feed.post/self",
            "3l25zusnsfct", "3l25zusnsfctkk", "kl25zusnsfctk", "3L25ZUSNSFCTK", "3l25zusnsfct1",
        ] {
            #expect(TimestampIdentifier.creationTime(ofPostId: other) == nil, "\(other)")
        }
    }
}
