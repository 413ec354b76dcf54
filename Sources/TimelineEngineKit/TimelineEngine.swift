// The TimelineEngine library (module TimelineEngineKit): everything an app embeds, under one import.
//
//     import TimelineEngineKit
//
//     let loaded = try ConfigurationLoader().load(contentsOf: configURL)
//     let configuration = loaded.configuration
//
// Each concern is its own module (see docs/ARCHITECTURE.md); this module re-exports them.

@_exported import TimelineEngineCacheModel
@_exported import TimelineEngineConfiguration
@_exported import TimelineEngineCore
@_exported import TimelineEngineFormats
@_exported import TimelineEngineHTTPExchange
@_exported import TimelineEngineJSONSchema
@_exported import TimelineEngineJSONText
@_exported import TimelineEngineLoading
@_exported import TimelineEngineLogging
@_exported import TimelineEnginePositionSync
@_exported import TimelineEnginePositionTracking
@_exported import TimelineEnginePropertyList
@_exported import TimelineEngineReachModel
@_exported import TimelineEngineRestoration
@_exported import TimelineEngineRestorationModel
@_exported import TimelineEngineSearch
@_exported import TimelineEngineSessionFormat
@_exported import TimelineEngineStore
@_exported import TimelineEngineStrategyKit
@_exported import TimelineEngineSupport
@_exported import TimelineEngineSyncModel
@_exported import TimelineEngineSyncSealing
@_exported import TimelineEngineSyncWire
@_exported import TimelineEngineValueTree
