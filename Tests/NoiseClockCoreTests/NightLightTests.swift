import Foundation
import NoiseClockCore
import NoiseClockTestSupport
import PropertyBased
import Testing

@Suite("The night light (SPEC §13): on and off, its colour and brightness kept, off after its minutes, a clock set back")
struct NightLightTests {
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    func apply(_ light: NightLight, _ members: [String: JSONValue], at now: Date) throws(CommandError) -> NightLight {
        try light.applying(CommandArguments(members), now: now)
    }

    @Test("turned on, it shines for off_after_min and is off at that instant, not a second before")
    func minutes() throws {
        let light = try apply(NightLight(), ["on": true, "off_after_min": 20], at: t0)
        #expect(light.shining == 10)
        #expect(light.offAt == t0.addingTimeInterval(1200))
        #expect(light.expired(at: t0.addingTimeInterval(1199)).on)
        #expect(!light.expired(at: t0.addingTimeInterval(1200)).on)
        #expect(light.expired(at: t0.addingTimeInterval(1200)).offAt == nil)
        let always = try apply(NightLight(), ["on": true, "off_after_min": 0], at: t0)
        #expect(always.offAt == nil)
        #expect(always.expired(at: t0.addingTimeInterval(86_400 * 30)).on)
    }

    @Test("a new colour or brightness keeps its end; on again or new minutes start them from then")
    func restarts() throws {
        let on = try apply(NightLight(), ["on": true], at: t0)
        let later = t0.addingTimeInterval(600)
        let recoloured = try apply(on, ["color": "#3366ff", "brightness": 40], at: later)
        #expect(recoloured.offAt == on.offAt)
        #expect(recoloured.color == RGBColor(red: 0x33, green: 0x66, blue: 0xFF))
        #expect(recoloured.shining == 40)
        #expect(try apply(on, ["on": true], at: later).offAt == later.addingTimeInterval(1200))
        #expect(try apply(on, ["off_after_min": 5], at: later).offAt == later.addingTimeInterval(300))
    }

    @Test("off keeps the colour, brightness and minutes for the next time; a colour sent while off does not turn it on")
    func keeps() throws {
        let on = try apply(NightLight(), ["on": true, "color": "#00ff00", "brightness": 7, "off_after_min": 45], at: t0)
        let off = try apply(on, ["on": false], at: t0.addingTimeInterval(60))
        #expect(off.shining == nil)
        #expect(off.offAt == nil)
        let blue = try apply(off, ["color": "#0000ff"], at: t0.addingTimeInterval(120))
        #expect(!blue.on)
        let again = try apply(blue, ["on": true], at: t0.addingTimeInterval(180))
        #expect(again.color.hex == "#0000FF")
        #expect(again.shining == 7)
        #expect(again.offAt == t0.addingTimeInterval(180 + 45 * 60))
    }

    @Test("Home Assistant's JSON light: state ON/OFF, color as r, g, b, a transition that is ignored; a bare ON")
    func homeAssistant() throws {
        let light = try apply(NightLight(), ["state": "ON", "color": ["r": 255, "g": 0, "b": 128], "brightness": 55, "transition": 2], at: t0)
        #expect(light.on)
        #expect(light.color.hex == "#FF0080")
        #expect(light.brightness == 55)
        let json = light.json { _ in "then" }
        #expect(json["state"] == "ON")
        #expect(json["color"] == ["r": 255, "g": 0, "b": 128])
        #expect(json["color_mode"] == "rgb")
        #expect(json["brightness"] == 55)
        #expect(json["off_at"] == "then")
        #expect(try apply(light, ["state": "OFF"], at: t0).json { _ in "" }["state"] == "OFF")
        let bare = try NightLight().applying(
            CommandArguments(payload: .bare("ON"), shape: .object(bareValue: "on"), verb: "nightlight"), now: t0)
        #expect(bare.on)
    }

