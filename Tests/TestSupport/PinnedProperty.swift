import Foundation
import PropertyBased
import Testing

/// Property checks whose cases CI can pin: with `ENGINE_PROPERTY_SEED` set (`.ci/run` sets it
/// and prints it), the cases are drawn from that seed, the same on every run, so a failure in
/// CI replays with the same variable; without it, swift-property-based draws fresh cases each
/// run and prints the `.fixedSeed(…)` that replays a failure.
public enum PropertySeed {
    /// The environment variable that pins the cases.
    public static let variable = "ENGINE_PROPERTY_SEED"

    /// The pinned seed, when the variable holds one.
    public static var pinned: UInt64? {
        ProcessInfo.processInfo.environment[variable].flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
    }
}

/// `propertyCheck`, with the cases pinned by `ENGINE_PROPERTY_SEED` when it is set.
public func pinnedPropertyCheck<InputValue, ResultValue>(
    count: Int,
    input: Generator<ResultValue, some Sequence<InputValue>>,
    perform body: (ResultValue) async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    guard let seed = PropertySeed.pinned else {
        await propertyCheck(count: count, input: input, perform: body, isolation: isolation, sourceLocation: sourceLocation)
        return
    }
    var generator = Xoshiro(seed: (seed, seed ^ 0x9E37_79B9_7F4A_7C15, seed &+ 0xD1B5_4A32_D192_ED03, 0x2545_F491_4F6C_DD1D))
    for number in 0..<count {
        let value = input.run(using: &generator)
        do {
            try await body(value)
        } catch {
            Issue.record(error, "case \(number) of \(PropertySeed.variable)=\(seed)", sourceLocation: sourceLocation)
        }
    }
}
