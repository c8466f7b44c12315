// docs/face-modules.md

import { store, face } from "./store.js";
import { parts } from "./nodetime.js";

const PALETTES = {
  night: { bg: "#000000", digit: "#F4F2EE", dark: true },
  day: { bg: "#F6F5F1", digit: "#141414", dark: false },
  red: { bg: "#000000", digit: "#D40000", dark: true },
};

function hex(c, fallback) {
  return /^#[0-9a-f]{6}$/i.test(c || "") ? c.toUpperCase() : fallback;
}

function rgb(c) {
  const n = parseInt(c.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function luminance(c) {
  const [r, g, b] = rgb(c).map((v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * Whether it is night: during a wind-down (SPEC §13) always; else with the schedule on, the
 * node's word (display.night, which knows sunset and sunrise, the room's light and the night a
 * wind-down brings), else the schedule's times read here. With the schedule off, only the node's
 * own night (after a wind-down, by the room's light), unless a preview just turned it off.
 */
export function isNight(f = face()) {
  const n = f.night || {};
  if (store.state.bedtime?.phase === "winding_down") return true;
  const display = store.state.display;
  if (!n.enabled) return !store.facePreview && display?.night === true;
  if (display && typeof display.night === "boolean") return display.night;
  const mins = (v, sun) => {
    const m = /^(\d\d?):(\d\d)$/.exec(v || "");
    return m ? Number(m[1]) * 60 + Number(m[2]) : sun;
  };
  const p = parts();
  const c = p.hour * 60 + p.minute;
  const s = mins(n.start, 19 * 60);
  const e = mins(n.end, 7 * 60);
  return s > e ? c >= s || c < e : c >= s && c < e;
}

/**
 * The theme in force, from the settings (so a change shows the moment it arrives, whatever order
 * the node's states come in); the node's display.theme when there are no settings yet.
 */
export function effectiveTheme(f = face()) {
  if (!store.state.settings && !store.facePreview && store.state.display?.theme) return store.state.display.theme;
  return isNight(f) ? f.night?.theme || "red" : f.theme;
}

/** A pleasant colour for minute number `n`: hues a golden angle apart, light on dark, deep on light. */
function randomColor(n, dark) {
  const hue = (n * 137.508) % 360;
  return dark ? hsl(hue, 0.7, 0.72) : hsl(hue, 0.65, 0.32);
}

function hsl(h, s, l) {
  const k = (n) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n) => l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  return "#" + [f(0), f(8), f(4)].map((v) => Math.round(v * 255).toString(16).padStart(2, "0")).join("").toUpperCase();
}

function setVar(name, value) {
  const style = document.documentElement.style;
  if (style.getPropertyValue(name) !== value) style.setProperty(name, value);
}

function setData(name, value) {
  const d = document.documentElement.dataset;
  if (d[name] !== value) d[name] = value;
}

/** Applies the style for node-time minute `minuteIndex` (the random colour changes with it). */
export function applyTheme(minuteIndex) {
  const f = face();
  const theme = effectiveTheme(f);
  let bg, digit, dark;
  if (theme === "custom") {
    bg = hex(f.background_color, "#000000");
    digit = hex(f.digit_color, "#FFFFFF");
    dark = luminance(bg) < 0.4;
  } else {
    ({ bg, digit, dark } = PALETTES[theme] || PALETTES.night);
  }
  if (f.random_color && theme !== "red") digit = randomColor(minuteIndex, dark);
  setData("theme", PALETTES[theme] || theme === "custom" ? theme : "night");
  setData("tone", dark ? "dark" : "light");
  setVar("--bg", bg);
  setVar("--digit", digit);
  const glow = Math.max(0, Math.min(100, Number(f.glow) || 0)) / 100;
  const strength = theme === "day" || !dark ? glow * 0.5 : glow;
  const [r, g, b] = rgb(digit);
  setVar("--glow-c1", `rgba(${r}, ${g}, ${b}, ${(strength * 0.75).toFixed(3)})`);
  setVar("--glow-c2", `rgba(${r}, ${g}, ${b}, ${(strength * 0.45).toFixed(3)})`);
  setVar("--glow-r1", `${(0.02 + glow * 0.05).toFixed(3)}em`);
  setVar("--glow-r2", `${(0.06 + glow * 0.16).toFixed(3)}em`);
  setVar("--digit-opacity", String(clamp01(f.digit_opacity, 100)));
  setVar("--overlay-opacity", String(Math.max(0.15, clamp01(f.overlay_opacity, 70))));

  // A screen without a backlight the node can drive (a tablet, a laptop in a browser) is dimmed here.
  const display = store.state.display;
  let dim = 0;
  // A ringing alarm always shows at full brightness.
  if (display && !display.backlight && store.state["alarm/state"]?.state !== "ringing") {
    const b = display.screen === "off" ? 0 : Number(display.brightness ?? 100);
    dim = b >= 100 ? 0 : b <= 0 ? 1 : 0.85 * (1 - b / 100);
  }
  setVar("--dim", dim.toFixed(3));
}

function clamp01(v, dflt) {
  const n = Number.isFinite(Number(v)) ? Number(v) : dflt;
  return Math.max(0, Math.min(100, n)) / 100;
}
