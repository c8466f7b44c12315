// docs/face-modules.md

import { t, has } from "./i18n.js";
import { h, icon, setText, setClass } from "./dom.js";
import { store, clockSettings } from "./store.js";
import { soundName } from "./overlays.js";
import { formatInstant, left } from "./nodetime.js";
import { slider, segmented, setSegmented, section, iconButton } from "./widgets.js";

const SLEEP_CHOICES = [0, 15, 30, 60, 90];
const PREVIEW_HOLD_MS = 500;

export class NoisePanel {
  constructor(ctx) {
    this.ctx = ctx;
    this.query = "";
    this.category = "";
    this.volumeTimer = 0;
  }

  mount(body) {
    const ctx = this.ctx;
    this.nowBox = h("div", { class: "now" });
    this.volume = slider(t("noise.volume"), {
      value: store.state.noise?.volume ?? 50,
      format: (v) => t("settings.percent", { value: v }),
      onInput: (v) => {
        clearTimeout(this.volumeTimer);
        this.volumeTimer = setTimeout(() => this.send("noise/volume", { volume: v }), 150);
      },
    });
    this.sleep = segmented(t("noise.sleep"),
      SLEEP_CHOICES.map((m) => ({
        value: m,
        label: m === 0 ? t("noise.sleep.off") : m % 60 === 0 ? t("noise.sleep.h", { count: m / 60 }) : t("noise.sleep.min", { count: m }),
      })), -1, (m) => this.send("noise/sleep", { minutes: m }));
    this.sleepLeft = h("p", { class: "hint" });
    this.search = h("input", {
      class: "input", type: "search", value: this.query, placeholder: t("noise.search"), "aria-label": t("noise.search"), autocomplete: "off",
      oninput: () => {
        this.query = this.search.value.trim().toLowerCase();
        this.renderTiles();
      },
    });
    this.cats = h("div", { class: "cats", role: "group", "aria-label": t("noise.title") });
    this.tiles = h("div", { class: "tiles" });
    body.append(
      section(null, this.nowBox, this.volume, h("div", { class: "field" },
        h("span", { class: "field-label", id: "sleep-label", text: t("noise.sleep") }), this.sleep, this.sleepLeft)),
      section(t("noise.title"), h("div", { class: "search" }, icon("search"), this.search), this.cats,
        h("p", { class: "hint", text: t("noise.hint") }), this.tiles),
    );
    this.sleep.setAttribute("aria-labelledby", "sleep-label");
    this.update(null);
  }

  destroy() {
    clearTimeout(this.volumeTimer);
  }

  async send(verb, payload) {
    const r = await this.ctx.command(verb, payload);
    if (r.status !== "ok") this.ctx.toast(errorText(r));
    return r;
  }

  update(topics) {
    if (topics && !["noise", "sounds", "minute", "connection", "settings", "bedtime"].some((x) => topics.has(x))) return;
    this.renderNow();
    if (!topics || topics.has("sounds") || topics.has("noise")) {
      this.renderCats();
      this.renderTiles();
    }
  }

  playing() {
    const n = store.state.noise;
    return n?.playing ? n.sounds || [] : [];
  }

  renderNow() {
    const n = store.state.noise || {};
    const sounds = this.playing();
    const mix = sounds.map((s) => h("button", {
      type: "button", class: "chip-btn", "aria-label": t("noise.remove", { name: soundName(s.id) }),
      onclick: () => this.send("noise/remove", { sound: s.id }),
    }, soundName(s.id), icon("close")));
    const title = sounds.length ? t("noise.now") : t("noise.nothing");
    // Bedtime's wind-down at once (SPEC §13): its sounds, sleep timer, sunset and breathing guide.
    const windDown = store.state.bedtime?.phase !== "winding_down"
      ? h("button", { type: "button", class: "btn", id: "wind-down", onclick: () => this.send("bedtime/start") }, icon("moon"), t("noise.wind_down"))
      : null;
    const head = h("div", { class: "now-head" },
      h("div", { class: "now-title" }, h("strong", { text: title })),
      sounds.length ? h("button", { type: "button", class: "btn", onclick: () => this.send("noise/stop") }, icon("stop"), t("noise.stop")) : windDown);
    this.nowBox.replaceChildren(head, sounds.length ? h("div", { class: "mix" }, mix) : "");
    this.volume.set(n.volume ?? 50);
    const ends = n.sleep_timer_ends_at ? Date.parse(n.sleep_timer_ends_at) : NaN;
    setSegmented(this.sleep, Number.isNaN(ends) ? 0 : -1);
    setText(this.sleepLeft, Number.isNaN(ends) ? "" :
      t("noise.sleep.status", { time: formatInstant(n.sleep_timer_ends_at, clockSettings().timeFormat), left: left(ends) }));
  }

