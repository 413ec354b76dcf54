import Foundation
import Testing
import TimelineEngineCausalFurthest
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineDirectory
import TimelineEngineJSONText
import TimelineEngineMastodonMarkers
import TimelineEnginePositionSync
import TimelineEngineRestoration
import TimelineEngineStore
import TimelineEngineSyncModel
import TimelineEngineSyncSealing
import TimelineEngineSyncWire
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// Heads sealed end to end: what a holder sees of them, what opens them, and what a device with
/// the wrong key, an earlier key or no key does.
@Suite("Sync sealed end to end", .timeLimit(.minutes(5)))
struct SealingTests {
    #if SyncEncryption
    static let phrase = "quiet-maple-river-7Q-lantern-orbit"
    static let otherPhrase = "another-reader-entirely-9X-copper"
    /// Derived once: scrypt costs a tenth of a second or more.
    static let keys = (try? SyncKey(phrase: phrase), try? SyncKey(phrase: otherPhrase))

    static func keyring(_ key: SyncKey?, previous: [SyncKey?] = []) throws -> SyncKeyring {
        SyncKeyring(current: try #require(key), previous: previous.compactMap { $0 })
    }

    /// A head with everything private in it: a long post id, an excerpt, an author, names.
    static func record(device: String = "reading-phone-42", post: String = "113456789012345678", sequence: UInt64 = 3) -> PositionRecord {
        PositionRecord(
            key: RegisterKey(account: "anna@example.social", timeline: "lists/gardening-secrets"),
            stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 1_790_000_000_000, counter: 2), device: device), sequence: sequence,
            context: VersionVector([("reading-laptop-42", 7)]), savedAt: Date(timeIntervalSince1970: 1_790_000_000),
            snapshot: PositionSnapshot(
                postId: post, postCreatedAt: Date(timeIntervalSince1970: 1_789_999_000), viewportY: -40, text: "tomatoes under glass in November",
                author: "gardener-of-note", deviceId: device),
            epoch: .zero, progress: .init(createdAt: 1_789_999_000, postId: post), visit: .init(seconds: 12, posts: 3),
            clocks: ClockOffsets([("reading-laptop-42", 1_500)]), clocksRevision: 1,
            reads: [ReadDigest(post: 0xDEAD_BEEF, content: 0x0BAD_F00D)])
    }

    static let secrets = [
        "113456789012345678", "tomatoes under glass", "gardener-of-note", "reading-phone-42", "reading-laptop-42", "gardening-secrets",
        "anna@example.social",
    ]

    @Test("a sealed document names nothing private, and opens to the record it sealed, on both decoders")
    func roundTrip() throws {
        let keyring = try Self.keyring(Self.keys.0)
        let record = Self.record()
        let sealed = try SealedRecord.seal(record, with: keyring)
        let data = try SyncWireCoding.encode(
            SyncWireCoding.Document(device: keyring.sealedName(ofDevice: "reading-phone-42"), records: [], sealed: [sealed]))
        let text = String(decoding: data, as: UTF8.self)
        for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) is in the clear") }
        #expect(sealed.key.account == "sealed" && sealed.sequence == 3 && sealed.clocksRevision == 1 && sealed.keyId == keyring.keyId)
        #expect(sealed.device.utf8.count == 22 && sealed.key.timeline.utf8.count == 22)
        // Padded: a short and a long excerpt seal to the same length.
        var short = record
        short.snapshot?.text = "a"
        #expect(try SealedRecord.seal(short, with: keyring).box.count == sealed.box.count)

        let fast = try SyncWireCoding.received(data)
        let tree = try SyncWireCoding.decode(Data(text.replacingOccurrences(of: "{\"format\"", with: "{\"extra\":1,\"format\"").utf8))
        #expect(fast.sealedTexts?.count == 1 && fast.document.records.isEmpty)
        #expect(fast.document == tree && tree.sealed == [sealed])
        #expect(try SyncWireCoding.received(Data(text.replacingOccurrences(of: "{\"format\"", with: "{\"extra\":1,\"format\"").utf8)).texts == nil)
        #expect(try sealed.open(with: keyring) == record)
        #expect(WireFormatTests.schema.validate(try JSONReader().read(data)).isValid)
        // A record in the clear that says it is sealed is neither form.
        let mixed = try JSONWriter(style: .compact).write(
            .dictionary(SyncWireCoding.value(of: record).dictionaryValue!.map { ($0.key.string, $0.value.value) } + [("sealed", .string("AAAA"))]))
        #expect(
            !WireFormatTests.schema.validate(
                try JSONReader().read(Data(#"{"format":"timeline-sync","version":2,"device":"d","records":[\#(mixed)]}"#.utf8))
            ).isValid)
        // A reader without the key skips it, and says why.
        var pull = SyncPull()
        pull.add(data, from: "phone's file")
        pull = try pull.sealingChecked(by: nil)
        #expect(pull.records.isEmpty)
        #expect(
            pull.warnings == [
                "1 position is sealed end to end (key \(keyring.keyId)) and skipped: set Sync.EncryptionPhraseVariable to open them"
            ])
    }

    @Test("a sealed head moved to another place in the order, or altered, does not open")
    func altered() throws {
        let keyring = try Self.keyring(Self.keys.0)
        var sealed = try SealedRecord.seal(Self.record(), with: keyring)
        sealed.sequence = 9
        #expect(
            throws: SyncWireCoding.DecodingError(
                "a sealed position of device \(sealed.device) does not open with key \(keyring.keyId): it was altered")
        ) {
            try sealed.open(with: keyring)
        }
        var other = try SealedRecord.seal(Self.record(), with: keyring)
        other.device = keyring.sealedName(ofDevice: "someone-else")
        #expect(throws: SyncWireCoding.DecodingError.self) { try other.open(with: keyring) }
    }

    @Test("the wire refuses a malformed sealed head with a message naming it")
    func malformed() throws {
        let base = #"{"format":"timeline-sync","version":2,"device":"d","records":[{"account":"sealed","timeline":"t","device":"d","seq":1,"#
        #expect(throws: SyncWireCoding.DecodingError("records[0].key must be a key id: 8 lowercase hexadecimal digits")) {
            try SyncWireCoding.decode(Data((base + #""key":"XYZ","sealed":"AAAA"}]}"#).utf8))
        }
        #expect(
            throws: SyncWireCoding.DecodingError(
                "records[0].sealed must be base64 of a sealed position: a nonce, at most 65536 bytes and a tag")
        ) {
            try SyncWireCoding.decode(Data((base + #""key":"0123abcd","sealed":"not base64!"}]}"#).utf8))
        }
    }

    @Test("keys: the same phrase gives the same key however it is typed; a short phrase or a key of the wrong size is refused")
    func keys() throws {
        let key = try #require(Self.keys.0)
        #expect(try SyncKey(phrase: "  quiet-maple-river-7Q-lantern-orbit\n").id == key.id)
        #expect(try #require(Self.keys.1).id != key.id)
        #expect(SealedRecord.isKeyId(key.id))
        #expect(throws: SyncKeyError("a recovery phrase must have at least 16 characters; it has 5")) { try SyncKey(phrase: "short") }
        #expect(throws: SyncKeyError("a sync key must have 32 bytes; this one has 16")) { try SyncKey(bytes: Array(repeating: 7, count: 16)) }
        let supplied = try SyncKey(bytes: Array(repeating: 7, count: 32))
        #expect(try SyncKey(bytes: Array(repeating: 7, count: 32)).id == supplied.id && supplied.id != key.id)
        let phrase = SyncKey.newPhrase()
        #expect(phrase.count == 47 && phrase != SyncKey.newPhrase())
    }

    /// Devices over one shared folder, each with its own store and keys.
    struct Folder {
        let directory: URL

        init() throws { directory = try Fixtures.temporaryDirectory() }

        func round(_ device: String, _ keyring: SyncKeyring?, store: TimelineStore) -> SyncRound {
            var transport: any SyncTransport = DirectoryTransport(path: directory.path, pollInterval: nil)
            if let keyring { transport = (transport as! DirectoryTransport).sealing(with: keyring) }
            return SyncRound(
                store: store, components: .with(policy: CausalFurthestPolicy(), transport: transport), device: device, gracePeriod: 30 * 86_400)
        }

        func store(_ name: String) async throws -> TimelineStore {
            try await TimelineStore(path: directory.appendingPathComponent("\(name).store").path)
        }

        /// What is in the folder, every file's bytes as text.
        func contents() throws -> String {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted().map {
                try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)
            }.joined(separator: "\n")
        }
    }

    static let scope = StoreScope(account: "anna@example.social", timeline: "lists/gardening-secrets")

    @Test("every device changed its phrase and the old one is gone: each round fails until the old key is left behind, then they hear each other")
    func rotationWithoutTheOldPhrase() async throws {
        let folder = try Folder()
        defer { try? FileManager.default.removeItem(at: folder.directory) }
        let old = try Self.keyring(Self.keys.0)
        let phone = try await folder.store("phone")
        let laptop = try await folder.store("laptop")
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        for (store, device) in [(phone, "phone"), (laptop, "laptop")] {
            _ = try await store.sync.savePosition(PositionSnapshot(postId: "100"), scope: Self.scope, device: device, explicit: false, at: at)
            _ = try await folder.round(device, old, store: store).run(at: at)
        }
        // The old phrase leaked and was dropped everywhere: every device now holds only the new one.
        let new = try Self.keyring(Self.keys.1)
        let refused = await #expect(throws: SyncRound.Failure.self) {
            try await folder.round("phone", new, store: phone).run(at: at.addingTimeInterval(60))
        }
        #expect(refused?.description.contains("add \(old.keyId) to Sync.LeftBehindKeyIds") == true, "\(refused?.description ?? "")")
        // The reader accepts losing what was sealed under it (the laptop's head and the phone's own
        // old one), on one device.
        let movingOn = SyncKeyring(current: try #require(Self.keys.1), leftBehind: [old.keyId])
        _ = try await phone.sync.savePosition(
            PositionSnapshot(postId: "120"), scope: Self.scope, device: "phone", explicit: false, at: at.addingTimeInterval(120))
        let report = try await folder.round("phone", movingOn, store: phone).run(at: at.addingTimeInterval(121))
        #expect(report.warnings.contains("2 positions sealed under key \(old.keyId), left behind (Sync.LeftBehindKeyIds), skipped"))
        // The laptop, with the new phrase alone, hears the phone's new write.
        let heard = try await folder.round("laptop", new, store: laptop).run(at: at.addingTimeInterval(180))
        #expect(heard.devices == ["phone"])
        let register = try await laptop.sync.register(of: RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline))
        #expect(register.head(of: "phone")?.snapshot?.postId == "120")
    }

    @Test("two devices with the same phrase converge through a folder that holds nothing private; another phrase is refused and sends nothing")
    func sameAndOtherPhrase() async throws {
        let folder = try Folder()
        defer { try? FileManager.default.removeItem(at: folder.directory) }
        let keyring = try Self.keyring(Self.keys.0)
        let phone = try await folder.store("phone")
        let laptop = try await folder.store("laptop")
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        _ = try await phone.sync.savePosition(
            PositionSnapshot(postId: "113456789012345678", text: "tomatoes under glass in November", author: "gardener-of-note"),
            scope: Self.scope, device: "reading-phone-42", explicit: false, at: at)
        // First in the clear; then sealing is turned on, and the file in the clear is removed.
        _ = try await folder.round("reading-phone-42", nil, store: phone).run(at: at)
        #expect(try folder.contents().contains("113456789012345678"))
        _ = try await folder.round("reading-phone-42", keyring, store: phone).run(at: at)
        let report = try await folder.round("reading-laptop-42", keyring, store: laptop).run(at: at.addingTimeInterval(5))
        #expect(report.pulled == 1 && report.devices == ["reading-phone-42"])
        let register = try await laptop.sync.register(of: RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline))
        #expect(register.head(of: "reading-phone-42")?.snapshot?.postId == "113456789012345678")
        let contents = try folder.contents()
        for secret in Self.secrets { #expect(!contents.contains(secret), "\(secret) is in the folder") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.directory.path).filter { $0.hasSuffix(".json") }.count == 2)

        // Another phrase: the round fails before it sends, and the folder is as it was.
        let stranger = try await folder.store("stranger")
        _ = try await stranger.sync.savePosition(PositionSnapshot(postId: "9"), scope: Self.scope, device: "stranger", explicit: false, at: at)
        let other = try Self.keyring(Self.keys.1)
        let before = try folder.contents()
        let failure = await #expect(throws: SyncRound.Failure.self) {
            try await folder.round("stranger", other, store: stranger).run(at: at.addingTimeInterval(9))
        }
        #expect(
            failure?.description
                == "positions here are sealed under key \(keyring.keyId), which this device does not hold (its key is \(other.keyId)), and none under its own: either this device's recovery phrase is not the one the other devices use (set theirs here), or every device changed its phrase and the old one is gone (then add \(keyring.keyId) to Sync.LeftBehindKeyIds to go on without those positions); nothing was sent"
        )
        #expect(try folder.contents() == before)
    }

    @Test("rotation: heads sealed under the earlier phrase stay readable beside the new ones, and every position is kept")
    func rotation() async throws {
        let folder = try Folder()
        defer { try? FileManager.default.removeItem(at: folder.directory) }
        let old = try Self.keyring(Self.keys.0)
        let rotated = try Self.keyring(Self.keys.1, previous: [Self.keys.0])
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        let devices = ["reading-phone-42", "reading-laptop-42", "reading-tablet-42"]
        var stores: [TimelineStore] = []
        for (number, device) in devices.enumerated() {
            let store = try await folder.store(device)
            stores.append(store)
            _ = try await store.sync.savePosition(
                PositionSnapshot(postId: "post-\(number)"), scope: Self.scope, device: device, explicit: false,
                at: at.addingTimeInterval(Double(number)))
            _ = try await folder.round(device, old, store: store).run(at: at.addingTimeInterval(Double(number)))
        }
        // The phone rotates: it reads the others' old heads and writes under the new key, and
        // its file under the old one is gone.
        let oldFile = DirectoryTransport.fileName(for: old.sealedName(ofDevice: devices[0]))
        #expect(FileManager.default.fileExists(atPath: folder.directory.appendingPathComponent(oldFile).path))
        _ = try await folder.round(devices[0], rotated, store: stores[0]).run(at: at.addingTimeInterval(10))
        #expect(!FileManager.default.fileExists(atPath: folder.directory.appendingPathComponent(oldFile).path))
        // The laptop rotates too, and hears the phone's new head and the tablet's old one.
        let report = try await folder.round(devices[1], rotated, store: stores[1]).run(at: at.addingTimeInterval(11))
        #expect(report.warnings.isEmpty)
        let key = RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline)
        let register = try await stores[1].sync.register(of: key)
        #expect(devices.map { register.head(of: $0)?.snapshot?.postId } == ["post-0", "post-1", "post-2"])
        // A device that dropped the earlier phrase too soon still reads the new heads, and says
        // what it skipped.
        let newOnly = try Self.keyring(Self.keys.1)
        let late = try await folder.store("late")
        let lateReport = try await folder.round("late-device", newOnly, store: late).run(at: at.addingTimeInterval(12))
        #expect(
            lateReport.warnings == [
                "1 position is sealed under key \(old.keyId), which this device does not hold, and skipped: if another device changed the phrase, set Sync.EncryptionPhraseVariable to the new one here (and Sync.PreviousEncryptionPhraseVariable to this one); if it is an earlier phrase's key, set Sync.PreviousEncryptionPhraseVariable to the earlier phrase until every device has written again"
            ])
        #expect(try await late.sync.register(of: key).heads.count == 2)
    }

    @Test("configuration: a phrase variable that is not set, and a transport that cannot seal, are refused by name")
    func configuration() throws {
        var configuration = TimelineConfiguration.defaults
        configuration.positionPersistence.crossSessionSync = true
        configuration.sync.transport = ComponentSpec(name: "Directory", parameters: ["Path": Value.Member(value: .string("/tmp"))])
        configuration.sync.encryptionPhraseVariable = "READER_PHRASE"
        #expect(throws: PipelineError("Sync.EncryptionPhraseVariable names READER_PHRASE, which is not set: set it to the reader's recovery phrase"))
        {
            try SyncComponents(configuration: configuration, environment: [:])
        }
        let components = try SyncComponents(configuration: configuration, environment: ["READER_PHRASE": Self.phrase])
        #expect(components.keyring?.keyId == Self.keys.0?.id)
        configuration.sync.transport = ComponentSpec(
            name: "MastodonMarkers", parameters: ["URL": Value.Member(value: .string("https://example.social"))])
        #expect(
            throws: PipelineError(
                "Sync.Transport MastodonMarkers cannot seal positions end to end: its server must read them. Unset Sync.EncryptionPhraseVariable, or choose HTTP, Directory or iCloudKeyValueStore"
            )
        ) {
            try SyncComponents(configuration: configuration, environment: ["READER_PHRASE": Self.phrase])
        }
    }
    #else
    @Test("without the SyncEncryption trait, a key is a clear error")
    func unavailable() {
        #expect(throws: SyncKeyError.unavailable) { try SyncKey(phrase: "quiet-maple-river-7Q-lantern-orbit") }
    }
    #endif

    @Test("a phrase holding bytes that were not UTF-8 (U+FFFD as the environment reads them) is refused: two phrases would share a key")
    func notUTF8() {
        #expect(
            throws: SyncKeyError(
                "the recovery phrase holds bytes that are not UTF-8 (read as U+FFFD), so other phrases would give the same key: set it again as text")
        ) {
            try SyncKey(phrase: String(decoding: Array("quiet-maple-river-".utf8) + [0xFF, 0xFE] + Array("-lantern".utf8), as: UTF8.self))
        }
    }
}

