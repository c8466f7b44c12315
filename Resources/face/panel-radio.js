// docs/face-modules.md

import { t } from "./i18n.js";
import { h, icon, setText, setClass } from "./dom.js";
import { store, clockSettings } from "./store.js";
import { formatInstant, left } from "./nodetime.js";
import { slider, segmented, setSegmented, section, field, iconButton } from "./widgets.js";
import { errorText } from "./panel-noise.js";
import { radio, stations, radioActive, radioStatus, playingName, streamMeta, hostOf, stationOf, RADIO_PREFIX } from "./radio.js";

const SLEEP_CHOICES = [0, 15, 30, 60, 90];
const SEARCH_LIMIT = 30;
const ARM_MS = 4000;

export class RadioPanel {
  constructor(ctx) {
    this.ctx = ctx;
    this.page = "main";
    this.volumeTimer = 0;
    this.armTimer = 0;
    this.armed = ""; // the station whose delete waits for its second tap
    this.search = { query: "", country: "", results: null, busy: false, error: "" };
    this.typed = { name: "", url: "" };
  }

  mount(body) {
    this.body = body;
    this.showMain();
  }

  destroy() {
    clearTimeout(this.volumeTimer);
    clearTimeout(this.armTimer);
  }

  /** A station being typed is not thrown away after 10 s. */
  busy() {
    return this.page === "add" && !!(this.typed.name || this.typed.url || this.search.query);
  }

  relabel() {
    if (this.page === "add") this.showAdd();
    else this.showMain();
  }

  update(topics) {
    if (topics && !["radio", "settings", "minute", "connection"].some((x) => topics.has(x))) return;
    if (this.page === "main") {
      this.renderNow();
      this.renderStations();
    } else if (!topics || topics.has("radio")) {
      this.renderResults();
    }
  }

  async send(verb, payload) {
    const r = await this.ctx.command(verb, payload);
    if (r.status !== "ok") this.ctx.toast(errorText(r));
    return r;
  }

  // --- what plays, and the favourites

  showMain() {
    this.page = "main";
    this.ctx.setTitle(t("radio.title"));
    this.ctx.setBack(null);
    this.nowBox = h("div", { class: "now-box", "aria-live": "polite" });
    this.volume = slider(t("radio.volume"), {
      value: radio().volume ?? 50,
      format: (v) => t("settings.percent", { value: v }),
      onInput: (v) => {
        clearTimeout(this.volumeTimer);
        this.volumeTimer = setTimeout(() => this.send("radio/volume", { volume: v }), 150);
      },
    });
    this.sleep = segmented(t("radio.sleep"),
      SLEEP_CHOICES.map((m) => ({
        value: m,
        label: m === 0 ? t("noise.sleep.off") : m % 60 === 0 ? t("noise.sleep.h", { count: m / 60 }) : t("noise.sleep.min", { count: m }),
      })), -1, (m) => this.send("radio/sleep", { minutes: m }));
    this.sleepLeft = h("p", { class: "hint" });
    this.sleepField = h("div", { class: "field" },
      h("span", { class: "field-label", id: "radio-sleep-label", text: t("radio.sleep") }), this.sleep, this.sleepLeft);
    this.sleep.setAttribute("aria-labelledby", "radio-sleep-label");
    this.list = h("div", { class: "station-list" });
    this.listKey = "";
    // The volume inside the card, under what plays; the stations next, the sleep timer after them.
    // Named by its icon and the input's own label: no line of text for it in the card.
    this.volume.classList.add("now-volume");
    this.volume.querySelector(".range-row").prepend(icon("volume"));
    this.volume.querySelector("input").setAttribute("aria-label", t("radio.volume"));
    this.volume.querySelector(".field-label").hidden = true;
    this.nowCard = h("div", { class: "now radio-now" }, this.nowBox, this.volume);
    this.body.replaceChildren(
      section(null, this.nowCard),
      h("section", { class: "section" },
        h("div", { class: "list-head" },
          h("h3", { class: "section-title", text: t("radio.stations") }),
          h("button", { type: "button", class: "btn", id: "radio-add", onclick: () => this.showAdd() }, icon("plus"), t("radio.add"))),
        this.list),
      section(null, this.sleepField));
    this.update(null);
    this.ctx.scrollTop();
  }

