import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockPower
import ServiceLifecycle

/// Publishes retained `B/battery` on every change and at least every `refreshInterval`, and
/// `battery_low` once when a discharging battery falls below `battery.low_threshold`.
public struct BatteryService: Service, CustomStringConvertible {
    public var description: String { "BatteryService(\(source.name))" }

    let source: any BatterySource
    let hub: StateHub
    let time: NodeTime
    let lowThreshold: Int
    let refreshInterval: Duration

    public init(
        source: any BatterySource, hub: StateHub, time: NodeTime, lowThreshold: Int, refreshInterval: Duration = .seconds(300)
    ) {
        self.source = source
        self.hub = hub
        self.time = time
        self.lowThreshold = lowThreshold
        self.refreshInterval = refreshInterval
    }

    private enum Input: Sendable {
        case reading(BatteryReading)
        case refresh
    }

    public func run() async {
        await cancelWhenGracefulShutdown { await follow() }
    }

    private func follow() async {
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(32))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await source.run { continuation.yield(.reading($0)) }
                continuation.finish()
            }
            group.addTask {
                while true {
                    do { try await time.clock.sleep(refreshInterval) } catch { return }
                    continuation.yield(.refresh)
                }
            }
            var warning = LowBatteryWarning(threshold: Double(lowThreshold))
            var last: BatteryReading?
            for await input in inputs {
                switch input {
                case .reading(let reading):
                    if reading != last {
                        hub.publish(StateTopic.battery, reading.json)
                        last = reading
                    }
                    if warning.shouldWarn(for: reading) {
                        hub.emit(
                            time.event(
                                "battery_low",
                                ["percentage": reading.percentage.map { .number($0) } ?? .null, "threshold": .number(Double(lowThreshold))]))
                    }
                case .refresh:
                    if let last { hub.publish(StateTopic.battery, last.json, always: true) }
                }
            }
            group.cancelAll()
        }
    }
}
