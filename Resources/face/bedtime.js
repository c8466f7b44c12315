// docs/face-modules.md

import { store, clockSettings } from "./store.js";
import { t } from "./i18n.js";
import { $, setText, setHidden, setAttr } from "./dom.js";
import { command } from "./connection.js";
import { now, parts, formatHM } from "./nodetime.js";
import { sunLevel } from "./sunrise.js";

const STEP_MS = 30000;
let timer = 0;
const els = {};

export function initBedtime() {
  els.chip = $("#bedtime");
  els.text = $(".chip-text", els.chip);
  els.action = $(".chip-action", els.chip);
  els.breathe = $("#breathe");
  els.action.addEventListener("click", (e) => {
    e.stopPropagation(); // not the face's tap, which shows the controls
    command(store.state.bedtime?.phase === "winding_down" ? "bedtime/stop" : "bedtime/start");
  });
}

export function labelBedtime() {
  setText($(".b-in", els.breathe), t("breathe.in"));
  setText($(".b-hold", els.breathe), t("breathe.hold"));
  setText($(".b-out", els.breathe), t("breathe.out"));
  setText($(".b-still", els.breathe), t("breathe.still"));
  setAttr(els.breathe, "aria-label", t("breathe.label"));
}

/** The wind-down under way: {progress 0-1, span in ms} from B/bedtime, or null. */
export function windDown(ms = now()) {
  const b = store.state.bedtime;
  if (!b || b.phase !== "winding_down") return null;
  const ends = Date.parse(b.ends_at);
  const length = Number(store.state.settings?.bedtime?.wind_down_min ?? 30) * 60000;
  if (!(ends > 0)) return null;
  // A wind-down started by hand lasts wind_down_min from then, like a scheduled one.
  const span = Math.max(60000, length);
  return { progress: Math.min(1, Math.max(0, 1 - (ends - ms) / span)), span };
}

function hm(iso) {
  const ms = Date.parse(iso);
  if (!(ms > 0)) return "";
  const p = parts(ms);
  return formatHM(p.hour, p.minute, clockSettings().timeFormat);
}

/** The chip in the bottom band: the reminder with "Wind down", or the wind-down with "Stop". */
export function renderBedtimeChip(stale = !store.connected) {
  const b = store.state.bedtime;
  const phase = b?.phase;
  const shown = phase === "reminder" || phase === "winding_down";
  setHidden(els.chip, !shown);
  if (!shown) return;
  const at = hm(phase === "winding_down" ? b.ends_at : b.next_at);
  setText(els.text, t(phase === "reminder" ? "bedtime.reminder" : "bedtime.winding", { time: at }));
  setText(els.action, t(phase === "reminder" ? "bedtime.start" : "bedtime.stop"));
  els.action.disabled = stale;
  els.chip.classList.toggle("stale", stale);
}

function setVar(name, value) {
  const style = document.documentElement.style;
  if (style.getPropertyValue(name) !== value) style.setProperty(name, value);
}

/** The sunset and the breathing guide for now; the next sunset step in 30 s while it lasts. */
export function renderSunset() {
  clearTimeout(timer);
  const w = windDown();
  const d = document.documentElement.dataset;
  const on = w ? "on" : "";
  if (d.sunset !== on) d.sunset = on;
  const breathe = !!w && store.state.settings?.bedtime?.breathe === true;
  setHidden(els.breathe, !breathe);
  if (!w) return;
  // The glow fades as the light does (the node's curve, from day to night), one step ahead so
  // the glide ends where the next step begins.
  const ahead = Math.min(1, w.progress + STEP_MS / w.span);
  setVar("--dusk", sunLevel(1 - ahead).toFixed(3));
  setVar("--dusk-down", `${(ahead * 26).toFixed(2)}vh`);
  if (w.progress < 1) timer = setTimeout(renderSunset, STEP_MS);
}
