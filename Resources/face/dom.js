// docs/face-modules.md

export const $ = (sel, root = document) => root.querySelector(sel);

export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

export function setHidden(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

export function setClass(el, cls, on) {
  if (el.classList.contains(cls) !== on) el.classList.toggle(cls, on);
}

export function setAttr(el, name, value) {
  if (value === null || value === undefined || value === false) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== String(value)) {
    el.setAttribute(name, String(value));
  }
}

/**
 * h("button", {class: "btn", text: "Save", onclick: fn, "aria-label": "…"}, child, …): an
 * element with text set through textContent (never HTML), attributes, listeners and children.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "value") el.value = v;
    else if (k === "checked" || k === "disabled" || k === "hidden") el[k] = !!v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An icon from the sprite in index.html (cloned, so no SVG namespace is needed here). */
export function icon(name, extra = "") {
  const tpl = document.getElementById("i-" + name);
  const svg = document.querySelector(".sprite").cloneNode(false);
  svg.removeAttribute("class");
  svg.setAttribute("class", ("icon " + extra).trim());
  svg.setAttribute("viewBox", tpl ? tpl.getAttribute("viewBox") : "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  if (tpl) for (const child of tpl.childNodes) svg.appendChild(child.cloneNode(true));
  return svg;
}
