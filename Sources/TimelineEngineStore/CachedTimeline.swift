import Foundation
import TimelineEngineCore
import TimelineEngineFormats

extension TimelineStore {
    /// What a timeline looked like when it was cached.
    public struct CachedTimeline: Sendable, Equatable {
        public var posts: [Post]
        /// When the source last refreshed it; nil if it never did.
        public var refreshedAt: Date?
        public var viewportHeight: Double?
        /// The ids of the posts with a gap below them (`TimelineGap`).
        public var gapsBelow: Set<String> = []
        /// Which version of the cached posts these are: a random number drawn whenever they
        /// change, nil in a store that has not written them since it was upgraded. A text
        /// index kept in the store is used only on the revision it was made from.
        public var revision: Int64?

        public init(posts: [Post], refreshedAt: Date? = nil, viewportHeight: Double? = nil, gapsBelow: Set<String> = [], revision: Int64? = nil) {
            self.posts = posts
            self.refreshedAt = refreshedAt
            self.viewportHeight = viewportHeight
            self.gapsBelow = gapsBelow
            self.revision = revision
        }

        /// Where posts are missing, top to bottom.
        public var gaps: [TimelineGap] { TimelineGap.gaps(in: posts, below: gapsBelow) }

        /// The posts as a `Timeline`, in the cached viewport's height (the default when none was cached).
        public var timeline: Timeline {
            viewportHeight.map { Timeline(posts: posts, viewportHeight: $0) } ?? Timeline(posts: posts)
        }
    }
}
