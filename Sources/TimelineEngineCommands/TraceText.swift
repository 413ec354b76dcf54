import Foundation
import TimelineEngineKit

/// Every stage's verdict as indented lines, for `engine restore --explain` and `engine replay`.
enum TraceText {
    /// `indent` is the nesting of the outermost stage; `showIndex` adds each candidate's index.
    static func lines(_ trace: [StageVerdict], posts: [Post], indent: Int, showIndex: Bool) -> [String] {
        var lines: [String] = []
        for verdict in trace {
            let prefix = String(repeating: "  ", count: verdict.depth + indent)
            if let candidate = verdict.candidate {
                let at = showIndex ? " at index \(candidate.index)" : ""
                lines.append(
                    "\(prefix)\(verdict.stage): post \(posts[candidate.index].id)\(at) (confidence \(String(format: "%.2f", candidate.confidence))) — \(verdict.verdict)"
                )
                lines.append("\(prefix)  \(candidate.explanation)")
            } else {
                lines.append("\(prefix)\(verdict.stage): \(verdict.verdict)")
            }
        }
        return lines
    }
}