  renderNow() {
    const r = radio();
    const active = radioActive(r);
    const shown = active || r.state === "failed";
    const status = radioStatus(r);
    const meta = r.state === "playing" ? streamMeta(r) : "";
    const stop = active
      ? h("button", { type: "button", class: "btn", id: "radio-stop", onclick: () => this.send("radio/stop") }, icon("stop"), t("radio.stop"))
      : null;
    this.nowCard.dataset.state = shown ? r.state || "idle" : "idle";
    this.nowBox.replaceChildren(h("div", { class: "now-head" },
      h("span", { class: "radio-dot", "aria-hidden": "true" }),
      h("div", { class: "now-title" },
        h("strong", { text: shown ? playingName(r) : t("radio.nothing") }),
        h("span", { class: "radio-status" + (status.tone ? " " + status.tone : ""), text: shown ? status.text : t("radio.pick") }),
        meta ? h("span", { class: "radio-meta", text: meta }) : null),
      stop));
    this.volume.set(r.volume ?? 50);
    const ends = r.sleep_timer_ends_at ? Date.parse(r.sleep_timer_ends_at) : NaN;
    this.sleepField.parentElement.hidden = !active;
    setSegmented(this.sleep, Number.isNaN(ends) ? 0 : -1);
    setText(this.sleepLeft, Number.isNaN(ends) ? "" :
      t("noise.sleep.status", { time: formatInstant(r.sleep_timer_ends_at, clockSettings().timeFormat), left: left(ends) }));
  }

  renderStations() {
    const r = radio();
    const list = stations();
    const playing = radioActive(r) ? r.station : null;
    const wake = stationOf(store.state.settings?.wake?.sound);
    const key = JSON.stringify([list, playing, wake, this.armed, store.connected]);
    if (key === this.listKey) return;
    this.listKey = key;
    const focused = document.activeElement?.dataset?.key;
    this.list.replaceChildren(...(list.length ? list.map((s) => this.row(s, s.id === playing, s.id === wake))
      : [h("p", { class: "empty", text: t("radio.empty") })]));
    if (focused) this.list.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
  }

  row(s, playing, wakes) {
    const name = s.name || s.id;
    const play = h("button", {
      type: "button", class: "row-btn station-play", dataset: { key: "play-" + s.id }, "aria-pressed": String(playing),
      "aria-label": t(playing ? "radio.stop.station" : "radio.play", { name }),
      onclick: () => (playing ? this.send("radio/stop") : this.send("radio/play", { station: s.id })),
    },
    h("span", { class: "station-name" }, playing ? icon("wave", "station-live") : null, h("span", { text: name })),
    h("span", { class: "station-sub" }, wakes ? h("span", { class: "station-wakes" }, icon("bell"), t("radio.wake.mark")) : null,
      h("span", { class: "station-host", text: hostOf(s.url) })));
    const bell = iconButton("bell", t(wakes ? "radio.wake.on" : "radio.wake", { name }), () => this.setWake(wakes ? null : s));
    bell.dataset.key = "wake-" + s.id;
    bell.setAttribute("aria-pressed", String(wakes));
    bell.classList.add("station-bell");
    // The file's stations are changed only in the file: no delete for them.
    // (An empty cell keeps the bells of all rows in one column.)
    if (s.fixed) {
      return h("div", { class: "station-row" + (playing ? " playing" : ""), dataset: { id: s.id } }, play, bell,
        h("span", { class: "station-fixed", "aria-hidden": "true" }));
    }
    const armed = this.armed === s.id;
    const del = iconButton("trash", t(armed ? "radio.delete.confirm" : "radio.delete", { name }), () => this.remove(s));
    del.dataset.key = "delete-" + s.id;
    del.classList.add("station-delete");
    setClass(del, "armed", armed);
    return h("div", { class: "station-row" + (playing ? " playing" : ""), dataset: { id: s.id } }, play, bell, del);
  }

  /** The sound new alarms get (settings.wake.sound): this station, or null for the built-in tone. */
  async setWake(station) {
    const r = await this.send("settings", { wake: { sound: station ? RADIO_PREFIX + station.id : null } });
    if (r.status === "ok") this.ctx.toast(station ? t("radio.wake.set", { name: station.name }) : t("radio.wake.unset"));
  }

  /** The first tap arms the delete (for a few seconds), the second deletes. */
  async remove(s) {
    clearTimeout(this.armTimer);
    if (this.armed !== s.id) {
      this.armed = s.id;
      this.renderStations();
      this.ctx.toast(t("radio.delete.confirm", { name: s.name }));
      this.armTimer = setTimeout(() => {
        this.armed = "";
        if (this.page === "main") this.renderStations();
      }, ARM_MS);
      return;
    }
    this.armed = "";
    const r = await this.send("radio/station/delete", { id: s.id });
    if (r.status === "ok") this.ctx.toast(t("radio.deleted", { name: s.name }));
    if (this.page === "main") this.renderStations();
  }

  // --- adding a station: from the directory's search, or from an address

