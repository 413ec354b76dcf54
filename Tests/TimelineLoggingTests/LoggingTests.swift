import Foundation
import Logging
import Testing
import TimelineEngineJSONText
import TimelineEngineTestSupport
import TimelineEngineValueTree

@testable import TimelineEngineLogging

/// Collects records in memory.
// @unchecked: `stored` is read and written under `lock` only.
final class RecordingSink: LogSink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [LogRecord] = []

    var records: [LogRecord] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func write(_ record: LogRecord) {
        lock.lock()
        stored.append(record)
        lock.unlock()
    }
}

@Suite("Logging", .timeLimit(.minutes(10)))
struct LoggingTests {
    @Test("the Debug flags set the category levels")
    func levelsFromDebugFlags() {
        let quiet = LogLevels(timelineLogging: false, positionLogging: false, verboseMode: false)
        #expect(LogCategory.allCases.allSatisfy { quiet[$0] == .notice })
        let timeline = LogLevels(timelineLogging: true, positionLogging: false, verboseMode: false)
        #expect(timeline[.timeline] == .debug)
        #expect(timeline[.position] == .notice)
        let position = LogLevels(timelineLogging: false, positionLogging: true, verboseMode: false)
        #expect(position[.position] == .debug)
        let verbose = LogLevels(timelineLogging: false, positionLogging: false, verboseMode: true)
        #expect(LogCategory.allCases.allSatisfy { verbose[$0] == .trace })
        // VerboseMode wins over every category flag: trace for all, none lowered to debug.
        let everything = LogLevels(detailed: Set(LogCategory.allCases), verboseMode: true)
        #expect(LogCategory.allCases.allSatisfy { everything[$0] == .trace })
        #expect(LogLevels(timelineLogging: true, positionLogging: true, verboseMode: true)[.position] == .trace)
        #expect(timeline.applying(verbose: false, quiet: true)[.timeline] == .error)
        #expect(quiet.applying(verbose: true, quiet: false)[.cache] == .trace)
        #expect(timeline.level(forLabel: "TimelineEngine.timeline") == .debug)
        #expect(timeline.level(forLabel: "SomethingElse") == .notice)
    }

    @Test("records below the category's level are dropped")
    func filtering() {
        let sink = RecordingSink()
        let levels = LogLevels(timelineLogging: false, positionLogging: true, verboseMode: false)
        let position = TimelineLogging.logger(.position, levels: levels, sinks: [sink])
        let sync = TimelineLogging.logger(.sync, levels: levels, sinks: [sink])
        position.debug("restored", metadata: ["index": "4"])
        sync.debug("dropped")
        sync.warning("offline")
        #expect(sink.records.map(\.message) == ["restored", "offline"])
        #expect(sink.records.map(\.categoryName) == ["position", "sync"])
        #expect(sink.records.first?.metadata == ["index": "4"])
    }

    @Test("a log line is one line, with no escape sequence: the message and the values are escaped, not cut")
    func stderrEscapes() {
        let record = LogRecord(
            date: Date(timeIntervalSince1970: 1_700_000_000), level: .notice, label: "TimelineEngine.position",
            message: "saved\n2023-11-14T22:13:20.000Z error [sync] forged",
            metadata: ["post": "p\u{1b}[31m1", "long": String(repeating: "x", count: 400)])
        let line = StderrLogSink.format(record)
        #expect(!line.contains("\n"))
        #expect(line.hasPrefix(#"2023-11-14T22:13:20.000Z notice [position] saved\u{a}2023-11-14T22:13:20.000Z error [sync] forged long="#))
        #expect(line.hasSuffix(#" post=p\u{1b}[31m1"#))
        #expect(line.contains(String(repeating: "x", count: 400)))
    }

    @Test("the stderr sink's line format")
    func stderrFormat() {
        let record = LogRecord(
            date: Date(timeIntervalSince1970: 1_700_000_000.25), level: .warning, label: "TimelineEngine.cache",
            message: "evicted 3 entries", metadata: ["b": "2", "a": "1"])
        #expect(StderrLogSink.format(record) == "2023-11-14T22:13:20.250Z warning [cache] evicted 3 entries a=1 b=2")
    }

    @Test("the JSON-lines sink appends one JSON object per record")
    func jsonLines() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("log.jsonl").path
        let sink = try JSONLinesLogSink(path: path)
        let logger = TimelineLogging.logger(.timeline, levels: LogLevels(), sinks: [sink])
        logger.notice("loaded", metadata: ["posts": "20"])
        logger.error("failed \"quoted\"")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try JSONReader().read(String(lines[0]))
        #expect(first["level"] == .string("notice"))
        #expect(first["category"] == .string("timeline"))
        #expect(first["message"] == .string("loaded"))
        #expect(first["metadata"]?["posts"] == .string("20"))
        #expect(try JSONReader().read(String(lines[1]))["message"] == .string("failed \"quoted\""))
    }

    @Test("only a regular file is a log file: a FIFO is refused at once instead of blocking, a device is refused, both by name")
    func notRegularFiles() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("log.fifo").path
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(throws: LogSinkError("the log file \(fifo) is not a regular file")) { _ = try JSONLinesLogSink(path: fifo) }
        #expect(throws: LogSinkError("the log file /dev/full is not a regular file")) { _ = try JSONLinesLogSink(path: "/dev/full") }
        #expect(throws: LogSinkError("the log file \(directory.path) is not a regular file")) { _ = try JSONLinesLogSink(path: directory.path) }
    }

    @Test("a write that fails (a full disk) stops nothing: the sink goes on to standard error")
    func failedWrite() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("log.jsonl").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        // A descriptor open for reading only: every write fails, as on a full disk.
        let readOnly = open(path, O_RDONLY)
        #expect(readOnly >= 0)
        let sink = JSONLinesLogSink(descriptor: readOnly, path: path)
        let logger = TimelineLogging.logger(.timeline, levels: LogLevels(), sinks: [sink])
        logger.error("first")
        logger.error("second")
        #expect(sink.hasFailed)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "")
    }

    @Test("sinks are created by name")
    func factories() throws {
        #expect(LogSinkFactory.builtIns.map(\.name) == ["Stderr", "JSONLines"])
        let jsonLines = try #require(LogSinkFactory.builtIns.first { $0.name == "JSONLines" })
        #expect(throws: LogSinkError.self) { try jsonLines.make([:]) }
    }

    @Test("a logger made before the routing changes follows its new levels and sinks; a level set on the logger wins")
    func routingReachesLoggersAlreadyMade() {
        let first = RecordingSink()
        let second = RecordingSink()
        let routing = LogRouting(levels: LogLevels(), sinks: [first])
        let logger = Logger(label: LogCategory.sync.label) { TimelineLogHandler(label: $0, routing: routing) }
        logger.debug("dropped")
        logger.notice("kept")
        routing.update(levels: LogLevels(default: .debug), sinks: [second])
        logger.debug("now kept")
        #expect(first.records.map(\.message) == ["kept"])
        #expect(second.records.map(\.message) == ["now kept"])
        routing.update(levels: LogLevels(default: .error))
        logger.warning("dropped again")
        var own = logger
        own.logLevel = .trace
        own.trace("the logger's own level")
        #expect(second.records.map(\.message) == ["now kept", "the logger's own level"])
        #expect(logger.logLevel == .error)
    }
}
