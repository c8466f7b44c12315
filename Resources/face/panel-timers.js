// docs/face-modules.md

import { t } from "./i18n.js";
import { h, icon, setText } from "./dom.js";
import { section, stepper, iconButton } from "./widgets.js";
import { errorText } from "./panel-noise.js";
import { sortedTimers, timerLeft, clockText } from "./countdown.js";

const PRESETS = [1, 3, 5, 10, 15];

export class TimersPanel {
  constructor(ctx) {
    this.ctx = ctx;
  }

  /** In another language: drawn again, keeping the label being typed. */
  relabel() {
    const typed = this.label.value;
    this.body.replaceChildren();
    this.key = null;
    this.mount(this.body);
    this.label.value = typed;
  }

  mount(body) {
    this.body = body;
    this.label = h("input", { class: "input", type: "text", maxlength: "64", autocomplete: "off", placeholder: t("timers.label"), "aria-label": t("timers.label") });
    const presets = PRESETS.map((m) => h("button", { type: "button", class: "preset", "aria-label": t("timers.start.min", { count: m }),
      onclick: () => this.start({ minutes: m }) }, h("strong", { text: String(m) }), t("timers.min")));
    this.min = stepper(t("timers.minutes"), { value: 20, max: 1440 });
    this.sec = stepper(t("timers.seconds"), { max: 59, page: 15, format: (v) => String(v).padStart(2, "0") });
    const part = (s, unit) => h("div", { class: "custom-part" }, s, unit);
    this.list = h("div");
    this.running = section(t("timers.running"), this.list);
    body.append(
      this.running,
      section(null, this.label, h("div", { class: "presets", role: "group", "aria-label": t("timers.presets") }, presets)),
      section(t("timers.custom"), h("div", { class: "custom-time" }, part(this.min, t("timers.min")), h("span", { class: "custom-colon", text: ":" }), part(this.sec, t("timers.sec"))),
        h("button", { type: "button", class: "btn btn-primary wide", onclick: () => this.start({ seconds: this.min.value * 60 + this.sec.value }) },
          icon("play"), t("timers.start"))));
    this.update(null);
  }

  async send(verb, payload) {
    const r = await this.ctx.command(verb, payload);
    if (r.status !== "ok") this.ctx.toast(errorText(r));
    return r;
  }

  async start(payload) {
    const label = this.label.value.trim();
    if ((await this.send("timer/start", label ? { ...payload, label } : payload)).status === "ok") this.label.value = "";
  }

  update(topics) {
    if (topics && !["timers", "tick", "connection"].some((x) => topics.has(x))) return;
    const list = sortedTimers();
    const key = list.map((x) => x.id + x.state + x.label).join();
    // Rows are rebuilt only when the timers change; the tick writes their times.
    if (key !== this.key) {
      this.key = key;
      const focused = document.activeElement?.dataset.key;
      this.list.replaceChildren(...list.map((x) => this.row(x)));
      if (focused) this.list.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
      this.running.hidden = !list.length;
    }
    for (const x of list) setText(this.list.querySelector(`[data-id="${CSS.escape(x.id)}"] .timer-time`), clockText(timerLeft(x)));
  }

  row(x) {
    const label = x.label || t("label.timer");
    const button = (key, iconName, text, verb, payload = { id: x.id }) => {
      const b = iconName ? iconButton(iconName, text, () => this.send(verb, payload)) :
        h("button", { type: "button", class: "btn", onclick: () => this.send(verb, payload) }, text);
      b.dataset.key = key + x.id;
      return b;
    };
    const running = x.state === "running";
    const buttons = x.state === "ringing" ? [button("d", "", t("timers.dismiss"), "timer/dismiss")] : [
      button("p", running ? "pause" : "play", t(running ? "timers.pause" : "timers.resume", { label }), running ? "timer/pause" : "timer/resume"),
      button("e", "", t("timers.extend"), "timer/extend", { id: x.id, seconds: 60 }),
      button("c", "close", t("timers.cancel", { label }), "timer/cancel")];
    if (x.state === "paused") buttons[0].classList.add("on");
    buttons[1]?.setAttribute("aria-label", t("timers.extend.label", { label }));
    const state = x.state === "running" ? "" : " · " + t("timers." + x.state);
    return h("div", { class: "timer-row " + x.state, dataset: { id: x.id } },
      h("div", { class: "timer-info" }, h("span", { class: "timer-time", role: "timer", "aria-label": t("timers.left.label", { label }) }),
        label + state),
      buttons);
  }
}
