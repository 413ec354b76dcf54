import Foundation
import TimelineEngineStrategyKit
import TimelineEngineSupport
import TimelineEngineSyncModel
import TimelineEngineSyncWire
import TimelineEngineValueTree

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Directory: a folder that the user's own tools share (a network drive, Syncthing, Dropbox,
/// iCloud Drive). Each device writes only its own file, `<device>.timeline-sync.json`, holding
/// its own heads, atomically (a temporary file, then a rename), and reads everyone's. No locks,
/// no server.
///
/// - A file that cannot be read (half copied by a sync tool, garbage, too large, a future
///   version, not a regular file) is skipped with a warning naming it; it never changes the
///   state.
/// - A missing folder means the transport is unreachable, perhaps a share that is not mounted:
///   it is never created (Syncthing keeps a folder marker for the same reason). Positions wait
///   in the outbox.
/// - Changes are heard through the file system's notifications (inotify on Linux, a dispatch
///   source on Apple platforms), and by polling every `PollInterval` seconds besides, for
///   network shares that send none.
/// - File I/O runs off Swift's cooperative threads.
/// - Sealed end to end (`sealing(with:)`), a device's file is named by its sealed name, and
///   holds its heads sealed; its file in the clear, or under an earlier key, is removed once it
///   has written under the current one.
public struct DirectoryTransport: SealableTransport, DeclaredStrategy {
    public static let pathParameter = Parameter<String>(
        required: "Path", help: "The shared folder. It must exist: it is never created.", pattern: TextPattern.noControlCharacters)
    public static let pollIntervalParameter = Parameter<Double>(
        "PollInterval", help: "Seconds between two polls of the folder, besides its change notifications.", default: 60, range: 0.01...86400)

    public static let type = StrategyType(
        name: "Directory", kind: .transport,
        summary: "A shared folder: each device writes its own file atomically and reads everyone's; changes heard as they land.",
        parameters: [pathParameter.declaration, pollIntervalParameter.declaration],
        examples: [TransportScenario.everyDevicesLatestHead]
    ) { options in
        .transport(DirectoryTransport(path: options(pathParameter), pollInterval: options(pollIntervalParameter)))
    }

    /// Files larger than this are skipped (a device's heads are a few hundred bytes each).
    public static let maximumFileSize = 16 << 20
    static let suffix = ".timeline-sync.json"
    /// The longest file name written, in bytes: most file systems allow 255.
    static let maximumNameBytes = 200

    public let path: String
    public let pollInterval: Double?
    /// What seals the heads written and opens those read; nil: in the clear.
    public private(set) var sealer: (any RecordSealing)?

    public init(path: String, pollInterval: Double? = pollIntervalParameter.defaultValue) {
        self.path = path
        self.pollInterval = pollInterval
    }

    public func sealing(with sealing: any RecordSealing) -> any SyncTransport {
        var sealed = self
        sealed.sealer = sealing
        return sealed
    }

    /// The names `device`'s file had before this one, when sealing: in the clear, and under each
    /// earlier key. Once the device has written under the current key they hold nothing newer,
    /// and are removed, so that a folder keeps no position in the clear once sealing is on.
    func supersededFileNames(of device: String) -> [String] {
        guard let sealer else { return [] }
        return [Self.fileName(for: device)]
            + sealer.keyIds.subtracting([sealer.keyId]).sorted().map { Self.fileName(for: sealer.sealedName(ofDevice: device, keyId: $0)) }
    }

    /// The name of `device`'s file here: of its sealed name when sealing.
    func fileName(of device: String) -> String {
        Self.fileName(for: sealer.map { $0.sealedName(ofDevice: device) } ?? device)
    }

