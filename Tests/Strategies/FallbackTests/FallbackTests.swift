import Testing

@testable import TimelineEngineFallback

@Suite("Fallback", .timeLimit(.minutes(10)))
struct FallbackTests {
    @Test("NearestContent maps a saved index to the same relative place, rounding half up, whatever the figures")
    func scaling() {
        #expect(FallbackStrategy.scale(20, from: 40, to: 30) == 15)
        #expect(FallbackStrategy.scale(1, from: 4, to: 10) == 3)  // 2.5 rounds up
        #expect(FallbackStrategy.scale(39, from: 40, to: 30) == 29)
        #expect(FallbackStrategy.scale(80, from: 40, to: 30) == 29)  // past the saved end: the last post
        #expect(FallbackStrategy.scale(-3, from: 40, to: 30) == 0)
        // Figures whose product overflows Int: no trap, the same relative place.
        #expect(FallbackStrategy.scale(Int.max / 4, from: Int.max / 2, to: 1_000) == 500)
        #expect(FallbackStrategy.scale(Int.max, from: Int.max, to: 10) == 9)
    }

}
