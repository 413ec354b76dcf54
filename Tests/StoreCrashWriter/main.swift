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
import Foundation
import TimelineCore
import TimelineStore

let arguments = CommandLine.arguments
let scope = StoreScope(account: "crash", timeline: "home")
if arguments.count == 5, arguments[2] == "reopen", let count = Int(arguments[3]) {
    for number in 0..<count {
        do {
            let store = try TimelineStore(path: arguments[1])
            try store.saveSnapshot(PositionSnapshot(postId: "\(arguments[4])-\(number)", savedAt: Date()), scope: scope)
        } catch {
            FileHandle.standardError.write(Data("open \(number): \(error)\n".utf8))
            exit(1)
        }
    }
    exit(0)
}
let store = try TimelineStore(path: arguments[1])
var number = 0
while true {
    let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(number))
    try store.markRead(["post-\(number)"], scope: scope, at: date)
    try store.saveSnapshot(PositionSnapshot(postId: "post-\(number)", viewportY: Double(number), savedAt: date), scope: scope)
    FileHandle.standardOutput.write(Data("\(number)\n".utf8))
    number += 1
}
