// docs/face-modules.md

import { t } from "./i18n.js";

let lo = -Infinity;
let hi = Infinity;
let offset = 0;

export function observeClock(iso, fresh, periodS) {
  const node = Date.parse(iso);
  if (Number.isNaN(node)) return;
  const local = Date.now();
  const onBoundary = fresh && /:00(?:\.0+)?(?:Z|[+-]\d\d:?\d\d)$/.test(iso);
  const slack = !fresh ? periodS * 1000 + 1000 : onBoundary ? 300 : 1100;
  narrow(node - local, node + slack - local);
  zoneOffsetFallback = isoOffsetMinutes(iso);
}

/** The node's clock read between `low` and `high` at a moment between our `sent` and `received`. */
export function observeRange(low, high, sent, received) {
  narrow(low - received, high - sent);
}

function narrow(l, h) {
  if (l > hi || h < lo) {
    lo = l; // the node's clock jumped (or ours did): start over
    hi = h;
  } else {
    lo = Math.max(lo, l);
    hi = Math.min(hi, h);
  }
  offset = Math.min(Math.max(0, lo), hi);
}

export function now() {
  return Date.now() + offset;
}

export function currentOffset() {
  return offset;
}

// --- the node's zone

let zoneOffsetFallback = null;
let zone = "";
let formatter = null;

function isoOffsetMinutes(iso) {
  const m = /([+-])(\d\d):?(\d\d)$/.exec(iso);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : iso.endsWith("Z") ? 0 : null;
}

/** Sets the IANA zone times are read in (clock.timezone); empty or unknown uses the offset of the last clock push. */
export function setZone(name) {
  if (name === zone && formatter) return;
  zone = name || "";
  formatter = null;
  const options = {
    hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric",
    hour: "numeric", minute: "numeric", second: "numeric", weekday: "short",
  };
  try {
    formatter = new Intl.DateTimeFormat("en-US", zone ? { ...options, timeZone: zone } : options);
    if (!zone && zoneOffsetFallback !== null) formatter = null;
  } catch {
    formatter = null;
  }
}

const WEEKDAYS = { Mon: "mon", Tue: "tue", Wed: "wed", Thu: "thu", Fri: "fri", Sat: "sat", Sun: "sun" };
const WEEKDAY_KEYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/** {year, month, day, hour, minute, second, weekday:"mon"…} of `ms` in the node's zone. */
export function parts(ms = now()) {
  if (formatter) {
    const p = {};
    for (const { type, value } of formatter.formatToParts(ms)) p[type] = value;
    return {
      year: +p.year, month: +p.month, day: +p.day, hour: +p.hour % 24, minute: +p.minute, second: +p.second,
      weekday: WEEKDAYS[p.weekday] || "mon",
    };
  }
  const d = new Date(ms + (zoneOffsetFallback ?? -new Date(ms).getTimezoneOffset()) * 60000);
  return {
    year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(),
    minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: WEEKDAY_KEYS[d.getUTCDay()],
  };
}

export function zoneName() {
  return zone;
}

const two = (n) => String(n).padStart(2, "0");

/** "07:30" (24 h) or "7:30 AM" (12 h) for an hour and minute. */
export function formatHM(hour, minute, format) {
  if (format === "12h") {
    const h12 = hour % 12 === 0 ? 12 : hour % 12;
    return t("clock.time12", { time: `${h12}:${two(minute)}`, ampm: t(hour < 12 ? "clock.am" : "clock.pm") });
  }
  return `${two(hour)}:${two(minute)}`;
}

/** An ISO time as the node's wall-clock "07:30" / "7:30 AM". */
export function formatInstant(iso, format) {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return "";
  const p = parts(ms);
  return formatHM(p.hour, p.minute, format);
}

/** "in 7 h 12 min" from the node-corrected now to `targetMs`, counted in whole minutes, rounded up. */
export function relative(targetMs, fromMs = now()) {
  const seconds = (targetMs - fromMs) / 1000;
  if (seconds <= 0) return t("rel.now");
  if (seconds < 60) return t("rel.soon");
  const total = Math.ceil(seconds / 60);
  const d = Math.floor(total / 1440);
  const h = Math.floor((total % 1440) / 60);
  const m = total % 60;
  if (d > 0) return t("rel.d_h", { d, h, count: d });
  if (h === 0) return t("rel.min", { m });
  if (m === 0) return t("rel.h", { h, count: h });
  return t("rel.h_min", { h, m });
}

/** "23 min left" / "1 h 5 min left" until `targetMs`, rounded up to whole minutes. */
export function left(targetMs, fromMs = now()) {
  const total = Math.max(0, Math.ceil((targetMs - fromMs) / 60000));
  if (total < 60) return t("left.min", { count: total });
  return t("left.h_min", { h: Math.floor(total / 60), m: total % 60 });
}

/** "Fri 25 Dec" / "Fr, 25. Dez." for a date "YYYY-MM-DD" or an ISO instant (read in the node's zone). */
export function formatDate(text) {
  let p;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const [year, month, day] = text.split("-").map(Number);
    p = { month, day, weekday: WEEKDAY_KEYS[new Date(Date.UTC(year, month - 1, day)).getUTCDay()] };
  } else {
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) return "";
    p = parts(ms);
  }
  return t("date.short", { weekday: t("day." + p.weekday), day: p.day, month: t("month." + p.month) });
}
