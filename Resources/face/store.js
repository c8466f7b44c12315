// docs/face-modules.md

const listeners = new Set();

export const store = {
  /** topic -> payload, exactly as the node sent it. */
  state: {},
  /** False until the WebSocket is open, and again whenever it drops. */
  connected: false,
  /** {noise:[…], alarm:[…], gong:[…]} from the `sounds` verb, or null. */
  sounds: null,
  /** A not yet confirmed change of settings.face, shown at once as a live preview. */
  facePreview: null,
};

/** Calls `fn(topics)` after every change; returns an unsubscribe function. */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function emit(...topics) {
  for (const fn of [...listeners]) fn(new Set(topics));
}

export function setState(topic, payload) {
  store.state[topic] = payload;
  emit(topic);
}

export function setConnected(connected) {
  if (store.connected === connected) return;
  store.connected = connected;
  emit("connection");
}

/** Deep merge of plain objects (the node merges `settings` patches the same way). */
export function merge(base, patch) {
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out = { ...(base && typeof base === "object" ? base : {}) };
  for (const [k, v] of Object.entries(patch)) out[k] = merge(out[k], v);
  return out;
}

export const FACE_DEFAULTS = {
  theme: "night", digit_color: "#FFFFFF", background_color: "#000000", glow: 30, size: 0,
  digit_opacity: 100, overlay_opacity: 70, random_color: false, font: "sans", weight: 300,
  overlays: { date: true, battery: true, next_alarm: true, noise: true, timers: true },
  night: { enabled: false, start: "22:00", end: "07:00", theme: "red", brightness: 5 },
  day_brightness: 100, pixel_shift: true,
};

/** settings.face as the node has it, with defaults for anything missing and the live preview on top. */
export function face() {
  const fromNode = merge(FACE_DEFAULTS, store.state.settings?.face || {});
  return store.facePreview ? merge(fromNode, store.facePreview) : fromNode;
}

/** The settings object (time format, seconds, zone) with the clock state's view as a fallback. */
export function clockSettings() {
  const s = store.state.settings || {};
  const c = store.state.clock || {};
  return {
    timeFormat: s.time_format || c.time_format || "24h",
    showSeconds: s.show_seconds ?? c.show_seconds ?? false,
    timezone: c.timezone || s.timezone || "",
    // An empty locale is the node's language (SPEC §11), as on the node.
    locale: s.locale || s.language || "en",
    publishSeconds: !!s.publish_seconds,
  };
}