    /// A device's file name: its id, with anything but letters, digits, `.`, `_` and `-` written
    /// as `%XX`, and a leading `.` too, so that any id makes one safe, visible name; an id whose
    /// name would be longer than 200 bytes is cut and given a hash of the whole id.
    public static func fileName(for device: String) -> String {
        var name = ""
        for (offset, byte) in device.utf8.enumerated() {
            let scalar = Unicode.Scalar(byte)
            let plain =
                byte < 0x80
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-".unicodeScalars.contains(scalar)
                    || (byte == UInt8(ascii: ".") && offset > 0))
            name += plain ? String(scalar) : String(format: "%%%02X", byte)
        }
        let room = maximumNameBytes - suffix.utf8.count
        if name.utf8.count > room {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in device.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let tail = "~" + String(hash, radix: 16)
            var cut = Substring(name).prefix(room - tail.utf8.count)
            // Never end inside an escape.
            if let percent = cut.suffix(2).lastIndex(of: "%") { cut = cut[..<percent] }
            name = String(cut) + tail
        }
        return name + suffix
    }

    private func checkFolder() throws(SyncTransportError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SyncTransportError(.unreachable, "\(path): the sync folder does not exist (a share not mounted?); it is never created")
        }
        guard isDirectory.boolValue else { throw SyncTransportError(.failed, "\(path): the sync folder is not a folder") }
    }

    public func pull(device: String) async throws(SyncTransportError) -> SyncPull {
        try await OffPool.run { () throws(SyncTransportError) -> SyncPull in try readAll(except: device) }
    }

    public func push(_ publication: SyncPublication) async throws(SyncTransportError) {
        let data = try publication.wireDocument(sealing: sealer)
        let name = fileName(of: publication.device)
        let superseded = supersededFileNames(of: publication.device)
        try await OffPool.run { () throws(SyncTransportError) in
            try write(data, fileName: name)
            for old in superseded { try? FileManager.default.removeItem(atPath: (path as NSString).appendingPathComponent(old)) }
        }
    }

    public func changes(_ watch: ChangeWatch) -> AsyncStream<SyncPull> {
        let bell = Doorbell()
        let own = fileName(of: watch.device)
        let notifications = FolderNotifications(path: path) { name in
            // Our own publications, and temporary files, are no news.
            if let name, name == own || name.hasPrefix(".") { return }
            Task { await bell.ring() }
        }
        let interval = pollInterval ?? 60
        let poller = Task {
            while !Task.isCancelled {
                do { try await watch.sleep(interval) } catch { break }
                await bell.ring()
            }
        }
        if notifications == nil { watch.log("\(path): no change notifications; polling every \(interval) s") }
        // A read now, then one each time the folder changes or the poll comes round.
        let pullOnce: @Sendable () async throws(SyncTransportError) -> SyncPull = { () async throws(SyncTransportError) -> SyncPull in
            try await pull(device: watch.device)
        }
        return ChangeWatch.repeating(
            watch, next: { await bell.wait() },
            onTermination: {
                notifications?.cancel()
                poller.cancel()
            }, pullOnce)
    }

    // MARK: Files

    func readAll(except device: String) throws(SyncTransportError) -> SyncPull {
        try checkFolder()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw SyncTransportError(.failed, "\(path): the sync folder cannot be listed: \(error.localizedDescription)")
        }
        let own = fileName(of: device)
        var pull = SyncPull()
        for name in names.sorted() where name.hasSuffix(Self.suffix) && !name.hasPrefix(".") && name != own {
            let file = (path as NSString).appendingPathComponent(name)
            switch Self.read(file) {
            case .success(let data): pull.add(data, from: file, opening: sealer)
            case .failure(let reason): pull.warnings.append(TerminalText.escaped("\(file): skipped: \(reason.description)"))
            }
        }
        return try pull.sealingChecked(by: sealer)
    }

    /// Why a file was not read.
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads a regular file of at most `maximumFileSize` bytes, its size taken from the opened
    /// file (a link to a larger one is refused before it is read).
    static func read(_ file: String) -> Result<Data, Unreadable> {
        let descriptor = open(file, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(Unreadable(description: "cannot be read: \(String(cString: strerror(errno)))")) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(Unreadable(description: "cannot be read: \(String(cString: strerror(errno)))")) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return .failure(Unreadable(description: "not a regular file")) }
        let size = Int(status.st_size)
        guard size <= maximumFileSize else {
            return .failure(Unreadable(description: "\(size) bytes, more than the limit of \(maximumFileSize)"))
        }
        var data = Data(count: size)
        var filled = 0
        while filled < size {
            let count = data.withUnsafeMutableBytes { buffer in Glue.read(descriptor, buffer.baseAddress! + filled, size - filled) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        guard filled == size else { return .failure(Unreadable(description: "cannot be read: it changed size while being read")) }
        return .success(data)
    }

    func write(_ data: Data, fileName: String) throws(SyncTransportError) {
        try checkFolder()
        let target = (path as NSString).appendingPathComponent(fileName)
        guard data.count <= Self.maximumFileSize else {
            throw SyncTransportError(
                .failed,
                """
                \(target): not published: \(data.count) bytes, more than the limit of \(Self.maximumFileSize) that other devices read
                """)
        }
        let temporary = (path as NSString).appendingPathComponent(".\(fileName).\(UUID().uuidString).tmp")
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
            // rename(2) replaces the target atomically: a reader sees the old file or the new one.
            guard rename(temporary, target) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(atPath: temporary)
                throw SyncTransportError(.failed, "\(target): cannot be replaced: \(reason)")
            }
        } catch let error as SyncTransportError {
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw SyncTransportError(.failed, "\(target): cannot be written: \(error.localizedDescription)")
        }
        sweepTemporaryFiles(named: fileName, at: Date())
    }

    /// Temporary files older than this are left from a push that was killed mid-way.
    public static let staleTemporaryAge: TimeInterval = 600

    /// Removes this device's temporary files left by pushes killed mid-way (each a whole copy of
    /// its state), once they are older than any push takes. Only this device writes them.
    func sweepTemporaryFiles(named fileName: String, at date: Date) {
        let prefix = ".\(fileName)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let file = (path as NSString).appendingPathComponent(name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date,
                date.timeIntervalSince(modified) > Self.staleTemporaryAge
            else { continue }
            try? FileManager.default.removeItem(atPath: file)
        }
    }
}

/// The C library's `read`, under a name that does not clash with the transport's own methods.
enum Glue {
    static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }
}
