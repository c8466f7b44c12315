// docs/face-modules.md

import { store, face, clockSettings } from "./store.js";
import { t, language } from "./i18n.js";
import { $, h, icon, setText, setHidden, setClass, setAttr } from "./dom.js";
import { parts, formatInstant, relative, left } from "./nodetime.js";
import { sortedTimers, timerLeft, clockText } from "./countdown.js";
import { radio, radioActive, playingName } from "./radio.js";
import { renderWeather } from "./weather.js";

const MAX_TIMER_CHIPS = 3;

const els = {};
let dateFormatter = null;
let dateLocale = "";

export function initOverlays() {
  for (const id of ["date", "timer-chips", "battery", "next-alarm", "noise-now", "radio-now", "snoozed", "conn"]) els[id] = $("#" + id);
}

export function labelOverlays() {
  setText($(".conn-text", els.conn), t("conn.offline"));
  setAttr(els.conn, "title", t("conn.offline.long"));
}

/** Everything that depends on state; cheap, and writes only what changed. */
export function renderOverlays() {
  const f = face();
  const show = f.overlays || {};
  const stale = !store.connected;
  renderDate(show.date !== false);
  renderWeather(show.weather !== false, stale);
  renderBattery(show.battery !== false, stale);
  const snoozed = store.state["alarm/state"]?.state === "snoozed";
  renderNextAlarm(show.next_alarm !== false && !snoozed, stale);
  renderSnoozed(snoozed, stale);
  renderNoise(show.noise !== false, stale);
  renderRadio(show.noise !== false, stale);
  renderTimerChips(show.timers !== false, stale);
}

/** A chip per running or paused timer under the date ("Pasta 4:12"), the nearest end first, at most 3 and "+N". */
export function renderTimerChips(visible = face().overlays?.timers !== false, stale = !store.connected) {
  const el = els["timer-chips"];
  const list = visible ? sortedTimers().filter((x) => x.state !== "ringing") : [];
  const shown = list.slice(0, list.length > MAX_TIMER_CHIPS ? MAX_TIMER_CHIPS - 1 : MAX_TIMER_CHIPS);
  const more = list.length - shown.length;
  const key = shown.map((x) => x.id + x.state + x.label).join() + more + language();
  if (el.dataset.key !== key) {
    el.dataset.key = key;
    el.replaceChildren(...shown.map((x) => h("span", { class: "tchip " + x.state }, icon(x.state === "paused" ? "pause" : "timer"),
      h("span", { text: x.label || t("label.timer") }), h("b"))), more > 0 ? h("span", { class: "tchip", text: t("timers.more", { count: more }) }) : "");
  }
  const times = el.querySelectorAll("b");
  const names = shown.map((x, i) => {
    setText(times[i], clockText(timerLeft(x)));
    return `${x.label || t("label.timer")} ${times[i].textContent}`;
  });
  setAttr(el, "role", "img");
  setAttr(el, "aria-label", names.concat(more > 0 ? [t("timers.more", { count: more })] : []).join(", "));
  setClass(el, "stale", stale);
  setHidden(el, !shown.length);
}

