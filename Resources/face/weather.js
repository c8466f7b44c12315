// docs/face-modules.md

import { store, clockSettings } from "./store.js";
import { t } from "./i18n.js";
import { $, icon, setText, setHidden, setClass, setAttr } from "./dom.js";
import { now, formatInstant } from "./nodetime.js";

// The node's older names for two kinds.
const KINDS = { ice: "freezing_rain", thunder: "thunderstorm" };
// The icons with a sun, and theirs after sunset.
const NIGHT = { clear: "moon", partly_cloudy: "w-night", showers: "w-showers-night" };

/** "4°", "−1°": whole degrees, with a true minus sign. */
const deg = (v) => String(Math.round(v)).replace("-", "\u2212") + "°";
const num = (v) => v !== null && v !== "" && Number.isFinite(Number(v));

/** True between today's sunset and sunrise as B/display has them; false when it has none. */
function dark() {
  const d = store.state.display, ms = now();
  const rise = Date.parse(d?.sunrise), set = Date.parse(d?.sunset);
  return rise < set && (ms < rise || ms >= set);
}

export function renderWeather(visible, disconnected) {
  const el = $("#weather");
  const w = store.state.weather;
  const kind = KINDS[w?.kind] || w?.kind;
  if (!visible || !w || !kind || kind === "unknown" || !num(w.temperature)) return setHidden(el, true);
  // After sunset the sun in an icon is the moon.
  const name = !dark() || !NIGHT[kind] ? "w-" + kind : NIGHT[kind];
  if (el.dataset.icon !== name) {
    el.dataset.icon = name;
    el.firstElementChild.replaceWith(icon(name));
  }
  setAttr(el, "data-kind", kind);
  const temp = deg(w.temperature) + (w.units === "imperial" ? "F" : "C");
  const range = num(w.low) && num(w.high) ? t("weather.range", { low: deg(w.low), high: deg(w.high) }) : "";
  const old = w.stale === true;
  const asOf = old && w.updated_at ? t("weather.as_of", { time: formatInstant(w.updated_at, clockSettings().timeFormat) }) : "";
  const [tempEl, rangeEl, asOfEl] = el.querySelectorAll("span");
  setText(tempEl, temp);
  setText(rangeEl, range);
  setText(asOfEl, asOf);
  const said = w.names?.[document.documentElement.lang] || w.names?.en || "";
  setAttr(el, "aria-label", [said, temp, range && t("weather.range.label", { low: deg(w.low), high: deg(w.high) }), asOf].filter(Boolean).join(", "));
  setClass(el, "old", old);
  setClass(el, "stale", disconnected);
  setHidden(el, false);
}
