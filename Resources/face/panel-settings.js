// docs/face-modules.md

import { t } from "./i18n.js";
import { h, icon } from "./dom.js";
import { store, emit, merge, face, clockSettings, subscribe } from "./store.js";
import { command } from "./connection.js";
import { TimeView, fontStack } from "./timeview.js";
import { parts, formatInstant, formatDate } from "./nodetime.js";
import { toggle, setToggle, segmented, setSegmented, slider, field, section, timePicker, iconButton } from "./widgets.js";
import { errorText } from "./panel-noise.js";
import { BedtimePage, KidsPage, bedtimeSummary, kidsSummary } from "./settings-night.js";

const PAGES = { bedtime: BedtimePage, kids: KidsPage };

// --- live preview of settings.face

let pending = null;
let sendTimer = 0;
let inflight = 0;
let echoTimer = 0;
let onError = null;

function preview(patch) {
  store.facePreview = merge(store.facePreview || {}, patch);
  pending = merge(pending || {}, patch);
  emit("preview");
  clearTimeout(sendTimer);
  sendTimer = setTimeout(flush, 250);
}

async function flush() {
  clearTimeout(sendTimer);
  const patch = pending;
  pending = null;
  if (!patch) return;
  inflight++;
  const seq = settingsSeq;
  const r = await command("settings", { face: patch });
  inflight--;
  if (r.status !== "ok") {
    onError?.(r);
    settle();
    return;
  }
  // Keep showing the preview until the node's settings state arrives with it.
  clearTimeout(echoTimer);
  if (settingsSeq !== seq) settle();
  else echoTimer = setTimeout(settle, 2000);
}

function settle() {
  if (inflight || pending || !store.facePreview) return;
  clearTimeout(echoTimer);
  store.facePreview = null;
  emit("preview");
}

let settingsSeq = 0;
subscribe((topics) => {
  if (!topics.has("settings")) return;
  settingsSeq++;
  if (!inflight && !pending) settle();
});

// --- the panel

const THEMES = ["night", "day", "red", "custom"];
// Each language by its own name, whatever the language in force.
const LANGUAGES = [{ value: "en", label: "English" }, { value: "de", label: "Deutsch" }];
const FONTS = ["sans", "serif", "mono", "rounded"];

// cog's WPE WebKit has no colour picker (and a kiosk no keyboard): swatches there.
const PICKER = h("input", { type: "color" }).type === "color";

