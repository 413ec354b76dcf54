import Foundation
import TimelineEngineSessionFormat

/// Sessions on several devices: one reader with a phone (the header's device), a laptop and, in
/// some sessions, a tablet; one shared timeline, and the cases where sync decides where the
/// reader lands.
///
/// Each visit is read on the device in hand; then one case happens and a `restore` on the
/// device the reader picks up records the truth: the anchor at the reader's last reading
/// scroll, on whichever device that was. Deliveries (`sync` events) follow the devices: a device
/// pushes when it goes to the background, and the device picked up pulls when it opens.
///
/// | tag | what happens before the restore point |
/// |---|---|
/// | `device-switch` | the reader puts one device down and, 1 to 30 minutes later, picks up the other |
/// | `two-devices` | both devices are open; the reader reads on one, then the other, two or three times, finding their place by hand; later they pick one up |
/// | `offline-day` | the device just read on was offline: its positions go out a day later, and the reader picks up the other device after that |
/// | `clock-fast` | the laptop's clock is an hour fast (the header's `clockSkew`); the reader moves on on the phone before the laptop's delivery arrives, then returns to the laptop |
/// | `stale-device` | the other device opens at its own old position before hearing from the first; the reader glances a post or two on and puts it down, then returns to the first |
/// | `scroll-back` | the reader scrolls back on purpose to re-read a post 3 to 10 posts up (an `explicit` scroll), then switches device |
/// | `scroll-back-by-hand` | the same, scrolled by hand: the app does not mark it `explicit` |
/// | `deleted-at-switch` | the reader puts one device down; the post they were on is deleted (sometimes with neighbours) before they pick up the other; the truth is the next surviving post in the reader's direction (below, or above when catching up) |
/// | `three-devices` | the reader puts one device down and reads on the tablet, then puts that down and picks up the third device |
/// | `diverged` | with `divergences` only, after a visit that read on, where the other device's old place is twelve posts or more behind: the reader puts one device down without it pushing, picks up the other, which opens at its own old place, and reads a stretch there (more than five posts, stopping short of the first device's place) in one of three ways (`DivergenceWay`); both then push and the reader picks up one of them. The restore point is marked `diverged`, and the truth is where the reader chooses to go on: the later reading or the furthest place, half and half |
///
/// The truth is the reader's last reading place: a glance at a stale device is not reading.
/// At a true divergence it is the reader's answer to "where do you want to continue?".
extension SessionBuilder {
    enum DeviceEpisode: String, CaseIterable {
        case deviceSwitch = "device-switch"
        case twoDevices = "two-devices"
        case offlineDay = "offline-day"
        case clockFast = "clock-fast"
        case staleDevice = "stale-device"
        case scrollBack = "scroll-back"
        case scrollBackByHand = "scroll-back-by-hand"
        case deletedAtSwitch = "deleted-at-switch"
        case threeDevices = "three-devices"
        case diverged
    }

    /// The devices of a multi-device session; the first is the header's. The tablet takes part
    /// in the sessions that have one (`hasTablet`).
    static let phone = "phone", laptop = "laptop", tablet = "tablet"
    /// How far the laptop's clock is ahead in the sessions where it is wrong (one in four).
    static let fastClock = 3600.0

    var currentDevice: String { device ?? header.device }
    /// The other device of the phone and laptop pair (from the tablet: the phone).
    var otherDevice: String { currentDevice == SessionBuilder.phone ? SessionBuilder.laptop : SessionBuilder.phone }

    mutating func buildOnDevices() -> RecordedSession {
        header.version = SessionHeader.multiDeviceVersion
        header.device = SessionBuilder.phone
        header.id = header.id.replacingOccurrences(of: "sim-", with: "sim-devices-")
        if random.chance(0.25) { header.clockSkew = [SessionBuilder.laptop: SessionBuilder.fastClock] }
        emit(.lifecycle(.launch))
        arrange()
        emit(.timeline(reason: .initial, posts: posts))
        startCatchingUp()
        // The laptop exists from the start, unused: the phone's positions must reach it.
        use(SessionBuilder.laptop)
        advance(random.uniform(0.5, 2))
        emit(.lifecycle(.launch))
        advance(random.uniform(0.5, 2))
        emit(.lifecycle(.background))
        // Half the sessions have a tablet too, first used in a three-device case.
        hasTablet = random.chance(0.5)
        use(SessionBuilder.phone)
        let episodes = random.integer(5...9)
        for _ in 0..<episodes {
            advance(reader.firstScrollDelay(random: &random))
            let opened = truth()?.id
            readVisit()
            guard let place = truth() else { break }
            disruptAcrossDevices(
                place: SessionEvent.Expected(postId: place.id, viewportY: place.viewportY), position: place.position, opened: opened)
        }
        return RecordedSession(header: header, events: events)
    }

