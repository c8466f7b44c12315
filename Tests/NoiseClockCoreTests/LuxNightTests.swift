import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

@Suite("Night by the room's light (SPEC §13): 30 s below below_lux is night, 30 s above twice that is day")
struct LuxNightTests {
    @Test("against a reading-by-reading model on a 100 ms grid: readings hold until the next, the decision falls on the 30th second, the band between keeps what was, a clock set back restarts the wait")
    func model() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            await computeInTurn {
                var random = SplitMix64(state: UInt64(seed))
                let below = Double(random.int(1...20))
                var night = LuxNight(belowLux: below)
                var now = Date(timeIntervalSince1970: 1_790_000_000)
                // The model: the light as the last reading says, and how long it has pointed one way.
                var modelNight: Bool?
                var reading: Double?
                var pointingSince: Date?
                // Time has come to `now`: a wait of 30 s is over.
                func decide() {
                    if let since = pointingSince, let current = modelNight, now.timeIntervalSince(since) >= 30 {
                        modelNight = !current
                        pointingSince = nil
                    }
                }
                for _ in 0..<400 {
                    let context = "seed \(seed), below \(below), at \(now.timeIntervalSince1970)"
                    if random.chance(15) {
                        // A new reading: dark, the band, or bright.
                        let lux = [Double(random.int(0...Int(below) - 1)), below + Double(random.int(0...Int(below))), Double(random.int(Int(below) * 2 + 1...500))][random.int(0...2)]
                        let changed = night.observe(lux, at: now)
                        reading = lux
                        if modelNight == nil {
                            modelNight = lux < below
                            pointingSince = nil
                            #expect(changed, "the first reading decides; \(context)")
                        } else if let current = modelNight {
                            let away = current ? lux > below * 2 : lux < below
                            if !away { pointingSince = nil } else if pointingSince == nil { pointingSince = now }
                        }
                        decide()
                    }
                    if random.chance(3) {
                        // The clock set back a little.
                        now.addTimeInterval(-Double(random.int(1...50)))
                        _ = night.look(at: now)
                        if let since = pointingSince, now < since { pointingSince = now }
                    }
                    decide()
                    _ = night.look(at: now)
                    #expect(night.isNight == modelNight, "\(String(describing: night.isNight)) vs \(String(describing: modelNight)), reading \(String(describing: reading)); \(context)")
                    #expect(night.nextDecision == pointingSince.map { $0.addingTimeInterval(30) }, "\(context)")
                    now.addTimeInterval(Double(random.int(1...40)) / 10)
                }
            }
        }
    }

    @Test("2 lux for 35 s turns the night on at the 30th second; 20 lux for 35 s turns it off; 8 lux in between changes nothing")
    func scenario() {
        var night = LuxNight(belowLux: 5)
        let t0 = Date(timeIntervalSince1970: 1_790_000_000)
        func reading(_ lux: Double, _ seconds: Double) -> Bool { night.observe(lux, at: t0.addingTimeInterval(seconds)) }
        func look(_ seconds: Double) -> Bool { night.look(at: t0.addingTimeInterval(seconds)) }
        #expect(reading(50, 0) && night.isNight == false, "the first reading decides")
        #expect(!reading(2, 1))
        #expect(night.nextDecision == t0.addingTimeInterval(31))
        #expect(!look(30.9) && night.isNight == false)
        #expect(look(31) && night.isNight == true)
        #expect(!reading(8, 40) && night.nextDecision == nil, "the band keeps the night")
        #expect(!look(200) && night.isNight == true)
        #expect(!reading(20, 201))
        #expect(!reading(9, 220) && night.nextDecision == nil, "a dip into the band starts the wait over")
        #expect(!reading(20, 221))
        #expect(look(251) && night.isNight == false)
        #expect(!reading(.nan, 252) && !reading(-1, 252), "no reading")
        #expect(night.lux == 20)
    }
}

@Suite("A reading of the room's light from an MQTT message, and face.night.below_lux")
struct LuxReadingTests {
    @Test("a bare number (Home Assistant's state) or JSON illuminance/lux (Zigbee2MQTT); anything else is no reading")
    func parse() {
        func reading(_ text: String) -> Double? { LuxReading.parse(Array(text.utf8)) }
        #expect(reading("12.5") == 12.5)
        #expect(reading(" 3\n") == 3)
        #expect(reading(#"{"illuminance":240,"battery":97}"#) == 240)
        #expect(reading(#"{"lux":0.4}"#) == 0.4)
        #expect(reading(#"{"illuminance":"dark"}"#) == nil)
        #expect(reading("unavailable") == nil)
        #expect(reading("-1") == nil)
        #expect(reading("nan") == nil)
        #expect(reading("") == nil)
    }

    @Test("below_lux is a number of lux or null, named face.night.below_lux when wrong; nothing changes then")
    func setting() throws {
        let style = try FaceStyle().applying(["night": ["below_lux": 5]])
        #expect(style.night.belowLux == 5 && style.json[member: "night"]?[member: "below_lux"] == 5)
        #expect(try style.applying(["night": ["below_lux": .null]]).night.belowLux == nil)
        #expect(FaceStyle().json[member: "night"]?[member: "below_lux"] == .null)
        for bad: JSONValue in [0, -3, "5", 20_000, true] {
            do {
                _ = try style.applying(["night": ["below_lux": bad, "brightness": 9]])
                Issue.record("\(bad.serialized) was taken")
            } catch {
                #expect(error.field == "face.night.below_lux", "\(bad.serialized): \(error)")
            }
        }
    }
}
