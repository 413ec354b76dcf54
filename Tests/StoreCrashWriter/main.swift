// Writes to a store as fast as it can, one committed transaction at a time, printing the number
// of each write once it is committed. TimelineStoreTests kills it with SIGKILL mid-burst and
// checks that the store holds every write it reported.
// Usage: store-crash-writer STORE
import Foundation
import TimelineCore
import TimelineStore

let store = try TimelineStore(path: CommandLine.arguments[1])
let scope = StoreScope(account: "crash", timeline: "home")
var number = 0
while true {
    let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(number))
    try store.markRead(["post-\(number)"], scope: scope, at: date)
    try store.saveSnapshot(PositionSnapshot(postId: "post-\(number)", viewportY: Double(number), savedAt: date), scope: scope)
    FileHandle.standardOutput.write(Data("\(number)\n".utf8))
    number += 1
}
