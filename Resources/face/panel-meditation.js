// docs/face-modules.md

import { t } from "./i18n.js";
import { h, icon } from "./dom.js";
import { store } from "./store.js";
import { soundName } from "./overlays.js";
import { segmented, setSegmented, stepper, section, field, iconButton } from "./widgets.js";
import { errorText } from "./panel-noise.js";

const DURATIONS = [5, 10, 15, 20, 30];
const INTERVALS = [0, 3, 5, 10];

const settings = () => ({ minutes: 10, interval_min: 0, background: "silent", gong: "singing-bowl", ...store.state.settings?.meditation });
const lengthText = (s) => (s < 60 ? t("unit.s", { count: Math.round(s) }) : t("unit.min", { count: Math.round(s / 60) }));

export class MeditationPanel {
  constructor(ctx) {
    this.ctx = ctx;
    this.saved = Promise.resolve();
  }

  mount(body) {
    this.body = body;
    this.show("session");
  }

  busy() {
    return this.tab === "edit";
  }

  relabel() {
    if (this.tab === "edit") this.edit(this.edited);
    else this.show(this.tab);
  }

  async send(verb, payload) {
    const r = await this.ctx.command(verb, payload);
    if (r.status !== "ok") this.ctx.toast(errorText(r));
    return r;
  }

  /** A change of settings.meditation; Start waits for the changes before it. */
  save(patch) {
    this.saved = this.saved.then(() => this.send("settings", { meditation: patch }));
  }

  update(topics) {
    if (!topics) return;
    if (this.tab === "session" && ["settings", "sounds", "meditation/stats"].some((x) => topics.has(x))) this.paint();
    if (this.tab === "library" && ["meditations", "connection"].some((x) => topics.has(x))) this.renderLibrary();
  }

  show(tab) {
    this.tab = tab;
    this.ctx.setTitle(t("meditation.title"));
    this.ctx.setBack(null);
    this.body.replaceChildren(segmented(t("meditation.title"), [{ value: "session", label: t("med.tab.session") }, { value: "library", label: t("med.tab.library") }],
      tab, (v) => this.show(v), "tabs"));
    if (tab === "session") this.mountSession();
    else this.mountLibrary();
    this.ctx.scrollTop();
  }

  // --- a timed session

  mountSession() {
    const s = settings();
    const c = (this.c = {});
    let wait = 0;
    c.minutes = stepper(t("med.duration"), { value: s.minutes, min: 1, max: 180, page: 5, format: (v) => t("unit.min", { count: v }), onChange: (v) => {
      setSegmented(c.presets, v);
      clearTimeout(wait);
      wait = setTimeout(() => this.save({ minutes: v }), 400);
    } });
    c.presets = segmented(t("med.presets"), DURATIONS.map((m) => ({ value: m, label: String(m), ariaLabel: t("unit.min", { count: m }) })), s.minutes, (v) => {
      c.minutes.set(v);
      this.save({ minutes: v });
    });
    c.interval = segmented(t("med.interval.title"), INTERVALS.map((m) => ({ value: m, label: m ? t("unit.min", { count: m }) : t("editor.off") })),
      s.interval_min, (v) => this.save({ interval_min: v }));
    c.gongs = h("div", { class: "sound-list", role: "radiogroup", "aria-label": t("med.gong") });
    c.backgrounds = h("div", { class: "cats wrap", role: "group", "aria-label": t("med.background") });
    c.stats = h("dl", { class: "stats" });
    const start = h("button", { type: "button", class: "btn btn-primary wide", onclick: async () => {
      clearTimeout(wait);
      this.save({ minutes: c.minutes.value });
      await this.saved;
      this.send("meditation/start");
    } }, icon("play"), t("med.start"));
    this.body.append(
      section(null, field(t("med.duration"), c.minutes), c.presets, start),
      section(t("med.gongs"), field(t("med.interval.title"), c.interval), field(t("med.gong"), c.gongs)),
      section(t("med.background"), c.backgrounds),
      section(t("med.stats"), c.stats));
    this.paint();
  }

