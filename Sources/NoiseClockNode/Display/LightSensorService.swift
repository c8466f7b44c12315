import Logging
import NoiseClockCore
import NoiseClockHub
import NoiseClockDisplay
import ServiceLifecycle
import NoiseClockSystem
import Synchronization

/// The room's light from the node's own sensor (SPEC §13 `display.light_sensor`): read once a
/// second, on the reader's thread, only while the face's night follows the light
/// (`settings.face.night.below_lux`), and handed to the screen like a `display.lux_topic` reading.
/// Without `below_lux` the sensor is not read at all, so it adds no wake-up to an idle node.
public struct LightSensorService: Service, CustomStringConvertible {
    public var description: String { "LightSensorService(\(reader.sensor.folder))" }
    let reader: LightSensorReader
    let hub: StateHub

    public init(sensor: LightSensor, display: DisplayController, hub: StateHub, logger: Logger) {
        let lastProblem = Mutex<String?>(nil)
        reader = LightSensorReader(sensor: sensor) { reading in
            switch reading {
            case .success(let lux):
                if lastProblem.withLock({ $0 }) != nil {
                    logger.notice("the light sensor reads again", metadata: ["sensor": "\(sensor.folder)"])
                    lastProblem.withLock { $0 = nil }
                }
                // On the reader's thread: the reading goes to the loop.
                NodeActor.onLoop { display.observeLux(lux) }
            case .failure(let error):
                // Logged once per new reason: a sensor that fails every second does not flood the log.
                let new = lastProblem.withLock { last in
                    defer { last = error.reason }
                    return last != error.reason
                }
                if new { logger.warning("the light sensor cannot be read", metadata: ["error": "\(error.reason)"]) }
            }
        }
        self.hub = hub
    }

    public func run() async {
        let reader = reader
        hub.signals.subscribe { signal in
            if case .settings(let settings) = signal { reader.want(settings.face.night.belowLux != nil) }
        }
        try? await gracefulShutdown()
        reader.want(false)
    }
}

/// The light sensor `display.light_sensor` names (found by `auto`, or a folder), unless
/// `display.lux_topic` gives the light. One that cannot be read is logged and reported (`B/status`
/// problems); the node runs without.
func loadLightSensor(_ display: Configuration.Display, logger: Logger) -> (LightSensor?, String?) {
    guard display.luxTopic.isEmpty else { return (nil, nil) }
    do {
        let sensor = try LightSensor.make(display.lightSensor)
        if let sensor { logger.info("light sensor", metadata: ["sensor": "\(sensor.folder)"]) }
        return (sensor, nil)
    } catch {
        logger.error("the light sensor cannot be used", metadata: ["error": "\(error)"])
        return (nil, "\(error.key): \(error.reason)")
    }
}
