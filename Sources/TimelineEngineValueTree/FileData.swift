import Foundation

/// Reads the files the engine is given, with the same short reasons everywhere
/// (`No such file or directory`, `Permission denied`, `not a regular file (a directory)`).
///
/// A directory, a device such as `/dev/zero` or a socket is refused before reading, so that it
/// is reported as what it is, not as "Permission denied" or a Foundation error code, and a
/// device that never ends cannot make a reader wait forever. Pipes are read (`<(command)`).
public enum FileData {
    /// A file that cannot be read, and why.
    public struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reason alone: `No such file or directory`.
        public let reason: String

        public init(reason: String) {
            self.reason = reason
        }

        /// `cannot read file: REASON`.
        public var description: String { "cannot read file: \(reason)" }
    }

    /// Why `path` is no file to read, or nil when it can be read.
    public static func problem(atPath path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        switch Int(info.st_mode) & Int(S_IFMT) {
        case Int(S_IFREG), Int(S_IFIFO): return nil
        case Int(S_IFDIR): return "not a regular file (a directory)"
        default: return "not a regular file (a device or socket)"
        }
    }

    /// Why `path` is not a regular file (following links), or nil when it is one: for what must
    /// be opened as a whole file, never waited on, such as a library.
    public static func regularFileProblem(atPath path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        switch Int(info.st_mode) & Int(S_IFMT) {
        case Int(S_IFREG): return nil
        case Int(S_IFDIR): return "not a regular file (a directory)"
        case Int(S_IFIFO): return "not a regular file (a pipe)"
        default: return "not a regular file (a device or socket)"
        }
    }

    /// The size in bytes of the file at `path` (following links), or nil when it cannot be
    /// looked at. A pipe's is 0: its end is not known before it is read.
    public static func size(atPath path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    static func isPipe(atPath path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && Int(info.st_mode) & Int(S_IFMT) == Int(S_IFIFO)
    }

    /// The contents of the file at `url`, mapped into memory when `mapped` and safe.
    public static func read(_ url: URL, mapped: Bool = false) throws(ReadError) -> Data {
        if let problem = problem(atPath: url.path) { throw ReadError(reason: problem) }
        if isPipe(atPath: url.path) {
            // Foundation's Data(contentsOf:) cannot read a pipe; read it to its end.
            guard let handle = FileHandle(forReadingAtPath: url.path) else { throw ReadError(reason: String(cString: strerror(errno))) }
            defer { try? handle.close() }
            do {
                return try handle.readToEnd() ?? Data()
            } catch {
                throw ReadError(reason: FileErrorReason.describe(error))
            }
        }
        do {
            return try Data(contentsOf: url, options: mapped ? .mappedIfSafe : [])
        } catch {
            throw ReadError(reason: FileErrorReason.describe(error))
        }
    }
}
