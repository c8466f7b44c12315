// The kids' clock (SPEC §13): "stay in bed" (a moon on deep blue), "almost" (a sun on the horizon,
// amber), "you can get up" (a whole sun on green), told by colour and picture alone for a child
// who cannot read; the words are for the grown-ups, the time small under them with `show_time`.
// The node keeps the screen at the night level meanwhile; the picture itself is calm and dark.

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