    /// Makes `name` the device events happen on, keeping each device's own scroll offset.
    mutating func use(_ name: String) {
        let current = currentDevice
        guard name != current else { return }
        parkedOffsets[current] = (offset, lastScrollOffset)
        if let anchor = tracker.anchorIndex(offset: lastScrollOffset, viewportHeight: header.viewport.height, in: index) {
            parkedAnchors[current] = (posts[anchor].id, index.y(of: anchor) - lastScrollOffset)
        }
        let parked = parkedOffsets[name] ?? (0, 0)
        offset = parked.offset
        lastScrollOffset = parked.lastScroll
        device = name == header.device ? nil : name
    }

    /// An open device whose timeline gained posts above the reader keeps the reader's place, as
    /// apps do (scroll anchoring): its offset moves with them, recorded as a scroll.
    mutating func keepPlace() {
        guard let anchor = parkedAnchors[currentDevice], let position = index.index(of: anchor.postId) else { return }
        let kept = index.clamp(offset: index.y(of: position) - anchor.viewportY).rounded()
        if abs(kept - lastScrollOffset) >= 1 { scroll(to: kept) }
    }

    /// Device `to` receives what device `from` holds now.
    mutating func deliver(from: String, to: String) {
        events.append(SessionEvent(at: now, .sync(from: from, to: to)))
    }

    /// The reader puts the device in hand down; it pushes what it holds to `other` after a
    /// drawn delay, unless `other` is nil (the delivery comes later, or not at all).
    mutating func putDown(pushTo other: String?) {
        advance(random.uniform(0.5, 10))
        emit(.lifecycle(.background))
        if let other {
            advance(random.uniform(1, 20))
            deliver(from: currentDevice, to: other)
        }
    }

    /// The reader picks up `name` after `away` seconds: a launch (with newer posts after a
    /// long time) or a return to the foreground; it pulls from the other device when `pull`.
    mutating func pickUp(_ name: String, after away: Double, pull: Bool) {
        let from = currentDevice
        advance(away)
        use(name)
        if away > 600 || random.chance(0.5) {
            emit(.lifecycle(.launch))
            if away > 600 { loadNewer(random.integer(away > 36_000 ? 10...40 : 0...15)) }
        } else {
            emit(.lifecycle(.foreground))
        }
        if pull {
            advance(random.uniform(0.3, 1))
            deliver(from: from == name ? otherDevice : from, to: name)
        }
        advance(random.uniform(0.5, 1.5))
    }

    /// An app opened after a while shows newer posts: an algorithmic feed re-ranks everything;
    /// a chronological one gains them on top (the only change, so recorded as an insert).
    mutating func loadNewer(_ count: Int) {
        guard !algorithmic else { return relaunchTimeline(newPosts: count) }
        let fresh = takeNewer(count)
        guard !fresh.isEmpty else { return }
        chronological.insert(contentsOf: fresh, at: 0)
        posts.insert(contentsOf: fresh, at: 0)
        cachedIndex = nil
        emit(.insert(index: 0, posts: fresh))
    }

    /// The reader's last reading place, as a restore point expects it.
    mutating func readingPlace() -> SessionEvent.Expected? {
        truth().map { SessionEvent.Expected(postId: $0.id, viewportY: $0.viewportY) }
    }

    /// On the device in hand, the reader finds `place` by hand and reads a visit on from it.
    mutating func findAndRead(from place: SessionEvent.Expected) {
        find(place)
        advance(reader.firstScrollDelay(random: &random))
        readVisit()
    }

    /// The reader scrolls to `place` by hand on the device in hand.
    mutating func find(_ place: SessionEvent.Expected) {
        guard let position = index.index(of: place.postId) else { return }
        advance(random.uniform(1, 4))
        burst(to: index.y(of: position) - (place.viewportY ?? 0))
    }