function colorControl(label, value, colors, onPick) {
  const v = String(value).toUpperCase();
  if (PICKER) return h("input", { type: "color", class: "swatch", value: v, "aria-label": label, oninput: (e) => onPick(e.target.value.toUpperCase()) });
  const g = segmented(label, [...new Set([...colors, v])].filter((c) => /^#[0-9A-F]{6}$/.test(c)).map((c) => ({ value: c, label: "", ariaLabel: c })), v, onPick, "palette");
  for (const b of g.children) b.style.background = b.dataset.value;
  return g;
}

export class SettingsPanel {
  constructor(ctx) {
    this.ctx = ctx;
    this.controls = {};
  }

  busy() {
    return false;
  }

  destroy() {
    flush();
    this.page?.flush();
    onError = null;
  }

  /** In another language: the page shown, drawn again. */
  relabel() {
    if (this.page) return this.openPage(this.pageName);
    flush();
    this.showMain();
  }

  /** Settings → Bedtime or Settings → Kids' clock, with Back to the list. */
  openPage(name) {
    flush();
    this.page?.flush();
    this.pageName = name;
    this.page = new PAGES[name](this.ctx);
    this.ctx.setTitle(this.page.title());
    this.ctx.setBack(() => {
      this.showMain();
      this.pageRows.querySelector(`[data-key="page-${name}"]`)?.focus({ preventScroll: true });
      this.pageRows.scrollIntoView({ block: "center" });
    });
    const box = h("div", { class: "settings-page", dataset: { page: name } });
    this.body.replaceChildren(box);
    this.page.mount(box);
    this.ctx.scrollTop();
  }

  /** A row that opens a page: its name, what it is set to now, and a chevron. */
  pageRow(name, label, summary) {
    return h("button", { type: "button", class: "row-btn page-row", dataset: { key: "page-" + name }, onclick: () => this.openPage(name) },
      h("span", { class: "page-text" }, h("span", { class: "page-name", text: label }), h("span", { class: "page-summary", text: summary })),
      icon("back", "chevron"));
  }

  renderPageRows() {
    if (!this.pageRows) return;
    const s = store.state.settings || {};
    this.pageRows.replaceChildren(
      this.pageRow("bedtime", t("settings.bedtime"), bedtimeSummary(s.bedtime)),
      this.pageRow("kids", t("settings.kids"), kidsSummary(s.kids)));
  }

  async send(patch, fieldName) {
    const r = await this.ctx.command("settings", patch);
    if (r.status !== "ok") this.showError(r, fieldName);
    return r;
  }

  showError(r, fallback) {
    const name = (r.error?.field || fallback || "").replace(/^face\./, "");
    const target = this.fields[name];
    if (target?.showError) target.showError(r.error?.message || errorText(r));
    else this.ctx.toast(errorText(r));
  }

  mount(body) {
    this.body = body;
    this.showMain();
  }

  showMain() {
    const body = this.body;
    this.page?.flush();
    this.page = null;
    this.pageName = "";
    this.ctx.setTitle(t("settings.title"));
    this.ctx.setBack(null);
    body.replaceChildren();
    onError = (r) => this.showError(r);
    this.fields = {};
    const f = face();
    const cs = clockSettings();
    const c = this.controls;

    // Clock
    c.format = segmented(t("settings.format"), [{ value: "24h", label: t("settings.24h") }, { value: "12h", label: t("settings.12h") }],
      cs.timeFormat, (v) => this.send({ time_format: v }, "time_format"));
    c.seconds = toggle(t("settings.seconds"), cs.showSeconds, (on) => this.send({ show_seconds: on }, "show_seconds"));
    const tz = this.timezoneField();

    // Face
    this.previewBox = h("div", { class: "preview", "aria-hidden": "true" });
    this.previewTime = h("div", { class: "time" });
    this.previewBox.append(this.previewTime);
    this.previewView = new TimeView(this.previewTime);
    c.theme = segmented(t("settings.theme"), THEMES.map((v) => ({ value: v, label: t("theme." + v) })), f.theme, (v) => {
      preview({ theme: v });
      this.renderCustom();
    });
    c.digit = colorControl(t("settings.digit_color"), f.digit_color, ["#FFFFFF", "#F0B76A", "#FF8C00", "#E60000", "#7FCB8A", "#5EC8E5"], (v) => preview({ digit_color: v }));
    c.background = colorControl(t("settings.background_color"), f.background_color, ["#000000", "#1A1206", "#0A1428", "#0B1A10", "#1A0000", "#FFFFFF"], (v) => preview({ background_color: v }));
    this.customRow = h("div", { class: PICKER ? "field pair" : "field" },
      h("span", { class: "field-label", text: t("settings.digit_color") }), c.digit,
      h("span", { class: "field-label", text: t("settings.background_color") }), c.background);
    c.random = toggle(t("settings.random_color"), f.random_color, (on) => preview({ random_color: on }));
    c.font = segmented(t("settings.font"), FONTS.map((v) => ({ value: v, label: t("font." + v) })), f.font, (v) => preview({ font: v }));
    const pct = (v) => t("settings.percent", { value: v });
    c.weight = slider(t("settings.weight"), { min: 100, max: 900, step: 100, value: f.weight, onInput: (v) => preview({ weight: v }) });
    c.size = slider(t("settings.size"), { min: 0, max: 100, value: f.size, format: (v) => (v === 0 ? t("settings.size.auto") : pct(v)), onInput: (v) => preview({ size: v }) });
    c.glow = slider(t("settings.glow"), { value: f.glow, format: pct, onInput: (v) => preview({ glow: v }) });
    c.digitOpacity = slider(t("settings.digit_opacity"), { min: 10, value: f.digit_opacity, format: pct, onInput: (v) => preview({ digit_opacity: v }) });
    c.overlayOpacity = slider(t("settings.overlay_opacity"), { min: 10, value: f.overlay_opacity, format: pct, onInput: (v) => preview({ overlay_opacity: v }) });
    c.overlays = ["date", "weather", "battery", "next_alarm", "noise", "timers"].map((k) =>
      toggle(t("overlay." + k), f.overlays?.[k] !== false, (on) => preview({ overlays: { [k]: on } })));
    c.shift = toggle(t("settings.pixel_shift"), f.pixel_shift !== false, (on) => preview({ pixel_shift: on }));
    Object.assign(this.fields, { theme: field(t("settings.theme"), c.theme, "theme"), font: field(t("settings.font"), c.font, "font"),
      weight: c.weight, size: c.size, glow: c.glow, digit_opacity: c.digitOpacity, overlay_opacity: c.overlayOpacity });

    // Night
    const n = f.night || {};
    c.night = toggle(t("settings.night.enabled"), n.enabled, (on) => preview({ night: { enabled: on } }));
    const sunKnown = !!store.state.display?.sunset;
    const when = (key, sunValue, sunLabel) => {
      const value = n[key] || (key === "start" ? "22:00" : "07:00");
      const isSun = value === sunValue;
      const picker = h("div", { hidden: isSun });
      const fmt = clockSettings().timeFormat;
      picker.append(timePicker(t("settings.night." + key), isSun ? (key === "start" ? "22:00" : "07:00") : value, fmt,
        (v) => preview({ night: { [key]: v } })));
      const seg = segmented(t("settings.night." + key), [
        { value: "time", label: t("settings.night.at") },
        { value: "sun", label: sunLabel },
      ], isSun ? "sun" : "time", (v) => {
        picker.hidden = v === "sun";
        preview({ night: { [key]: v === "sun" ? sunValue : pickerValue(picker) } });
      });
      if (!sunKnown && !isSun) seg.querySelector('[data-value="sun"]').disabled = true;
      const sunIso = store.state.display?.[sunValue];
      const hint = sunIso ? h("p", { class: "hint", text: t("settings.night.sun_at", { event: sunLabel, time: formatInstant(sunIso, fmt) }) })
        : h("p", { class: "hint", text: t("settings.night.sun_unknown") });
      return field(t("settings.night." + key), h("div", {}, seg, picker, hint), "night." + key);
    };
    c.nightTheme = segmented(t("settings.night.theme"), THEMES.map((v) => ({ value: v, label: t("theme." + v) })), n.theme || "red",
      (v) => preview({ night: { theme: v } }));
    c.nightBrightness = slider(t("settings.night.brightness"), { value: n.brightness ?? 5, format: pct, onInput: (v) => preview({ night: { brightness: v } }) });
    c.dayBrightness = slider(t("settings.day_brightness"), { value: f.day_brightness ?? 100, format: pct, onInput: (v) => preview({ day_brightness: v }) });
    this.fields.day_brightness = c.dayBrightness;

    // Language
    c.language = segmented(t("settings.language"), LANGUAGES, store.state.settings?.language, (v) => this.send({ language: v }, "language"));
    for (const b of c.language.children) b.lang = b.dataset.value;
    this.fields.language = field(t("settings.language"), c.language, "language");
    this.fields.language.firstChild.hidden = true; // the section's title names it
    this.fields["night.brightness"] = c.nightBrightness;

    // Days off (settings.wake): the default for new alarms, a vacation, days off, the next holidays.
    c.skipHolidays = toggle(t("settings.wake.skip_holidays"), !!store.state.settings?.wake?.skip_holidays,
      (on) => this.send({ wake: { skip_holidays: on } }, "wake.skip_holidays"));
    this.daysOffBox = h("div", {});
    this.pageRows = h("div", { class: "page-rows" });

    body.append(
      section(t("settings.clock"), field(t("settings.format"), c.format, "time_format"), c.seconds, tz),
      section(t("settings.style"), this.previewBox, this.fields.theme, this.customRow, c.random, this.fields.font, c.weight, c.size,
        c.glow, c.digitOpacity, c.overlayOpacity),
      section(t("settings.overlays"), ...c.overlays, c.shift),
      section(t("settings.night"), c.night, when("start", "sunset", t("settings.night.sunset")),
        when("end", "sunrise", t("settings.night.sunrise")), field(t("settings.night.theme"), c.nightTheme, "night.theme"),
        c.nightBrightness, c.dayBrightness),
      section(t("settings.language"), this.fields.language),
      section(t("settings.bedtime_kids"), this.pageRows),
      section(t("settings.days_off"), c.skipHolidays, this.daysOffBox),
    );
    this.renderPageRows();
    this.renderDaysOff();
    this.renderCustom();
    this.renderPreview();
  }

  renderCustom() {
    this.customRow.hidden = face().theme !== "custom";
  }

  async renderPreview() {
    const f = face();
    const box = this.previewBox;
    const weight = Math.max(100, Math.min(900, Math.round((Number(f.weight) || 300) / 100) * 100));
    const cs = clockSettings();
    const p = parts();
    await this.previewView.setFont(fontStack(f.font), weight);
    this.previewView.setTime({ hour: p.hour, minute: p.minute, second: p.second, format: cs.timeFormat, showSeconds: cs.showSeconds, am: t("clock.am"), pm: t("clock.pm") });
    this.previewView.fit(Math.max(120, box.clientWidth - 48), 84, 0);
  }

  update(topics) {
    if (!topics) return;
    if (this.page) return this.page.update(topics);
    if (topics.has("settings") || topics.has("minute")) this.renderPageRows();
    if (topics.has("preview") || topics.has("settings") || topics.has("minute") || topics.has("clock")) this.renderPreview();
    if (topics.has("settings") && !store.facePreview) this.sync();
    if (topics.has("settings") || topics.has("holidays")) this.renderDaysOff();
  }

  /** The vacation, the days off (each removable) and the next public holidays. */
  renderDaysOff() {
    const box = this.daysOffBox;
    if (!box || box.contains(document.activeElement) && document.activeElement.tagName === "INPUT") return;
    const wake = store.state.settings?.wake || {};
    const vacationInput = h("input", { class: "input", type: "date", value: wake.vacation_until || "", "aria-label": t("settings.vacation") });
    const vacation = field(t("settings.vacation"), h("div", {},
      h("div", { class: "date-row" }, vacationInput,
        h("button", { type: "button", class: "btn", onclick: async () => {
          if (!vacationInput.value) return;
          vacation.showError("");
          const r = await this.ctx.command("vacation", { until: vacationInput.value });
          if (r.status !== "ok") vacation.showError(r.error?.message || errorText(r));
        } }, icon("check"), t("settings.vacation.set")),
        wake.vacation_until ? h("button", { type: "button", class: "btn", onclick: () => this.ctx.command("vacation", { until: null }) },
          icon("close"), t("settings.vacation.end")) : null),
      h("p", { class: "hint", text: t("settings.vacation.hint") })), "vacation");
    const addInput = h("input", { class: "input", type: "date", "aria-label": t("settings.days_off.add") });
    const days = (wake.days_off || []).map((d) => h("span", { class: "day-chip" }, formatDate(d),
      iconButton("close", t("settings.days_off.remove", { date: formatDate(d) }), () => this.ctx.command("wake/days_off", { remove: [d] }))));
    const daysOff = field(t("settings.days_off.list"), h("div", {},
      h("div", { class: "date-row" }, addInput,
        h("button", { type: "button", class: "btn", onclick: async () => {
          if (!addInput.value) return;
          daysOff.showError("");
          const r = await this.ctx.command("wake/days_off", { add: [addInput.value] });
          if (r.status !== "ok") daysOff.showError(r.error?.message || errorText(r));
        } }, icon("plus"), t("settings.days_off.add"))),
      days.length ? h("div", { class: "day-list" }, days) : h("p", { class: "hint", text: t("settings.days_off.none") }),
      h("p", { class: "hint", text: t("settings.days_off.hint") })), "days_off");
    const holidays = store.state.holidays;
    const upcoming = (holidays?.days || []).filter((d) => d.kind === "holiday").slice(0, 4);
    const next = holidays?.country
      ? field(t("settings.holidays.next"), h("ul", { class: "holiday-list" },
        upcoming.map((d) => h("li", { text: `${formatDate(d.date)} · ${d.name}` }))))
      : h("p", { class: "hint", text: t("settings.holidays.none") });
    box.replaceChildren(vacation, daysOff, next);
  }

  /** Brings the controls in line with settings changed elsewhere (MQTT, Home Assistant). */
  sync() {
    const f = face();
    const cs = clockSettings();
    const c = this.controls;
    setSegmented(c.format, cs.timeFormat);
    setSegmented(c.language, store.state.settings?.language);
    setToggle(c.seconds, cs.showSeconds);
    setToggle(c.skipHolidays, !!store.state.settings?.wake?.skip_holidays);
    setSegmented(c.theme, f.theme);
    setSegmented(c.font, f.font);
    setToggle(c.random, f.random_color);
    if (!PICKER) for (const k of ["digit", "background"]) setSegmented(c[k], String(f[k + "_color"]).toUpperCase());
    c.weight.set(f.weight);
    c.size.set(f.size);
    c.glow.set(f.glow);
    c.digitOpacity.set(f.digit_opacity);
    c.overlayOpacity.set(f.overlay_opacity);
    ["date", "weather", "battery", "next_alarm", "noise", "timers"].forEach((k, i) => setToggle(c.overlays[i], f.overlays?.[k] !== false));
    setToggle(c.shift, f.pixel_shift !== false);
    setToggle(c.night, f.night?.enabled);
    setSegmented(c.nightTheme, f.night?.theme);
    c.nightBrightness.set(f.night?.brightness ?? 5);
    c.dayBrightness.set(f.day_brightness ?? 100);
    this.renderCustom();
  }

  timezoneField() {
    const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
    const current = store.state.settings?.timezone || "";
    const input = h("input", { class: "input", type: "text", value: current, placeholder: t("settings.timezone.system"), autocomplete: "off", spellcheck: "false" });
    const list = h("div", { class: "tz-list" });
    const choose = async (zone) => {
      input.value = zone;
      list.replaceChildren();
      wrap.showError("");
      await this.send({ timezone: zone }, "timezone");
    };
    input.addEventListener("input", () => {
      const q = input.value.trim().toLowerCase().replace(/\s+/g, "_");
      const matches = q.length < 2 ? [] : zones.filter((z) => z.toLowerCase().includes(q)).slice(0, 6);
      list.replaceChildren(...matches.map((z) => h("button", { type: "button", text: z.replace(/_/g, " "), onclick: () => choose(z) })));
      if (!input.value.trim()) list.append(h("button", { type: "button", text: t("settings.timezone.system"), onclick: () => choose("") }));
    });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") choose(input.value.trim());
    });
    const wrap = field(t("settings.timezone"), input, "timezone");
    wrap.append(list);
    this.fields.timezone = wrap;
    return wrap;
  }
}

function pickerValue(picker) {
  const values = [...picker.querySelectorAll(".spin-value")].map((e) => Number(e.getAttribute("aria-valuenow")));
  return `${String(values[0] ?? 22).padStart(2, "0")}:${String(values[1] ?? 0).padStart(2, "0")}`;
}
