// docs/face-modules.md

import { t } from "./i18n.js";
import { h, icon } from "./dom.js";
import { store, clockSettings } from "./store.js";
import { toggle, segmented, slider, field, section, timePicker, iconButton } from "./widgets.js";
import { errorText } from "./panel-noise.js";
import { DAYS, timeText } from "./panel-alarms.js";

const REMINDER = [0, 5, 10, 15, 30, 60];
const WIND_DOWN = [0, 15, 30, 45, 60];
const SLEEP = [0, 15, 30, 45, 60, 90];
const WARN = [0, 5, 10, 15, 30];
const OK = [15, 30, 60, 90, 120];
const TIME_SEND_MS = 600;

const withValue = (list, v) => (v == null || list.includes(v) ? list : [...list, v].sort((a, b) => a - b));
const minutes = (v) => (v ? t("unit.min", { count: v }) : t("editor.off"));

/** `settings.bedtime.time` as {day: "HH:MM"} for the days that have one. */
function bedtimeDays(time) {
  if (!time) return {};
  if (typeof time === "string") return Object.fromEntries(DAYS.map((d) => [d, time]));
  return Object.fromEntries(DAYS.filter((d) => time[d]).map((d) => [d, time[d]]));
}

/** One line for the Settings list: "Every day at 22:30", "5 days a week" or "Off". */
export function bedtimeSummary(bedtime) {
  const days = bedtimeDays(bedtime?.time);
  const times = new Set(Object.values(days));
  if (!times.size) return t("settings.off");
  if (Object.keys(days).length === 7 && times.size === 1) return t("settings.bedtime.every_day", { time: timeText([...times][0]) });
  return t("settings.bedtime.days", { count: Object.keys(days).length });
}

export function kidsSummary(kids) {
  if (!kids?.enabled) return t("settings.off");
  const wake = kids.wake || {};
  const weekday = wake.mon || "07:00", weekend = wake.sat || weekday;
  return t("settings.kids.summary", { weekday: timeText(weekday), weekend: timeText(weekend) });
}

/** A page of the settings panel: sends one patch of `key` at a time, shows errors by field. */
class SettingsPage {
  constructor(ctx, key) {
    this.ctx = ctx;
    this.key = key;
    this.fields = {};
    this.day = "mon";
    this.pending = 0;
    this.timers = {};
  }

  get current() {
    return store.state.settings?.[this.key] || {};
  }

  async send(patch) {
    this.pending++;
    const r = await this.ctx.command("settings", { [this.key]: patch });
    this.pending--;
    const name = r.error?.field?.replace(new RegExp(`^${this.key}\\.`), "") || "";
    for (const f of Object.values(this.fields)) f.showError?.("");
    // The state that came with the answer (before or after it): drawn once nothing more is on its way.
    if (r.status === "ok" && !this.pending && !Object.keys(this.timers).length) this.render();
    if (r.status !== "ok") {
      const target = this.fields[name] || this.fields[name.split(".")[0]];
      if (target?.showError) {
        target.showError(r.error?.message || errorText(r));
        target.scrollIntoView?.({ block: "center" });
      } else this.ctx.toast(errorText(r));
    }
    return r;
  }

  /** A time sent a moment after the picker stops turning (one command, not one per step). */
  sendTime(slot, patch) {
    clearTimeout(this.timers[slot]?.id);
    this.timers[slot] = { patch, id: setTimeout(() => {
      delete this.timers[slot];
      this.send(patch);
    }, TIME_SEND_MS) };
  }

  /** Sends the times still waiting at once (the page is left or closed). */
  flush() {
    for (const { id, patch } of Object.values(this.timers)) {
      clearTimeout(id);
      this.send(patch);
    }
    this.timers = {};
  }

  /** Redrawn when the node's settings change, unless a change of ours is on its way: then the
   * state that follows its answer redraws it (a picker is not rebuilt under a finger). */
  update(topics) {
    if (!topics?.has("settings") && !topics?.has("sounds")) return;
    if (this.pending || Object.keys(this.timers).length) return;
    if (this.body.contains(document.activeElement) && document.activeElement.matches("input")) return;
    this.render();
  }

  mount(body) {
    this.body = body;
    this.render();
  }

