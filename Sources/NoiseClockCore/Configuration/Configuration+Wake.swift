/// The keys of waking up (SPEC §12): `wake.holidays.*`.
extension Configuration {
    public struct Wake: Sendable, Hashable {
        /// The public holidays alarms with `skip_holidays` keep quiet on; nil: none.
        public var holidays: HolidayCalendar?
        /// The lamps a sunrise drives (`wake.lights`), for alarms with `lights`.
        public var lights: [WakeLamp]

        public init(holidays: HolidayCalendar? = nil, lights: [WakeLamp] = []) {
            self.holidays = holidays
            self.lights = lights
        }
    }
}

extension ConfigurationSchema {
    static let wakeKeys: [ConfigKey] = [
        ConfigKey(
            path: "wake.holidays.country", kind: .choice([""] + HolidayCalendar.supported.map(\.country)), defaultValue: "",
            secret: false),
        ConfigKey(path: "wake.holidays.region", kind: .text, defaultValue: "", secret: false),
    ]

    /// `wake.*`, the region checked against its country.
    static func wake(_ resolved: [String: ResolvedValue]) throws(ConfigurationError) -> Configuration.Wake {
        let country = resolved["wake.holidays.country"]?.value ?? ""
        let region = resolved["wake.holidays.region"]?.value ?? ""
        guard !country.isEmpty else {
            guard region.isEmpty else {
                throw ConfigurationError(
                    key: "wake.holidays.region", source: resolved["wake.holidays.region"]?.source ?? "default",
                    reason: "a region needs wake.holidays.country")
            }
            return Configuration.Wake()
        }
        guard let calendar = HolidayCalendar(country: country, region: region) else {
            let regions = HolidayCalendar.supported.first { $0.country == country }?.regions ?? []
            throw ConfigurationError(
                key: "wake.holidays.region", source: resolved["wake.holidays.region"]?.source ?? "default",
                reason: regions.isEmpty
                    ? "\(country) has no regions with holidays of their own; leave it empty, not \"\(region)\""
                    : "must be empty or one of \(regions.joined(separator: ", ")) for \(country), not \"\(region)\"")
        }
        return Configuration.Wake(holidays: calendar)
    }
}
