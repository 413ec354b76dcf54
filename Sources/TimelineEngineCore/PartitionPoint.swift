extension RandomAccessCollection where Index == Int {
    /// The first index whose element satisfies `isInSecondPart`, by binary search, for a
    /// collection where every element that does comes after every element that does not;
    /// `endIndex` when none does.
    @inlinable
    package func partitionPoint(where isInSecondPart: (Element) -> Bool) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if isInSecondPart(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