/// What a pull says of heads it could not open, however many keys a writer planted.
@Suite("Sealed heads under keys this device lacks", .timeLimit(.minutes(5)))
struct ForeignKeysTests {
    /// A device's key, as far as a pull's check needs one: its id; it opens nothing.
    struct NoKey: RecordSealing {
        let keyId = "d17959c7"
        var keyIds: Set<String> { [keyId] }
        func seal(_ plaintext: [UInt8], authenticating associatedData: [UInt8]) throws -> [UInt8] { plaintext }
        func open(_ box: [UInt8], keyId: String, authenticating associatedData: [UInt8]) -> [UInt8]? { nil }
        func sealedName(ofRegister key: RegisterKey, keyId: String?) -> String { key.description }
        func sealedName(ofDevice device: String, keyId: String?) -> String { device }
    }

    /// Holds no key that opens, and leaves key 00000000 behind.
    struct LeftBehind: RecordSealing {
        let keyId = "d17959c7"
        var keyIds: Set<String> { [keyId] }
        var leftBehindKeyIds: Set<String> { ["00000000"] }
        func seal(_ plaintext: [UInt8], authenticating associatedData: [UInt8]) throws -> [UInt8] { plaintext }
        func open(_ box: [UInt8], keyId: String, authenticating associatedData: [UInt8]) -> [UInt8]? { nil }
        func sealedName(ofRegister key: RegisterKey, keyId: String?) -> String { key.description }
        func sealedName(ofDevice device: String, keyId: String?) -> String { device }
    }

