// docs/face-modules.md

import { store, clockSettings } from "./store.js";
import { t } from "./i18n.js";
import { $, setText, setHidden } from "./dom.js";
import { now, parts, formatHM } from "./nodetime.js";

const els = {};
const STATES = ["sleep", "almost", "ok"];

export function initKids() {
  els.view = $("#kids");
  els.label = $("#kids-label");
  els.time = $("#kids-time");
}

/** What the kids' clock shows now (sleep, almost, ok), or null. */
export function kidsState() {
  const s = store.state.kids?.state;
  return STATES.includes(s) ? s : null;
}

/** Shows the child's screen when `visible` (nothing above it); returns whether it shows. */
export function renderKids(visible) {
  const state = visible ? kidsState() : null;
  setHidden(els.view, !state);
  if (!state) return false;
  if (els.view.dataset.state !== state) els.view.dataset.state = state;
  setText(els.label, t("kids." + state));
  const show = store.state.settings?.kids?.show_time !== false;
  const p = parts(now());
  setText(els.time, show ? formatHM(p.hour, p.minute, clockSettings().timeFormat) : "");
  setHidden(els.time, !show);
  return true;
}
