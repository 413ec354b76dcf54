import Foundation
import TimelineEngineKit

/// Reads a data file for the commands: a property list when it starts with `<` (or a UTF-16
/// byte-order mark), JSON otherwise.
enum DocumentInput {
    /// A failure to read, already phrased as `FILE:LINE: message` or `FILE: message`.
    struct Failure: Error {
        let message: String
        /// True when the file could not be read at all (exit code 2), false when it was read
        /// and is malformed (exit code 1).
        let unreadable: Bool
    }

    static func read(_ path: String, reader: PropertyListReader = PropertyListReader()) -> Result<(Value, ConfigurationFormat), Failure> {
        let data: Data
        do {
            data = try FileData.read(URL(fileURLWithPath: path))
        } catch {
            return .failure(Failure(message: "\(path): \(error.description)", unreadable: true))
        }
        // Anything that does not open like XML is JSON, whatever the file is called: a JSON
        // data file may hold a bare number or string.
        if ConfigurationFormat.detect(data, fileName: nil) == .json || !opensLikeXML(data) {
            do {
                return .success((try JSONReader().read(data), .json))
            } catch {
                return .failure(Failure(message: "\(path):\(error.location.line):\(error.location.column ?? 1): \(error.message)", unreadable: false))
            }
        }
        do {
            return .success((try reader.read(data), .plist))
        } catch {
            return .failure(Failure(message: lintLine(path, error), unreadable: error.isUnreadable))
        }
    }

    /// `FILE:LINE: message` (or `FILE: message` when the error has no line).
    static func lintLine(_ path: String, _ error: PropertyListError) -> String {
        guard let location = error.location else { return "\(path): \(error.message)" }
        return "\(path):\(location.line): \(error.message)"
    }

    /// A `<` first (after a UTF-8 BOM and whitespace), or a UTF-16 byte-order mark.
    private static func opensLikeXML(_ data: Data) -> Bool {
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) { return true }
        var index = data.startIndex
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < data.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(data[index]) { index += 1 }
        return index < data.endIndex && data[index] == UInt8(ascii: "<")
    }
}
