import Foundation
import TimelineEngineKit

/// A plugin's parameter schema composed into the configuration schema: the bytes are a JSON
/// document `{"parameters": SCHEMA, "stage": STAGE}`. A schema the registry accepts must compose
/// and compile, and a configuration whose pipeline is STAGE (or the strategy alone) must
/// validate and build without a trap, whatever the schema's references and keywords.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let document = try? JSONReader().read(Data(bytes: bytes, count: count)),
        let parameters = document["parameters"]
    else { return 0 }
    let type = StrategyType(name: "Fuzzed", kind: .restoration, summary: "A fuzzed plugin strategy.", parameterSchema: parameters) { _ in
        .restoration(Unanswering())
    }
    guard let registry = try? BuiltInStrategies.registry.adding([type]) else { return 0 }
    guard let schema = try? registry.composedConfigurationSchema() else { fatalError("a registered schema does not compose") }
    var stage = document["stage"] ?? .string("Fuzzed")
    if var members = stage.dictionaryValue, members["Strategy"] == nil {
        members["Strategy"] = Value.Member(value: .string("Fuzzed"))
        stage = Value(.dictionary(members))
    }
    let configuration = Value.dictionary([("Restoration", .dictionary([("Pipeline", .array([stage]))]))])
    guard let data = try? JSONWriter(style: .compact).write(configuration) else { return 0 }
    let loaded = ConfigurationLoader(schema: schema).read(data: Data(data.utf8), fileName: "fuzz", format: .json)
    _ = try? PipelineBuilder(registry: registry, configuration: loaded.configuration).build()
    return 0
}

/// The fuzzed strategy's stage: the composition is what is fuzzed, not what the stage answers.
struct Unanswering: RestorationStage {
    let name = "Fuzzed"
    func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? { nil }
}
