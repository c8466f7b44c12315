// docs/face-modules.md

import { store } from "./store.js";
import { now } from "./nodetime.js";

const STEP_MS = 10000;
let timer = 0;

/** The light's level (0-1) at progress p (0-1): the luminance whose CIE 1976 L* is 100·p. */
export function sunLevel(p) {
  const l = 100 * Math.min(1, Math.max(0, p));
  return l > 8 ? ((l + 16) / 116) ** 3 : l / (24389 / 27);
}

/** How far the sunrise in B/wake has come at `ms` (0-1), or null when none rises. */
export function sunriseProgress(ms = now()) {
  const w = store.state.wake;
  if (!w || w.phase !== "sunrise") return null;
  const start = Date.parse(w.sunrise_started_at), ring = Date.parse(w.ring_at);
  if (!(ring > start)) return null;
  return Math.min(1, Math.max(0, (ms - start) / (ring - start)));
}

// The sky by the light's level: night, a deep red glow, embers, amber, warm white.
const SKY = [
  [0, [8, 2, 2]],
  [0.02, [58, 6, 2]],
  [0.12, [150, 28, 6]],
  [0.35, [232, 108, 30]],
  [0.65, [255, 186, 110]],
  [1, [255, 240, 218]],
];

function mix(stops, x) {
  let i = 1;
  while (i < stops.length - 1 && stops[i][0] < x) i++;
  const [x0, a] = stops[i - 1], [x1, b] = stops[i];
  const t = x1 > x0 ? Math.min(1, Math.max(0, (x - x0) / (x1 - x0))) : 1;
  return "#" + a.map((v, k) => Math.round(v + (b[k] - v) * t).toString(16).padStart(2, "0")).join("");
}

function setVar(name, value) {
  const style = document.documentElement.style;
  if (style.getPropertyValue(name) !== value) style.setProperty(name, value);
}

/**
 * The sky at progress p: the horizon's colour, the top's, the sun's, the digits' (light on the dark
 * sky, deep brown once it is bright) and how high the sun's glow has climbed (in vh).
 */
export function sky(p) {
  const y = sunLevel(p);
  // The top follows the horizon more closely as the light grows: warm white all over at the ring.
  const low = mix(SKY, y), high = mix(SKY, y * (0.55 + 0.35 * y)), core = mix(SKY, Math.min(1, y * 1.6 + 0.02));
  // Light ink starts as the red night theme's (no white, no green in a dark room) and warms to
  // cream as the sky brightens; dark ink is deep brown. The digits take whichever stands out more
  // from the sky behind them (the middle of the screen, with the sun's glow); the small text at
  // the bottom, from the horizon's colour.
  const light = y < 0.04 ? blend("#D00000", "#E0400F", y / 0.04) : blend("#E0400F", "#FFE6CF", Math.min(1, (y - 0.04) / 0.08));
  const dark = "#2E1606";
  const pick = (behind) => (contrast(light, behind) >= contrast(dark, behind) ? light : dark);
  const behind = blend(blend(low, high, 0.67), core, 0.4);
  return { low, high, core, digit: pick(behind), ink: pick(low), up: 10 + p * 38 };
}

function channels(c) {
  const n = parseInt(c.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function blend(a, b, t) {
  const x = channels(a), z = channels(b);
  return "#" + x.map((v, k) => Math.round(v + (z[k] - v) * t).toString(16).padStart(2, "0")).join("");
}

/** WCAG's contrast ratio of two colours. */
export function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = channels(c).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const x = lum(a), z = lum(b);
  return (Math.max(x, z) + 0.05) / (Math.min(x, z) + 0.05);
}

/** Draws the step for now, and the next one in 10 s while the sun rises. */
export function renderSunrise() {
  clearTimeout(timer);
  const p = sunriseProgress();
  const d = document.documentElement.dataset;
  const on = p === null ? "" : "on";
  if (d.sunrise !== on) d.sunrise = on;
  if (p === null) return;
  // Ten seconds ahead: CSS glides to it meanwhile, so the sky is where it should be at each step.
  const s = sky(sunriseProgress(now() + STEP_MS) ?? p);
  setVar("--sky-low", s.low);
  setVar("--sky-high", s.high);
  setVar("--sun-core", s.core);
  setVar("--sun-up", `${s.up.toFixed(2)}vh`);
  setVar("--sky-digit", s.digit);
  setVar("--sky-ink", s.ink);
  timer = setTimeout(renderSunrise, STEP_MS);
}
