import Logging
import TimelineEngineLogging

extension Pipeline.Outcome {
    /// Logs this restoration to `logger` (the position category's by default): at `debug` where
    /// the reader was put back (post, method, strategy, confidence), at `trace` each stage's
    /// verdict.
    public func log(pipeline: Pipeline, posts: Int, to logger: Logger = LogCategory.position.logger) {
        guard logger.logLevel <= .debug else { return }
        var metadata: Logger.Metadata = ["pipeline": "\(pipeline.summary)", "posts": "\(posts)"]
        if let restoration {
            metadata["post"] = "\(restoration.postId)"
            metadata["index"] = "\(restoration.index)"
            metadata["method"] = "\(restoration.method)"
            metadata["strategy"] = "\(restoration.strategy)"
            metadata["confidence"] = "\(restoration.confidence)"
            logger.debug("restored", metadata: metadata)
        } else {
            logger.debug("no place found", metadata: metadata)
        }
        for verdict in trace {
            logger.trace(
                "stage verdict",
                metadata: [
                    "stage": "\(verdict.stage)", "verdict": "\(verdict.verdict)", "index": "\(verdict.candidate.map { "\($0.index)" } ?? "-")",
                ])
        }
    }
}
