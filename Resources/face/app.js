// docs/face-modules.md

import { t, language, loadStrings, missing } from "./i18n.js";
import { store, subscribe, emit, face, clockSettings } from "./store.js";
import { connect, command, loadCatalogs } from "./connection.js";
import { now, parts, setZone, formatHM } from "./nodetime.js";
import { TimeView, fontStack } from "./timeview.js";
import { applyTheme } from "./theme.js";
import { renderSunrise, sunriseProgress } from "./sunrise.js";
import { initBedtime, labelBedtime, renderBedtimeChip, renderSunset } from "./bedtime.js";
import { initKids, renderKids } from "./kids.js";
import { initLamp, labelLamp, renderLamp, longPress, toggleLamp } from "./lamp.js";
import { initOverlays, labelOverlays, renderOverlays, renderConnection, renderTimerChips } from "./overlays.js";
import { initRinging, labelRinging, renderRinging, updateRingTime, isRinging, renderTimerRinging } from "./ringing.js";
import { initSession, labelSession, renderSession, sessionShown } from "./session.js";
import { counting } from "./countdown.js";
import { initSpeech, labelSpeech, renderSpeech } from "./speech.js";
import { initControls, labelControls, showControls, hideControls, controlsVisible, escape, panelOpen, closePanel } from "./controls.js";
import { $, setAttr, setHidden, setText } from "./dom.js";
import { browserToneInfo } from "./browser-tone.js";

const ORBIT_STEPS = 10; // minutes for one pixel-shift orbit
const ORBIT_RADIUS = 3; // px

const timeEl = $("#time");
const stage = $("#stage");
const faceEl = $("#face");
const dayEl = $(".day");
const chipsEl = $("#timer-chips");
const breatheEl = $("#breathe");
const speechEl = $("#speech");
const timeView = new TimeView(timeEl);
let timer = 0;
let lastMinute = -1;
let started = Date.now();
let everConnected = false;

function minuteIndex(ms = now()) {
  return Math.floor(ms / 60000);
}

/** Fits the time into the stage, leaving room for the date and the weather under it. */
function fit() {
  const cs = getComputedStyle(stage);
  const w = stage.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  let h = stage.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
  for (const el of [dayEl, chipsEl, speechEl, breatheEl]) if (el.offsetHeight) h -= el.offsetHeight + parseFloat(getComputedStyle(el).marginTop);
  timeView.fit(Math.floor(w * 0.94), Math.floor(h * 0.96), Number(face().size) || 0);
}

async function applyFont() {
  const f = face();
  const weight = Math.max(100, Math.min(900, Math.round((Number(f.weight) || 300) / 100) * 100));
  const ringTime = $("#ring-time");
  ringTime.style.fontFamily = fontStack(f.font);
  ringTime.style.fontWeight = String(weight);
  if (await timeView.setFont(fontStack(f.font), weight)) fit();
}

function showTime(ms = now()) {
  const cs = clockSettings();
  setZone(cs.timezone);
  const p = parts(ms);
  timeView.setTime({ hour: p.hour, minute: p.minute, second: p.second, format: cs.timeFormat, showSeconds: cs.showSeconds, am: t("clock.am"), pm: t("clock.pm") });
  const minute = minuteIndex(ms);
  if (minute !== lastMinute) {
    lastMinute = minute;
    setAttr(timeEl, "aria-label", t("clock.label", { time: formatHM(p.hour, p.minute, cs.timeFormat) }));
    perMinute(minute);
  }
}

/** What changes with the minute: relative times, the date, a random colour, the pixel shift. */
function perMinute(minute) {
  applyTheme(minute);
  renderOverlays();
  renderBedtimeChip();
  updateRingTime();
  renderNightViews();
  pixelShift(minute);
  emit("minute");
}

function pixelShift(minute) {
  const on = face().pixel_shift !== false;
  const k = ((minute % ORBIT_STEPS) + ORBIT_STEPS) % ORBIT_STEPS;
  const a = (2 * Math.PI * k) / ORBIT_STEPS;
  // A circle through the home position: step 0 is (0, 0).
  const x = on ? Math.round(ORBIT_RADIUS * (Math.cos(a) - 1)) : 0;
  const y = on ? Math.round(ORBIT_RADIUS * Math.sin(a)) : 0;
  const transform = x || y ? `translate(${x}px, ${y}px)` : "";
  if (faceEl.style.transform !== transform) faceEl.style.transform = transform;
}

/**
 * Wakes at the next second or minute boundary of the node's clock: each second while seconds are
 * shown or something counts down (one tick for all of them, so the page changes once a second).
 */
function schedule() {
  clearTimeout(timer);
  const period = clockSettings().showSeconds || counting() ? 1000 : 60000;
  const delay = period - (now() % period) + 8;
  timer = setTimeout(() => {
    showTime();
    if (counting()) emit("tick");
    schedule();
  }, delay);
}

let chipsKey = "";
/** The views above the face: an alarm, then finished timers, then a meditation. */
function renderViews() {
  const appeared = [renderRinging(), renderTimerRinging(), renderSession()].some(Boolean);
  if (appeared) hideControls();
  renderNightViews();
}

/**
 * Under those, the night light, then the kids' clock; a sunrise or a ringing alarm takes the
 * screen from both (the lamp comes back after them while it is on).
 */
