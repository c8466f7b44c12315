// docs/face-modules.md

import { store, clockSettings } from "./store.js";
import { t, language } from "./i18n.js";
import { $, h, icon, setText, setHidden, setAttr } from "./dom.js";
import { timers } from "./countdown.js";
import { command } from "./connection.js";
import { parts, formatHM } from "./nodetime.js";
import { startBrowserTone, stopBrowserTone, resumeBrowserTone, browserToneState } from "./browser-tone.js";

const HOLD_MS = 1000;

/**
 * Makes `button` act only when held for a second (pointer, or Enter/Space held), showing the
 * progress; a short press calls `onShort` instead.
 */
export function holdButton(button, onHeld, onShort) {
  let timer = 0;
  let done = false;
  const start = (e) => {
    if (timer || button.disabled) return;
    e.preventDefault();
    done = false;
    button.classList.add("holding");
    timer = setTimeout(() => {
      timer = 0;
      done = true;
      button.classList.remove("holding");
      onHeld();
    }, HOLD_MS);
  };
  const stop = () => {
    if (!timer) return;
    clearTimeout(timer);
    timer = 0;
    button.classList.remove("holding");
    if (!done && onShort) onShort();
  };
  button.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    button.setPointerCapture?.(e.pointerId);
    start(e);
  });
  for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) button.addEventListener(type, stop);
  button.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      if (!e.repeat) start(e);
    }
  });
  button.addEventListener("keyup", (e) => {
    if (e.key === "Enter" || e.key === " ") stop();
  });
  button.addEventListener("blur", stop);
  // The click that follows a press does nothing by itself (nor reaches the face behind).
  button.addEventListener("click", (e) => {
    e.preventDefault();
    e.stopPropagation();
  });
  button.addEventListener("contextmenu", (e) => e.preventDefault());
}

let view, hint, hintTimer;
let shown = false;

export function initRinging() {
  view = $("#ringing");
  hint = $("#ring-hint");
  holdButton($("#ring-dismiss"), () => send("dismiss", {}), () => flashHint(t("ring.hint")));
  $("#ring-snooze").addEventListener("click", () => {
    const minutes = snoozeMinutes();
    send("snooze", minutes ? { minutes } : {});
  });
  holdButton($("#snoozed-dismiss"), () => command("dismiss"), null);
  // Any touch on the view lets a tone the browser held back sound (a touch is what it waits for).
  $("#ring-sound-play").addEventListener("click", () => resumeBrowserTone());
  view.addEventListener("pointerdown", () => resumeBrowserTone(), { capture: true });
}

export function labelRinging() {
  setText($(".ring-snooze-title", view), t("ring.snooze"));
  const dismiss = $("#ring-dismiss");
  setText($(".hold-label", dismiss), t("ring.dismiss"));
  setAttr(dismiss, "aria-label", t("ring.dismiss.label"));
  const small = $("#snoozed-dismiss");
  setText($(".hold-label", small), t("ring.snoozed.dismiss"));
  setAttr(small, "aria-label", t("ring.snoozed.dismiss.label"));
  setText($("#ring-sound-play"), t("ring.browser_tone.play"));
  renderSoundFailed();
}

async function send(verb, payload) {
  const r = await command(verb, payload);
  if (r.status !== "ok") flashHint(r.error?.code === "unavailable" ? t("error.offline") : t("error.generic", { message: r.error?.message || "" }));
}

function flashHint(text, where) {
  const el = where ? $(where) : hint;
  setText(el, text);
  clearTimeout(hintTimer);
  hintTimer = setTimeout(() => setText(el, ""), 3000);
}

function ringingAlarm() {
  const st = store.state["alarm/state"];
  return st?.alarm_id ? (store.state.alarms || []).find((a) => a.id === st.alarm_id) : null;
}

function snoozeMinutes() {
  return ringingAlarm()?.snooze_min || 0;
}

export function isRinging() {
  return store.state["alarm/state"]?.state === "ringing";
}

/** Shows or hides the view; returns true when it has just appeared. */
export function renderRinging() {
  const ringing = isRinging();
  const appeared = ringing && !shown;
  shown = ringing;
  setHidden(view, !ringing);
  renderSoundFailed();
  if (!ringing) return false;
  const st = store.state["alarm/state"];
  setText($("#ring-label"), st.label || ringingAlarm()?.label || t("ring.title"));
  const minutes = snoozeMinutes();
  setText($(".ring-snooze-min", view), minutes ? t("ring.snooze.min", { count: minutes }) : "");
  setAttr($("#ring-snooze"), "aria-label", minutes ? t("ring.snooze.label", { count: minutes }) : t("ring.snooze"));
  for (const b of view.querySelectorAll(".ring-actions button")) b.disabled = !store.connected;
  updateRingTime();
  // A half-asleep Enter snoozes.
  if (appeared) $("#ring-snooze").focus({ preventScroll: true });
  return appeared;
}

