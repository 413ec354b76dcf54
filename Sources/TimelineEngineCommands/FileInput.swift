import Foundation
import TimelineEngineKit

/// Reads a file named on the command line; an unreadable one is reported and exits 2.
enum FileInput {
    /// `mapped` maps a large file into memory instead of copying it (timelines, sessions).
    static func read(_ path: String, mapped: Bool = false) throws -> Data {
        do {
            return try FileData.read(URL(fileURLWithPath: path), mapped: mapped)
        } catch {
            throw CommandFailure(.unreadable, "\(path): error: \(error.description)")
        }
    }
}
