import Foundation
import TimelineEngineKit

/// Where a command's `-o PATH` writes, so that naming a path never destroys what is there:
///
/// - a new path or a regular file is written whole through a temporary file renamed over it (a
///   reader never sees half of it);
/// - a symbolic link is followed and the file it names written so; the link stays a link;
/// - a character device (`/dev/null`, `/dev/full`, a terminal) is written through, and a failed
///   or short write is an error;
/// - anything else (a directory, a FIFO, a socket, a block device) is refused: writing there would
///   block, or replace it with a regular file.
enum OutputFile {
    /// Writes `data` to `path`, as above; `what` names it in an error ("the report").
    static func write(_ data: Data, to path: String, what: String) throws(CommandFailure) {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        func failure(_ reason: String) -> CommandFailure { CommandFailure(.unreadable, "\(path): error: cannot write \(what): \(reason)") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) else {
            return try atomically(data, to: target, failure: failure)
        }
        if isDirectory.boolValue { throw failure("it is a directory") }
        let type = (try? FileManager.default.attributesOfItem(atPath: target)[.type] as? FileAttributeType) ?? nil
        switch type {
        case .typeRegular?:
            try atomically(data, to: target, failure: failure)
        case .typeCharacterSpecial?:
            guard let handle = FileHandle(forWritingAtPath: target) else { throw failure("it cannot be opened for writing") }
            defer { try? handle.close() }
            do {
                try handle.write(contentsOf: data)
            } catch {
                throw failure(FileErrorReason.describe(error))
            }
        default:
            throw failure("it is not a regular file (\(Self.kind(type))); name a file, or leave -o out for standard output")
        }
    }

    private static func atomically(_ data: Data, to path: String, failure: (String) -> CommandFailure) throws(CommandFailure) {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw failure(FileErrorReason.describe(error))
        }
    }

    /// A file type in words.
    static func kind(_ type: FileAttributeType?) -> String {
        switch type {
        case .typeBlockSpecial?: "a block device"
        case .typeSocket?: "a socket"
        default: "a FIFO or another special file"
        }
    }
}