/** The node's date string while it is today's; past midnight without the node, formatted here. */
function renderDate(visible) {
  const el = els.date;
  const clock = store.state.clock;
  let text = "";
  const p = parts();
  const today = `${p.year}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
  if (clock?.date && clock.iso?.slice(0, 10) === today) {
    text = clock.date;
  } else {
    text = localDate(p);
  }
  setText(el, text);
  setHidden(el, !visible || !text);
}

function localDate(p) {
  const locale = clockSettings().locale.replaceAll("_", "-") || "en-US";
  if (!dateFormatter || dateLocale !== locale) {
    dateLocale = locale;
    try {
      dateFormatter = new Intl.DateTimeFormat(locale, { day: "numeric", month: "long", weekday: "short", timeZone: "UTC" });
    } catch {
      dateFormatter = new Intl.DateTimeFormat("en-US", { day: "numeric", month: "long", weekday: "short", timeZone: "UTC" });
    }
  }
  // "d MMMM EEE", the pattern of the node's clock.date, the day with its period where the
  // locale writes one after it ("23. November Mo.").
  const q = {};
  let previous = "";
  for (const { type, value } of dateFormatter.formatToParts(Date.UTC(p.year, p.month - 1, p.day, 12))) {
    if (type === "literal" && previous === "day" && value.startsWith(".")) q.day += ".";
    else q[type] = value;
    previous = type;
  }
  return [q.day, q.month, q.weekday].filter(Boolean).join(" ");
}

function levelOf(b) {
  if (b.level) return b.level;
  const pct = Number(b.percentage);
  return pct >= 50 ? "green" : pct >= 20 ? "yellow" : pct >= 10 ? "orange" : "red";
}

function renderBattery(visible, stale) {
  const el = els.battery;
  const b = store.state.battery;
  if (!visible || !b || b.present === false || !Number.isFinite(Number(b.percentage))) return setHidden(el, true);
  const pct = Math.round(Math.max(0, Math.min(100, Number(b.percentage))));
  const charging = b.state === "charging" || b.charging === true;
  setText($(".battery-text", el), t("battery.percent", { percent: pct }));
  setAttr($(".battery-fill", el), "width", Math.max(1.5, (20.5 * pct) / 100).toFixed(2));
  setAttr(el, "data-level", levelOf(b));
  setClass(el, "charging", charging);
  setAttr(el, "aria-label", t(charging ? "battery.charging" : b.state === "full" ? "battery.full" : "battery.label", { percent: pct }));
  setAttr(el, "role", "img");
  setClass(el, "stale", stale);
  setHidden(el, false);
}

function renderNextAlarm(visible, stale) {
  const el = els["next-alarm"];
  const next = store.state["alarm/next"];
  const ms = next?.fires_at ? Date.parse(next.fires_at) : NaN;
  if (!visible || Number.isNaN(ms)) return setHidden(el, true);
  const time = formatInstant(next.fires_at, clockSettings().timeFormat);
  const rel = relative(ms);
  setText($(".chip-text", el), t("next.summary", { time, relative: rel }));
  setAttr(el, "aria-label", t("next.label", { label: next.label || "", time, relative: rel }));
  setAttr(el, "role", "img");
  setClass(el, "stale", stale);
  setHidden(el, false);
}

function renderSnoozed(visible, stale) {
  const el = els.snoozed;
  const st = store.state["alarm/state"];
  if (!visible || !st?.snoozed_until) return setHidden(el, true);
  setText($(".snoozed-text", el), t("ring.snoozed", { time: formatInstant(st.snoozed_until, clockSettings().timeFormat) }));
  setClass(el, "stale", stale);
  setHidden(el, false);
}

export function soundName(id) {
  const entry = store.sounds?.noise?.find((s) => s.id === id) || store.sounds?.alarm?.find((s) => s.id === id);
  return entry?.name || id;
}

function renderNoise(visible, stale) {
  const el = els["noise-now"];
  const n = store.state.noise;
  const sounds = n?.playing ? n.sounds || [] : [];
  if (!visible || sounds.length === 0) return setHidden(el, true);
  const names = t("noise.mix", { name: soundName(sounds[0].id), more: sounds.length - 1, count: sounds.length });
  const ends = n.sleep_timer_ends_at ? Date.parse(n.sleep_timer_ends_at) : NaN;
  const text = Number.isNaN(ends) ? names : t("noise.summary", { sounds: names, left: left(ends) });
  setText($(".chip-text", el), text);
  setAttr(el, "aria-label", t("noise.label", { sounds: text }));
  setAttr(el, "role", "img");
  setClass(el, "stale", stale);
  setHidden(el, false);
}

/**
 * The station that plays and its title ("Deutschlandfunk · Nachrichten"), under the noise's
 * switch (radio and noise are one player); cut short with an ellipsis when long.
 */
function renderRadio(visible, stale) {
  const el = els["radio-now"];
  const r = radio();
  if (!visible || !radioActive(r)) return setHidden(el, true);
  const name = playingName(r);
  const title = r.state === "playing" && typeof r.now_playing === "string" ? r.now_playing.trim() : "";
  const ends = r.sleep_timer_ends_at ? Date.parse(r.sleep_timer_ends_at) : NaN;
  const what = title ? t("radio.chip", { name, title }) : name;
  const text = Number.isNaN(ends) ? what : t("noise.summary", { sounds: what, left: left(ends) });
  setText($(".chip-text", el), text);
  setAttr(el, "aria-label", t("radio.label", { what: text }));
  setAttr(el, "role", "img");
  setClass(el, "stale", stale);
  setHidden(el, false);
}

/** The disconnected mark; shown once a first connection attempt has had its chance. */
export function renderConnection(showMark) {
  setHidden(els.conn, !showMark);
}