  /** Brings the controls in line with settings.meditation, the catalogs and the stats. */
  paint() {
    const c = this.c;
    const s = settings();
    const focused = document.activeElement?.dataset.key;
    if (!c.minutes.contains(document.activeElement)) c.minutes.set(s.minutes);
    setSegmented(c.presets, s.minutes);
    setSegmented(c.interval, s.interval_min);
    const gongs = store.sounds?.gong?.length ? store.sounds.gong : [{ id: s.gong, name: soundName(s.gong) }];
    c.gongs.replaceChildren(...gongs.map((x) => h("div", { class: "sound-row" + (x.id === s.gong ? " selected" : "") },
      h("button", { type: "button", class: "pick", role: "radio", "aria-checked": String(x.id === s.gong), text: x.name, dataset: { key: "g" + x.id }, onclick: () => this.save({ gong: x.id }) }),
      iconButton("play", t("editor.preview", { name: x.name }), () => this.send("noise/preview", { sound: x.id })))));
    c.backgrounds.replaceChildren(...[{ id: "silent", name: t("med.silent") }, ...(store.sounds?.noise || [])].map((x) =>
      h("button", { type: "button", "aria-pressed": String(x.id === s.background), text: x.name, dataset: { key: "b" + x.id }, onclick: () => this.save({ background: x.id }) })));
    const st = store.state["meditation/stats"] || {};
    c.stats.replaceChildren(...[["sessions", st.sessions], ["minutes", st.minutes_total], ["week", st.minutes_7d], ["streak", st.streak_days]].map(([k, v]) =>
      h("div", { class: "stat" }, h("dt", { text: t("med.stats." + k, { count: v || 0 }) }), h("dd", { text: String(v || 0) }))));
    if (focused) this.body.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
  }

  // --- guided meditations

  mountLibrary() {
    this.library = h("div");
    this.body.append(this.library, h("div", { class: "actions" }, h("button", { type: "button", class: "btn", onclick: async () => {
      if ((await this.send("meditation/rescan")).status === "ok") this.ctx.toast(t("med.rescanned"));
    } }, icon("refresh"), t("med.rescan"))));
    this.renderLibrary();
  }

  renderLibrary() {
    const lib = store.state.meditations || {};
    const groups = (lib.groups || []).filter((g) => g.items?.length);
    const focused = document.activeElement?.dataset.key;
    this.library.replaceChildren(
      lib.problem ? h("p", { class: "field-error", text: lib.problem }) : "",
      groups.length ? "" : h("p", { class: "empty", text: store.connected ? t("med.library.empty") : t("error.offline") }),
      ...groups.flatMap((g) => [h("h3", { class: "section-title teacher", text: g.teacher || t("med.teacher.unknown") }),
        ...g.items.map((x) => this.item(x))]));
    if (focused) this.library.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
  }

  item(x) {
    const play = h("button", { type: "button", class: "row-btn", disabled: !!x.error, dataset: { key: "p" + x.id },
      "aria-label": x.error ? t("med.broken", { name: x.name, reason: x.error }) : t("med.play", { name: x.name, length: lengthText(x.duration_s) }),
      onclick: () => this.send("meditation/play", { id: x.id }) },
    h("strong", {}, icon(x.error ? "close" : "play"), x.name), h("span", { text: x.error ? t("med.broken.short") : lengthText(x.duration_s) }));
    const edit = iconButton("edit", t("med.edit.label", { name: x.name }), () => this.edit(x));
    edit.dataset.key = "e" + x.id;
    return h("div", { class: "guided-row" + (x.error ? " broken" : "") }, play, edit);
  }

  edit(x) {
    this.tab = "edit";
    this.edited = x;
    this.ctx.setTitle(t("med.edit"));
    this.ctx.setBack(() => this.show("library"));
    const input = (value) => h("input", { class: "input", type: "text", maxlength: "120", value: value || "", autocomplete: "off" });
    const name = input(x.name);
    const teacher = input(x.teacher);
    const fields = { name: field(t("med.edit.name"), name), teacher: field(t("med.edit.teacher"), teacher) };
    const save = async () => {
      const r = await this.ctx.command("meditation/edit", { id: x.id, name: name.value.trim(), teacher: teacher.value.trim() });
      if (r.status === "ok") this.show("library");
      else if (fields[r.error?.field]) fields[r.error.field].showError(r.error.message);
      else this.ctx.toast(errorText(r));
    };
    this.body.replaceChildren(section(null, h("p", { class: "hint", text: x.file || "" }), fields.name, fields.teacher, h("p", { class: "hint", text: t("med.edit.hint") })),
      h("div", { class: "actions" }, h("button", { type: "button", class: "btn btn-primary", onclick: save }, icon("check"), t("editor.save"))));
  }
}
