// docs/face-modules.md

const R = 200; // measuring size, px
const SECONDS_SCALE = 0.34;
const AMPM_SCALE = 0.24;

export const FONT_STACKS = {
  sans: '"NoiseClock Clock Sans", "NoiseClock UI", system-ui, sans-serif',
  serif: '"NoiseClock Clock Serif", Georgia, "DejaVu Serif", serif',
  mono: '"NoiseClock Clock Mono", ui-monospace, "DejaVu Sans Mono", monospace',
  rounded: '"NoiseClock Clock Rounded", ui-rounded, "Arial Rounded MT Bold", sans-serif',
};

export function fontStack(font) {
  if (FONT_STACKS[font]) return FONT_STACKS[font];
  const name = String(font || "").replace(/["\\]/g, "");
  return name ? `"${name}", ${FONT_STACKS.sans}` : FONT_STACKS.sans;
}

let canvas = null;

function measure(stack, weight, ampm) {
  canvas ||= document.createElement("canvas");
  const ctx = canvas.getContext("2d");
  ctx.font = `${weight} ${R}px ${stack}`;
  let W = 0, A = 0, D = 0, fa = 0, fd = 0;
  for (const d of "0123456789") {
    const m = ctx.measureText(d);
    W = Math.max(W, m.width);
    A = Math.max(A, m.actualBoundingBoxAscent);
    D = Math.max(D, m.actualBoundingBoxDescent);
    fa = m.fontBoundingBoxAscent ?? R * 0.95;
    fd = m.fontBoundingBoxDescent ?? R * 0.25;
  }
  const c = ctx.measureText(":");
  let apW = 0, apA = 0;
  for (const text of ampm) {
    const m = ctx.measureText(text);
    apW = Math.max(apW, m.actualBoundingBoxLeft + m.actualBoundingBoxRight);
    apA = Math.max(apA, m.actualBoundingBoxAscent);
  }
  return {
    W, A, D: Math.max(0, D), fa, fd,
    colon: { left: c.actualBoundingBoxLeft, width: c.actualBoundingBoxLeft + c.actualBoundingBoxRight,
      ascent: c.actualBoundingBoxAscent, descent: c.actualBoundingBoxDescent },
    ampm: { width: apW, ascent: apA },
  };
}

function el(cls, parent, text) {
  const e = document.createElement("span");
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}

function place(e, x, y, w, h) {
  const s = e.style;
  s.left = x + "px";
  s.top = y + "px";
  if (w !== undefined) s.width = w + "px";
  if (h !== undefined) s.height = h + "px";
}

export class TimeView {
  constructor(root) {
    this.root = root;
    root.classList.add("tv");
    root.setAttribute("aria-hidden", "true");
    const cells = (n) => Array.from({ length: n }, () => {
      const cell = el("tv-cell", root);
      return { cell, glyph: el("tv-g", cell, "0") };
    });
    this.h = cells(2);
    this.colon = el("tv-colon", root);
    this.colonGlyph = el("tv-g", this.colon, ":");
    this.m = cells(2);
    this.s = cells(2);
    for (const c of this.s) c.cell.classList.add("tv-small");
    this.ampm = el("tv-ampm", root);
    this.ampmGlyph = el("tv-g", this.ampm, "");
    this.metrics = null;
    this.spec = "";
    this.time = { hour: 0, minute: 0, second: 0, format: "24h", showSeconds: false, am: "AM", pm: "PM" };
    this.box = { w: 0, h: 0, size: 0 };
    this.layoutKey = "";
  }

  /** Font and weight; measures the glyphs once the font has loaded. Returns true when they changed. */
  async setFont(stack, weight) {
    const spec = `${weight}|${stack}|${this.time.am}|${this.time.pm}`;
    if (spec === this.spec && this.metrics) return false;
    this.spec = spec;
    this.root.style.fontFamily = stack;
    this.root.style.fontWeight = String(weight);
    try {
      await document.fonts.load(`${weight} ${R}px ${stack}`, "0123456789:APM");
    } catch {
      // An unknown family: measure what the browser falls back to.
    }
    if (spec !== this.spec) return false;
    this.metrics = measure(stack, weight, [this.time.am, this.time.pm]);
    this.layoutKey = "";
    return true;
  }

  /** The time to show; only the glyphs that changed are touched. */
  setTime(time) {
    const prev = this.time;
    this.time = { ...prev, ...time };
    const { hour, minute, second, format } = this.time;
    const h = format === "12h" ? (hour % 12 === 0 ? 12 : hour % 12) : hour;
    const hs = format === "12h" ? String(h).padStart(2, " ") : String(h).padStart(2, "0");
    const ms = String(minute).padStart(2, "0");
    const ss = String(second).padStart(2, "0");
    for (let i = 0; i < 2; i++) {
      setText(this.h[i].glyph, hs[i] === " " ? "" : hs[i]);
      setText(this.m[i].glyph, ms[i]);
      if (this.time.showSeconds) setText(this.s[i].glyph, ss[i]);
    }
    setText(this.ampmGlyph, format === "12h" ? (hour < 12 ? this.time.am : this.time.pm) : "");
    if (this.metrics) this.layout();
  }

  /** The largest size that fits `w`×`h` (times `sizePct`/100 when 1-100), one row or stacked. */
  fit(w, h, sizePct) {
    this.avail = { w, h, sizePct };
    this.layoutKey = "";
    if (this.metrics) this.layout();
  }

  parts() {
    const { format, showSeconds, hour } = this.time;
    return { ampm: format === "12h", seconds: !!showSeconds, shortHour: format === "12h" && (hour % 12 || 12) < 10 };
  }

  geometry(stacked, p) {
    const M = this.metrics;
    const W = M.W, H = M.A + M.D;
    const colonPad = W * 0.14;
    const colonW = M.colon.width + colonPad * 2;
    const sideW = Math.max(p.seconds ? 2 * W * SECONDS_SCALE : 0, p.ampm ? M.ampm.width * AMPM_SCALE : 0);
    const side = p.seconds || p.ampm;
    if (!stacked) {
      const gap = W * 0.12;
      return { w: 4 * W + colonW + (side ? gap + sideW : 0), h: H, colonW, colonPad, gap, sideW };
    }
    const rowGap = H * 0.1;
    const footH = side ? Math.max(p.seconds ? H * SECONDS_SCALE : 0, p.ampm ? M.ampm.ascent * AMPM_SCALE : 0) : 0;
    const footW = (p.seconds ? 2 * W * SECONDS_SCALE : 0) + (p.seconds && p.ampm ? W * 0.2 : 0) +
      (p.ampm ? M.ampm.width * AMPM_SCALE : 0);
    return { w: Math.max(2 * W, footW), h: 2 * H + rowGap + (side ? rowGap * 1.2 + footH : 0), rowGap, footH, footW };
  }

  layout() {
    if (!this.avail || !this.metrics) return;
    const p = this.parts();
    const key = `${p.ampm}|${p.seconds}|${p.shortHour}|${this.avail.w}|${this.avail.h}|${this.avail.sizePct}`;
    if (key === this.layoutKey) return;
    this.layoutKey = key;

    const M = this.metrics;
    const full = { ...p, shortHour: false };
    const row = this.geometry(false, full);
    const stack = this.geometry(true, full);
    const fitRow = Math.min(this.avail.w / row.w, this.avail.h / row.h);
    const fitStack = Math.min(this.avail.w / stack.w, this.avail.h / stack.h);
    const stacked = fitStack > fitRow * 1.2;
    const pct = this.avail.sizePct > 0 ? Math.min(100, this.avail.sizePct) / 100 : 1;
    const f = Math.max(0.05, (stacked ? fitStack : fitRow) * pct); // px per measured px
    const g = stacked ? stack : row;
    const W = M.W * f, H = (M.A + M.D) * f, A = M.A * f;
    const fontPx = R * f;
    if (this.root.dataset.layout !== (stacked ? "stack" : "row")) this.root.dataset.layout = stacked ? "stack" : "row";
    this.root.style.fontSize = fontPx + "px";
    const lineH = (M.fa + M.fd) * f;
    const glyphTop = A - M.fa * f; // puts every digit's baseline at the tallest digit's ink top + A

    const setCell = (c, x, y, scale) => {
      place(c.cell, x, y, W * scale, H * scale);
      c.glyph.style.top = glyphTop * scale + "px";
      c.glyph.style.lineHeight = lineH * scale + "px";
      c.glyph.style.fontSize = fontPx * scale + "px";
    };

    const shift = p.shortHour ? W : 0;
    let width, height;
    if (!stacked) {
      width = g.w * f - shift;
      height = H;
      hide(this.h[0].cell, p.shortHour);
      setCell(this.h[0], -shift, 0, 1);
      setCell(this.h[1], W - shift, 0, 1);
      const cx = 2 * W - shift;
      this.placeColon(cx, g.colonW * f, g.colonPad * f, 0, H, f, lineH, fontPx);
      const mx = cx + g.colonW * f;
      setCell(this.m[0], mx, 0, 1);
      setCell(this.m[1], mx + W, 0, 1);
      const sx = mx + 2 * W + g.gap * f;
      const sideW = g.sideW * f;
      if (p.seconds) {
        const sw = 2 * W * SECONDS_SCALE;
        setCell(this.s[0], sx + (sideW - sw) / 2, H - H * SECONDS_SCALE, SECONDS_SCALE);
        setCell(this.s[1], sx + (sideW - sw) / 2 + W * SECONDS_SCALE, H - H * SECONDS_SCALE, SECONDS_SCALE);
      }
      if (p.ampm) this.placeAmpm(sx, 0, sideW, f, fontPx, lineH, M);
    } else {
      width = g.w * f;
      height = g.h * f;
      const x0 = (width - 2 * W) / 2;
      hide(this.h[0].cell, p.shortHour);
      setCell(this.h[0], x0, 0, 1);
      setCell(this.h[1], x0 + W - (p.shortHour ? W / 2 : 0), 0, 1);
      hide(this.colon, true);
      const my = H + g.rowGap * f;
      setCell(this.m[0], x0, my, 1);
      setCell(this.m[1], x0 + W, my, 1);
      const fy = my + H + g.rowGap * 1.2 * f;
      const footH = g.footH * f;
      let fx = (width - g.footW * f) / 2;
      if (p.seconds) {
        const sh = H * SECONDS_SCALE;
        setCell(this.s[0], fx, fy + footH - sh, SECONDS_SCALE);
        setCell(this.s[1], fx + W * SECONDS_SCALE, fy + footH - sh, SECONDS_SCALE);
        fx += 2 * W * SECONDS_SCALE + (p.ampm ? W * 0.2 : 0);
      }
      if (p.ampm) this.placeAmpm(fx, fy + footH - M.ampm.ascent * AMPM_SCALE * f, M.ampm.width * AMPM_SCALE * f, f, fontPx, lineH, M);
    }
    if (!stacked) hide(this.colon, false);
    for (const c of this.s) hide(c.cell, !p.seconds);
    hide(this.ampm, !p.ampm);
    this.root.style.width = width + "px";
    this.root.style.height = height + "px";
    this.box = { w: width, h: height, size: fontPx, stacked };
  }

  placeColon(x, w, pad, y, H, f, lineH, fontPx) {
    const M = this.metrics;
    place(this.colon, x, y, w, H);
    // Centre the colon's ink on the digits' ink.
    const centre = H / 2;
    const baseline = centre + ((M.colon.ascent - M.colon.descent) / 2) * f;
    const s = this.colonGlyph.style;
    s.left = pad + M.colon.left * f + "px";
    s.top = baseline - M.fa * f + "px";
    s.lineHeight = lineH + "px";
    s.fontSize = fontPx + "px";
  }

  placeAmpm(x, y, w, f, fontPx, lineH, M) {
    const k = AMPM_SCALE;
    place(this.ampm, x, y, w, M.ampm.ascent * k * f);
    const s = this.ampmGlyph.style;
    s.top = (M.ampm.ascent - M.fa) * k * f + "px";
    s.lineHeight = lineH * k + "px";
    s.fontSize = fontPx * k + "px";
  }
}

function hide(e, hidden) {
  if (e.hidden !== hidden) e.hidden = hidden;
}

function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}
