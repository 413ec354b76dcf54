import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineSessionFormat
import TimelineEngineTestSupport

@Suite(.timeLimit(.minutes(10))) struct SessionRecorderTests {
    // @unchecked: `chunks` is read and written under `lock` only.
    final class Sink: @unchecked Sendable {
        private let lock = NSLock()
        private var chunks: [Data] = []
        func append(_ data: Data) {
            lock.lock()
            chunks.append(data)
            lock.unlock()
        }
        var all: Data {
            lock.lock()
            defer { lock.unlock() }
            return chunks.reduce(Data(), +)
        }
        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return chunks.count
        }
    }

    let header = SessionHeader(
        id: "r", device: "d", timeline: "home", viewport: .init(width: 390, height: 844),
        startedAt: Date(timeIntervalSince1970: 1_767_261_600))

    @Test func flushesOnBackgroundAndWritesTheHeaderAtOnce() throws {
        let sink = Sink()
        let recorder = try SessionRecorder(
            header: header, to: .handler { sink.append($0) },
            clock: { Date(timeIntervalSince1970: 1_767_261_601) })
        #expect(sink.count == 1)
        recorder.scroll(offset: 10)
        recorder.scroll(offset: 20)
        #expect(sink.count == 1)
        recorder.lifecycle(.background)
        #expect(sink.count == 2)
        let session = try RecordedSession.read(sink.all, name: "r")
        #expect(session.events.map(\.kind) == [.scroll(offset: 10), .scroll(offset: 20), .lifecycle(.background)])
    }

    @Test func isSafeFromManyTasksAndKeepsTimeFromGoingBackwards() async throws {
        let sink = Sink()
        let recorder = try SessionRecorder(header: header, to: .handler { sink.append($0) })
        recorder.flushThreshold = 512
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for step in 0..<250 {
                        // Deliberately out of order: the recorder keeps "at" non-decreasing.
                        recorder.record(
                            SessionEvent(
                                at: Date(timeIntervalSince1970: 1_767_261_600 + Double((step * 7 + task) % 100)),
                                .scroll(offset: Double(task * 1000 + step))))
                    }
                }
            }
        }
        recorder.scroll(offset: .nan)
        recorder.flush()
        let session = try RecordedSession.read(sink.all, name: "r")
        #expect(session.warnings.isEmpty)
        #expect(session.events.count == 2000)
        #expect(zip(session.events, session.events.dropFirst()).allSatisfy { $0.at <= $1.at })
    }

    @Test func aSessionCutOffByACrashStillReads() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("crash.jsonl")
        do {
            let recorder = try SessionRecorder(header: header, to: .file(file))
            recorder.scroll(offset: 5)
            recorder.lifecycle(.background)
            recorder.scroll(offset: 6)
            recorder.flush()
        }
        var data = try Data(contentsOf: file)
        data.removeLast(9)
        let session = try RecordedSession.read(data, name: "crash.jsonl")
        #expect(session.events.map(\.kind) == [.scroll(offset: 5), .lifecycle(.background)])
        #expect(
            session.warnings.map(\.description) == [
                "crash.jsonl:4: warning: the last line is incomplete, as when a recording is cut off by a crash; it is skipped"
            ])
    }
}
