// docs/face-modules.md

import { t, list as texts, language } from "./i18n.js";
import { $, setText, setHidden, setAttr, setClass } from "./dom.js";
import { store } from "./store.js";
import { command } from "./connection.js";
import { now } from "./nodetime.js";
import { meditation, secondsUntil, clockText } from "./countdown.js";

let view, range, affs;
let affKey = "";
let seeking = false;
let shown = false;

export function initSession() {
  view = $("#session");
  range = $("#s-range");
  affs = view.querySelectorAll(".aff");
  const send = async (verb, payload) => {
    const r = await command(verb, payload);
    if (r.status !== "ok") {
      setText($("#s-hint"), r.error?.code === "unavailable" ? t("error.offline") : t("error.generic", { message: r.error?.message || "" }));
      setTimeout(() => setText($("#s-hint"), ""), 3000);
    }
  };
  $("#s-stop").onclick = $("#s-done").onclick = () => send("meditation/stop");
  $("#s-pause").onclick = () => send(meditation().state === "paused" ? "meditation/resume" : "meditation/pause");
  range.oninput = () => {
    seeking = true;
    paintSeek(Number(range.value), Number(range.max));
  };
  range.onchange = async () => {
    await send("meditation/seek", { position_s: Number(range.value) });
    seeking = false;
  };
}

export function labelSession() {
  for (const [id, key] of [["s-stop", "med.stop"], ["s-done", "med.done"]]) {
    setText($(`#${id} span`), t(key));
    setAttr($("#" + id), "aria-label", t(key));
  }
  setAttr(range, "aria-label", t("med.seek"));
}

function paintSeek(position, total) {
  range.style.setProperty("--p", `${(position / total) * 100}%`);
  setText($("#s-pos"), `${clockText(position)} / ${clockText(total)}`);
  setAttr(range, "aria-valuetext", t("med.position", { position: clockText(position), total: clockText(total) }));
}

export function sessionShown() {
  return shown;
}

/** Shows or hides the view, writing only what changed; true when it has just appeared. */
export function renderSession() {
  const m = meditation();
  const on = ["preparing", "running", "paused", "completed"].includes(m.state);
  const appeared = on && !shown;
  shown = on;
  setHidden(view, !on);
  if (!on) return false;
  const guided = m.kind === "guided";
  const done = m.state === "completed";
  const duration = Number(m.duration_s) || 0;
  const until = m.state === "paused" ? null : secondsUntil(m.ends_at);
  // While preparing, ends_at is the end of preparation and meditation together.
  const preparing = m.state === "preparing";
  let left = done ? 0 : until === null ? Number(m.remaining_s) || 0 : Math.max(0, until - (preparing ? duration : 0));
  if (!preparing) left = Math.min(left, duration);
  const total = preparing ? Math.max(left, Number(store.state.settings?.meditation?.preparation_s) || 0, 1) : duration || 1;
  const phase = done ? "completed" : preparing ? "preparing" : m.state === "paused" ? "paused" : guided ? "listening" : "running";
  setAttr(view, "data-phase", phase);
  setText($("#s-phase"), t("med.phase." + phase));
  setText($("#s-item"), guided && m.item ? [m.item.name, m.item.teacher].filter(Boolean).join(" · ") : "");
  const time = clockText(done ? duration : left);
  setText($("#s-time"), time);
  setAttr($("#s-time"), "aria-label", t(preparing ? "med.prep.label" : "med.left.label", { time }));
  setAttr($("#s-progress"), "stroke-dashoffset", done ? 0 : Math.round((1000 * left) / total));
  const minutes = Math.max(1, Math.round(duration / 60));
  setText($("#s-sub"), preparing ? t("med.then", { count: minutes }) : done ? t("med.completed.sub", { count: minutes })
    : !guided && m.interval_min > 0 ? t("med.interval", { count: m.interval_min }) : "");

  setHidden($("#s-seek"), !guided || done);
  if (guided && !seeking) {
    setAttr(range, "max", Math.max(1, Math.round(duration)));
    const position = Math.round(duration - left);
    if (Number(range.value) !== position) range.value = position;
    paintSeek(position, Number(range.max));
  }
  const paused = m.state === "paused";
  setHidden($("#s-pause"), done);
  setHidden($("#s-stop"), done);
  setHidden($("#s-done"), !done);
  setText($("#s-pause span"), t(paused ? "med.resume" : "med.pause"));
  setAttr($("#s-pause"), "aria-label", t(paused ? "med.resume" : "med.pause"));
  setAttr($("#s-pause use"), "href", paused ? "#i-play" : "#i-pause");
  for (const b of view.querySelectorAll("button, input")) b.disabled = !store.connected;

  // A new affirmation each minute of the node's clock: one line fades in as the other fades out.
  const list = texts("affirmation.");
  const index = list.length ? Math.floor(now() / 60000) % list.length : -1;
  const key = index + language();
  if (key !== affKey && index >= 0) {
    const next = affs[affKey === "" || affs[1].classList.contains("on") ? 0 : 1];
    affKey = key;
    setText(next, list[index]);
    for (const p of affs) setClass(p, "on", p === next);
  }
  return appeared;
}
