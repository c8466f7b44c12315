// Every string the face shows goes through t(key, params). The English table below is the
// default; a later release replaces it with the table the node sends (setStrings).

const EN = {
  "app.title": "NoiseClock",
  "clock.label": "Time {time}",
  "clock.am": "AM",
  "clock.pm": "PM",
  "clock.time12": "{time} {ampm}",
  "conn.offline": "Offline · reconnecting",
  "conn.offline.long": "Not connected to the clock. The time is kept here; alarms, noise and battery may have changed.",

  "battery.label": "Battery {percent} %",
  "battery.charging": "Battery {percent} %, charging",
  "battery.full": "Battery full",
  "battery.percent": "{percent} %",

  "next.summary": "{time} · {relative}",
  "next.label": "Next alarm {label} at {time}, {relative}",

  "rel.now": "now",
  "rel.soon": "in less than a minute",
  "rel.min": "in {m} min",
  "rel.h": "in {h} h",
  "rel.h_min": "in {h} h {m} min",
  "rel.d_h": { one: "in {d} day {h} h", other: "in {d} days {h} h" },
  "left.min": { one: "{count} min left", other: "{count} min left" },
  "left.h_min": "{h} h {m} min left",

  "noise.mix": { one: "{name}", other: "{name} + {more}" },
  "noise.summary": "{sounds} · {left}",
  "noise.label": "Playing {sounds}",

  "ring.title": "Alarm",
  "ring.snooze": "Snooze",
  "ring.snooze.min": { one: "{count} minute", other: "{count} minutes" },
  "ring.snooze.label": { one: "Snooze for {count} minute", other: "Snooze for {count} minutes" },
  "ring.dismiss": "Hold to dismiss",
  "ring.dismiss.label": "Dismiss: hold for one second",
  "ring.hint": "Keep holding to dismiss",
  "ring.snoozed": "Snoozed until {time}",
  "ring.snoozed.dismiss": "Hold to cancel",
  "ring.snoozed.dismiss.label": "Cancel the snooze: hold for one second",

  "wake.hint": "Touch to wake the screen",

  "dock.label": "Controls",
  "dock.noise": "Noise",
  "dock.alarms": "Alarms",
  "dock.settings": "Settings",
  "panel.close": "Close",
  "panel.back": "Back",

  "error.generic": "That did not work: {message}",
  "error.offline": "Not connected to the clock",
  "error.timeout": "The clock did not answer",

  "noise.title": "Noise",
  "noise.now": "Now playing",
  "noise.nothing": "Nothing playing",
  "noise.stop": "Stop",
  "noise.volume": "Volume",
  "noise.sleep": "Sleep timer",
  "noise.sleep.off": "Off",
  "noise.sleep.min": "{count} min",
  "noise.sleep.h": "{count} h",
  "noise.sleep.status": "Stops at {time} · {left}",
  "noise.search": "Search sounds",
  "noise.all": "All",
  "noise.empty": "No sound matches",
  "noise.catalog.missing": "The sound list is not available",
  "noise.play": "Play {name}",
  "noise.add": "Add {name} to the mix",
  "noise.remove": "Remove {name} from the mix",
  "noise.hint": "Tap to play · hold to preview · + to mix",
  "noise.previewing": "Previewing {name}",
  "category.rain": "Rain",
  "category.noise": "Noise",
  "category.fan": "Fan",
  "category.nature": "Nature",
  "category.water": "Water",
  "category.ambient": "Ambient",
  "category.custom": "My sounds",

  "alarms.title": "Alarms",
  "alarms.add": "New alarm",
  "alarms.empty": "No alarms yet",
  "alarms.off": "Off",
  "alarms.meta": "{label} · {repeat}",
  "alarms.skipped": "Skipping next · then {relative}",
  "alarms.edit": "Edit alarm {label} at {time}",
  "alarms.toggle": "Alarm {label} at {time}",
  "alarms.count": { one: "{count} alarm", other: "{count} alarms" },

  "repeat.never": "Never",
  "repeat.daily": "Every day",
  "repeat.weekdays": "Weekdays",
  "repeat.weekends": "Weekends",
  "repeat.sep": ", ",
  "day.mon": "Mon", "day.tue": "Tue", "day.wed": "Wed", "day.thu": "Thu", "day.fri": "Fri", "day.sat": "Sat", "day.sun": "Sun",
  "day.long.mon": "Monday", "day.long.tue": "Tuesday", "day.long.wed": "Wednesday", "day.long.thu": "Thursday",
  "day.long.fri": "Friday", "day.long.sat": "Saturday", "day.long.sun": "Sunday",

  "picker.hour": "Hour",
  "picker.minute": "Minute",
  "picker.ampm": "AM or PM",
  "picker.hour.up": "One hour later",
  "picker.hour.down": "One hour earlier",
  "picker.minute.up": "One minute later",
  "picker.minute.down": "One minute earlier",

  "editor.new": "New alarm",
  "editor.edit": "Edit alarm",
  "editor.time": "Time",
  "editor.repeat": "Repeat",
  "editor.label": "Label",
  "editor.label.default": "Alarm",
  "editor.enabled": "On",
  "editor.sound": "Sound",
  "editor.preview": "Preview {name}",
  "editor.volume": "Volume",
  "editor.snooze": "Snooze",
  "editor.fade": "Fade in",
  "editor.timeout": "Stops ringing after",
  "editor.save": "Save",
  "editor.delete": "Delete",
  "editor.delete.confirm": "Tap again to delete",
  "editor.duplicate": "Duplicate",
  "editor.skip": "Skip next",
  "editor.unskip": "Don’t skip",
  "editor.saved": "Saved",
  "editor.off": "Off",
  "unit.min": "{count} min",
  "unit.s": "{count} s",

  "settings.title": "Settings",
  "settings.clock": "Clock",
  "settings.format": "Time format",
  "settings.24h": "24 hours",
  "settings.12h": "12 hours",
  "settings.seconds": "Show seconds",
  "settings.timezone": "Time zone",
  "settings.timezone.system": "The clock’s own zone",
  "settings.style": "Face",
  "settings.theme": "Theme",
  "theme.night": "Night",
  "theme.day": "Day",
  "theme.red": "Red",
  "theme.custom": "Custom",
  "settings.digit_color": "Digit colour",
  "settings.background_color": "Background",
  "settings.random_color": "New colour every minute",
  "settings.font": "Font",
  "font.sans": "Sans",
  "font.serif": "Serif",
  "font.mono": "Mono",
  "font.rounded": "Rounded",
  "settings.weight": "Weight",
  "settings.size": "Size",
  "settings.size.auto": "Fit",
  "settings.glow": "Glow",
  "settings.digit_opacity": "Digit opacity",
  "settings.overlay_opacity": "Overlay opacity",
  "settings.overlays": "Show",
  "overlay.date": "Date",
  "overlay.battery": "Battery",
  "overlay.next_alarm": "Next alarm",
  "overlay.noise": "Noise",
  "settings.pixel_shift": "Shift a few pixels each minute (burn-in care)",
  "settings.night": "Night",
  "settings.night.enabled": "Night mode",
  "settings.night.start": "Starts",
  "settings.night.end": "Ends",
  "settings.night.at": "At a time",
  "settings.night.sunset": "Sunset",
  "settings.night.sunrise": "Sunrise",
  "settings.night.sun_at": "{event} today: {time}",
  "settings.night.sun_unknown": "Sunset and sunrise need the clock’s latitude and longitude (display.latitude, display.longitude in its configuration).",
  "settings.night.theme": "Night theme",
  "settings.night.brightness": "Night brightness",
  "settings.day_brightness": "Day brightness",
  "settings.percent": "{value} %",
};

let table = EN;
let plural = new Intl.PluralRules("en");

/** Replaces the string table (e.g. German from the node); missing keys fall back to English. */
export function setStrings(strings, language) {
  table = strings || EN;
  plural = new Intl.PluralRules(language || "en");
}

/** The string for `key`, with `{name}` placeholders filled from `params` and plural forms chosen by `params.count`. */
export function t(key, params = {}) {
  let entry = table[key] ?? EN[key];
  if (entry === undefined) return key;
  if (typeof entry === "object") entry = entry[plural.select(params.count ?? 0)] ?? entry.other;
  return entry.replace(/\{(\w+)\}/g, (_, name) => (params[name] ?? "").toString());
}

/** True when the table has `key` (for names that come from the node, such as sound categories). */
export function has(key) {
  return key in table || key in EN;
}
