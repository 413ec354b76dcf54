import Foundation

#if SyncEncryption
import Crypto
import CryptoExtras
#endif

/// A key register heads are sealed with, end to end: derived from a recovery phrase every device
/// of the reader is given (`init(phrase:)`), or supplied by the app, from the Keychain, say
/// (`init(bytes:)`). Three keys are drawn from it with HKDF-SHA256: one seals (ChaCha20-Poly1305),
/// one names registers and devices (HMAC-SHA256), and one gives the key's id, which sealed heads
/// carry in the clear so that a device holding several keys opens each with its own.
///
/// Needs the `SyncEncryption` trait (the `SyncServer` trait includes it); without it every
/// initializer throws `SyncKeyError`, saying so.
public struct SyncKey: Sendable {
    /// The key's id: 8 hexadecimal digits drawn from it, which say nothing of it.
    public let id: String
    #if SyncEncryption
    let sealing: SymmetricKey
    let naming: SymmetricKey
    #endif

    /// The bytes a key supplied by the app has.
    public static let byteCount = 32
    /// The fewest characters a recovery phrase has: it must carry its own strength, as every
    /// device derives the same key from it alone.
    public static let minimumPhraseLength = 16

    /// scrypt's cost for a recovery phrase: N = 2^15, r = 8, p = 1 (32 MiB, and about a tenth of a
    /// second on a phone), as RFC 7914 suggests for interactive use; the salt is fixed, since
    /// every device must derive the same key with nothing else shared.
    public static let phraseCost = (rounds: 1 << 15, blockSize: 8, parallelism: 1)
    static let phraseSalt = Array("TimelineEngine sync key 1".utf8)

    /// The key of a recovery phrase, by scrypt (`phraseCost`). The phrase is read as Unicode
    /// compatibility-decomposed (NFKD) with its runs of white space made one space, so that a
    /// phrase typed on another keyboard gives the same key.
    /// A phrase holding U+FFFD is refused: that is what bytes that were not UTF-8 become when the
    /// environment is read as text, so two different phrases would share one key.
    public init(phrase: String) throws(SyncKeyError) {
        guard !phrase.unicodeScalars.contains("\u{FFFD}") else {
            throw SyncKeyError(
                "the recovery phrase holds bytes that are not UTF-8 (read as U+FFFD), so other phrases would give the same key: set it again as text")
        }
        let normalized = Self.normalized(phrase)
        guard normalized.count >= Self.minimumPhraseLength else {
            throw SyncKeyError("a recovery phrase must have at least \(Self.minimumPhraseLength) characters; it has \(normalized.count)")
        }
        #if SyncEncryption
        let master: SymmetricKey
        do {
            master = try KDF.Scrypt.deriveKey(
                from: Array(normalized.utf8), salt: Self.phraseSalt, outputByteCount: Self.byteCount, rounds: Self.phraseCost.rounds,
                blockSize: Self.phraseCost.blockSize, parallelism: Self.phraseCost.parallelism)
        } catch {
            throw SyncKeyError("the recovery phrase's key cannot be derived: \(error)")
        }
        self.init(master: master)
        #else
        throw SyncKeyError.unavailable
        #endif
    }

    /// A key supplied by the app: `byteCount` random bytes, kept where the platform keeps
    /// secrets (the Keychain) and given to every device of the reader.
    public init(bytes: [UInt8]) throws(SyncKeyError) {
        guard bytes.count == Self.byteCount else {
            throw SyncKeyError("a sync key must have \(Self.byteCount) bytes; this one has \(bytes.count)")
        }
        #if SyncEncryption
        self.init(master: SymmetricKey(data: bytes))
        #else
        throw SyncKeyError.unavailable
        #endif
    }

    #if SyncEncryption
    private init(master: SymmetricKey) {
        func drawn(_ purpose: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: master, info: Array("timeline-sync \(purpose)".utf8), outputByteCount: 32)
        }
        sealing = drawn("seal")
        naming = drawn("name")
        id = drawn("key id").withUnsafeBytes { bytes in bytes.prefix(4).map { String(format: "%02x", $0) }.joined() }
    }

    /// The name `parts` go by where heads are held: 16 bytes of their HMAC, in base64url.
    func name(_ parts: [String]) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(parts.joined(separator: "\u{0}").utf8), using: naming)
        return Data(code.prefix(16)).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    #endif

    /// A phrase as its key is drawn from it.
    static func normalized(_ phrase: String) -> String {
        phrase.decomposedStringWithCompatibilityMapping.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// A new recovery phrase: eight groups of five characters from an alphabet without look-alikes
    /// (about 200 bits), from the system's random source.
    public static func newPhrase() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return (0..<8).map { _ in String((0..<5).map { _ in alphabet.randomElement(using: &generator)! }) }.joined(separator: "-")
    }
}

/// Why a sync key cannot be made.
public struct SyncKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// The engine was built without the `SyncEncryption` trait.
    public static let unavailable = SyncKeyError(
        "this engine was built without end-to-end sealing: build it with the SyncEncryption trait (swift build --traits SyncEncryption)")
}