  render() {
    const scroll = this.body.parentElement?.scrollTop ?? 0;
    this.fields = {};
    this.body.replaceChildren(...this.build());
    if (this.body.parentElement) this.body.parentElement.scrollTop = scroll;
  }

  /** The week: seven day buttons with their times, the chosen one pressed. */
  week(label, days, onPick) {
    return h("div", { class: "seg days week", role: "group", "aria-label": label },
      DAYS.map((d) => h("button", {
        type: "button", "aria-pressed": String(d === this.day), dataset: { day: d },
        "aria-label": `${t("day.long." + d)}, ${days[d] ? timeText(days[d]) : t("settings.off")}`,
        onclick: () => onPick(d),
      }, h("span", { class: "week-day", text: t("day." + d) }), h("span", { class: "week-time", text: days[d] ? timeText(days[d]).replace(/ ?[AP]M$/i, "") : "–" }))));
  }
}

export class BedtimePage extends SettingsPage {
  constructor(ctx) {
    super(ctx, "bedtime");
    this.perDay = null; // chosen here; else read from the node's form of `time`
  }

  title() {
    return t("settings.bedtime");
  }

  build() {
    const b = this.current;
    const days = bedtimeDays(b.time);
    const on = Object.keys(days).length > 0;
    const perDay = this.perDay ?? (b.time !== null && typeof b.time === "object");
    const fmt = clockSettings().timeFormat;
    const f = (name, label, control) => (this.fields[name] = field(label, control, name));
    const everyDay = days.mon || Object.values(days)[0] || "22:30";

    const enabled = toggle(t("settings.bedtime.enabled"), on, (v) => {
      this.send({ time: v ? everyDay : null });
    });
    const parts = [enabled];
    if (on) {
      parts.push(segmented(t("settings.bedtime.time"), [
        { value: "same", label: t("settings.bedtime.same") }, { value: "days", label: t("settings.bedtime.per_day") }],
      perDay ? "days" : "same", (v) => {
        this.perDay = v === "days";
        // One time for all: the chosen day's. Per day: each day keeps its own time.
        if (!this.perDay) this.send({ time: days[this.day] || everyDay });
        else this.render();
      }));
      if (!perDay) {
        parts.push(f("time", t("settings.bedtime.time"), timePicker(t("settings.bedtime.time"), everyDay, fmt,
          (v) => this.sendTime("time", { time: v }))));
      } else {
        const day = this.day;
        const dayTime = days[day];
        const dayOn = toggle(t("settings.bedtime.day_on", { day: t("day.long." + day) }), !!dayTime, (v) =>
          this.send({ time: { ...days, [day]: v ? everyDay : null } }));
        const picker = dayTime
          ? timePicker(t("settings.bedtime.day_time", { day: t("day.long." + day) }), dayTime, fmt,
            (v) => this.sendTime("day", { time: { ...bedtimeDays(this.current.time), [day]: v } }))
          : null;
        parts.push(f("time", t("settings.bedtime.week"), h("div", {},
          this.week(t("settings.bedtime.week"), days, (d) => {
            this.day = d;
            this.render();
          }), dayOn, picker)));
      }
    }
    parts.push(h("p", { class: "hint", text: t("settings.bedtime.hint") }));

    const choice = (name, label, values, value) => f(name, label,
      segmented(label, withValue(values, value).map((v) => ({ value: v, label: minutes(v) })), value, (v) => this.send({ [name]: v })));

    const chosen = new Set(b.sounds || []);
    const noise = (store.sounds?.noise || []).filter((s) => s.id);
    const soundList = h("div", { class: "sound-list" }, noise.map((s) => {
      const pick = h("button", {
        type: "button", class: "pick", role: "checkbox", "aria-checked": String(chosen.has(s.id)), text: s.name,
        onclick: () => {
          const next = chosen.has(s.id) ? [...chosen].filter((x) => x !== s.id) : [...chosen, s.id];
          this.send({ sounds: next });
        },
      }, chosen.has(s.id) ? icon("check", "pick-mark") : null);
      return h("div", { class: "sound-row" + (chosen.has(s.id) ? " selected" : "") }, pick,
        iconButton("play", t("editor.preview", { name: s.name }), () => this.ctx.command("noise/preview", { sound: s.id })));
    }));
    const volume = slider(t("settings.bedtime.volume"), { value: b.volume ?? 30, format: (v) => t("settings.percent", { value: v }),
      onChange: (v) => this.send({ volume: v }) });
    this.fields.volume = volume;
    const breathe = toggle(t("settings.bedtime.breathe"), !!b.breathe, (v) => this.send({ breathe: v }));
    this.fields.breathe = { showError: (m) => m && this.ctx.toast(m) };

    const sounds = f("sounds", t("settings.bedtime.sounds"), soundList);
    sounds.querySelector(".field-label").hidden = true; // the section's title names it
    return [
      section(null, ...parts),
      section(t("settings.bedtime.before"),
        choice("reminder_min", t("settings.bedtime.reminder"), REMINDER, b.reminder_min ?? 15),
        choice("wind_down_min", t("settings.bedtime.wind_down"), WIND_DOWN, b.wind_down_min ?? 30), breathe),
      section(t("settings.bedtime.sounds"), sounds, h("p", { class: "hint", text: t("settings.bedtime.sounds.hint") }), volume,
        choice("sleep_min", t("settings.bedtime.sleep"), SLEEP, b.sleep_min ?? 45)),
    ];
  }
}

