import Foundation
import ValueTree

/// Reads a file named on the command line; an unreadable one is reported and exits 2.
enum FileInput {
    static func read(_ path: String) throws -> Data {
        do {
            return try FileData.read(URL(fileURLWithPath: path))
        } catch {
            Console.error("\(path): error: \(error.description)")
            throw EngineExit.usage
        }
    }
}