const SOUND_BACK_MS = 5000;
let failedReason = "";
let soundBackTimer = 0;

/**
 * The node's reason while the alarm rings without a sound, or "". A sound that comes back counts
 * once it has stayed back for 5 s: an output that opens and fails again at once would otherwise
 * start and stop the page's tone many times a second.
 */
function soundFailed() {
  if (!isRinging()) {
    clearTimeout(soundBackTimer);
    soundBackTimer = 0;
    failedReason = "";
    return "";
  }
  const reason = store.state["alarm/state"]?.sound_failed;
  if (typeof reason === "string") {
    clearTimeout(soundBackTimer);
    soundBackTimer = 0;
    failedReason = reason.trim() || t("ring.sound_failed.unknown");
  } else if (failedReason && !soundBackTimer) {
    soundBackTimer = setTimeout(() => {
      soundBackTimer = 0;
      if (typeof store.state["alarm/state"]?.sound_failed !== "string") failedReason = "";
      renderSoundFailed();
    }, SOUND_BACK_MS);
  }
  return failedReason;
}

/**
 * While the node rings without a sound: a quiet line saying so, and the tone from the page
 * (or, held back by the browser until a touch, a button that lets it sound). `data-browser-tone`
 * on the view says which ("playing", "blocked").
 */
function renderSoundFailed() {
  const reason = soundFailed();
  if (reason) startBrowserTone(ringingAlarm()?.fade_in_s ?? 30, renderSoundFailed);
  else stopBrowserTone();
  const tone = reason ? browserToneState() : "";
  const note = $("#ring-sound");
  setHidden(note, !reason);
  setText($(".ring-sound-text span", note), !reason ? "" : t(tone === "playing" ? "ring.browser_tone" : "ring.sound_failed"));
  setText($(".ring-sound-why", note), reason);
  setHidden($("#ring-sound-play"), tone !== "blocked");
  setAttr(view, "data-browser-tone", tone || null);
}

export function updateRingTime() {
  if (!shown) return;
  const p = parts();
  setText($("#ring-time"), formatHM(p.hour, p.minute, clockSettings().timeFormat));
}

// --- finished timers

let timerKey = "";

/** The finished timers, each named, with Dismiss and +1 min (a tap: a timer is not a wake-up). */
export function renderTimerRinging() {
  const view = $("#timer-ring");
  const list = isRinging() ? [] : timers().filter((x) => x.state === "ringing");
  const appeared = list.length > 0 && view.hidden;
  setHidden(view, !list.length);
  const key = list.map((x) => x.id + x.label).join() + store.connected + language();
  if (!list.length) timerKey = "";
  if (!list.length || key === timerKey) return appeared;
  timerKey = key;
  const send = (verb, payload) => command(verb, payload).then((r) => r.status === "ok" || flashHint(t("error.generic", { message: r.error?.message || "" }), "#tring-hint"));
  setText($("#tring-title"), t("timers.finished", { count: list.length }));
  view.classList.toggle("several", list.length > 1);
  $("#tring-list").replaceChildren(...list.map((x) => {
    const label = x.label || t("label.timer");
    const button = (cls, name, text, aria, verb, payload) => h("button", { type: "button", class: cls, "aria-label": aria, disabled: !store.connected,
      onclick: () => send(verb, { id: x.id, ...payload }) }, icon(name), text);
    return h("div", { class: "tring-item" }, h("h2", { text: label }), h("p", { text: x.duration_s < 60 ? t("unit.s", { count: x.duration_s }) : t("unit.min", { count: Math.round(x.duration_s / 60) }) }),
      h("div", { class: "tring-actions" },
        button("ring-snooze", "check", t("timers.dismiss"), t("timers.dismiss.label", { label }), "timer/dismiss"),
        button("btn", "plus", t("timers.extend"), t("timers.extend.label", { label }), "timer/extend", { seconds: 60 })));
  }));
  if (appeared) $("#tring-list button").focus({ preventScroll: true });
  return appeared;
}