function renderNightViews() {
  const phase = store.state.wake?.phase;
  const free = !isRinging() && $("#timer-ring").hidden && !sessionShown() && sunriseProgress() === null && phase !== "ringing";
  const lamp = renderLamp(free);
  renderKids(free && !lamp);
}

function renderAll(topics) {
  if (topics?.size === 1 && topics.has("minute")) return; // perMinute did it
  if (topics?.size === 1 && topics.has("tick")) {
    renderTimerChips();
    renderSession();
    return;
  }
  if (topics?.has("language")) relabel();
  const all = !topics || topics.has("language");
  const has = (...names) => all || names.some((n) => topics.has(n));
  if (has("settings", "connection")) followLanguage();
  if (has("settings", "clock", "preview")) {
    showTime(); // first: the AM/PM it sets are measured with the font
    applyFont();
    schedule();
  } else if (has("timers", "meditation")) {
    schedule(); // a countdown starts or stops the one-second tick
  }
  if (has("settings", "display", "preview", "alarm/state", "bedtime")) applyTheme(minuteIndex());
  if (has("connection")) {
    if (store.connected) everConnected = true;
    renderConnection(!store.connected && (everConnected || Date.now() - started > 1500));
  }
  renderOverlays();
  renderBedtimeChip();
  if (has("speech", "connection")) renderSpeech();
  // The timer chips share the stage with the time: it fits again when they change.
  const chips = chipsEl.hidden ? "" : chipsEl.dataset.key;
  if (has("settings", "preview") || chips !== chipsKey) {
    chipsKey = chips;
    fit();
  }
  if (has("alarm/state", "alarms", "connection", "settings", "clock", "timers", "meditation", "wake", "kids", "nightlight")) renderViews();
  if (has("wake", "clock", "connection")) renderSunrise();
  if (has("bedtime", "settings", "clock", "language")) {
    const breathing = !breatheEl.hidden;
    renderSunset();
    if (breathing !== !breatheEl.hidden) fit(); // the guide takes room under the time
  }
  renderWake();
}

// --- the language: the node's settings.language, switched while the page runs

/** Fetches the catalog of the node's language when it is not the one in use, then redraws every text. */
async function followLanguage() {
  const wanted = store.state.settings?.language || language() || "en";
  if (await loadStrings(wanted)) {
    emit("language");
    loadCatalogs(); // sound names come in the language asked for
  }
}

/** The texts written once rather than on each render. */
function relabel() {
  document.title = t("app.title");
  lastMinute = -1; // the time's accessible name
  labelOverlays();
  labelRinging();
  labelSession();
  labelControls();
  labelBedtime();
  labelLamp();
  labelSpeech();
}

// --- a dark screen wakes on touch

function screenDark() {
  const d = store.state.display;
  return !!d && (d.screen === "off" || Number(d.brightness) === 0) && !isRinging();
}

function renderWake() {
  const wake = $("#wake");
  setHidden(wake, !screenDark());
  setText(wake.firstElementChild, t("wake.hint"));
}

$("#wake").addEventListener("pointerdown", (e) => {
  e.preventDefault();
  command("display/wake");
});

// --- input

// A long press on the clock turns the night light on; on the lamp, off.
longPress(faceEl, toggleLamp);
for (const view of [$("#lamp"), $("#kids")]) {
  longPress(view, toggleLamp);
  view.addEventListener("click", () => (controlsVisible() ? hideControls() : showControls()));
}

faceEl.addEventListener("click", () => {
  if (panelOpen()) closePanel();
  else if (controlsVisible()) hideControls();
  else showControls();
});

document.addEventListener("keydown", (e) => {
  if (isRinging() || !$("#timer-ring").hidden || sessionShown()) return; // their own buttons take the keys
  if (screenDark()) {
    command("display/wake");
    return;
  }
  if (e.key === "Escape") {
    escape();
    return;
  }
  if (!controlsVisible() && !e.altKey && !e.ctrlKey && !e.metaKey) {
    showControls();
    if (e.key === "Tab") {
      e.preventDefault();
      $("#dock button")?.focus();
    }
  }
});

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) {
    showTime();
    schedule();
  }
});

// --- start: the strings of the node's language before the first text

async function start() {
  try {
    const r = await fetch("/api/state");
    await loadStrings((await r.json()).settings?.language || "en");
  } catch {
    await loadStrings("en"); // no state: English until the node says otherwise
  }
  initOverlays();
  initRinging();
  initSession();
  initBedtime();
  initKids();
  initLamp();
  initSpeech();
  initControls();
  relabel();
  // The stage, and the caption of what is spoken: the time makes room for it, and takes it back.
  const resized = new ResizeObserver(() => fit());
  resized.observe(stage);
  resized.observe(speechEl);
  resized.observe(dayEl); // the weather comes and goes beside the date
  subscribe(renderAll);
  document.fonts?.addEventListener?.("loadingdone", () => {
    timeView.spec = "";
    applyFont();
  });
  renderAll(null);
  setTimeout(() => renderAll(new Set(["connection"])), 1600);
  connect();
}

// For the browser test and for debugging in a kiosk: read-only views of what the face holds.
window.noiseclockFace = { store, now, timeView, missing, browserTone: browserToneInfo };
start();
