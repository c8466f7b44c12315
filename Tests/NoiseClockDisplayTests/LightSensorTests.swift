import Foundation
import NoiseClockDisplay
import NoiseClockSystem
import Synchronization
import Testing

@Suite("The iio ambient light sensor (SPEC §13 display.light_sensor): found, read, and read only while wanted")
struct LightSensorTests {
    @Test("auto finds the first folder that measures light (not an accelerometer beside it); lux is the input, or (raw + offset) × scale")
    func find() throws {
        try withBacklightRoot { root in
            try root.device("iio:device0", ["in_accel_x_raw": "12", "name": "accel"])
            try root.device("iio:device1", ["in_illuminance_raw": "250", "in_illuminance_scale": "0.04", "in_illuminance_offset": "-50"])
            try root.device("iio:device2", ["in_illuminance_input": "3.5"])
            let found = try #require(try LightSensor.make("auto", root: root.path))
            #expect(found.folder == "\(root.path)/iio:device1")
            #expect(abs(try found.read() - 8) < 1e-9, "(250 − 50) × 0.04")
            let input = try #require(try LightSensor.make("\(root.path)/iio:device2", root: "/nonexistent"))
            #expect(try input.read() == 3.5)
            try root.device("iio:device3", ["in_illuminance_raw": "7"])
            #expect(try LightSensor(folder: "\(root.path)/iio:device3").read() == 7, "no scale: the raw value")
            #expect(try LightSensor.make("none", root: root.path) == nil)
        }
        #expect(try LightSensor.make("auto", root: "/nonexistent") == nil, "no sensor: none, and no error")
    }

    @Test("a named folder that is no light sensor is refused, naming display.light_sensor; a reading that goes away fails the read")
    func refuses() throws {
        try withBacklightRoot { root in
            let accel = try root.device("iio:device0", ["in_accel_x_raw": "12"])
            do {
                _ = try LightSensor.make(accel)
                Issue.record("an accelerometer was taken for a light sensor")
            } catch let error as ScreenError {
                #expect(error.key == "display.light_sensor" && error.reason.contains("in_illuminance"), "\(error)")
            }
            let sensor = try root.device("iio:device1", ["in_illuminance_input": "10"])
            let made = try #require(try LightSensor.make(sensor))
            try FileManager.default.removeItem(atPath: "\(sensor)/in_illuminance_input")
            #expect(throws: ScreenError.self) { try made.read() }
        }
    }

    @Test("the reader's thread reads once a second while wanted, follows the sensor, and is gone when not wanted")
    func reader() async throws {
        let root = try BacklightRoot()
        defer { root.remove() }
        let folder = try root.device("iio:device0", ["in_illuminance_input": "2"])
        let readings = Mutex<[Double]>([])
        let arrived = WakeSignal()
        let reader = LightSensorReader(sensor: LightSensor(folder: folder), interval: .milliseconds(50)) { reading in
            if case .success(let lux) = reading { readings.withLock { $0.append(lux) } }
            arrived.signal()
        }
        #expect(!reader.isRunning && !Self.threads().contains("light sensor"), "nothing read before it is wanted")
        reader.want(true)
        #expect(await Self.until { readings.withLock { $0.first } == 2 }, "\(readings.withLock { $0 })")
        #expect(Self.threads().contains("light sensor"))
        try Data("40\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/in_illuminance_input"))
        #expect(await Self.until { readings.withLock { $0.last } == 40 }, "\(readings.withLock { $0 })")
        reader.want(false)
        #expect(await Self.until { !reader.isRunning && !Self.threads().contains("light sensor") }, "the thread ended")
        let count = readings.withLock { $0.count }
        _ = arrived.wait(timeout: .milliseconds(200))
        #expect(readings.withLock { $0.count } <= count + 1, "no reading after the end (one may have been under way)")
        reader.want(true)
        #expect(await Self.until { readings.withLock { $0.count } > count + 1 }, "wanted again, it reads again")
        reader.want(false)
        #expect(await Self.until { !reader.isRunning })
    }

    /// The names of this process's threads.
    static func threads() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Whether `condition` holds within 30 s, looked at every 20 ms (a guard against a hang, not a timing).
    static func until(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
