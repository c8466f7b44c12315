import Foundation
import Glibc
import NoiseClockDisplay
import Testing

@Suite("SysfsBacklight: brightness through /sys/class/backlight")
struct SysfsBacklightTests {
    @Test("auto-detection takes the first folder by name with a readable max_brightness above 0")
    func find() throws {
        try withBacklightRoot { root in
            try root.device("acpi_video0", ["max_brightness": "0", "brightness": "0"])
            try root.device("aaa_broken", ["brightness": "3"])
            try root.device("intel_backlight", ["max_brightness": "19200", "brightness": "9600"])
            try root.device("rpi_backlight", ["max_brightness": "255", "brightness": "255"])
            #expect(SysfsBacklight.find(in: root.path) == "\(root.path)/intel_backlight")
        }
        try withBacklightRoot { root in
            #expect(SysfsBacklight.find(in: root.path) == nil)
        }
        #expect(SysfsBacklight.find(in: "/nonexistent/noiseclock/backlight") == nil)
    }

    @Test("percent becomes raw steps rounded up: 1 % is never 0, 100 % is max_brightness", arguments: [
        (255, 1, "3"), (255, 50, "128"), (255, 100, "255"), (7, 1, "1"), (7, 15, "2"), (7, 100, "7"), (19200, 1, "192"),
        (1, 1, "1"), (1, 100, "1"),
    ])
    func rounding(max: Int, percent: Int, raw: String) throws {
        try withBacklightRoot { root in
            try root.device("panel", ["max_brightness": "\(max)", "brightness": "0", "bl_power": "0"])
            let backlight = try SysfsBacklight(directory: "\(root.path)/panel")
            try backlight.set(brightness: percent)
            #expect(root.read("panel", "brightness") == raw)
        }
    }

    @Test("with 100 steps or more, every percent reads back as itself")
    func readBack() throws {
        try withBacklightRoot { root in
            for max in [100, 255, 1023, 19200, 96000] {
                try root.device("panel\(max)", ["max_brightness": "\(max)", "brightness": "1", "bl_power": "0"])
                let backlight = try SysfsBacklight(directory: "\(root.path)/panel\(max)")
                for percent in 1...100 {
                    try backlight.set(brightness: percent)
                    #expect(backlight.brightness == percent, "max \(max), \(percent) %")
                }
            }
        }
    }

    @Test("0 % powers the panel off with bl_power = 4 and keeps the brightness; above 0 powers it on at the new level")
    func offAndOn() throws {
        try withBacklightRoot { root in
            try root.device("panel", ["max_brightness": "255", "brightness": "200", "bl_power": "0"])
            let backlight = try SysfsBacklight(directory: "\(root.path)/panel")
            #expect(backlight.brightness == 78)
            try backlight.set(brightness: 0)
            #expect(root.read("panel", "bl_power") == "4")
            #expect(root.read("panel", "brightness") == "200")
            #expect(backlight.brightness == 0)
            try backlight.set(brightness: 5)
            #expect(root.read("panel", "bl_power") == "0")
            #expect(root.read("panel", "brightness") == "13")
            #expect(backlight.brightness == 5)
            #expect(backlight.canDim)
            #expect(backlight.name == "backlight panel")
        }
    }

    @Test("a driver without bl_power is turned off with brightness 0")
    func withoutPower() throws {
        try withBacklightRoot { root in
            try root.device("panel", ["max_brightness": "100", "brightness": "60"])
            let backlight = try SysfsBacklight(directory: "\(root.path)/panel")
            try backlight.set(brightness: 0)
            #expect(root.read("panel", "brightness") == "0")
            #expect(backlight.brightness == 0)
            try backlight.set(brightness: 60)
            #expect(root.read("panel", "brightness") == "60")
            #expect(!FileManager.default.fileExists(atPath: "\(root.path)/panel/bl_power"))
        }
    }

    @Test("brightness is clamped to 0-100 %, and a panel with one step cannot dim")
    func clamping() throws {
        try withBacklightRoot { root in
            try root.device("panel", ["max_brightness": "1", "brightness": "0", "bl_power": "4"])
            let backlight = try SysfsBacklight(directory: "\(root.path)/panel")
            #expect(!backlight.canDim)
            try backlight.set(brightness: 150)
            #expect(root.read("panel", "brightness") == "1")
            #expect(root.read("panel", "bl_power") == "0")
            try backlight.set(brightness: -5)
            #expect(root.read("panel", "bl_power") == "4")
        }
    }

    @Test("a brightness file the node may not write is reported with the udev rule to install")
    func readOnly() throws {
        try withBacklightRoot { root in
            let panel = try root.device("panel", ["max_brightness": "255", "brightness": "100", "bl_power": "0"])
            chmod("\(panel)/brightness", 0o444)
            let backlight = try SysfsBacklight(directory: panel)
            let error = #expect(throws: ScreenError.self) {
                try withoutFilePrivileges { try backlight.set(brightness: 50) }
            }
            #expect(error?.key == "display.backlight")
            #expect(error?.reason.contains("\(panel)/brightness") == true)
            #expect(error?.reason.contains("Permission denied") == true)
            #expect(error?.reason.contains("99-noiseclock-backlight.rules") == true)
            #expect(root.read("panel", "brightness") == "100")
        }
    }

    @Test("a device that vanished (a display unplugged) fails the write instead of creating files")
    func vanished() throws {
        try withBacklightRoot { root in
            let panel = try root.device("panel", ["max_brightness": "255", "brightness": "100"])
            let backlight = try SysfsBacklight(directory: panel)
            try FileManager.default.removeItem(atPath: panel)
            let error = #expect(throws: ScreenError.self) { try backlight.set(brightness: 50) }
            #expect(error?.reason.contains("No such file") == true)
            #expect(!FileManager.default.fileExists(atPath: panel))
            #expect(backlight.brightness == nil)
        }
    }
}
