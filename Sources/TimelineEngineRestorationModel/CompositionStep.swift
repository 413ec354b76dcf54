/// One stage run by a composition (FirstMatch, BestConfidence, WeightedVote): the shared step
/// of their loops.
///
/// Runs `stage`, appends its verdict to `trace` followed by the verdicts of the stage's own
/// stages (one level deeper), and returns its candidate with the position of its verdict, so
/// that the composition can rewrite that verdict once it has decided.
public enum CompositionStep {
    public static func run(
        _ stage: any RestorationStage, _ request: RestorationRequest, trace: inout [StageVerdict], depth: Int,
        verdict: (Candidate?) -> String
    ) -> (candidate: Candidate?, position: Int) {
        var nested: [StageVerdict] = []
        let candidate = stage.propose(request, trace: &nested, depth: depth + 1)
        let position = trace.count
        trace.append(StageVerdict(stage: stage.name, candidate: candidate, verdict: verdict(candidate), depth: depth))
        trace += nested
        return (candidate, position)
    }
}
