import Foundation
import TimelineEngineSessionFormat

/// Sessions where each device keeps a cache of its own (format version 3): the reader reads on
/// the phone, which has the whole timeline; the laptop holds what it fetched, a head page at a
/// time. Each visit on the phone ends in one of the cases below; the reader then picks up the
/// laptop, which hears the phone's position, fetches its head page (`fetch`, 40 posts) and
/// restores (the truth is the reader's last reading place on the phone); then they go back to
/// the phone.
///
/// | tag | what happens before the laptop opens |
/// |---|---|
/// | `hours-later` | 2 to 10 hours pass; 40 to 200 posts arrive on top |
/// | `next-day` | 18 to 30 hours pass; 150 to 450 posts arrive |
/// | `deleted-across-gap` | as either, and the post the reader was on is deleted (sometimes with neighbours): the truth is the next surviving post in the reader's direction |
/// | `within-head-page` | 10 minutes to an hour; so few posts arrive that the reader's post is in the laptop's new head page |
///
/// The laptop fetched its first head page when the session began, so its cache is that page,
/// the windows earlier restores reached, and the head pages since, with gaps between them.
extension SessionBuilder {
    enum CacheEpisode: String, CaseIterable {
        case hoursLater = "hours-later"
        case nextDay = "next-day"
        case deletedAcrossGap = "deleted-across-gap"
        case withinHeadPage = "within-head-page"
    }

    /// The head page a device fetches.
    static let headPage = 40

    mutating func buildWithCaches() -> RecordedSession {
        header.version = SessionHeader.cachesVersion
        header.api = options.api
        header.cursors = options.api == .bluesky && algorithmic ? .opaque : options.cursors
        header.device = SessionBuilder.phone
        header.id = header.id.replacingOccurrences(of: "sim-", with: "sim-caches-")
        emit(.lifecycle(.launch))
        arrange()
        emit(.timeline(reason: .initial, posts: posts))
        // The laptop fetches its head page at the start, then is put away.
        use(SessionBuilder.laptop)
        advance(random.uniform(0.5, 2))
        emit(.lifecycle(.launch))
        emit(.fetch(limit: SessionBuilder.headPage))
        advance(random.uniform(2, 10))
        emit(.lifecycle(.background))
        use(SessionBuilder.phone)
        for _ in 0..<random.integer(3...5) {
            // Two to five visits on the phone, a few minutes apart, before the switch.
            for visit in 0..<random.integer(2...5) {
                if visit > 0 { advance(random.uniform(60, 900)) }
                advance(reader.firstScrollDelay(random: &random))
                readVisit()
            }
            guard let place = truth() else { break }
            switchToLaptop(place: SessionEvent.Expected(postId: place.id, viewportY: place.viewportY), position: place.position)
        }
        return RecordedSession(header: header, events: events)
    }

    /// The phone is put down; time passes and posts arrive; the laptop opens, hears the phone,
    /// fetches its head page and restores; the reader then goes back to the phone.
    mutating func switchToLaptop(place start: SessionEvent.Expected, position: Int) {
        var place = start
        let nearTop = position + 5 < SessionBuilder.headPage
        let weights: [CacheEpisode: Double] = [
            .hoursLater: 0.35, .nextDay: 0.35, .deletedAcrossGap: algorithmic ? 0 : 0.2, .withinHeadPage: nearTop ? 0.3 : 0,
        ]
        let choices = CacheEpisode.allCases.filter { weights[$0]! > 0 }
        let episode = choices[random.pick(weights: choices.map { weights[$0]! })]
        putDown(pushTo: nil)
        let away: Double
        let arriving: Int
        switch episode {
        case .hoursLater: (away, arriving) = (random.uniform(7_200, 36_000), random.integer(40...200))
        case .nextDay: (away, arriving) = (random.uniform(64_800, 108_000), random.integer(150...450))
        case .deletedAcrossGap: (away, arriving) = (random.uniform(7_200, 108_000), random.integer(40...400))
        case .withinHeadPage: (away, arriving) = (random.uniform(600, 3_600), random.integer(0...max(0, SessionBuilder.headPage - position - 2)))
        }
        advance(away / 2)
        if episode == .deletedAcrossGap {
            var gone: Set<String> = [place.postId]
            if random.chance(0.3) {
                let spread = random.integer(1...3)
                for neighbour in max(0, position - spread)...min(posts.count - 1, position + spread) where random.chance(0.6) {
                    gone.insert(posts[neighbour].id)
                }
            }
            guard let survivor = options.reading.direction.survivor(in: posts, around: position, survives: { !gone.contains($0.id) })
            else { return }
            remove(gone)
            place = SessionEvent.Expected(postId: survivor.id)
        }
        loadNewer(arriving)
        advance(away / 2)
        // The laptop opens, hears the phone, and fetches its head page.
        use(SessionBuilder.laptop)
        emit(.lifecycle(.launch))
        advance(random.uniform(0.3, 1))
        deliver(from: SessionBuilder.phone, to: SessionBuilder.laptop)
        emit(.fetch(limit: SessionBuilder.headPage))
        advance(random.uniform(0.5, 1.5))
        emit(.restore(tag: episode.rawValue, expected: place))
        // The reader glances and goes back to the phone, which keeps its place above the new posts.
        advance(random.uniform(5, 60))
        emit(.lifecycle(.background))
        advance(random.uniform(30, 600))
        use(SessionBuilder.phone)
        emit(.lifecycle(.launch))
        keepPlace()
        advance(random.uniform(0.5, 1.5))
    }
}