    /// One case across devices after a visit that opened at the post `opened` and left the
    /// reader at `start`, at `position`.
    mutating func disruptAcrossDevices(place start: SessionEvent.Expected, position: Int, opened: String?) {
        var place = start
        let skewed = header.clockSkew[SessionBuilder.laptop] != nil
        let weights: [DeviceEpisode: Double] = [
            .deviceSwitch: 0.2, .twoDevices: 0.12, .offlineDay: 0.08, .staleDevice: 0.15, .scrollBack: 0.1, .scrollBackByHand: 0.12,
            .deletedAtSwitch: algorithmic ? 0 : 0.1, .threeDevices: hasTablet && currentDevice != SessionBuilder.tablet ? 0.15 : 0,
            .clockFast: skewed && currentDevice == SessionBuilder.laptop ? 0.3 : 0,
            .diverged: options.divergences && !algorithmic && canDiverge(at: position, opened: opened) ? 0.4 : 0,
        ]
        let choices = DeviceEpisode.allCases.filter { weights[$0]! > 0 }
        let episode = choices[random.pick(weights: choices.map { weights[$0]! })]
        let first = currentDevice
        let second = otherDevice
        switch episode {
        case .deviceSwitch:
            putDown(pushTo: second)
            pickUp(second, after: random.uniform(60, 1800), pull: true)
        case .twoDevices:
            // Both open: the reader goes back and forth, finding their place by hand; each
            // device pushes after a drawn delay, which may come after the reader has moved on.
            for _ in 0..<random.integer(2...3) {
                let from = currentDevice
                let to = otherDevice
                advance(random.uniform(1, 5))
                use(to)
                emit(.lifecycle(.foreground))
                let delay = random.uniform(1, 15)
                if delay < 3 {
                    advance(delay)
                    deliver(from: from, to: to)
                }
                findAndRead(from: place)
                if delay >= 3 { deliver(from: from, to: to) }
                guard let next = readingPlace() else { return }
                place = next
            }
            let last = currentDevice
            let other = otherDevice
            putDown(pushTo: other)
            use(other)
            keepPlace()
            emit(.lifecycle(.background))
            advance(random.uniform(1, 20))
            deliver(from: other, to: last)
            pickUp(random.chance(0.5) ? last : other, after: random.uniform(300, 3600), pull: true)
        case .offlineDay:
            // The device just read on was offline: its positions go out when it is back, a day later.
            putDown(pushTo: nil)
            advance(random.uniform(72_000, 100_800))
            deliver(from: first, to: second)
            pickUp(second, after: random.uniform(60, 3600), pull: true)
        case .clockFast:
            // On the laptop, an hour fast: its delivery is late, and the reader moves on on the
            // phone first, finding their place by hand.
            putDown(pushTo: nil)
            pickUp(second, after: random.uniform(30, 300), pull: false)
            findAndRead(from: place)
            guard let next = readingPlace() else { return }
            place = next
            putDown(pushTo: nil)
            advance(random.uniform(1, 20))
            deliver(from: first, to: second)
            deliver(from: second, to: first)
            pickUp(first, after: random.uniform(60, 1800), pull: true)
        case .staleDevice:
            // The other device opens before hearing from this one, at its own old place, and
            // saves it; the reader puts it down and returns.
            putDown(pushTo: nil)
            pickUp(second, after: random.uniform(60, 1800), pull: false)
            // It shows where it was, and the reader glances a post or two further before
            // putting it down: a new position, where they were not.
            scroll(to: offset)
            advance(random.uniform(1, 3))
            if let anchor = tracker.anchorIndex(offset: offset, viewportHeight: header.viewport.height, in: index) {
                burst(to: offset + index.y(of: anchor + random.integer(1...2)) - index.y(of: anchor))
            }
            advance(random.uniform(2, 8))
            emit(.lifecycle(.background))
            advance(random.uniform(1, 20))
            deliver(from: first, to: second)
            deliver(from: second, to: first)
            pickUp(first, after: random.uniform(30, 600), pull: true)
        case .scrollBack, .scrollBackByHand:
            // Back to a post a few posts up (down, for a reader catching up), read in detail: on
            // purpose (a tap the app marks explicit), or by hand.
            let back = random.integer(3...10)
            let target = options.reading == .up ? min(posts.count - 1, position + back) : max(0, position - back)
            advance(random.uniform(0.5, 3))
            scroll(to: index.y(of: target), explicit: episode == .scrollBack)
            advance(reader.dwell(.detail, random: &random))
            guard let next = readingPlace() else { return }
            place = next
            putDown(pushTo: second)
            pickUp(second, after: random.uniform(60, 1800), pull: true)
        case .deletedAtSwitch:
            // Put down and delivered; before the other device opens, the post the reader was
            // on goes, sometimes with its neighbours: the truth is the next surviving post in the reader's
            // direction (below reading down, above catching up).
            putDown(pushTo: second)
            advance(random.uniform(30, 600))
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
            pickUp(second, after: random.uniform(60, 1800), pull: true)
        case .threeDevices:
            // Down on this device, a visit on the tablet, then the third device.
            let third = first == SessionBuilder.phone ? SessionBuilder.laptop : SessionBuilder.phone
            putDown(pushTo: SessionBuilder.tablet)
            pickUp(SessionBuilder.tablet, after: random.uniform(60, 1800), pull: true)
            findAndRead(from: place)
            guard let next = readingPlace() else { return }
            place = next
            putDown(pushTo: third)
            advance(random.uniform(1, 20))
            deliver(from: first, to: third)
            pickUp(third, after: random.uniform(60, 1800), pull: true)
        case .diverged:
            guard let answer = diverge(from: place, at: position) else { return }
            place = answer
        }
        emit(.restore(tag: episode.rawValue, expected: place))
        // The reader carries on from where they truly were, on the device in hand.
        advance(random.uniform(0.3, 1))
        if let target = index.index(of: place.postId) { scroll(to: index.y(of: target) - (place.viewportY ?? 0)) }
    }

