// docs/face-modules.md

import { h, icon, setAttr } from "./dom.js";
import { t } from "./i18n.js";

let uid = 0;
export const nextId = (prefix) => `${prefix}-${++uid}`;

/** A row that is one big switch: the label is its accessible name. */
export function toggle(label, checked, onChange, extra = {}) {
  const b = h("button", { type: "button", class: "switch", role: "switch", "aria-checked": String(!!checked), ...extra },
    h("span", { class: "switch-label", text: label }), h("span", { class: "track", "aria-hidden": "true" }));
  b.addEventListener("click", () => {
    const on = b.getAttribute("aria-checked") !== "true";
    b.setAttribute("aria-checked", String(on));
    onChange(on);
  });
  return b;
}

export function setToggle(b, on) {
  setAttr(b, "aria-checked", String(!!on));
}

/** A segmented choice: buttons with aria-pressed inside a labelled group. */
export function segmented(label, options, value, onChange, cls = "") {
  const group = h("div", { class: ("seg " + cls).trim(), role: "group", "aria-label": label });
  for (const o of options) {
    const b = h("button", { type: "button", "aria-pressed": String(o.value === value), dataset: { value: String(o.value) }, text: o.label });
    if (o.ariaLabel) b.setAttribute("aria-label", o.ariaLabel);
    b.addEventListener("click", () => {
      setSegmented(group, o.value);
      onChange(o.value);
    });
    group.append(b);
  }
  return group;
}

export function setSegmented(group, value) {
  for (const b of group.querySelectorAll("button")) setAttr(b, "aria-pressed", String(b.dataset.value === String(value)));
}

/** A labelled slider with its value shown; `format(v)` gives the visible value text. */
export function slider(label, { min = 0, max = 100, step = 1, value = 0, format = String, onInput, onChange }) {
  const id = nextId("r");
  const out = h("span", { class: "value", "aria-hidden": "true", text: format(value) });
  const input = h("input", { type: "range", id, min, max, step, value, "aria-valuetext": format(value) });
  const paint = () => {
    const v = Number(input.value);
    input.style.setProperty("--p", `${((v - min) / (max - min)) * 100}%`);
    out.textContent = format(v);
    input.setAttribute("aria-valuetext", format(v));
  };
  input.addEventListener("input", () => {
    paint();
    onInput?.(Number(input.value));
  });
  input.addEventListener("change", () => onChange?.(Number(input.value)));
  paint();
  const err = h("p", { class: "field-error", id: id + "-err", role: "alert", hidden: true });
  const wrap = h("div", { class: "field" },
    h("label", { class: "field-label", for: id, text: label }),
    h("div", { class: "range-row" }, input, out), err);
  wrap.showError = (message) => {
    err.textContent = message || "";
    err.hidden = !message;
    setAttr(input, "aria-invalid", message ? "true" : null);
    setAttr(input, "aria-describedby", message ? err.id : null);
  };
  wrap.set = (v) => {
    if (document.activeElement === input) return;
    input.value = v;
    paint();
  };
  return wrap;
}

/** A field with a label, a control and a place for the node's validation error about it. */
export function field(label, control, name) {
  const id = control.id || nextId("f");
  const err = h("p", { class: "field-error", id: id + "-err", role: "alert", hidden: true });
  const labelEl = control.matches?.("input, select, textarea")
    ? h("label", { class: "field-label", for: id, text: label })
    : h("span", { class: "field-label", id: id + "-label", text: label });
  if (control.matches?.("input, select, textarea")) control.id = id;
  else if (!control.getAttribute("aria-label")) control.setAttribute("aria-labelledby", id + "-label");
  const wrap = h("div", { class: "field", dataset: { field: name || "" } }, labelEl, control, err);
  wrap.showError = (message) => {
    err.textContent = message || "";
    err.hidden = !message;
    const target = control.matches?.("input") ? control : control.querySelector("input, button");
    if (target) {
      setAttr(target, "aria-invalid", message ? "true" : null);
      setAttr(target, "aria-describedby", message ? err.id : null);
    }
  };
  return wrap;
}

export function iconButton(name, label, onClick, cls = "icon-btn") {
  return h("button", { type: "button", class: cls, "aria-label": label, title: label, onclick: onClick }, icon(name));
}

export function section(title, ...children) {
  return h("section", { class: "section" }, title ? h("h3", { class: "section-title", text: title }) : null, ...children);
}

/**
 * A time picker without the browser's native popup (which ignores the theme): hour and minute
 * spin buttons (arrows, Page Up/Down, typed digits, − and + held to repeat), and AM/PM in 12 h.
 * `value` and `onChange` use "HH:MM".
 */
