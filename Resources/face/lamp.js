// docs/face-modules.md

import { store } from "./store.js";
import { t } from "./i18n.js";
import { $, setText, setHidden } from "./dom.js";
import { command } from "./connection.js";

const LONG_MS = 700;
const SLOP_PX = 12;
const els = {};

export function initLamp() {
  els.view = $("#lamp");
  els.label = $("#lamp-label");
  els.hint = $(".lamp-hint", els.view);
}

export function labelLamp() {
  setText(els.label, t("lamp.label"));
  setText(els.hint, t("lamp.hint"));
}

/** Whether the night light is on (B/nightlight). */
export function lampOn() {
  return store.state.nightlight?.on === true;
}

/** Shows the lamp when it is on and `visible` (no sunrise, nothing above it); returns whether it shows. */
export function renderLamp(visible) {
  const n = store.state.nightlight;
  const shown = visible && lampOn();
  setHidden(els.view, !shown);
  if (!shown) return false;
  const color = /^#[0-9a-f]{6}$/i.test(n.hex || "") ? n.hex : "#FF8A3D";
  if (els.view.style.getPropertyValue("--lamp") !== color) els.view.style.setProperty("--lamp", color);
  return true;
}

/**
 * Calls `onLong` when `el` is pressed for LONG_MS without moving, and swallows the click that
 * follows it (a long press is not also a tap); a short press stays a tap.
 */
export function longPress(el, onLong) {
  let timer = 0, x = 0, y = 0, fired = false;
  const cancel = () => {
    clearTimeout(timer);
    timer = 0;
  };
  el.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || e.target.closest("button")) return;
    fired = false;
    x = e.clientX;
    y = e.clientY;
    cancel();
    timer = setTimeout(() => {
      timer = 0;
      fired = true;
      onLong();
    }, LONG_MS);
  });
  el.addEventListener("pointermove", (e) => {
    if (timer && Math.hypot(e.clientX - x, e.clientY - y) > SLOP_PX) cancel();
  });
  for (const type of ["pointerup", "pointercancel", "pointerleave"]) el.addEventListener(type, cancel);
  el.addEventListener("contextmenu", (e) => e.preventDefault());
  el.addEventListener("click", (e) => {
    if (!fired) return;
    fired = false;
    e.stopImmediatePropagation();
    e.preventDefault();
  }, true);
}

/** The long press: the lamp on (in its last colour, brightness and minutes) or off. */
export function toggleLamp() {
  command("nightlight", { on: !lampOn() });
}
