// docs/face-modules.md

import { t } from "./i18n.js";
import { h, icon } from "./dom.js";
import { store, clockSettings } from "./store.js";
import { formatHM, relative, formatDate } from "./nodetime.js";
import { toggle, segmented, slider, field, section, timePicker, iconButton } from "./widgets.js";
import { errorText } from "./panel-noise.js";
import { stations, stationOf, stationName, RADIO_PREFIX } from "./radio.js";
import { whyText, daySections } from "./alarm-day.js";

export const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
const SNOOZE = [5, 7, 8, 9, 10, 15, 20];
const FADE = [0, 10, 30, 60, 120];
const TIMEOUT = [5, 10, 15, 20, 30];
const SUNRISE = [0, 10, 20, 30, 45, 60];
const ESCALATE = [0, 60, 120, 180, 300];
const DEFAULTS = {
  time: "07:00", days: [], label: "", enabled: true, sound: "", volume: 80, snooze_min: 9, fade_in_s: 30, ring_timeout_min: 10,
  skip_holidays: false, sunrise_min: 0, lights: false, escalate_after_s: 0, escalate_sound: null, briefing: false,
};

/** "Skips Fri 25 Dec, Christmas Day" for the holiday or day off an alarm keeps quiet on next. */
function skipText(skip) {
  if (!skip) return "";
  const date = formatDate(skip.fires_at);
  if (skip.reason === "holiday") return t("alarms.skips_holiday", { date, name: skip.name || "" });
  if (skip.reason === "day_off") return t("alarms.skips_day_off", { date });
  return "";
}

/** "Never", "Every day", "Weekdays", "Weekends" or "Mon, Wed". */
export function repeatText(days) {
  const set = new Set(days || []);
  if (set.size === 0) return t("repeat.never");
  if (set.size === 7) return t("repeat.daily");
  const weekdays = ["mon", "tue", "wed", "thu", "fri"];
  if (set.size === 5 && weekdays.every((d) => set.has(d))) return t("repeat.weekdays");
  if (set.size === 2 && set.has("sat") && set.has("sun")) return t("repeat.weekends");
  return DAYS.filter((d) => set.has(d)).map((d) => t("day." + d)).join(t("repeat.sep"));
}

/** "07:05" or "7:05 AM" for an "HH:MM", in the clock's time format. */
export function timeText(hhmm) {
  const [hh, mm] = (hhmm || "00:00").split(":").map(Number);
  return formatHM(hh, mm, clockSettings().timeFormat);
}

export class AlarmsPanel {
  constructor(ctx) {
    this.ctx = ctx;
    this.editing = null; // the draft being edited, or null for the list
    this.dirty = false;
  }

  mount(body) {
    this.body = body;
    this.showList();
  }

  busy() {
    return !!this.editing && this.dirty;
  }

  /** In another language: the list, or the editor with the changes made so far. */
  relabel() {
    if (!this.editing) return this.showList();
    const dirty = this.dirty;
    this.edit(this.source, this.editing);
    this.dirty = dirty;
  }

  update(topics) {
    if (this.editing) {
      if (topics?.has("sounds") || topics?.has("radio")) this.renderSounds?.();
      return;
    }
    if (!topics || ["alarms", "alarm/next", "minute", "settings", "connection", "holidays", "radio"].some((x) => topics.has(x))) this.renderList();
  }

  async send(verb, payload) {
    const r = await this.ctx.command(verb, payload);
    if (r.status !== "ok") this.ctx.toast(errorText(r));
    return r;
  }

  // --- list

  showList() {
    this.editing = null;
    this.dirty = false;
    this.ctx.setTitle(t("alarms.title"));
    this.ctx.setBack(null);
    this.list = h("div", { class: "alarm-list" });
    this.body.replaceChildren(
      h("div", { class: "list-head" },
        h("span", { class: "hint", dataset: { count: "" } }),
        h("button", { type: "button", class: "btn btn-primary", onclick: () => this.edit(null) }, icon("plus"), t("alarms.add"))),
      this.list);
    this.renderList();
    this.ctx.scrollTop();
  }

  renderList() {
    const alarms = store.state.alarms || [];
    const count = this.body.querySelector("[data-count]");
    if (count) count.textContent = t("alarms.count", { count: alarms.length });
    const focusKey = document.activeElement?.dataset?.key;
    if (!alarms.length) {
      this.list.replaceChildren(h("p", { class: "empty", text: t("alarms.empty") }));
      return;
    }
    const sorted = [...alarms].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
    this.list.replaceChildren(...sorted.map((a) => this.row(a)));
    if (focusKey) this.list.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus({ preventScroll: true });
  }

