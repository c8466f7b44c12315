// docs/face-modules.md

import { t } from "./i18n.js";
import { $, setText, setHidden, setAttr } from "./dom.js";
import { command } from "./connection.js";
import { subscribe } from "./store.js";
import { NoisePanel } from "./panel-noise.js";
import { RadioPanel } from "./panel-radio.js";
import { AlarmsPanel } from "./panel-alarms.js";
import { SettingsPanel } from "./panel-settings.js";
import { TimersPanel } from "./panel-timers.js";
import { MeditationPanel } from "./panel-meditation.js";

const IDLE_MS = 10000;
const BUSY_IDLE_MS = 60000; // an alarm being edited is not thrown away after 10 s
const PANELS = { noise: NoisePanel, radio: RadioPanel, alarms: AlarmsPanel, timers: TimersPanel, meditation: MeditationPanel, settings: SettingsPanel };

let dock, sheet, body, title, back, toastEl;
let visible = false;
let panel = null;
let panelName = "";
let idleTimer = 0;
let toastTimer = 0;
let backAction = null;

export function initControls() {
  dock = $("#dock");
  sheet = $("#sheet");
  body = $("#sheet-body");
  title = $("#sheet-title");
  back = $("#sheet-back");
  toastEl = $("#toast");
  for (const b of dock.querySelectorAll("[data-panel]")) {
    setAttr(b, "aria-expanded", "false");
    setAttr(b, "aria-controls", "sheet");
    b.addEventListener("click", () => (panelName === b.dataset.panel ? closePanel() : openPanel(b.dataset.panel)));
  }
  $("#sheet-close").addEventListener("click", () => closePanel());
  back.addEventListener("click", () => backAction?.());

  // Any interaction while the controls are up keeps them up.
  for (const type of ["pointerdown", "keydown", "input", "wheel"]) {
    document.addEventListener(type, () => visible && resetIdle(), { capture: true, passive: true });
  }
  sheet.addEventListener("scroll", () => visible && resetIdle(), { capture: true, passive: true });
  sheet.addEventListener("keydown", trapFocus);
  subscribe((topics) => panel?.update(topics));
}

/** The dock's and the sheet's names, and the open panel drawn again, in the language in force. */
export function labelControls() {
  setAttr(dock, "aria-label", t("dock.label"));
  for (const b of dock.querySelectorAll("[data-panel]")) {
    setText(b.querySelector("span"), t("dock." + b.dataset.panel));
    setAttr(b, "aria-label", t("dock." + b.dataset.panel)); // the text hides on narrow screens
  }
  setAttr($("#sheet-close"), "aria-label", t("panel.close"));
  setAttr(back, "aria-label", t("panel.back"));
  if (!panel) return;
  const focusLost = body.contains(document.activeElement);
  setText(title, t(panelName + ".title"));
  if (panel.relabel) panel.relabel();
  else {
    panel.destroy?.();
    body.replaceChildren();
    panel.mount(body);
  }
  if (focusLost && !body.contains(document.activeElement)) $("#sheet-close").focus({ preventScroll: true });
}

export function controlsVisible() {
  return visible;
}

export function showControls() {
  if (!visible) {
    visible = true;
    setHidden(dock, false);
    document.body.classList.add("controls");
  }
  resetIdle();
}

export function hideControls() {
  closePanel(false);
  if (!visible) return;
  visible = false;
  clearTimeout(idleTimer);
  setHidden(dock, true);
  document.body.classList.remove("controls");
  if (dock.contains(document.activeElement)) document.activeElement.blur();
}

/** Esc: back out of an editor, else close the sheet, else hide the dock. */
export function escape() {
  if (backAction) backAction();
  else if (panel) closePanel();
  else hideControls();
}

function resetIdle() {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(hideControls, panel?.busy?.() ? BUSY_IDLE_MS : IDLE_MS);
}

export function openPanel(name) {
  showControls();
  closePanel(false);
  const Panel = PANELS[name];
  if (!Panel) return;
  panelName = name;
  body.replaceChildren();
  panel = new Panel({
    command,
    toast,
    setTitle: (text) => setText(title, text),
    setBack: (fn) => {
      backAction = fn;
      setHidden(back, !fn);
    },
    scrollTop: () => (body.scrollTop = 0),
  });
  setText(title, t(name + ".title"));
  setHidden(sheet, false);
  document.body.classList.add("sheet-open");
  panel.mount(body);
  for (const b of dock.querySelectorAll("[data-panel]")) setAttr(b, "aria-expanded", String(b.dataset.panel === name));
  $("#sheet-close").focus({ preventScroll: true });
  resetIdle();
}

export function closePanel(refocus = true) {
  if (!panel) return;
  panel.destroy?.();
  panel = null;
  backAction = null;
  setHidden(back, true);
  setHidden(sheet, true);
  document.body.classList.remove("sheet-open");
  setHidden(toastEl, true);
  body.replaceChildren();
  const opener = dock.querySelector(`[data-panel="${panelName}"]`);
  panelName = "";
  for (const b of dock.querySelectorAll("[data-panel]")) setAttr(b, "aria-expanded", "false");
  if (refocus && visible) opener?.focus({ preventScroll: true });
}

export function panelOpen() {
  return !!panel;
}

/** A short message at the bottom of the sheet. */
export function toast(text) {
  setText(toastEl, text);
  setHidden(toastEl, !text);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => setHidden(toastEl, true), 3500);
}

/** Keeps Tab inside the open sheet (it is modal). */
function trapFocus(e) {
  if (e.key !== "Tab") return;
  const items = [...sheet.querySelectorAll("button, input, select, [tabindex='0']")].filter((el) => !el.disabled && el.offsetParent);
  if (!items.length) return;
  const first = items[0], last = items[items.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}
