// docs/face-modules.md

import { store } from "./store.js";
import { now } from "./nodetime.js";

/** Whole seconds until `iso`, rounded up as the node rounds its ends; null without one. */
export function secondsUntil(iso) {
  const end = Date.parse(iso || "");
  return Number.isNaN(end) ? null : Math.max(0, Math.ceil((end - now()) / 1000 - 0.001));
}

/** "4:12", "1:02:03". */
export function clockText(seconds) {
  const s = Math.max(0, Math.round(Number(seconds) || 0));
  const two = (n) => String(n).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}

export function timers() {
  return Array.isArray(store.state.timers) ? store.state.timers : [];
}

/** Seconds left: counting while the timer runs, frozen while paused, 0 while it rings. */
export function timerLeft(x) {
  if (x.state === "ringing") return 0;
  // A run ends on a whole second, up to 1 s after its duration: the count starts at the duration.
  const left = (x.state === "running" ? secondsUntil(x.ends_at) : null) ?? (Number(x.remaining_s) || 0);
  return Math.min(left, Number(x.duration_s) || left);
}

/** Ringing, then running (the nearest end first), then paused. */
export function sortedTimers() {
  const rank = { ringing: 0, running: 1, paused: 2 };
  return timers().slice().sort((a, b) => rank[a.state] - rank[b.state] || timerLeft(a) - timerLeft(b));
}

export function meditation() {
  return store.state.meditation || { state: "idle" };
}

/** A session counts down each second while it prepares or runs. */
export function counting() {
  const m = meditation().state;
  return m === "running" || m === "preparing" || timers().some((x) => x.state === "running");
}