  row(a) {
    const time = timeText(a.time);
    const label = a.label || t("label.alarm");
    const next = a.enabled && a.next_fire ? relative(Date.parse(a.next_fire)) : "";
    const onVacation = a.enabled && a.next_skip?.reason === "vacation" && !a.skip_next;
    const nextText = !a.enabled ? t("alarms.off") : a.skip_next ? t("alarms.skipped", { relative: next })
      : onVacation ? t("alarms.vacation", { relative: next }) : next;
    const skips = a.enabled ? skipText(a.next_skip) : "";
    const why = whyText(a);
    const station = stationOf(a.sound);
    const [clock, ampm] = time.split(" ");
    const edit = h("button", { type: "button", class: "row-btn", dataset: { key: "edit-" + a.id },
      "aria-label": t("alarms.edit", { label, time }), onclick: () => this.edit(a) },
    h("span", { class: "alarm-time" }, clock, ampm ? h("small", { text: ampm }) : null),
    h("span", { class: "alarm-meta", text: t("alarms.meta", { label, repeat: repeatText(a.days) }) }),
    nextText ? h("span", { class: "alarm-next", text: nextText }) : null,
    why ? h("span", { class: "alarm-why", text: why }) : null,
    skips ? h("span", { class: "alarm-skip", text: skips }) : null,
    station ? h("span", { class: "alarm-station" }, icon("radio"), h("span", { text: stationName(station) })) : null,
    a.briefing ? h("span", { class: "alarm-station alarm-briefing" }, icon("speak"), h("span", { text: t("alarms.briefing") })) : null);
    const sw = toggle("", a.enabled, (on) => this.send(on ? "alarm/enable" : "alarm/disable", { id: a.id }),
      { "aria-label": t("alarms.toggle", { label, time }), dataset: { key: "switch-" + a.id } });
    return h("div", { class: "alarm-row" + (a.enabled ? "" : " off") }, edit, sw);
  }

  // --- editor

