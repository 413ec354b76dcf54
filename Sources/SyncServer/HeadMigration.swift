#if SyncServer
import Foundation
import JSONText
import SyncModel
import SyncWire

/// Turns what a server of the previous release stored (wire-format version 1 records) into
/// heads: each device's latest write, numbered by its clock's milliseconds, with an empty
/// context, as devices read version-1 writes.
enum HeadMigration {
    static func record(fromVersion1 json: String) throws -> PositionRecord {
        try SyncWireCoding.record(try JSONReader().read(Data(json.utf8)), at: "record", version: 1)
    }
}
#endif
