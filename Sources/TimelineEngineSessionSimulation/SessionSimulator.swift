import Foundation
import TimelineEngineCore
import TimelineEnginePositionTracking
import TimelineEngineSessionFormat

/// Writes simulated reading sessions from a real post corpus, deterministically for a seed.
///
/// Each session follows one reader through several visits to a feed. A visit is read with the
/// `ReadingModel`, then something happens and a restore point records where the reader truly
/// was, tagged with the case:
///
/// | tag | what happens before the restore point |
/// |---|---|
/// | `present` | nothing moves (a view rebuilt); sometimes posts above change height |
/// | `refresh` | new posts are prepended; sometimes posts above change height |
/// | `algorithmic` | an algorithmic feed refreshes and re-ranks everything |
/// | `deleted` | the post being read is deleted, sometimes with its neighbours |
/// | `redrafted` | the post being read is deleted and re-posted at the top, same or lightly edited text |
/// | `relaunch-soft` | background, then back within `Resume.HardCloseThreshold` (relaunched or not) |
/// | `relaunch-hard` | a crash, or a return after longer than the threshold; the relaunch loads newer posts |
/// | `paused` | no scrolling for longer than `AnchorMaxAge` |
///
/// Ground truth: `expected` is the anchor at the reader's last scroll (the tracker's own
/// definition), with its `viewportY`; when that post was deleted, the next surviving post in the
/// reader's direction (`ReadingDirection.survivor`; no `viewportY`); when it was re-drafted, the re-draft (no `viewportY`).
///
/// Every restore point also says how many posts above the expected one the reader has not seen
/// (`Expected.unread`), as a reader counts them: a post is seen once the view passed it, on any
/// device; a boost of a post is that post, a re-draft the post it re-drafts, and a post of the
/// same author with the same words but one (links aside, as a story posted again) the first of
/// them;
/// the same content twice counts once. New posts now and then include a boost of a post already
/// in the timeline, stamped when it was boosted, which is where the feed sorts it.
public struct SessionSimulator: Sendable {
    /// The posts sessions are built from, newest first.
    public let corpus: [Post]
    public let options: SimulationOptions
    /// For each corpus post that repeats an earlier one (the same author's words but one, links
    /// aside), the id of the first: what the reader takes it for.
    let repeats: [String: String]

    /// Phone and tablet viewports, in points.
    static let viewports: [SessionHeader.Viewport] = [
        .init(width: 390, height: 844), .init(width: 393, height: 852), .init(width: 430, height: 932),
        .init(width: 375, height: 667), .init(width: 820, height: 1180),
    ]

    public init(corpus: [Post], options: SimulationOptions) {
        self.corpus = corpus.sorted { $0.createdAt > $1.createdAt }
        self.options = options
        // The reader's rule for a post seen in another form: the same author's text of at least
        // three words, links aside, with at most one word changed, added or removed (under eight
        // words, added or removed only).
        var earlier: [String: [(id: String, words: Set<String>)]] = [:]
        var repeats: [String: String] = [:]
        for post in self.corpus.reversed() {
            guard let author = post.author, let text = post.text else { continue }
            let words = Set(
                text.lowercased().split(whereSeparator: \.isWhitespace).filter { !$0.hasPrefix("http") }
                    .flatMap { $0.split { !($0.isLetter || $0.isNumber) } }.map(String.init))
            guard words.count >= 3 else { continue }
            if let first = earlier[author]?.first(where: {
                $0.words.symmetricDifference(words).count <= (min($0.words.count, words.count) >= 8 ? 2 : 1)
            }) {
                repeats[post.id] = first.id
            } else {
                earlier[author, default: []].append((post.id, words))
            }
        }
        self.repeats = repeats
    }

    /// The smallest corpus that sessions can be built from.
    public static let minimumCorpusSize = 60

    /// Session `number` (from 1): the same for the same corpus, options and number.
    public func session(number: Int) -> RecordedSession {
        var random = SimulationRandom(seed: options.seed, stream: UInt64(number))
        let algorithmic: Bool
        switch options.feed {
        case .chronological: algorithmic = false
        case .algorithmic: algorithmic = true
        case .mixed: algorithmic = random.chance(0.5)
        }
        var builder = SessionBuilder(corpus: corpus, options: options, number: number, algorithmic: algorithmic, random: random)
        builder.identities = repeats
        random = builder.random
        if options.devices, options.caches { return builder.buildWithCaches() }
        return options.devices ? builder.buildOnDevices() : builder.build()
    }
}

