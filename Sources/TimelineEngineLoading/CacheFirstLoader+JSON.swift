import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineValueTree

extension CacheFirstLoader.Report {
    /// The report as `engine timeline fetch --format json` writes it: the source, the status, the
    /// attempts, what the merge changed, the gaps, where the restore started, the reach and the
    /// restoration.
    public func jsonValue(source: TimelineSource) -> Value {
        let report = self
        func date(_ value: Date?) -> Value { value.map { .string(Timestamp.format($0)) } ?? .null }
        func ids(_ list: [String]) -> Value { .array(list.map(Value.string)) }
        var members: [(String, Value)] = [
            ("source", .string(source.description)),
            ("status", .string(report.status.rawValue)),
            ("lastRefreshed", date(report.lastRefreshed)),
            ("cached", report.cached.map { .dictionary([("posts", .integer($0.posts.count)), ("refreshedAt", date($0.refreshedAt))]) } ?? .null),
            (
                "attempts",
                .array(
                    report.attempts.map { attempt in
                        .dictionary([
                            ("number", .integer(attempt.number)), ("startedAt", .real(attempt.startedAt)), ("duration", .real(attempt.duration)),
                            ("failure", attempt.failure.map { .string($0.description) } ?? .null),
                            ("retryDelay", attempt.retryDelay.map(Value.real) ?? .null),
                        ])
                    })
            ),
            ("error", report.error.map { .string($0.description) } ?? .null),
        ]
        if let merge = report.merge {
            members.append(
                (
                    "changes",
                    .dictionary([
                        ("added", ids(merge.added)), ("edited", ids(merge.updated)), ("removed", ids(merge.removed)),
                        ("keptBeyondAnswer", ids(merge.retained)), ("unchanged", .integer(merge.unchanged)), ("evicted", ids(report.evicted)),
                    ])
                ))
        }
        members.append(("posts", .integer(report.timeline.posts.count)))
        members.append(("gaps", TimelineGap.jsonValue(report.gaps)))
        if let start = report.start, let snapshot = start.snapshot {
            members.append(
                (
                    "start",
                    .dictionary([
                        ("postId", .string(snapshot.postId)), ("source", .string(start.source.rawValue)),
                        ("device", start.device.map(Value.string) ?? .null),
                    ])
                ))
        }
        if let reach = report.reach {
            members.append(
                (
                    "reach",
                    .dictionary([
                        ("postId", .string(reach.postId)), ("strategy", .string(reach.strategy)), ("outcome", .string(reach.outcome.description)),
                        (
                            "requests",
                            .array(
                                reach.requests.map { request in
                                    .dictionary([
                                        ("request", .string(request.request.description)), ("url", .string(request.url)),
                                        ("posts", .integer(request.posts)), ("leftOut", .integer(request.cut)),
                                        ("attempts", .integer(request.attempts)),
                                        ("failure", request.failure.map(Value.string) ?? .null),
                                    ])
                                })
                        ),
                        ("bytes", .integer(reach.bytes)), ("added", .integer(reach.added)),
                    ])
                ))
        }
        if let restoration = report.restoration {
            members.append(
                (
                    "restoration",
                    .dictionary([
                        ("postId", .string(restoration.postId)), ("index", .integer(restoration.index)),
                        ("contentOffset", .real(restoration.contentOffset)), ("method", .string(restoration.method.rawValue)),
                        ("strategy", .string(restoration.strategy)), ("confidence", .real(restoration.confidence)),
                        ("requests", .integer(report.reach?.requestCount ?? 0)),
                    ])
                ))
        }
        return .dictionary(members)
    }
}