export class KidsPage extends SettingsPage {
  constructor(ctx) {
    super(ctx, "kids");
    this.perDay = null;
  }

  title() {
    return t("settings.kids");
  }

  build() {
    const k = this.current;
    const wake = Object.fromEntries(DAYS.map((d) => [d, k.wake?.[d] || "07:00"]));
    const same = new Set(Object.values(wake)).size === 1;
    const perDay = this.perDay ?? !same;
    const fmt = clockSettings().timeFormat;
    const f = (name, label, control) => (this.fields[name] = field(label, control, name));
    const enabled = toggle(t("settings.kids.enabled"), !!k.enabled, (v) => this.send({ enabled: v }));
    this.fields.enabled = { showError: (m) => m && this.ctx.toast(m) };

    const mode = segmented(t("settings.kids.wake"), [
      { value: "same", label: t("settings.bedtime.same") }, { value: "days", label: t("settings.bedtime.per_day") }],
    perDay ? "days" : "same", (v) => {
      this.perDay = v === "days";
      if (!this.perDay && !same) this.send({ wake: wake[this.day] });
      else this.render();
    });
    let wakeControl;
    if (!perDay) {
      wakeControl = timePicker(t("settings.kids.wake"), wake.mon, fmt, (v) => this.sendTime("wake", { wake: v }));
    } else {
      const day = this.day;
      wakeControl = h("div", {},
        this.week(t("settings.kids.wake"), wake, (d) => {
          this.day = d;
          this.render();
        }),
        timePicker(t("settings.kids.day_time", { day: t("day.long." + day) }), wake[day], fmt, (v) => this.sendTime("wake", { wake: { [day]: v } })));
    }
    const sleepFrom = timePicker(t("settings.kids.sleep_from"), k.sleep_from || "19:00", fmt, (v) => this.sendTime("sleep_from", { sleep_from: v }));
    const choice = (name, label, values, value, format) => f(name, label,
      segmented(label, withValue(values, value).map((v) => ({ value: v, label: format(v) })), value, (v) => this.send({ [name]: v })));
    const showTime = toggle(t("settings.kids.show_time"), k.show_time !== false, (v) => this.send({ show_time: v }));
    this.fields.show_time = { showError: (m) => m && this.ctx.toast(m) };

    const wakeField = f("wake", t("settings.kids.wake"), wakeControl);
    wakeField.querySelector(".field-label").hidden = true; // the section's title names it
    return [
      section(null, enabled, h("p", { class: "hint", text: t("settings.kids.hint") })),
      section(t("settings.kids.wake"), mode, wakeField,
        choice("warn_min", t("settings.kids.warn"), WARN, k.warn_min ?? 15, minutes),
        choice("ok_min", t("settings.kids.ok"), OK, k.ok_min ?? 60, (v) => t("unit.min", { count: v }))),
      section(t("settings.kids.night"), f("sleep_from", t("settings.kids.sleep_from"), sleepFrom), showTime),
    ];
  }
}
