// The TimelineEngine library: everything an app embeds, under one import.
//
//     import TimelineEngine
//
//     let loaded = try ConfigurationLoader().load(contentsOf: configURL)
//     let configuration = loaded.configuration
//
// Each concern is its own module (see docs/ARCHITECTURE.md); this module re-exports them.

@_exported import CacheModel
@_exported import EngineConfiguration
@_exported import EngineSupport
@_exported import HTTPExchange
@_exported import JSONSchema
@_exported import JSONText
@_exported import PositionSync
@_exported import PositionTracking
@_exported import PropertyList
@_exported import ReachModel
@_exported import RestorationEngine
@_exported import RestorationModel
@_exported import SessionFormat
@_exported import StrategyKit
@_exported import SyncModel
@_exported import SyncSealing
@_exported import SyncWire
@_exported import TimelineCore
@_exported import TimelineFormats
@_exported import TimelineLoading
@_exported import TimelineLogging
@_exported import TimelineSearch
@_exported import TimelineStore
@_exported import ValueTree