  catalog() {
    return store.sounds?.noise || [];
  }

  renderCats() {
    const cats = [...new Set(this.catalog().map((s) => s.category).filter(Boolean))];
    const key = cats.join("|") + "#" + this.category;
    if (this.cats.dataset.key === key) return;
    this.cats.dataset.key = key;
    const button = (value, label) => h("button", {
      type: "button", "aria-pressed": String(this.category === value), text: label,
      onclick: () => {
        this.category = value;
        this.renderCats();
        this.renderTiles();
      },
    });
    this.cats.replaceChildren(button("", t("noise.all")),
      ...cats.map((c) => button(c, has("category." + c) ? t("category." + c) : c)));
  }

  renderTiles() {
    const all = this.catalog();
    if (!all.length) {
      this.tiles.replaceChildren(h("p", { class: "empty", text: store.connected ? t("noise.catalog.missing") : t("error.offline") }));
      return;
    }
    const inMix = new Set(this.playing().map((s) => s.id));
    const list = all.filter((s) => (!this.category || s.category === this.category) &&
      (!this.query || `${s.name} ${s.description || ""} ${s.category || ""}`.toLowerCase().includes(this.query)));
    const focusedId = document.activeElement?.closest?.(".tile-wrap")?.dataset.id;
    const focusedAdd = document.activeElement?.classList.contains("icon-btn");
    this.tiles.replaceChildren(...(list.length ? list.map((s) => this.tile(s, inMix.has(s.id))) :
      [h("p", { class: "empty", text: t("noise.empty") })]));
    if (focusedId) this.tiles.querySelector(`[data-id="${CSS.escape(focusedId)}"] ${focusedAdd ? ".icon-btn" : ".tile"}`)?.focus({ preventScroll: true });
  }

  tile(s, playing) {
    const main = h("button", { type: "button", class: "tile", "aria-label": t("noise.play", { name: s.name }), "aria-pressed": String(playing) },
      h("strong", { text: s.name }), h("span", { text: s.description || "" }));
    let holdTimer = 0;
    let held = false;
    main.addEventListener("pointerdown", () => {
      held = false;
      clearTimeout(holdTimer);
      holdTimer = setTimeout(() => {
        held = true;
        setClass(wrap, "previewing", true);
        this.ctx.toast(t("noise.previewing", { name: s.name }));
        this.send("noise/preview", { sound: s.id });
        setTimeout(() => setClass(wrap, "previewing", false), 3000);
      }, PREVIEW_HOLD_MS);
    });
    for (const type of ["pointerup", "pointercancel", "pointerleave"]) main.addEventListener(type, () => clearTimeout(holdTimer));
    main.addEventListener("contextmenu", (e) => e.preventDefault());
    main.addEventListener("click", () => {
      if (held) return;
      this.send("noise/play", { sound: s.id });
    });
    const mixButton = playing
      ? iconButton("minus", t("noise.remove", { name: s.name }), () => this.send("noise/remove", { sound: s.id }))
      : iconButton("plus", t("noise.add", { name: s.name }), () => this.send("noise/add", { sound: s.id }));
    const wrap = h("div", { class: "tile-wrap" + (playing ? " playing" : ""), dataset: { id: s.id } }, main, mixButton);
    return wrap;
  }
}

export function errorText(r) {
  const code = r.error?.code;
  if (code === "unavailable") return t("error.offline");
  if (code === "timeout") return t("error.timeout");
  return t("error.generic", { message: r.error?.message || code || "" });
}
