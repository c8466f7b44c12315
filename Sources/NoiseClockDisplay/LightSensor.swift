import FoundationEssentials
import NoiseClockCore
import NoiseClockSystem
import Synchronization

/// An ambient light sensor of the kernel's iio subsystem (SPEC §13 `display.light_sensor`): a
/// folder under `/sys/bus/iio/devices` with `in_illuminance_input` (lux) or `in_illuminance_raw`
/// with `in_illuminance_scale` (and `in_illuminance_offset`): lux = (raw + offset) × scale.
///
/// A read may block while the driver measures (up to its integration time), so it is never done
/// on the node's thread: `LightSensorReader` reads on a thread of its own.
public struct LightSensor: Sendable, Hashable {
    public static let devices = "/sys/bus/iio/devices"

    public let folder: String

    /// `display.light_sensor`: `none` (nil), `auto` (the first sensor under `root` by name, or nil),
    /// or a sensor's folder, which must be one.
    public static func make(_ configured: String, root: String = devices) throws(ScreenError) -> LightSensor? {
        switch configured {
        case "none":
            return nil
        case "auto":
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root))?.sorted() ?? []
            return names.map { LightSensor(folder: "\(root)/\($0)") }.first { (try? $0.read()) != nil }
        default:
            let sensor = LightSensor(folder: configured)
            do {
                _ = try sensor.read()
            } catch {
                throw ScreenError(key: "display.light_sensor", reason: error.reason)
            }
            return sensor
        }
    }

    public init(folder: String) {
        self.folder = folder
    }

    /// The light now, in lux.
    public func read() throws(ScreenError) -> Double {
        if let lux = number("in_illuminance_input") {
            guard lux >= 0 else { throw ScreenError(key: "display.light_sensor", reason: "\(folder)/in_illuminance_input reads \(lux)") }
            return lux
        }
        guard let raw = number("in_illuminance_raw") else {
            throw ScreenError(
                key: "display.light_sensor",
                reason: "\(folder) has no readable in_illuminance_input or in_illuminance_raw: not a light sensor (the sensors are under \(Self.devices))")
        }
        let lux = (raw + (number("in_illuminance_offset") ?? 0)) * (number("in_illuminance_scale") ?? 1)
        return max(0, lux)
    }

    private func number(_ file: String) -> Double? {
        FileBytes.read("\(folder)/\(file)", limit: 64).flatMap { Double(String(decoding: $0, as: UTF8.self).trimmingWhitespace()) }
    }
}

/// Reads a light sensor once a second on a thread of its own (`light sensor`), only while someone
/// wants the readings: the thread exists only then, so a node whose night does not follow the
/// light never wakes for it.
public final class LightSensorReader: Sendable {
    public let sensor: LightSensor
    let interval: Duration
    let deliver: @Sendable (Result<Double, ScreenError>) -> Void
    private let state = Mutex<(wanted: Bool, running: Bool)>((false, false))
    private let wake = WakeSignal()

    /// - Parameter deliver: each reading (or why there is none), on the reader's thread.
    public init(sensor: LightSensor, interval: Duration = .seconds(1), deliver: @escaping @Sendable (Result<Double, ScreenError>) -> Void) {
        self.sensor = sensor
        self.interval = interval
        self.deliver = deliver
    }

    /// Whether the thread reads: started when wanted, ended (at once) when not.
    public func want(_ wanted: Bool) {
        let start = state.withLock { state -> Bool in
            state.wanted = wanted
            guard wanted, !state.running else { return false }
            state.running = true
            return true
        }
        if start {
            Threads.start(name: "light sensor") { [self] in run() }
        } else if !wanted {
            wake.signal()
        }
    }

    /// Whether the thread is reading now (for tests).
    public var isRunning: Bool { state.withLock { $0.running } }

    private func run() {
        while true {
            let go = state.withLock { state -> Bool in
                if !state.wanted { state.running = false }
                return state.wanted
            }
            guard go else { return }
            do {
                deliver(.success(try sensor.read()))
            } catch {
                deliver(.failure(error))
            }
            _ = wake.wait(timeout: interval)
        }
    }
}