  edit(alarm, kept = null) {
    const wake = store.state.settings?.wake || {};
    const wakeDefaults = {
      skip_holidays: !!wake.skip_holidays, sunrise_min: wake.sunrise_min || 0, lights: !!wake.lights, escalate_after_s: wake.escalate_after_s || 0,
    };
    const draft = kept || { ...DEFAULTS, ...wakeDefaults, sound: defaultSound(), ...(alarm || {}) };
    draft.days = [...(draft.days || [])];
    this.source = alarm;
    this.editing = draft;
    this.dirty = false;
    this.ctx.setTitle(t(alarm ? "editor.edit" : "editor.new"));
    this.ctx.setBack(() => this.showList());
    const change = (patch) => {
      Object.assign(draft, patch);
      this.dirty = true;
      for (const k of Object.keys(patch)) this.fields[k]?.showError("");
    };
    const fmt = clockSettings().timeFormat;
    this.fields = {};
    const f = (name, label, control) => (this.fields[name] = field(label, control, name));

    const repeatDesc = h("p", { class: "hint", "aria-live": "polite", text: repeatText(draft.days) });
    const days = h("div", { class: "seg days", role: "group", "aria-label": t("editor.repeat") },
      DAYS.map((d) => h("button", {
        type: "button", "aria-pressed": String(draft.days.includes(d)), "aria-label": t("day.long." + d), text: t("day." + d),
        onclick: (e) => {
          const on = !draft.days.includes(d);
          e.currentTarget.setAttribute("aria-pressed", String(on));
          change({ days: DAYS.filter((x) => (x === d ? on : draft.days.includes(x))) });
          repeatDesc.textContent = repeatText(draft.days);
        },
      })));
    const label = h("input", { class: "input", type: "text", maxlength: "64", value: draft.label, placeholder: t("label.alarm"),
      autocomplete: "off", oninput: (e) => change({ label: e.target.value }) });

    this.soundList = h("div", { class: "sound-list kinds", role: "radiogroup", "aria-label": t("editor.sound") });
    // The tones, each with its preview, then the radio's stations (an alarm's sound "radio:<id>").
    this.renderSounds = () => {
      const tones = store.sounds?.alarm?.length ? store.sounds.alarm
        : stationOf(draft.sound) ? [] : [{ id: draft.sound, name: draft.sound }];
      const radios = stations().map((s) => ({ id: RADIO_PREFIX + s.id, name: s.name, station: true }));
      // A station the node no longer has stays listed while it is the alarm's sound.
      if (stationOf(draft.sound) && !radios.some((s) => s.id === draft.sound)) radios.push({ id: draft.sound, name: stationName(stationOf(draft.sound)), station: true });
      const row = (s) => {
        const pick = h("button", { type: "button", class: "pick", role: "radio", "aria-checked": String(s.id === draft.sound),
          dataset: { sound: s.id },
          onclick: () => {
            change({ sound: s.id });
            this.renderSounds();
          } }, icon(s.station ? "radio" : "bell", "pick-kind"), h("span", { class: "pick-name", text: s.name }));
        return h("div", { class: "sound-row" + (s.id === draft.sound ? " selected" : "") }, pick,
          s.station ? null : iconButton("play", t("editor.preview", { name: s.name }), () => this.send("noise/preview", { sound: s.id })));
      };
      this.soundList.replaceChildren(...tones.filter((s) => s.id).map(row),
        radios.length ? h("p", { class: "sound-group", role: "presentation", text: t("editor.stations") }) : null, ...radios.map(row));
    };
    this.renderSounds();

    const KEYS = { snooze: "snooze_min", fade: "fade_in_s", timeout: "ring_timeout_min", sunrise: "sunrise_min", escalate: "escalate_after_s" };
    const choice = (name, values, format) => segmented(t("editor." + name), values.map((v) => ({ value: v, label: format(v) })),
      draft[KEYS[name]], (v) => change({ [KEYS[name]]: v }));
    const withValue = (list, v) => (list.includes(v) ? list : [...list, v].sort((a, b) => a - b));
    const fadeLabel = (s) => (s === 0 ? t("editor.off") : s < 60 ? t("unit.s", { count: s }) : t("unit.min", { count: s / 60 }));
    const fades = FADE.includes(draft.fade_in_s) ? FADE : [...FADE, draft.fade_in_s].sort((a, b) => a - b);
    const timeouts = TIMEOUT.includes(draft.ring_timeout_min) ? TIMEOUT : [...TIMEOUT, draft.ring_timeout_min].sort((a, b) => a - b);

    const enabled = toggle(t("editor.enabled"), draft.enabled, (on) => change({ enabled: on }));
    this.fields.enabled = { showError: () => {} };
    const skipHolidays = toggle(t("editor.skip_holidays"), draft.skip_holidays, (on) => change({ skip_holidays: on }));
    this.fields.skip_holidays = { showError: () => {} };
    const lights = toggle(t("editor.lights"), draft.lights, (on) => change({ lights: on }));
    this.fields.lights = { showError: () => {} };
    // Spoken after the dismiss (SPEC §16): the time, the weather, the day's first events.
    const briefing = toggle(t("editor.briefing"), draft.briefing, (on) => change({ briefing: on }), { dataset: { field: "briefing" } });
    this.fields.briefing = { showError: () => {} };
    // The tone an alarm escalates to: its own (null), or one of the alarm tones.
    const escalateSound = h("select", { class: "input", "aria-label": t("editor.escalate_sound"),
      onchange: (e) => change({ escalate_sound: e.target.value || null }) },
      h("option", { value: "", text: t("editor.escalate_same") }),
      ...(store.sounds?.alarm || []).filter((s) => s.id).map((s) => h("option", { value: s.id, text: s.name, selected: s.id === draft.escalate_sound })));
    const volume = slider(t("editor.volume"), { value: draft.volume, format: (v) => t("settings.percent", { value: v }), onInput: (v) => change({ volume: v }) });
    this.fields.volume = volume;

    const saveBtn = h("button", { type: "button", class: "btn btn-primary", onclick: () => this.save() }, icon("check"), t("editor.save"));
    const actions = [saveBtn];
    if (alarm) {
      actions.push(h("button", { type: "button", class: "btn", onclick: () => this.duplicate(alarm) }, icon("copy"), t("editor.duplicate")));
      if (alarm.days?.length) {
        actions.push(alarm.skip_next
          ? h("button", { type: "button", class: "btn", onclick: () => this.send("alarm/unskip", { id: alarm.id }).then((r) => r.status === "ok" && this.showList()) }, icon("skip"), t("editor.unskip"))
          : h("button", { type: "button", class: "btn", onclick: () => this.send("alarm/skip_next", { id: alarm.id }).then((r) => r.status === "ok" && this.showList()) }, icon("skip"), t("editor.skip")));
      }
      const del = h("button", { type: "button", class: "btn btn-danger" }, icon("trash"), h("span", { text: t("editor.delete") }));
      del.addEventListener("click", async () => {
        if (!del.dataset.armed) {
          del.dataset.armed = "1";
          del.lastChild.textContent = t("editor.delete.confirm");
          setTimeout(() => {
            delete del.dataset.armed;
            del.lastChild.textContent = t("editor.delete");
          }, 4000);
          return;
        }
        const r = await this.send("alarm/delete", { id: alarm.id });
        if (r.status === "ok") this.showList();
      });
      actions.push(del);
    }

    this.body.replaceChildren(
      f("time", t("editor.time"), timePicker(t("editor.time"), draft.time, fmt, (v) => change({ time: v }))),
      section(null,
        f("days", t("editor.repeat"), h("div", {}, days, repeatDesc)),
        f("label", t("editor.label"), label),
        enabled, skipHolidays),
      section(t("editor.sound"), f("sound", t("editor.sound"), this.soundList), volume),
      section(null,
        f("snooze_min", t("editor.snooze"), choice("snooze", SNOOZE, (v) => t("unit.min", { count: v }))),
        f("fade_in_s", t("editor.fade"), choice("fade", fades, fadeLabel)),
        f("ring_timeout_min", t("editor.timeout"), choice("timeout", timeouts, (v) => t("unit.min", { count: v })))),
      section(t("editor.waking"),
        f("sunrise_min", t("editor.sunrise"), choice("sunrise", withValue(SUNRISE, draft.sunrise_min), (v) => (v ? t("unit.min", { count: v }) : t("editor.off")))),
        lights, briefing,
        f("escalate_after_s", t("editor.escalate"), choice("escalate", withValue(ESCALATE, draft.escalate_after_s), (v) => (v ? t("unit.min", { count: v / 60 }) : t("editor.off")))),
        f("escalate_sound", t("editor.escalate_sound"), escalateSound)),
      ...daySections(draft, change, f),
      h("div", { class: "actions" }, actions),
    );
    // The sound list's own label is the section title.
    this.fields.sound.querySelector(".field-label").hidden = true;
    this.ctx.scrollTop();
  }

