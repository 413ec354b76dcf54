import Foundation
import HTTP
import JSONSchema
import TestSupport
import TimelineEngineKit
import ValueTree

// An app that depends on TimelineEngine and on a package whose modules have the short names many
// packages use: both build into one executable, and each module is the one its package means.
//
//   beside-a-neighbour CONFIG

let neighbours = [NeighbourJSONSchema.name, NeighbourTestSupport.name, NeighbourValueTree.name, NeighbourHTTP.name]
let path = CommandLine.arguments.dropFirst().first ?? "config/SocialFusionTimelineConfiguration.plist"
let loaded = ConfigurationLoader().read(contentsOf: URL(fileURLWithPath: path), displayName: path)
print("the neighbour's \(neighbours.joined(separator: ", ")) beside TimelineEngine's \(BuiltInStrategies.all.count) strategies")
print("\(path): \(loaded.errors.isEmpty ? "OK" : "\(loaded.errors.count) errors")")
