// The ringing view: the label, the time, a large Snooze and a Dismiss that must be held for a
// second (a half-asleep tap snoozes instead of dismissing). Also the hold-to-cancel of a snooze.

import { store, clockSettings } from "./store.js";
import { t } from "./i18n.js";
import { $, setText, setHidden, setAttr } from "./dom.js";
import { command } from "./connection.js";
import { parts, formatHM } from "./nodetime.js";

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
  setText($(".ring-snooze-title", view), t("ring.snooze"));
  const dismiss = $("#ring-dismiss");
  setText($(".hold-label", dismiss), t("ring.dismiss"));
  setAttr(dismiss, "aria-label", t("ring.dismiss.label"));
  holdButton(dismiss, () => send("dismiss", {}), () => flashHint(t("ring.hint")));
  $("#ring-snooze").addEventListener("click", () => {
    const minutes = snoozeMinutes();
    send("snooze", minutes ? { minutes } : {});
  });

  const small = $("#snoozed-dismiss");
  setText($(".hold-label", small), t("ring.snoozed.dismiss"));
  setAttr(small, "aria-label", t("ring.snoozed.dismiss.label"));
  holdButton(small, () => command("dismiss"), null);
}

async function send(verb, payload) {
  const r = await command(verb, payload);
  if (r.status !== "ok") flashHint(r.error?.code === "unavailable" ? t("error.offline") : t("error.generic", { message: r.error?.message || "" }));
}

function flashHint(text) {
  setText(hint, text);
  clearTimeout(hintTimer);
  hintTimer = setTimeout(() => setText(hint, ""), 3000);
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
  if (!ringing) return false;
  const st = store.state["alarm/state"];
  setText($("#ring-label"), st.label || ringingAlarm()?.label || t("ring.title"));
  const minutes = snoozeMinutes();
  setText($(".ring-snooze-min", view), minutes ? t("ring.snooze.min", { count: minutes }) : "");
  setAttr($("#ring-snooze"), "aria-label", minutes ? t("ring.snooze.label", { count: minutes }) : t("ring.snooze"));
  for (const b of view.querySelectorAll("button")) b.disabled = !store.connected;
  updateRingTime();
  // A half-asleep Enter snoozes.
  if (appeared) $("#ring-snooze").focus({ preventScroll: true });
  return appeared;
}

export function updateRingTime() {
  if (!shown) return;
  const p = parts();
  setText($("#ring-time"), formatHM(p.hour, p.minute, clockSettings().timeFormat));
}
