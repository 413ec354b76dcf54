import Foundation
import StrategyKit
import SyncModel

/// Directory: a folder that the user's own tools share (a network drive, Syncthing, Dropbox,
/// iCloud Drive). Each device writes only its own file, `<device>.timeline-sync.json`, atomically
/// (a temporary file, then a rename), and reads everyone's. No locks, no server.
///
/// - A file that cannot be read (half copied by a sync tool, garbage, too large, a future
///   version) is skipped with a warning naming it; it never changes the state.
/// - A missing folder means the transport is unreachable, perhaps a share that is not mounted:
///   it is never created (Syncthing keeps a folder marker for the same reason). Positions wait
///   in the outbox.
public struct DirectoryTransport: SyncTransport, DeclaredStrategy {
    public static let pathParameter = Parameter<String>(required: "Path", help: "The shared folder. It must exist: it is never created.")
    public static let pollIntervalParameter = Parameter<Double>(
        "PollInterval", help: "Seconds between two rounds when nothing local has changed.", default: 60, above: 0)

    public static let type = StrategyType(
        name: "Directory", kind: .transport,
        summary: "A shared folder: each device writes its own file atomically and reads everyone's.",
        parameters: [pathParameter.declaration, pollIntervalParameter.declaration]
    ) { options in
        .transport(DirectoryTransport(path: options(pathParameter), pollInterval: options(pollIntervalParameter)))
    }

    /// Files larger than this are skipped (a position register is a few hundred bytes).
    public static let maximumFileSize = 16 << 20
    static let suffix = ".timeline-sync.json"

    public let path: String
    public let pollInterval: Double?

    public init(path: String, pollInterval: Double? = pollIntervalParameter.defaultValue) {
        self.path = path
        self.pollInterval = pollInterval
    }

    /// A device's file name: its id, with anything but letters, digits, `.`, `_` and `-` written
    /// as `%XX`, so that any id makes one safe name.
    public static func fileName(for device: String) -> String {
        var name = ""
        for byte in device.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar) {
                name.unicodeScalars.append(scalar)
            } else {
                name += String(format: "%%%02X", byte)
            }
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

    public func pull(device: String) throws(SyncTransportError) -> SyncPull {
        try checkFolder()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw SyncTransportError(.failed, "\(path): the sync folder cannot be listed: \(error.localizedDescription)")
        }
        let own = Self.fileName(for: device)
        var pull = SyncPull()
        for name in names.sorted() where name.hasSuffix(Self.suffix) && !name.hasPrefix(".") && name != own {
            let file = (path as NSString).appendingPathComponent(name)
            let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber
            if let size, size.intValue > Self.maximumFileSize {
                pull.warnings.append("\(file): skipped: \(size.intValue) bytes, more than the limit of \(Self.maximumFileSize)")
                continue
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                pull.warnings.append("\(file): skipped: cannot be read")
                continue
            }
            pull.add(data, from: file)
        }
        return pull
    }

    public func push(_ records: [PositionRecord], device: String) throws(SyncTransportError) {
        try checkFolder()
        let target = (path as NSString).appendingPathComponent(Self.fileName(for: device))
        let temporary = (path as NSString).appendingPathComponent(".\(Self.fileName(for: device)).\(UUID().uuidString).tmp")
        let data = SyncWireCoding.encode(SyncWireCoding.Document(device: device, records: records))
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
    }
}