    /// Whether a divergence can follow the visit just read, which opened at the post `opened`
    /// and left the reader at `position`: the visit read on (a post or more along the reading
    /// direction), so the reader's place is one the other device cannot have heard of, and the
    /// other device's own old place is well behind `position` (twelve posts or more), where a
    /// stretch read on it is a part of its own. After a visit that read nothing the reader is
    /// where the other device may already have heard they were: reading elsewhere then is no
    /// divergence.
    mutating func canDiverge(at position: Int, opened: String?) -> Bool {
        guard let parked = parkedAnchors[otherDevice], let at = index.index(of: parked.postId),
            let opened, let start = index.index(of: opened)
        else { return false }
        func along(_ from: Int, _ to: Int) -> Int { options.reading == .up ? from - to : to - from }
        return along(start, position) >= 1 && along(at, position) >= 12
    }

    /// A true divergence, from the reader's `place` at `position` on the device in hand: it is
    /// put down without pushing; the other device opens at its own old place, well behind
    /// (`canDiverge`), and the reader reads a stretch, more than five posts and at least half a
    /// minute, stopping short of `position`, in one of the ways of `DivergenceWay`. Both push,
    /// and the reader picks one up. Returns the reader's answer to "where do you want to
    /// continue?": the later reading or the furthest place, half and half; nil when the timeline
    /// is too short for one.
    mutating func diverge(from place: SessionEvent.Expected, at position: Int) -> SessionEvent.Expected? {
        let first = currentDevice
        let second = otherDevice
        // Positions count along the reading direction: behind is towards the top reading down.
        let down = options.reading != .up
        func behind(_ index: Int, by posts: Int) -> Int { down ? index - posts : index + posts }
        func distance(_ from: Int, _ to: Int) -> Int { down ? to - from : from - to }
        putDown(pushTo: nil)
        pickUp(second, after: random.uniform(60, 1800), pull: false)
        // The app opens where this device was (its scroll anchoring keeps the place).
        keepPlace()
        scroll(to: offset)
        // Newer posts may have arrived on top since: the first device's place is found by its id.
        guard var at = tracker.anchorIndex(offset: offset, viewportHeight: header.viewport.height, in: index),
            let position = index.index(of: place.postId)
        else { return nil }
        // The reading takes one of three ways: on from this device's own place; a flick up to the
        // newest posts (by hand, not a move back: they were never read) and on down from the top;
        // or a short first reading, six to eight posts. A reader catching up has no flick: the
        // newest posts are where they are going.
        let ways = down ? DivergenceWay.allCases : [.on, .short]
        let way = ways[random.integer(0...ways.count - 1)]
        if way == .flick {
            advance(random.uniform(0.5, 2))
            burst(to: 0)
            guard let top = tracker.anchorIndex(offset: offset, viewportHeight: header.viewport.height, in: index) else { return nil }
            at = top
        }
        // Read a stretch: post by post, each for as long as the reading model says.
        let stretch = min(way == .short ? random.integer(6...8) : random.integer(6...20), distance(at, position) - 3)
        let started = now
        var read = 0
        while read < stretch || now.timeIntervalSince(started) < 30 {
            let words = posts[at].text?.split(whereSeparator: \.isWhitespace).count ?? 0
            advance(reader.dwell(reader.level(words: words, random: &random), random: &random))
            guard read < stretch else { continue }
            let next = down ? at + 1 : at - 1
            guard posts.indices.contains(next) else { break }
            burst(to: offset + index.y(of: next) - index.y(of: at))
            at = next
            read += 1
        }
        guard let later = readingPlace() else { return nil }
        // Both push; the reader picks one of them up.
        putDown(pushTo: first)
        deliver(from: first, to: second)
        let device = random.chance(0.5) ? first : second
        pickUp(device, after: random.uniform(60, 1800), pull: true)
        deliver(from: device == first ? second : first, to: device)
        var answer = random.chance(0.5) ? later : place
        answer.diverged = true
        return answer
    }
}
