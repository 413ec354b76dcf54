import Foundation

/// The two notations a configuration can be written in.
public enum ConfigurationFormat: String, CaseIterable, Sendable {
    /// An XML property list.
    case plist
    /// JSON with the same structure.
    case json

    /// Guesses the notation from the first meaningful byte (`{` or `[` is JSON, `<` a property
    /// list, a UTF-16 byte-order mark a property list), then from the file extension.
    public static func detect(_ data: Data, fileName: String?) -> ConfigurationFormat {
        var index = data.startIndex
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) { return .plist }
        while index < data.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(data[index]) { index += 1 }
        if index < data.endIndex {
            switch data[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
            case UInt8(ascii: "<"): return .plist
            default: break
            }
        }
        return fileName?.lowercased().hasSuffix(".json") == true ? .json : .plist
    }
}
