/// Allocations that an index's arrays own (`TimelineLookups`, the text index's columns), freed
/// together.
/// Not Sendable: filled on one thread while the arrays are made, and freed once, by the deinit of
/// the index that holds them.
package final class OwnedBuffers {
    private var allocations: [UnsafeMutableRawPointer] = []

    package init() {}

    /// A copy of `array` in memory these buffers own.
    package func copy<Element>(_ array: [Element]) -> UnsafeBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(1, array.count))
        _ = buffer.initialize(from: array)
        allocations.append(UnsafeMutableRawPointer(buffer.baseAddress!))
        return UnsafeBufferPointer(rebasing: buffer[..<array.count])
    }

    /// `buffer`, allocated by the caller, freed with the others from now on.
    package func adopt<Element>(_ buffer: UnsafeMutableBufferPointer<Element>) {
        allocations.append(UnsafeMutableRawPointer(buffer.baseAddress!))
    }

    package func free() {
        for allocation in allocations { allocation.deallocate() }
        allocations = []
    }
}
