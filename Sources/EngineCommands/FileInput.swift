import Foundation
import ValueTree

/// Reads a file named on the command line; an unreadable one is reported and exits 2.
enum FileInput {
    static func read(_ path: String) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            Console.error("\(path): error: cannot read file: \(FileErrorReason.describe(error))")
            throw EngineExit.usage
        }
    }
}
