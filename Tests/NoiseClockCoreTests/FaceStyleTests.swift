import NoiseClockCore
import Testing

@Suite("settings.face: the clock face's style, checked and deep-merged")
struct FaceStyleTests {
    private func patch(_ json: String) throws -> SettingsPatch {
        guard case .success(.object(let members)) = decodePayload(json).payload else { throw CommandError(.invalidJSON, "test payload") }
        return try SettingsPatch(CommandArguments(members))
    }

    @Test("the defaults: night theme, auto size, every overlay on, no night schedule, pixel shift on")
    func defaults() {
        let json = ClockSettings().json[member: "face"]
        #expect(json?[member: "theme"] == "night")
        #expect(json?[member: "size"] == 0)
        #expect(json?[member: "weight"] == 300)
        #expect(json?[member: "overlays"] == ["date": true, "weather": true, "battery": true, "next_alarm": true, "noise": true, "timers": true])
        #expect(json?[member: "night"] == ["enabled": false, "start": "22:00", "end": "07:00", "theme": "red", "brightness": 5, "below_lux": nil])
        #expect(json?[member: "pixel_shift"] == true)
    }

    @Test("a partial face object changes only what it names, in depth; two patches merge in depth")
    func deepMerge() throws {
        let first = try patch(##"{"face":{"theme":"red","night":{"start":"sunset","brightness":0}}}"##)
        let second = try patch(##"{"face":{"night":{"enabled":true},"overlays":{"battery":false}}}"##)
        let settings = ClockSettings().applying(first.merging(second))
        #expect(settings.face.theme == .red)
        #expect(settings.face.night.enabled)
        #expect(settings.face.night.start == .sunset)
        #expect(settings.face.night.end == FaceStyle.NightEdge("07:00"))
        #expect(settings.face.night.brightness == 0)
        #expect(settings.face.overlays["battery"] == false)
        #expect(settings.face.overlays["date"] == true)
        // What is stored (the merged patch) reads back to the same settings.
        let stored = try #require(first.merging(second).json.objectValue)
        #expect(ClockSettings().applying(try SettingsPatch(CommandArguments(stored))) == settings)
    }

    @Test("colours are normalised to upper case; a family name is kept as written")
    func normalised() throws {
        let settings = ClockSettings().applying(try patch(##"{"face":{"digit_color":"#ff8800","font":"Inter Display"}}"##))
        #expect(settings.face.digitColor == "#FF8800")
        #expect(settings.face.font == "Inter Display")
    }

    @Test("every bad member is refused, named by its path, and nothing applies", arguments: [
        (##"{"face":"red"}"##, "face"),
        (##"{"face":{"theme":"blue"}}"##, "face.theme"),
        (##"{"face":{"digit_color":"red"}}"##, "face.digit_color"),
        (##"{"face":{"background_color":"#12345"}}"##, "face.background_color"),
        (##"{"face":{"glow":101}}"##, "face.glow"),
        (##"{"face":{"size":-1}}"##, "face.size"),
        (##"{"face":{"digit_opacity":"full"}}"##, "face.digit_opacity"),
        (##"{"face":{"random_color":"yes"}}"##, "face.random_color"),
        (##"{"face":{"font":"x\";}body{"}}"##, "face.font"),
        (##"{"face":{"weight":950}}"##, "face.weight"),
        (##"{"face":{"overlays":{"clock":true}}}"##, "face.overlays.clock"),
        (##"{"face":{"overlays":[]}}"##, "face.overlays"),
        (##"{"face":{"night":{"start":"25:00"}}}"##, "face.night.start"),
        (##"{"face":{"night":{"end":"dawn"}}}"##, "face.night.end"),
        (##"{"face":{"night":{"brightness":101}}}"##, "face.night.brightness"),
        (##"{"face":{"night":{"theme":"dark"}}}"##, "face.night.theme"),
        (##"{"face":{"day_brightness":true}}"##, "face.day_brightness"),
        (##"{"face":{"colour":"#FFFFFF"}}"##, "face.colour"),
        (##"{"face":{"theme":"red","glow":500}}"##, "face.glow"),
    ])
    func refused(payload: String, field: String) {
        do {
            _ = try patch(payload)
            Issue.record("\(payload) was accepted")
        } catch let error as CommandError {
            #expect(error.field == field)
            #expect(error.code == .invalidField)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