/// The state of one session being simulated.
struct SessionBuilder {
    enum Episode: String, CaseIterable {
        case present, refresh, algorithmic, deleted, redrafted
        case relaunchSoft = "relaunch-soft"
        case relaunchHard = "relaunch-hard"
        case paused
    }

    let corpus: [Post]
    let options: SimulationOptions
    let algorithmic: Bool
    var random: SimulationRandom
    let reader: ReadingModel
    var header: SessionHeader
    let heightsKnown: Bool
    let tracker: PositionTracker
    /// Corpus positions: newer posts still unused are `corpus[..<newerCursor]`; older ones
    /// start at `olderCursor`.
    var newerCursor: Int
    var olderCursor: Int
    /// Every post in the timeline, newest first; `posts` is the display order.
    var chronological: [Post] = []
    /// The newest time of a post deleted from the feed: newer posts are newer than it too, as a
    /// server's are newer than every post it has had.
    var newestDeleted: Date?
    var posts: [Post] = []
    var cachedIndex: TimelineIndex?
    var offset = 0.0
    var now: Date
    var events: [SessionEvent] = []
    var lastScrollOffset = 0.0
    var redrafts = 0
    /// Boosts draw from a stream of their own, so that the rest of a session is drawn as it was
    /// before boosts were simulated.
    var boostRandom: SimulationRandom
    var boosts = 0
    /// What a post is to the reader: a boost is the post it boosts, a re-draft the post it
    /// re-drafts, a repeat of an earlier post that post (by id; a post absent is itself).
    var identities: [String: String] = [:]
    /// The identities of the posts the reader has seen, on any device: every post the viewport
    /// passed (the truth of "N new above you").
    var seen: Set<String> = []
    /// Per device, the index and offset of its last scroll, to know what the view passed.
    var lastSeenScroll: [String: (index: TimelineIndex, offset: Double)] = [:]
    /// The device events happen on (nil: the header's); the others' offsets wait in
    /// `parkedOffsets` (multi-device sessions).
    var device: String?
    var parkedOffsets: [String: (offset: Double, lastScroll: Double)] = [:]
    /// Per parked device, the post at its last scroll and where it stood in the viewport.
    var parkedAnchors: [String: (postId: String, viewportY: Double)] = [:]
    /// Whether this multi-device session has a tablet besides the phone and the laptop.
    var hasTablet = false

    init(corpus: [Post], options: SimulationOptions, number: Int, algorithmic: Bool, random: SimulationRandom) {
        self.corpus = corpus
        self.options = options
        self.algorithmic = algorithmic
        self.random = random
        boostRandom = SimulationRandom(seed: options.seed &+ 0xB0057, stream: UInt64(number))
        reader = ReadingModel(random: &self.random)
        heightsKnown = self.random.chance(0.75)
        let viewport = SessionSimulator.viewports[self.random.integer(0...SessionSimulator.viewports.count - 1)]
        tracker = PositionTracker(settings: options.tracker)
        let initialCount = min(self.random.integer(40...80), corpus.count / 3)
        // Devices with caches of their own are away for hours or days: hundreds of newer posts arrive.
        let reserve = options.caches ? min(1_400, corpus.count * 3 / 5) : min(150, corpus.count / 3)
        let start = self.random.integer(reserve...max(reserve, corpus.count - initialCount - min(200, corpus.count / 6)))
        newerCursor = start
        olderCursor = start + initialCount
        let top = corpus[start]
        now = top.createdAt.addingTimeInterval(self.random.uniform(60, 1800)).rounded()
        header = SessionHeader(
            id: "sim-\(options.seed)-\(number)", device: "simulated-\(Int(viewport.width))x\(Int(viewport.height))",
            account: "reader-\(number)", timeline: "home", feed: algorithmic ? .algorithmic : .chronological,
            viewport: viewport, startedAt: now)
        chronological = corpus[start..<olderCursor].map { prepare($0) }
    }

