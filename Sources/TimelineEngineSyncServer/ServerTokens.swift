#if SyncServer
import Crypto
import Foundation

/// Bearer tokens: 32 random bytes, shown once as `tes_` and 64 hexadecimal digits; the server
/// keeps only their SHA-256.
public enum ServerTokens {
    public static let prefix = "tes_"

    /// A new token from the system's random source.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return prefix + bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of a token's text, as stored.
    public static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }

    /// The token in an `Authorization: Bearer …` header, if there is one.
    /// The scheme is matched without regard to case; spaces and tabs around the token are
    /// dropped. Read byte by byte: it runs at every request.
    public static func bearer(_ header: String?) -> String? {
        guard var header else { return nil }
        return header.withUTF8 { bytes -> String? in
            let scheme = "bearer "
            guard bytes.count > scheme.utf8.count else { return nil }
            for (index, letter) in scheme.utf8.enumerated() where bytes[index] | (letter == 0x20 ? 0 : 0x20) != letter { return nil }
            func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
            var start = scheme.utf8.count
            var end = bytes.count
            while start < end, isBlank(bytes[start]) { start += 1 }
            while end > start, isBlank(bytes[end - 1]) { end -= 1 }
            return start < end ? String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) : nil
        }
    }
}
#endif
