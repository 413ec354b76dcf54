import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the file system holding a store says of itself (`statvfs`).
enum FileSystem {
    /// True when the file system holding `path` is mounted read-only.
    static func isReadOnly(_ path: String) -> Bool {
        guard let status = status(path) else { return false }
        return status.f_flag & UInt(ST_RDONLY) != 0
    }

    /// True when the file system holding `path` has no block left for an ordinary user.
    static func isFull(_ path: String) -> Bool {
        guard let status = status(path) else { return false }
        return status.f_bavail == 0
    }

    /// True when this user may write the store at `path` and make or write the files SQLite
    /// keeps beside it (`-wal`, `-shm`): permissions, not the mount (`isReadOnly`).
    static func mayWriteStore(_ path: String) -> Bool {
        guard access(path, W_OK) == 0 else { return false }
        let directory = (path as NSString).deletingLastPathComponent
        if access(directory.isEmpty ? "." : directory, W_OK) == 0 { return true }
        return access(path + "-wal", W_OK) == 0 && access(path + "-shm", W_OK) == 0
    }

    /// A file as the system knows it: its device and inode, the same under any path.
    struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// The identity of the file at `path` (following links), or nil when there is none.
    static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    private static func status(_ path: String) -> statvfs? {
        var status = statvfs()
        let directory = FileManager.default.fileExists(atPath: path) ? path : (path as NSString).deletingLastPathComponent
        return statvfs(directory.isEmpty ? "." : directory, &status) == 0 ? status : nil
    }
}
