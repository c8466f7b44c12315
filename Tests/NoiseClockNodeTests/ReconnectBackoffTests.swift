import NoiseClockMQTT
import Testing

/// The reconnect delays (SPEC §8: exponential backoff, 1 s up to 30 s), spread so that clocks that
/// lost their broker together do not reconnect at the same instant.
@Suite("Reconnect backoff: doubling from 1 s to 30 s, each delay up to a quarter longer at random")
struct ReconnectBackoffTests {
    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test("each delay is its doubling step or up to 25 % more, never past 30 s; a reset starts again at 1 s")
    func steps() {
        for _ in 0..<100 {
            var backoff = ReconnectBackoff(minimum: .seconds(1), maximum: .seconds(30))
            for step: Double in [1, 2, 4, 8, 16, 30, 30, 30] {
                let delay = seconds(backoff.take())
                #expect(delay >= step && delay < step * 1.25 + 1e-9 && delay <= 30, "step \(step): \(delay)")
            }
            backoff.reset()
            let first = seconds(backoff.take())
            #expect(first >= 1 && first < 1.25)
        }
    }

    @Test("a thousand clocks that lose the broker together spread their first attempts over most of a quarter second")
    func spread() {
        let firsts = (0..<1000).map { _ in
            var backoff = ReconnectBackoff(minimum: .seconds(1), maximum: .seconds(30))
            return seconds(backoff.take())
        }
        let earliest = firsts.min() ?? 0, latest = firsts.max() ?? 0
        #expect(earliest >= 1 && latest < 1.25)
        #expect(latest - earliest > 0.2, "spread over \(latest - earliest) s")
        // No instant takes a crowd: about 40 of them in each 10 ms (uniform over 25 of them), and
        // never 80 (six standard deviations) where all 1000 came at once before.
        let buckets = Dictionary(grouping: firsts) { Int(($0 - 1) * 100) }
        #expect(buckets.count == 25)
        #expect((buckets.values.map(\.count).max() ?? 0) < 80)
    }
}