  showAdd() {
    this.page = "add";
    this.ctx.setTitle(t("radio.add.title"));
    this.ctx.setBack(() => this.showMain());
    const parts = [];
    if (radio().directory === true) {
      this.queryInput = h("input", { class: "input", type: "search", value: this.search.query, placeholder: t("radio.search.query"),
        "aria-label": t("radio.search.query"), autocomplete: "off", enterkeyhint: "search",
        oninput: (e) => (this.search.query = e.target.value) });
      this.countryInput = h("input", { class: "input country", type: "text", value: this.search.country, placeholder: t("radio.search.country"),
        "aria-label": t("radio.search.country.label"), autocomplete: "off", maxlength: "2", autocapitalize: "characters", spellcheck: "false",
        oninput: (e) => (this.search.country = e.target.value) });
      this.results = h("div", { class: "result-list", "aria-live": "polite" });
      parts.push(section(t("radio.search"),
        h("form", { class: "radio-search", role: "search", onsubmit: (e) => {
          e.preventDefault();
          this.runSearch();
        } },
        h("div", { class: "search" }, icon("search"), this.queryInput),
        h("div", { class: "search-row" }, this.countryInput,
          h("button", { type: "submit", class: "btn btn-primary", id: "radio-search-go" }, icon("search"), t("radio.search.go")))),
        this.results));
    } else {
      this.results = null;
    }
    this.fields = {};
    const input = (name, type, label, extra = {}) => {
      const el = h("input", { class: "input", type, value: this.typed[name], autocomplete: "off", spellcheck: "false", ...extra,
        oninput: (e) => {
          this.typed[name] = e.target.value;
          this.fields[name].showError("");
        } });
      return (this.fields[name] = field(label, el, name));
    };
    parts.push(section(t("radio.url"),
      h("form", { class: "radio-url", onsubmit: (e) => {
        e.preventDefault();
        this.addByUrl();
      } },
      input("name", "text", t("radio.url.name"), { maxlength: "64", placeholder: t("radio.url.name.example") }),
      input("url", "url", t("radio.url.address"), { placeholder: "https://…", inputmode: "url" }),
      h("p", { class: "hint", text: t("radio.url.hint") }),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "btn btn-primary", id: "radio-url-add" }, icon("plus"), t("radio.url.add"))))));
    this.body.replaceChildren(...parts);
    this.renderResults();
    this.ctx.scrollTop();
  }

  async runSearch() {
    const query = this.search.query.trim();
    const country = this.search.country.trim();
    this.search.busy = true;
    this.search.error = "";
    this.renderResults();
    const payload = { query, limit: SEARCH_LIMIT };
    if (country) payload.country = country;
    const r = await this.ctx.command("radio/search", payload);
    this.search.busy = false;
    this.search.results = r.status === "ok" ? r.data?.stations || [] : null;
    this.search.error = r.status === "ok" ? "" : r.error?.message || errorText(r);
    if (this.page === "add") this.renderResults();
  }

  renderResults() {
    if (!this.results) return;
    const { busy, error, results } = this.search;
    if (busy) return this.results.replaceChildren(h("p", { class: "empty", text: t("radio.search.busy") }));
    if (error) return this.results.replaceChildren(h("p", { class: "field-error", role: "alert", text: error }));
    if (!results) return this.results.replaceChildren();
    if (!results.length) return this.results.replaceChildren(h("p", { class: "empty", text: t("radio.search.none") }));
    const have = new Set(stations().map((s) => s.url));
    this.results.replaceChildren(...results.map((s, i) => {
      const added = have.has(s.url);
      const tags = (Array.isArray(s.tags) ? s.tags : String(s.tags || "").split(",")).map((x) => String(x).trim()).filter(Boolean);
      const meta = [streamMeta(s), s.country, tags.slice(0, 3).join(", ")].filter(Boolean).join(" · ");
      const add = h("button", { type: "button", class: "btn result-add" + (added ? " done" : ""), disabled: added, dataset: { key: "result-" + i },
        "aria-label": added ? t("radio.search.added.label", { name: s.name }) : t("radio.search.add", { name: s.name }),
        onclick: () => this.addResult(s, add) }, icon(added ? "check" : "plus"), added ? t("radio.search.added") : t("radio.add"));
      return h("div", { class: "result-row" },
        h("div", { class: "result-text" }, h("strong", { text: s.name }), meta ? h("span", { text: meta }) : null), add);
    }));
  }

  async addResult(s, button) {
    button.disabled = true;
    const r = await this.send("radio/station/add", { name: s.name, url: s.url });
    if (r.status === "ok") this.ctx.toast(t("radio.added", { name: r.data?.name || s.name }));
    else button.disabled = false;
    this.renderResults();
  }

  async addByUrl() {
    const name = this.typed.name.trim();
    const url = this.typed.url.trim();
    for (const f of Object.values(this.fields)) f.showError("");
    const r = await this.ctx.command("radio/station/add", { name, url });
    if (r.status === "ok") {
      this.typed = { name: "", url: "" };
      this.ctx.toast(t("radio.added", { name: r.data?.name || name }));
      this.showMain();
      return;
    }
    // A clash of names is the id's (made from the name): it is shown beside the name.
    const named = r.error?.field === "id" ? "name" : r.error?.field;
    const target = named && this.fields[named];
    if (target) {
      target.showError(r.error.message || errorText(r));
      target.querySelector("input")?.focus({ preventScroll: true });
    } else {
      this.ctx.toast(errorText(r));
    }
  }
}
