import FoundationEssentials
import Logging
import NoiseClockCore
import NoiseClockSystem

/// Where battery readings come from. One per node, chosen by `battery.source`.
public protocol BatterySource: Sendable {
    /// `upower`, `sysfs` or `none`, as `B/status` and `B/battery` name it.
    var name: String { get }
    /// Reports the current reading, then every change, until the calling task is cancelled.
    func run(report: @escaping @Sendable (BatteryReading) -> Void) async
}

/// A machine without a battery (or without a source that can see one): `present:false`, once.
public struct NoBatterySource: BatterySource {
    public let name = "none"

    public init() {}

    public func run(report: @escaping @Sendable (BatteryReading) -> Void) async {
        report(.absent(source: name))
        await Cancellation.wait()
    }
}

public enum BatterySources {
    /// The source `battery.source` asks for; nil for `none` (battery reporting off).
    ///
    /// `auto` takes UPower when it answers on the system bus now, else sysfs when a battery is
    /// there, else reports that there is none. It does not switch later.
    public static func make(
        _ configuration: Configuration.Battery, sleep: @escaping @Sendable (Duration) async throws -> Void, logger: Logger
    ) -> (any BatterySource)? {
        switch configuration.source {
        case "none":
            return nil
        case "upower":
            return UPowerSource(logger: logger)
        case "sysfs":
            return SysfsSource(root: configuration.sysfsRoot, sleep: sleep)
        default:
            if UPowerSource.answers() {
                logger.info("battery: using UPower")
                return UPowerSource(logger: logger)
            }
            if SysfsBattery.find(in: configuration.sysfsRoot) != nil {
                logger.info("battery: UPower not answering; using sysfs", metadata: ["root": "\(configuration.sysfsRoot)"])
                return SysfsSource(root: configuration.sysfsRoot, sleep: sleep)
            }
            logger.info("battery: no UPower and no battery under sysfs; reporting none")
            return NoBatterySource()
        }
    }
}
