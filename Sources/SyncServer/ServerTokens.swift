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
    public static func bearer(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
#endif
