import Foundation

/// The session files a list of paths names: files as given, and every `.jsonl` file under a
/// directory (recursively), in a stable order.
public enum SessionFiles {
    /// A path that cannot be used.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { "\(path): error: \(message)" }
    }

    /// Expands `paths`: each file as given; each directory's `.jsonl` files sorted by path.
    /// Duplicates are kept once.
    public static func expand(_ paths: [String]) throws(Problem) -> [String] {
        var result: [String] = []
        var seen = Set<String>()
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Problem(path: path, message: "no such file or directory")
            }
            var found: [String] = []
            if isDirectory.boolValue {
                guard let enumerator = manager.enumerator(atPath: path) else {
                    throw Problem(path: path, message: "cannot list the directory")
                }
                while let relative = enumerator.nextObject() as? String {
                    guard relative.hasSuffix(".jsonl") else { continue }
                    let full = path.hasSuffix("/") ? path + relative : path + "/" + relative
                    var nestedDirectory: ObjCBool = false
                    if manager.fileExists(atPath: full, isDirectory: &nestedDirectory), !nestedDirectory.boolValue { found.append(full) }
                }
                found.sort()
            } else {
                found = [path]
            }
            for file in found where seen.insert(file).inserted { result.append(file) }
        }
        return result
    }
}

/// A deterministic share of the sessions: shard K of N takes every N-th file of the expanded
/// list, starting at the K-th, so N machines with the same corpus split it without overlap.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based.
    public var number: Int
    public var count: Int

    public init(number: Int, count: Int) {
        self.number = number
        self.count = count
    }

    /// Parses `K/N` with 1 ≤ K ≤ N.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let number = Int(parts[0]), let count = Int(parts[1]), count >= 1, number >= 1, number <= count else {
            return nil
        }
        self.init(number: number, count: count)
    }

    public func select<T>(_ items: [T]) -> [T] {
        items.enumerated().filter { $0.offset % count == number - 1 }.map(\.element)
    }

    public var description: String { "\(number)/\(count)" }
}