export function timePicker(label, value, format, onChange) {
  let [hour, minute] = (value || "07:00").split(":").map(Number);
  const twelve = format === "12h";
  const root = h("div", { class: "picker", role: "group", "aria-label": label });
  let typed = "";
  const emit = () => onChange(`${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`);
  const spin = (kind, get, set, max, step) => {
    const name = t("picker." + kind);
    const valueEl = h("div", { class: "spin-value", role: "spinbutton", tabindex: "0", "aria-label": name, "aria-valuemin": "0", "aria-valuemax": String(max - 1) });
    const paint = () => {
      const v = get();
      const shown = kind === "hour" && twelve ? (v % 12 === 0 ? 12 : v % 12) : v;
      valueEl.textContent = String(shown).padStart(2, "0");
      valueEl.setAttribute("aria-valuenow", String(v));
      valueEl.setAttribute("aria-valuetext", valueEl.textContent);
    };
    const add = (d) => {
      set((get() + d + max * 10) % max);
      paint();
      paintAll();
      emit();
    };
    const repeat = (button, d) => {
      let timer = 0;
      const stop = () => clearTimeout(timer);
      const run = (delay) => {
        add(d);
        timer = setTimeout(() => run(Math.max(60, delay * 0.8)), delay);
      };
      button.addEventListener("pointerdown", (e) => {
        e.preventDefault();
        run(450);
      });
      for (const type of ["pointerup", "pointerleave", "pointercancel"]) button.addEventListener(type, stop);
      button.addEventListener("click", (e) => {
        if (e.detail === 0) add(d); // keyboard
      });
      return button;
    };
    valueEl.addEventListener("keydown", (e) => {
      const moves = { ArrowUp: 1, ArrowDown: -1, PageUp: step, PageDown: -step };
      if (e.key in moves) {
        e.preventDefault();
        add(moves[e.key]);
      } else if (/^\d$/.test(e.key)) {
        typed = (typed + e.key).slice(-2);
        const n = Number(typed);
        if (n < max) {
          set(n);
          paint();
          paintAll();
          emit();
        }
      }
    });
    valueEl.addEventListener("blur", () => (typed = ""));
    valueEl.paint = paint;
    const up = repeat(iconButton("plus", t(`picker.${kind}.up`)), 1);
    const down = repeat(iconButton("minus", t(`picker.${kind}.down`)), -1);
    return h("div", { class: "spin" }, up, valueEl, down);
  };
  const hourSpin = spin("hour", () => hour, (v) => (hour = v), 24, 6);
  const minuteSpin = spin("minute", () => minute, (v) => (minute = v), 60, 10);
  const ampm = twelve ? segmented(t("picker.ampm"), [{ value: "am", label: t("clock.am") }, { value: "pm", label: t("clock.pm") }],
    hour < 12 ? "am" : "pm", (v) => {
      if (v === "am" && hour >= 12) hour -= 12;
      if (v === "pm" && hour < 12) hour += 12;
      paintAll();
      emit();
    }) : null;
  const paintAll = () => {
    hourSpin.querySelector(".spin-value").paint();
    minuteSpin.querySelector(".spin-value").paint();
    if (ampm) setSegmented(ampm, hour < 12 ? "am" : "pm");
  };
  root.append(hourSpin, h("div", { class: "picker-colon", "aria-hidden": "true", text: ":" }), minuteSpin);
  if (ampm) root.append(ampm);
  paintAll();
  return root;
}

/** A number with − and + (held to repeat) around a spin button (arrows, Page Up/Down); `.value`, `.set(v)`. */
export function stepper(label, { value = 0, min = 0, max = 100, page = 10, format = String, onChange }) {
  let v = value;
  const out = h("div", { class: "spin-value", role: "spinbutton", tabindex: "0", "aria-label": label, "aria-valuemin": min, "aria-valuemax": max });
  const set = (n, notify = true) => {
    v = Math.max(min, Math.min(max, n));
    out.textContent = format(v);
    out.setAttribute("aria-valuenow", v);
    out.setAttribute("aria-valuetext", format(v));
    if (notify) onChange?.(v);
  };
  const hold = (name, d) => {
    const b = iconButton(name, t(d > 0 ? "stepper.more" : "stepper.less", { name: label }));
    let timer = 0;
    const run = (delay) => {
      set(v + d);
      timer = setTimeout(() => run(Math.max(50, delay * 0.8)), delay);
    };
    b.onpointerdown = (e) => e.button === 0 && run(450);
    b.onpointerup = b.onpointerleave = b.onpointercancel = () => clearTimeout(timer);
    b.onclick = (e) => e.detail === 0 && set(v + d); // keyboard
    return b;
  };
  out.onkeydown = (e) => {
    const d = { ArrowUp: 1, ArrowDown: -1, PageUp: page, PageDown: -page }[e.key];
    if (d) set(v + d);
  };
  const group = h("div", { class: "stepper", role: "group", "aria-label": label }, hold("minus", -1), out, hold("plus", 1));
  set(v, false);
  group.set = (n) => set(n, false);
  Object.defineProperty(group, "value", { get: () => v });
  return group;
}