  async save() {
    const d = this.editing;
    const payload = {
      time: d.time, days: d.days, label: d.label.trim(), enabled: d.enabled, sound: d.sound,
      volume: d.volume, snooze_min: d.snooze_min, fade_in_s: d.fade_in_s, ring_timeout_min: d.ring_timeout_min,
      skip_holidays: !!d.skip_holidays, sunrise_min: d.sunrise_min || 0, lights: !!d.lights, escalate_after_s: d.escalate_after_s || 0,
      escalate_sound: d.escalate_sound || null, briefing: !!d.briefing,
    };
    // The day's fields (SPEC §17) when the node has them or they were set here; null clears.
    for (const k of ["earlier_if", "calendar"]) if (d[k] !== undefined) payload[k] = d[k];
    if (!payload.sound) delete payload.sound;
    if (!payload.label) delete payload.label; // the node's default label, in its language
    const r = await this.ctx.command(d.id ? "alarm/update" : "alarm/add", d.id ? { id: d.id, ...payload } : payload);
    if (r.status === "ok") {
      this.ctx.toast(t("editor.saved"));
      this.showList();
      return;
    }
    const name = r.error?.field;
    const target = name && (this.fields[name] || this.fields[name.split(".")[0]]);
    if (target) {
      target.showError(r.error.message || errorText(r));
      target.scrollIntoView?.({ block: "center" });
    } else {
      this.ctx.toast(errorText(r));
    }
  }

  async duplicate(alarm) {
    const r = await this.send("alarm/duplicate", { id: alarm.id });
    if (r.status === "ok") this.showList();
  }
}

/** The sound new alarms get (settings.wake.sound), else the first tone. */
function defaultSound() {
  const wake = store.state.settings?.wake?.sound;
  return (typeof wake === "string" && wake) || store.sounds?.alarm?.[0]?.id || "";
}
