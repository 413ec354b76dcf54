import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineValueTree

/// Reads a recorded session (JSON Lines, format version 1) one event at a time, so that memory
/// does not grow with the session's length beyond the file's mapping.
///
/// The header is read when the reader is made: a missing or invalid header, or a `version`
/// other than 1, throws and the session cannot be used. After that nothing throws. A malformed
/// line, an invalid known event, an event whose `at` goes backwards, and a last line cut off by
/// a crash are skipped with a warning naming the file, line and column; an unknown event type
/// is skipped and an unknown field ignored with a warning (once per field), so that the format
/// can grow. Blank lines are ignored.
public struct SessionReader {
    public let name: String
    public let header: SessionHeader
    /// The line `next()` last returned an event from.
    public private(set) var line = 1
    private let data: Data
    private var position: Int
    private var lastAt: Date
    private var pendingWarnings: [SessionIssue] = []
    private var reportedFields: Set<String> = []
    private var reportedTypes: Set<String> = []

    /// Reads the session in `data`; `name` is how messages name the file.
    public init(data: Data, name: String) throws(SessionIssue) {
        self.name = name
        self.data = data
        var start = 0
        if data.count >= 3, data[data.startIndex] == 0xEF, data[data.startIndex + 1] == 0xBB, data[data.startIndex + 2] == 0xBF {
            start = 3
        }
        guard let first = SessionReader.nextLine(in: data, from: start) else {
            throw SessionIssue(.error, file: name, "the file is empty; a session starts with its header line")
        }
        let decoded = data.withUnsafeBytes { raw -> Result<(SessionHeader, unknownFields: [String]), SessionLineDecoder.Failure> in
            let bytes = UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[first.range])
            return Result { () throws(SessionLineDecoder.Failure) in try SessionLineDecoder.header(bytes) }
        }
        switch decoded {
        case .success(let (header, unknown)):
            self.header = header
            self.lastAt = header.startedAt
            self.position = first.next
            for field in unknown { warnOnce(field: field, in: "the header", line: 1) }
        case .failure(let failure):
            var message = failure.message
            let complete = data.withUnsafeBytes { raw in
                SessionLineDecoder.isCompleteJSON(UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[first.range]))
            }
            if !complete { message = "the header line is incomplete: " + message }
            throw SessionIssue(.error, file: name, line: 1, column: failure.location?.column, message + "; the session cannot be read")
        }
    }

    /// Reads the session file at `url`, mapped rather than copied when the system allows.
    public init(contentsOf url: URL, name: String? = nil) throws(SessionIssue) {
        let displayName = name ?? url.path
        let data: Data
        do {
            data = try FileData.read(url, mapped: true)
        } catch {
            throw SessionIssue(.error, file: displayName, error.description, unreadable: true)
        }
        try self.init(data: data, name: displayName)
    }

    /// The next valid event, or nil at the end of the file. Skipped lines add warnings.
    public mutating func next() -> SessionEvent? {
        while let current = SessionReader.nextLine(in: data, from: position) {
            line += 1
            position = current.next
            if current.range.isEmpty { continue }
            let lineNumber = line
            let (decoded, complete) = data.withUnsafeBytes { raw -> (Result<SessionLineDecoder.Line, SessionLineDecoder.Failure>, Bool) in
                let bytes = UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[current.range])
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return (.success(.unknownType("")), true) }
                let result = Result { () throws(SessionLineDecoder.Failure) in try SessionLineDecoder.event(bytes) }
                if case .failure = result, !current.terminated { return (result, SessionLineDecoder.isCompleteJSON(bytes)) }
                return (result, true)
            }
            switch decoded {
            case .failure(let failure):
                if !complete {
                    warn(line: lineNumber, column: nil, "the last line is incomplete, as when a recording is cut off by a crash; it is skipped")
                } else {
                    warn(line: lineNumber, column: failure.location?.column, "\(failure.message); the line is skipped")
                }
            case .success(.unknownType(let type)):
                if type.isEmpty { continue }
                if reportedTypes.insert(type).inserted {
                    warn(line: lineNumber, column: nil, "unknown event type \(Value.quote(type)); skipped (and any later ones)")
                }
            case .success(.event(let event, let unknown)):
                guard event.at >= lastAt else {
                    warn(
                        line: lineNumber, column: nil,
                        "\"at\" goes backwards: \(Timestamp.format(event.at)) is before \(Timestamp.format(lastAt)); the event is skipped")
                    continue
                }
                lastAt = event.at
                for field in unknown { warnOnce(field: field, in: "\(event.typeName) events", line: lineNumber) }
                if let (id, first, second) = Self.repeatedPost(in: event) {
                    warn(
                        line: lineNumber, column: nil,
                        "post id \(Value.quote(id)) appears twice in \"posts\" (posts[\(first)] and posts[\(second)]); lookups by id find the first")
                }
                return event
            }
        }
        return nil
    }

    /// The first post id that an event's posts repeat, with the positions of both.
    static func repeatedPost(in event: SessionEvent) -> (id: String, first: Int, second: Int)? {
        let posts: [Post]
        switch event.kind {
        case .timeline(_, let list), .insert(_, let list), .update(let list): posts = list
        default: return nil
        }
        guard posts.count > 1 else { return nil }
        var seen: [String: Int] = [:]
        seen.reserveCapacity(posts.count)
        for (position, post) in posts.enumerated() {
            if let first = seen.updateValue(position, forKey: post.id) { return (post.id, first, position) }
        }
        return nil
    }

    /// The warnings found since the last call, in line order.
    public mutating func takeWarnings() -> [SessionIssue] {
        defer { pendingWarnings.removeAll() }
        return pendingWarnings
    }

    private mutating func warn(line: Int, column: Int?, _ message: String) {
        pendingWarnings.append(SessionIssue(.warning, file: name, line: line, column: column, message))
    }

    private mutating func warnOnce(field: String, in place: String, line: Int) {
        guard reportedFields.insert("\(place)/\(field)").inserted else { return }
        warn(line: line, column: nil, "unknown field \(Value.quote(field)) in \(place); ignored")
    }

    /// The line starting at byte `start`: its bytes without the line break, where the next one
    /// starts, and whether it ended with a line break.
    static func nextLine(in data: Data, from start: Int) -> (range: Range<Int>, next: Int, terminated: Bool)? {
        guard start < data.count else { return nil }
        return data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let base = bytes.baseAddress else { return nil }
            let remaining = bytes.count - start
            if let found = memchr(base + start, 0x0A, remaining) {
                let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                let contentEnd = end > start && bytes[end - 1] == 0x0D ? end - 1 : end
                return (start..<contentEnd, end + 1, true)
            }
            return (start..<bytes.count, bytes.count, false)
        }
    }
}

/// A whole session in memory: for tests, tools and small files. `engine compare` streams with
/// `SessionReader` instead.
public struct RecordedSession: Sendable, Equatable {
    public var header: SessionHeader
    public var events: [SessionEvent]
    public var warnings: [SessionIssue]

    public init(header: SessionHeader, events: [SessionEvent], warnings: [SessionIssue] = []) {
        self.header = header
        self.events = events
        self.warnings = warnings
    }

    /// Reads every event of `data`.
    public static func read(_ data: Data, name: String) throws(SessionIssue) -> RecordedSession {
        var reader = try SessionReader(data: data, name: name)
        var events: [SessionEvent] = []
        var warnings = reader.takeWarnings()
        while let event = reader.next() {
            events.append(event)
        }
        warnings += reader.takeWarnings()
        return RecordedSession(header: reader.header, events: events, warnings: warnings)
    }
}