    @Test(
        "bad input names its field and changes nothing",
        arguments: [
            (["on": "maybe"], "on"), (["on": true, "state": "OFF"], "state"), (["color": "orange"], "color"),
            (["color": "#12345"], "color"), (["color": ["r": 1, "g": 2]], "color.b"), (["color": ["r": 256, "g": 0, "b": 0]], "color.r"),
            (["color": "#000000"], "color"), (["color": 12], "color"), (["brightness": 0], "brightness"),
            (["brightness": 101], "brightness"), (["off_after_min": 721], "off_after_min"), (["off_after_min": -1], "off_after_min"),
            (["transition": "slow"], "transition"), (["colour": "#ffffff"], "colour"),
        ] as [([String: JSONValue], String)])
    func refuses(members: [String: JSONValue], field: String) throws {
        let light = try apply(NightLight(), ["on": true], at: t0)
        do {
            _ = try apply(light, members, at: t0.addingTimeInterval(10))
            Issue.record("\(members) was accepted")
        } catch {
            #expect(error.field == field, "\(members): \(error)")
        }
    }

    @Test("stored and read back, it is the same light; a stored file with a bad field is refused naming it")
    func stored() throws {
        let light = try apply(NightLight(), ["on": true, "color": "#102030", "brightness": 3, "off_after_min": 90], at: t0)
        #expect(try NightLight(stored: light.stored) == light)
        #expect(try NightLight(stored: NightLight().stored) == NightLight())
        var broken = light.stored.objectValue ?? [:]
        broken["brightness"] = 0
        #expect(throws: CommandError.self) { try NightLight(stored: .object(broken)) }
        broken = light.stored.objectValue ?? [:]
        broken["off_at"] = "soon"
        do {
            _ = try NightLight(stored: .object(broken))
            Issue.record("a stored off_at of \"soon\" was read")
        } catch {
            #expect(error.field == "off_at")
        }
    }

    @Test("walking time with the wall clock set back now and then (each noticed at the next look): the light shines exactly off_after_min of real time, ending at the first look from then on; a restart after a set-back never leaves more than its minutes")
    func setBack() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            await computeInTurn {
                var random = SplitMix64(state: UInt64(seed))
                let minutes = random.int(1...120)
                var wall = t0
                var elapsed: TimeInterval = 0
                var light = (try? apply(NightLight(), ["on": true, "off_after_min": .number(Double(minutes))], at: wall)) ?? NightLight()
                var last: Date? = wall
                while light.on {
                    if random.int(0...5) == 0 {
                        // Set back by up to two hours, and looked at right away (the node's clockwork
                        // is woken by a change of the wall clock): no real time passes.
                        wall = wall.addingTimeInterval(-TimeInterval(random.int(1...7200)))
                        light = light.expired(at: wall, lastLook: last)
                        last = wall
                        #expect(light.on, "a set-back alone never ends it")
                    }
                    let step = TimeInterval(random.int(1...400))
                    elapsed += step
                    wall = wall.addingTimeInterval(step)
                    light = light.expired(at: wall, lastLook: last)
                    last = wall
                    if light.on {
                        #expect(elapsed < TimeInterval(minutes * 60), "on after \(elapsed) s of \(minutes) min")
                        if let end = light.offAt {
                            #expect(abs(end.timeIntervalSince(wall) - (TimeInterval(minutes * 60) - elapsed)) < 0.001)
                        }
                    } else {
                        #expect(elapsed >= TimeInterval(minutes * 60), "off after \(elapsed) s of \(minutes) min")
                        #expect(elapsed - step < TimeInterval(minutes * 60), "the look before was already past the end")
                    }
                }
                // A restart (no previous look) after the clock went back by hours: at most its minutes from now.
                let relit = (try? apply(NightLight(), ["on": true, "off_after_min": .number(Double(minutes))], at: t0)) ?? NightLight()
                let restarted = relit.expired(at: t0.addingTimeInterval(-10_000))
                #expect(restarted.offAt == t0.addingTimeInterval(-10_000 + TimeInterval(minutes * 60)))
            }
        }
    }
}
