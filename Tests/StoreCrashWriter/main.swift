import Foundation
// A child process for the store's tests.
//
//   store-crash-writer STORE
//     Writes as fast as it can, one committed transaction at a time, printing the number of
//     each write once it is committed. TimelineStoreTests kills it with SIGKILL mid-burst and
//     checks that the store holds every write it reported.
//   store-crash-writer STORE reopen COUNT NAME
//     Opens the store anew COUNT times and saves one snapshot (NAME-k) each time, as separate
//     processes of an app or `engine` invocations do. Exits 1 with the error on stderr at the
//     first failure. Two of them run at once to show that no open fails with "database is locked".
//   store-crash-writer STORE timelines FIRST
//     Cycles through the multi-row transactions, from version FIRST on, printing each step once
//     it is committed: "save K" (the timeline replaced by 300 posts "K-0"…), "trim K" (trimmed
//     to 200 by LRU) and "maintain K" (maintenance to 150). The store's crash test kills it at
//     random points and checks that the timeline is wholly one of those states.
//   store-crash-writer STORE sync FOLDER FIRST
//     Saves a position (post K, from FIRST on) and runs a sync round through the Directory
//     transport at FOLDER, over and over, printing "saved K" and "synced K" once each is done.
//     The outbox's crash test kills it at random points and checks that no write was lost: each
//     is in the outbox or in the published file.
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineLRU
import TimelineEnginePositionSync
import TimelineEngineStore

let arguments = CommandLine.arguments
let scope = StoreScope(account: "crash", timeline: "home")
if arguments.count == 5, arguments[2] == "sync", var number = Int(arguments[4]) {
    let store = try await TimelineStore(path: arguments[1])
    var configuration = TimelineConfiguration.defaults
    configuration.sync.transport = ComponentSpec(name: "Directory", parameters: ["Path": .init(value: .string(arguments[3]))])
    let components = try SyncComponents(configuration: configuration)
    func report(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    while true {
        try await store.sync.savePosition(PositionSnapshot(postId: "\(number)"), scope: scope, device: "crash")
        report("saved \(number)")
        _ = try await SyncRound(store: store, components: components, device: "crash", gracePeriod: 30 * 86_400).run()
        report("synced \(number)")
        number += 1
    }
}
if arguments.count == 4, arguments[2] == "timelines", var version = Int(arguments[3]) {
    let store = try await TimelineStore(path: arguments[1])
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    func report(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    while true {
        let posts = (0..<300).map { Post(id: "\(version)-\($0)", createdAt: now.addingTimeInterval(Double(-$0)), text: "post \($0) of \(version)") }
        try await store.timelines.saveTimeline(posts, scope: scope, refreshedAt: now)
        report("save \(version)")
        _ = try await store.timelines.trimTimeline(scope: scope, policy: LRUPolicy(maxEntries: 200), now: now)
        report("trim \(version)")
        _ = try await store.performMaintenance(
            timelinePolicy: LRUPolicy(maxEntries: 150), historyPolicy: LRUPolicy(maxEntries: 10),
            readPostsPolicy: LRUPolicy(maxEntries: 10), now: now)
        report("maintain \(version)")
        version += 1
    }
}
if arguments.count == 5, arguments[2] == "reopen", let count = Int(arguments[3]) {
    for number in 0..<count {
        do {
            let store = try await TimelineStore(path: arguments[1])
            try await store.positions.saveSnapshot(PositionSnapshot(postId: "\(arguments[4])-\(number)", savedAt: Date()), scope: scope)
        } catch {
            FileHandle.standardError.write(Data("open \(number): \(error)\n".utf8))
            exit(1)
        }
    }
    exit(0)
}
let store = try await TimelineStore(path: arguments[1])
var number = 0
while true {
    let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(number))
    try await store.positions.markRead(["post-\(number)"], scope: scope, at: date)
    try await store.positions.saveSnapshot(PositionSnapshot(postId: "post-\(number)", viewportY: Double(number), savedAt: date), scope: scope)
    FileHandle.standardOutput.write(Data("\(number)\n".utf8))
    number += 1
}
