/// "Did you mean" suggestions: the closest candidate by edit distance, if it is close enough to
/// be a likely typo.
public enum Suggestions {
    /// The candidate nearest to `word`, when its edit distance (case-insensitive) is at most a
    /// third of the word's length, and at least 1 and at most 3 edits.
    ///
    /// The distance is at least the difference in length, so a candidate whose length differs
    /// by more than the allowed edits is skipped without measuring: a megabyte-long word costs
    /// no more than a short one.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let length = word.unicodeScalars.count
        let allowed = min(3, max(1, length / 3))
        let near = candidates.filter { abs($0.unicodeScalars.count - length) <= allowed }
        guard !near.isEmpty else { return nil }
        let lowered = word.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in near {
            let distance = editDistance(lowered, candidate.lowercased())
            if best == nil || distance < best!.distance {
                best = (candidate, distance)
            }
        }
        guard let best else { return nil }
        return best.distance <= allowed ? best.candidate : nil
    }

    /// The Damerau–Levenshtein distance (optimal string alignment): insertions, deletions,
    /// substitutions and transpositions of adjacent characters each cost 1.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