    static func pull(keys: Int) -> SyncPull {
        var pull = SyncPull()
        for number in 0..<keys { pull.sealedUnopened[String(format: "%08x", number), default: 0] += 1 }
        return pull
    }

    @Test("a head under each of 5,000 foreign keys: the error names three of them and how many more, not all 5,000")
    func manyKeys() {
        let failure = #expect(throws: SyncTransportError.self) { try Self.pull(keys: 5_000).sealingChecked(by: NoKey()) }
        #expect(
            failure?.description
                == "positions here are sealed under keys 00000000, 00000001, 00000002 and 4997 more, which this device does not hold (its key is d17959c7), and none under its own: either this device's recovery phrase is not the one the other devices use (set theirs here), or every device changed its phrase and the old one is gone (then add their ids to Sync.LeftBehindKeyIds to go on without those positions); nothing was sent"
        )
        // Heads under a key it lacks beside heads it opened: a key id does not say whether the
        // phrase changed elsewhere or is an earlier one, so the warning says both.
        var beside = Self.pull(keys: 1)
        beside.sealedOpened = 2
        let warned = try? beside.sealingChecked(by: NoKey())
        #expect(
            warned?.warnings == [
                "1 position is sealed under key 00000000, which this device does not hold, and skipped: if another device changed the phrase, set Sync.EncryptionPhraseVariable to the new one here (and Sync.PreviousEncryptionPhraseVariable to this one); if it is an earlier phrase's key, set Sync.PreviousEncryptionPhraseVariable to the earlier phrase until every device has written again"
            ])
        // A key the reader left behind: its heads are skipped with a warning of their own, and
        // the pull goes on though it opened nothing; a foreign key beside it still fails it.
        let moved = try? Self.pull(keys: 1).sealingChecked(by: LeftBehind())
        #expect(moved?.warnings == ["1 position sealed under key 00000000, left behind (Sync.LeftBehindKeyIds), skipped"])
        #expect(throws: SyncTransportError.self) { try Self.pull(keys: 2).sealingChecked(by: LeftBehind()) }
        // Sealed heads read without a key: a warning that names them the same way.
        let unkeyed = try? Self.pull(keys: 2).sealingChecked(by: nil)
        #expect(
            unkeyed?.warnings == [
                "2 positions are sealed end to end (keys 00000000, 00000001) and skipped: set Sync.EncryptionPhraseVariable to open them"
            ])
    }
}
