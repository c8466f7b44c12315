import NoiseClockCore

/// The screen's verbs (SPEC §9): `display/wake` (a touch on the face), and Home Assistant's
/// "Screen" light, `display/power` (ON/OFF) and `display/brightness` (0-100). Each answers
/// `B/display` as it is after the change.
struct DisplayCommands: CommandGroup {
    let display: DisplayController

    func addCommands(to router: inout CommandRouter) {
        router.add("display/wake") { _ in
            let state = await display.wake()
            display.wakeUp.wake()
            return state
        }
        router.add("display/power", shape: .object(bareValue: "state")) { arguments in
            try arguments.allowOnly(["state"])
            guard let on = try arguments.bool("state") else { throw CommandError.invalidField("state", "ON or OFF is required") }
            let state = await display.power(on: on)
            display.wakeUp.wake()
            return state
        }
        router.add("display/brightness", shape: .object(bareValue: "brightness")) { arguments in
            try arguments.allowOnly(["brightness"])
            let brightness = try arguments.requiredInt("brightness", in: 0...100, "a brightness from 0 to 100 is required")
            let state = await display.setBrightness(brightness)
            display.wakeUp.wake()
            return state
        }
    }
}
