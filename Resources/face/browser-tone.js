// docs/face-modules.md

const CYCLE_S = 2;
const AHEAD_S = 4;
const BEEPS = [0, 0.26, 0.52, 0.78]; // within a cycle
const BEEP_S = 0.16;
const PITCH = 880;
const FULL = 0.5; // the master gain at the end of the fade-in

let ctx = null;
let master = null;
let timer = 0;
let next = 0; // the audio time of the next cycle not yet scheduled
let faded = false;
let fadeS = 30;
let changed = () => {};

/** "" when no tone is on, "playing" while it sounds, "blocked" while the browser holds it back. */
export function browserToneState() {
  if (!ctx) return "";
  return ctx.state === "running" ? "playing" : "blocked";
}

/** For the browser test: the tone's state, its audio clock and its level now. */
export function browserToneInfo() {
  return { state: browserToneState(), time: ctx?.currentTime ?? 0, gain: master?.gain.value ?? 0 };
}

/** Starts the tone (once), fading in over `fade` seconds; `onChange` is told when it starts or is held back. */
export function startBrowserTone(fade, onChange) {
  if (ctx) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    ctx = new Context();
  } catch {
    ctx = null;
    return;
  }
  changed = onChange || (() => {});
  fadeS = Math.max(3, Number(fade) || 30);
  faded = false;
  master = ctx.createGain();
  master.gain.value = 0;
  master.connect(ctx.destination);
  ctx.onstatechange = () => {
    schedule();
    changed();
  };
  next = 0;
  timer = setInterval(schedule, 1000);
  resumeBrowserTone();
  schedule();
}

/** After a touch: lets a held-back tone sound. */
export function resumeBrowserTone() {
  ctx?.resume?.().catch(() => {});
}

export function stopBrowserTone() {
  if (!ctx) return;
  clearInterval(timer);
  const closing = ctx;
  ctx = null;
  try {
    master.gain.cancelScheduledValues(closing.currentTime);
    master.gain.setTargetAtTime(0, closing.currentTime, 0.03);
  } catch {
    // a context already closed
  }
  setTimeout(() => closing.close?.().catch(() => {}), 200);
  master = null;
  changed();
}

/** Beeps up to AHEAD_S ahead of the audio clock, once it runs; the fade-in begins with the first. */
function schedule() {
  if (!ctx || ctx.state !== "running") return;
  const now = ctx.currentTime;
  if (!faded) {
    faded = true;
    next = now + 0.05;
    master.gain.setValueAtTime(0.0001, next);
    master.gain.exponentialRampToValueAtTime(0.04, next + Math.min(2, fadeS / 3));
    master.gain.linearRampToValueAtTime(FULL, next + fadeS);
  }
  next = Math.max(next, now + 0.05);
  while (next < now + AHEAD_S) {
    for (const at of BEEPS) beep(next + at);
    next += CYCLE_S;
  }
}

/** One beep: a sine with a quieter octave above, a 10 ms attack and a short release (no clicks). */
function beep(at) {
  const envelope = ctx.createGain();
  envelope.gain.setValueAtTime(0, at);
  envelope.gain.linearRampToValueAtTime(1, at + 0.01);
  envelope.gain.setValueAtTime(1, at + BEEP_S - 0.04);
  envelope.gain.linearRampToValueAtTime(0, at + BEEP_S);
  envelope.connect(master);
  for (const [frequency, level] of [[PITCH, 1], [PITCH * 2, 0.18]]) {
    const osc = ctx.createOscillator();
    osc.frequency.value = frequency;
    const gain = ctx.createGain();
    gain.gain.value = level;
    osc.connect(gain).connect(envelope);
    osc.start(at);
    osc.stop(at + BEEP_S + 0.02);
  }
}