    mutating func build() -> RecordedSession {
        emit(.lifecycle(.launch))
        arrange()
        emit(.timeline(reason: .initial, posts: posts))
        startCatchingUp()
        let episodes = random.integer(6...12)
        for _ in 0..<episodes {
            advance(reader.firstScrollDelay(random: &random))
            readVisit()
            disrupt()
        }
        return RecordedSession(header: header, events: events)
    }

    // MARK: Timeline

    mutating func prepare(_ post: Post) -> Post {
        var prepared = post
        prepared.height = heightsKnown ? mediaHeight(for: post) : nil
        return prepared
    }

    /// A known height: the text's estimate, plus an image in three posts of ten.
    mutating func mediaHeight(for post: Post) -> Double {
        var height = HeightEstimate.height(forText: post.text)
        if random.chance(0.3) { height += Double(4 * random.integer(40...80)) }
        return height
    }

    var index: TimelineIndex {
        mutating get {
            if let cachedIndex { return cachedIndex }
            let built = TimelineIndex(Timeline(posts: posts, viewportHeight: header.viewport.height))
            cachedIndex = built
            return built
        }
    }

    /// Puts `chronological` in display order: as is, or ranked mostly by recency with noise.
    mutating func arrange() {
        cachedIndex = nil
        guard algorithmic else {
            posts = chronological
            return
        }
        var keyed: [(Double, Post)] = []
        for (rank, post) in chronological.enumerated() {
            keyed.append((Double(rank) + 6 * random.normal() * (1 + Double(rank) / 30), post))
        }
        posts = keyed.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Up to `count` newer posts from the corpus, stamped between the newest post the feed has had
    /// (deleted ones included) and now.
    mutating func takeNewer(_ count: Int) -> [Post] {
        let taken = min(count, newerCursor)
        guard taken > 0 else { return [] }
        let newest = max(chronological.first?.createdAt ?? now.addingTimeInterval(-3600), newestDeleted ?? .distantPast)
        let span = max(1, now.timeIntervalSince(newest))
        var fresh: [Post] = []
        for position in 0..<taken {
            var post = prepare(corpus[newerCursor - taken + position])
            post.createdAt = newest.addingTimeInterval((span * Double(taken - position) / Double(taken + 1)).rounded())
            fresh.append(post)
        }
        newerCursor -= taken
        // Now and then someone boosts a post already in the timeline (read or not): an entry of
        // its own among the new ones, with the booster as author and the original's text. Its time
        // is when it was boosted, which is where the feed sorts it (Mastodon's reblog `created_at`,
        // Bluesky's `reason.indexedAt`): between the new posts beside it.
        if !posts.isEmpty, boostRandom.chance(0.35) {
            let original = posts[boostRandom.integer(0...posts.count - 1)]
            boosts += 1
            let author = "booster\(boostRandom.integer(1...40))"
            let at = boostRandom.integer(0...fresh.count)
            let newer = at > 0 ? fresh[at - 1].createdAt : now
            let older = at < fresh.count ? fresh[at].createdAt : newest
            let boost = Post(
                id: "\(original.id)-boost\(boosts)", createdAt: older.addingTimeInterval((newer.timeIntervalSince(older) / 2).rounded(.down)),
                author: author, text: original.text, height: original.height, boostOf: original.boostOf ?? original.id)
            identities[boost.id] = identity(of: original)
            fresh.insert(boost, at: at)
        }
        return fresh
    }

    /// Records an event on the device in hand; timeline changes are shared, so carry none.
    mutating func emit(_ kind: SessionEvent.Kind) {
        var kind = kind
        // A restore point says how many posts above the reader's post they have not seen, counted
        // as a reader would (on the shared timeline; not with caches of their own).
        if case .restore(let tag, var expected) = kind, !options.caches, let position = posts.firstIndex(where: { $0.id == expected.postId }) {
            var counted = Set<String>()
            for post in posts[..<position] where !seen.contains(identity(of: post)) { counted.insert(identity(of: post)) }
            expected.unread = counted.count
            kind = .restore(tag: tag, expected: expected)
        }
        switch kind {
        case .timeline, .insert, .remove, .update, .sync: events.append(SessionEvent(at: now, kind))
        default: events.append(SessionEvent(at: now, kind, device: device))
        }
    }

    mutating func advance(_ seconds: Double) {
        now = now.addingTimeInterval(max(0, seconds))
    }

    // MARK: Reading

    mutating func scroll(to target: Double, explicit: Bool = false) {
        offset = index.clamp(offset: target).rounded()
        lastScrollOffset = offset
        see(offset: offset)
        emit(.scroll(offset: offset, explicit: explicit))
    }

    /// What a post is to the reader: the post it boosts or re-drafts, or the first post it
    /// repeats, else itself.
    func identity(of post: Post) -> String {
        identities[post.id] ?? post.id
    }

    /// The reader sees every post the view passed to reach `offset` on the device in hand: from
    /// its last scroll when the timeline is the same, else those shown.
    mutating func see(offset: Double) {
        let current = index
        let key = currentDevice
        var (low, high) = (offset, offset)
        if let last = lastSeenScroll[key], last.index === current { (low, high) = (min(low, last.offset), max(high, last.offset)) }
        lastSeenScroll[key] = (current, offset)
        guard var position = current.index(atOffset: max(0, low)) else { return }
        while position < current.count, current.y(of: position) < high + header.viewport.height {
            seen.insert(identity(of: posts[position]))
            position += 1
        }
    }

    /// One visit: read posts for a drawn time, scrolling in bursts; load older posts near the end.
    mutating func readVisit() {
        let budget = reader.visitLength(random: &random)
        let end = now.addingTimeInterval(budget)
        var first = true
        scroll(to: offset)
        while now < end {
            let current = index
            guard let anchor = tracker.anchorIndex(offset: offset, viewportHeight: header.viewport.height, in: current) else { return }
            let post = posts[anchor]
            let words = post.text?.split(whereSeparator: \.isWhitespace).count ?? 0
            advance(reader.dwell(reader.level(words: words, random: &random), random: &random))
            var target: Double
            var toTop = false
            if options.reading == .up {
                // Catching up: up by the height of the post above, or now and then back down to
                // re-read (by hand, never marked explicit).
                if !first, random.chance(reader.backwardChance) {
                    target = offset + reader.upwardDistance(from: current.maximumContentOffset - offset, random: &random)
                } else {
                    target = offset - (current.y(of: anchor) - current.y(of: max(0, anchor - 1)))
                }
            } else if !first, offset > 0, random.chance(reader.backwardChance) {
                target = offset - reader.upwardDistance(from: offset, random: &random)
                toTop = target <= 0
            } else {
                // Layout-driven: move by the height of the post just finished.
                target = offset + current.y(of: anchor + 1) - current.y(of: anchor)
            }
            first = false
            // A return to the top is on purpose (a tap on the status bar): on several devices,
            // where the format can say so, it is an explicit move back.
            burst(to: target, explicit: toTop && options.devices)
            if options.reading == .up {
                if offset < header.viewport.height { loadNewerKeepingPlace() }
            } else if offset > current.maximumContentOffset - 2 * header.viewport.height {
                loadOlder()
            }
        }
    }

    /// A catching-up reader near the top: newer posts arrive above, and the app keeps the
    /// reader's place (the offset grows by their height).
    mutating func loadNewerKeepingPlace() {
        let fresh = takeNewer(random.integer(5...20))
        guard !fresh.isEmpty else { return }
        chronological.insert(contentsOf: fresh, at: 0)
        posts.insert(contentsOf: fresh, at: 0)
        cachedIndex = nil
        advance(random.uniform(0.3, 1.2))
        emit(.insert(index: 0, posts: fresh))
        scroll(to: offset + index.y(of: fresh.count))
    }

    /// Where a catching-up reader starts: some way down the first page, at the last post they
    /// had read.
    mutating func startCatchingUp() {
        guard options.reading == .up, posts.count > 4 else { return }
        offset = index.clamp(offset: index.y(of: random.integer(posts.count / 3...(2 * posts.count) / 3))).rounded()
        lastScrollOffset = offset
    }

    /// Scrolls to `target` at a drawn speed, logging settled positions at most every 250 ms;
    /// `explicit` marks the scroll that arrives.
    mutating func burst(to target: Double, explicit: Bool = false) {
        let start = offset
        let destination = index.clamp(offset: target)
        let distance = abs(destination - start)
        guard distance >= 1 else { return }
        let duration = distance / reader.speed(random: &random)
        let steps = min(8, Int(duration / 0.25))
        if steps > 0 {
            for step in 1...steps {
                advance(0.25)
                scroll(to: start + (destination - start) * Double(step) * 0.25 / duration)
            }
        }
        advance(duration - Double(steps) * 0.25)
        scroll(to: destination, explicit: explicit)
    }

    /// Infinite scroll: the next page of older posts is appended.
    mutating func loadOlder() {
        let page = min(20, corpus.count - olderCursor)
        guard page > 0 else { return }
        let older = corpus[olderCursor..<olderCursor + page].map { prepare($0) }
        olderCursor += page
        chronological += older
        posts += older
        cachedIndex = nil
        advance(random.uniform(0.3, 1.2))
        emit(.insert(index: posts.count, posts: older))
    }

    // MARK: Disruptions

    /// The reader's place at the last scroll: the anchor's id and its viewportY.
    mutating func truth() -> (id: String, position: Int, viewportY: Double)? {
        let current = index
        guard let anchor = tracker.anchorIndex(offset: lastScrollOffset, viewportHeight: header.viewport.height, in: current) else {
            return nil
        }
        return (posts[anchor].id, anchor, current.y(of: anchor) - lastScrollOffset)
    }

    mutating func disrupt() {
        guard let truth = truth() else { return }
        let weights: [Episode: Double] =
            algorithmic
            ? [.present: 0.15, .algorithmic: 0.25, .deleted: 0.1, .redrafted: 0.1, .relaunchSoft: 0.13, .relaunchHard: 0.14, .paused: 0.13]
            : [.present: 0.18, .refresh: 0.18, .deleted: 0.12, .redrafted: 0.12, .relaunchSoft: 0.14, .relaunchHard: 0.14, .paused: 0.12]
        let choices = Episode.allCases.filter { weights[$0] != nil }
        let episode = choices[random.pick(weights: choices.map { weights[$0]! })]
        let maxAge = options.tracker.anchorMaxAge
        var expected = SessionEvent.Expected(postId: truth.id, viewportY: truth.viewportY)
        switch episode {
        case .present:
            advance(random.uniform(0.5, max(1, min(20, maxAge - 1))))
            if random.chance(0.3) { changeHeights(above: truth.position) }
        case .refresh:
            advance(random.uniform(1, max(2, min(20, maxAge - 2))))
            let fresh = takeNewer(random.integer(1...25))
            chronological.insert(contentsOf: fresh, at: 0)
            posts.insert(contentsOf: fresh, at: 0)
            cachedIndex = nil
            emit(.insert(index: 0, posts: fresh))
            if random.chance(0.3) { changeHeights(above: truth.position + fresh.count) }
            advance(random.uniform(0.2, 1))
        case .algorithmic:
            advance(random.uniform(1, max(2, min(20, maxAge - 2))))
            chronological.insert(contentsOf: takeNewer(random.integer(0...25)), at: 0)
            arrange()
            emit(.timeline(reason: .refresh, posts: posts))
            advance(random.uniform(0.2, 1))
        case .deleted:
            advance(random.uniform(1, max(2, min(20, maxAge - 2))))
            var gone: Set<String> = [truth.id]
            if random.chance(0.3) {
                let spread = random.integer(1...3)
                for position in max(0, truth.position - spread)...min(posts.count - 1, truth.position + spread) {
                    if random.chance(0.6) { gone.insert(posts[position].id) }
                }
            }
            guard let survivor = options.reading.direction.survivor(in: posts, around: truth.position, survives: { !gone.contains($0.id) })
            else { return }
            expected = SessionEvent.Expected(postId: survivor.id)
            remove(gone)
            advance(random.uniform(0.2, 1))
        case .redrafted:
            advance(random.uniform(1, max(2, min(20, maxAge - 2))))
            let original = posts[truth.position]
            remove([original.id])
            redrafts += 1
            var redraft = original
            redraft.id = "\(original.id)-redraft\(redrafts)"
            identities[redraft.id] = identity(of: original)
            redraft.createdAt = now
            redraft.text = edit(original.text)
            if heightsKnown, let height = original.height {
                // The same media; the text's share of the height follows the edit.
                redraft.height = height - HeightEstimate.height(forText: original.text) + HeightEstimate.height(forText: redraft.text)
            }
            chronological.insert(redraft, at: 0)
            posts.insert(redraft, at: 0)
            cachedIndex = nil
            advance(random.uniform(0.5, 3))
            emit(.insert(index: 0, posts: [redraft]))
            expected = SessionEvent.Expected(postId: redraft.id)
            advance(random.uniform(0.2, 1))
        case .relaunchSoft:
            advance(random.uniform(0.5, 10))
            emit(.lifecycle(.background))
            let away = random.uniform(2, max(3, options.hardCloseThreshold * 0.9))
            if random.chance(0.5) {
                // The system ends the app in the background; the reader comes back soon after.
                let killedAfter = away * random.uniform(0.2, 0.8)
                advance(killedAfter)
                emit(.lifecycle(.terminate))
                advance(away - killedAfter)
                emit(.lifecycle(.launch))
                relaunchTimeline(newPosts: random.chance(0.5) ? random.integer(1...10) : 0)
            } else {
                advance(away)
                emit(.lifecycle(.foreground))
            }
            advance(random.uniform(0.3, 1.5))
        case .relaunchHard:
            advance(random.uniform(0.5, 10))
            if random.chance(0.5) {
                emit(.lifecycle(.terminate))
            } else {
                emit(.lifecycle(.background))
                advance(random.uniform(30, 600))
                emit(.lifecycle(.terminate))
            }
            advance(max(options.hardCloseThreshold * 2, random.logNormal(mu: 7.1, sigma: 1.2)))
            emit(.lifecycle(.launch))
            relaunchTimeline(newPosts: random.integer(0...40))
            advance(random.uniform(0.3, 1.5))
        case .paused:
            advance(maxAge * random.uniform(1.5, 10))
        }
        emit(.restore(tag: episode.rawValue, expected: expected))
        // The reader carries on from where they truly were.
        advance(random.uniform(0.3, 1))
        if let position = index.index(of: expected.postId) {
            scroll(to: index.y(of: position) - (expected.viewportY ?? 0))
        }
    }

    mutating func remove(_ ids: Set<String>) {
        for post in chronological where ids.contains(post.id) { newestDeleted = max(newestDeleted ?? post.createdAt, post.createdAt) }
        chronological.removeAll { ids.contains($0.id) }
        posts.removeAll { ids.contains($0.id) }
        cachedIndex = nil
        emit(.remove(ids: ids.sorted()))
    }

    /// After a relaunch the app loads the timeline again, with newer posts on top.
    mutating func relaunchTimeline(newPosts: Int) {
        chronological.insert(contentsOf: takeNewer(newPosts), at: 0)
        arrange()
        emit(.timeline(reason: .relaunch, posts: posts))
    }

    /// Posts above the reader change height (an image loads, a post is edited).
    mutating func changeHeights(above position: Int) {
        guard position > 0 else { return }
        var changed: [Post] = []
        for _ in 0..<random.integer(1...3) {
            let target = random.integer(max(0, position - 6)...position - 1)
            var post = posts[target]
            if heightsKnown {
                post.height = (post.height ?? HeightEstimate.height(forText: post.text)) + Double(4 * random.integer(10...50))
            } else {
                post.text = (post.text ?? "") + "\n[edited]"
            }
            posts[target] = post
            if let chronologicalPosition = chronological.firstIndex(where: { $0.id == post.id }) { chronological[chronologicalPosition] = post }
            changed.removeAll { $0.id == post.id }
            changed.append(post)
        }
        cachedIndex = nil
        advance(random.uniform(0.1, 0.5))
        emit(.update(posts: changed))
    }

    /// A re-draft's text: the same in half the cases, otherwise a word added or one shortened.
    mutating func edit(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return text }
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        switch random.integer(0...3) {
        case 0, 1:
            return text
        case 2:
            words.insert(["really", "now", "also", "still", "just"][random.integer(0...4)], at: random.integer(0...words.count))
        default:
            let candidates = words.indices.filter { words[$0].count > 3 }
            guard let chosen = candidates.isEmpty ? nil : candidates[random.integer(0...candidates.count - 1)] else { return text + "!" }
            words[chosen].removeLast()
        }
        return words.joined(separator: " ")
    }
}

extension Date {
    /// To the whole second, as the corpus's timestamps are.
    func rounded() -> Date {
        Date(timeIntervalSince1970: timeIntervalSince1970.rounded())
    }
}
