// docs/face-modules.md

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { store, clockSettings } from "./store.js";
import { formatInstant } from "./nodetime.js";
import { segmented, section, timePicker } from "./widgets.js";

const EARLIER = [0, 10, 20, 30, 45, 60];
const LEAD = [30, 45, 60, 90, 120];
const CALENDAR = { feed: "", lead_min: 60, earliest: "05:30", latest: "09:30", keyword: "", no_event: "ring" };
const withValue = (list, v) => (list.includes(v) ? list : [...list, v].sort((a, b) => a - b));

/** "06:20 · Dentist at 07:30 · 20 min earlier: snow" for an alarm that moved; "" when it rings at its own time. */
export function whyText(a) {
  const n = a.next;
  if (!a.enabled || !n || !a.next_fire || (!n.event && !n.reason)) return "";
  const fmt = clockSettings().timeFormat;
  const parts = [formatInstant(a.next_fire, fmt)];
  if (n.event) parts.push(t("alarms.why.event", { title: n.event.title || "", start: formatInstant(n.event.start, fmt) }));
  if (n.reason) parts.push(t("alarms.why.earlier", { count: n.earlier_by_min || 0, reason: t("alarms.reason." + n.reason) }));
  return parts.join("\u00a0· "); // a line breaks after the dot, never before it
}

/** The editor's sections; `change(patch)` marks the draft changed. */
export function daySections(draft, change, f) {
  const earlier = { snow: 0, ice: 0, rain: 0, ...(draft.earlier_if || {}) };
  // Numbers alone, so the six fit one row on a phone; the field's label says they are minutes.
  const minutes = (v) => (v ? { value: v, label: String(v), ariaLabel: t("unit.min", { count: v }) } : { value: 0, label: t("editor.off") });
  const setEarlier = (k, v) => {
    earlier[k] = v;
    change({ earlier_if: earlier.snow || earlier.ice || earlier.rain ? { ...earlier } : null });
  };
  const weather = section(t("editor.earlier_if"), h("p", { class: "hint", text: t("editor.earlier_if.hint") }),
    ...["snow", "ice", "rain"].map((k) => f("earlier_if." + k, t("editor.earlier." + k),
      segmented(t("editor.earlier." + k), withValue(EARLIER, earlier[k]).map(minutes), earlier[k], (v) => setEarlier(k, v)))));
  const feeds = (store.state.calendar?.feeds || []).map((x) => x.id).filter(Boolean);
  if (!feeds.length) return [weather];
  const cal = { ...CALENDAR, ...(draft.calendar || {}) };
  if (cal.feed && !feeds.includes(cal.feed)) feeds.push(cal.feed);
  const body = h("div", { hidden: !draft.calendar });
  const set = (patch) => {
    Object.assign(cal, patch);
    body.hidden = !cal.feed;
    change({ calendar: cal.feed ? { ...cal } : null });
  };
  const fmt = clockSettings().timeFormat;
  body.append(
    f("calendar.lead_min", t("editor.calendar.lead"), segmented(t("editor.calendar.lead"),
      withValue(LEAD, cal.lead_min).map((v) => ({ value: v, label: t("unit.min", { count: v }) })), cal.lead_min, (v) => set({ lead_min: v }))),
    f("calendar.earliest", t("editor.calendar.earliest"), timePicker(t("editor.calendar.earliest"), cal.earliest, fmt, (v) => set({ earliest: v }))),
    f("calendar.latest", t("editor.calendar.latest"), timePicker(t("editor.calendar.latest"), cal.latest, fmt, (v) => set({ latest: v }))),
    f("calendar.keyword", t("editor.calendar.keyword"), h("input", { class: "input", type: "text", maxlength: "64", value: cal.keyword,
      placeholder: t("editor.calendar.any"), autocomplete: "off", oninput: (e) => set({ keyword: e.target.value }) })),
    f("calendar.no_event", t("editor.calendar.no_event"), segmented(t("editor.calendar.no_event"),
      ["ring", "skip"].map((v) => ({ value: v, label: t("editor.calendar." + v) })), cal.no_event, (v) => set({ no_event: v }))));
  const feed = f("calendar.feed", t("editor.calendar.feed"), segmented(t("editor.calendar.feed"),
    [{ value: "", label: t("editor.off") }, ...feeds.map((id) => ({ value: id, label: id }))], draft.calendar ? cal.feed : "", (v) => set({ feed: v })));
  return [weather, section(t("editor.calendar"), h("p", { class: "hint", text: t("editor.calendar.hint") }), feed, body)];
}
