// docs/face-modules.md

import { setState, setConnected, store, emit } from "./store.js";
import { observeClock, observeRange } from "./nodetime.js";
import { language } from "./i18n.js";

const TIMEOUT_MS = 10000;
let socket = null;
let backoff = 1000;
let retryTimer = 0;
let nextId = 1;
let freshClock = false;
const pending = new Map();
const eventListeners = new Set();

/** Calls `fn(event)` for each `{"type":"event"}` payload. */
export function onEvent(fn) {
  eventListeners.add(fn);
}

export function connect() {
  clearTimeout(retryTimer);
  // Same origin: ws: beside a plain page, wss: beside one served over TLS (protocol "…s:").
  const url = new URL("/ws", location.href);
  url.protocol = "ws" + location.protocol.slice(4);
  let ws;
  try {
    ws = new WebSocket(url);
  } catch {
    return retry();
  }
  socket = ws;
  freshClock = false;
  ws.addEventListener("open", () => {
    backoff = 1000;
    setConnected(true);
    loadCatalogs();
    syncClock();
  });
  ws.addEventListener("message", (e) => receive(e.data));
  ws.addEventListener("close", () => {
    if (socket !== ws) return;
    socket = null;
    for (const [, p] of pending) p.resolve({ status: "error", error: { code: "unavailable", message: "offline" } });
    pending.clear();
    setConnected(false);
    retry();
  });
  // An error is always followed by close, which retries.
  ws.addEventListener("error", () => {});
}

function retry() {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(connect, backoff);
  backoff = Math.min(backoff * 2, 30000);
}

function receive(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return;
  }
  if (msg.type === "state" && typeof msg.topic === "string") {
    if (msg.topic === "clock" && msg.payload?.iso) {
      // The first clock after connecting is the retained one: up to a period old.
      observeClock(msg.payload.iso, freshClock, store.state.settings?.publish_seconds ? 1 : 60);
      freshClock = true;
    }
    setState(msg.topic, msg.payload);
  } else if (msg.type === "response") {
    const p = pending.get(msg.id);
    if (p) {
      pending.delete(msg.id);
      clearTimeout(p.timer);
      p.resolve(msg.payload || { status: "error", error: { code: "internal", message: "empty response" } });
    }
  } else if (msg.type === "event" && msg.payload) {
    for (const fn of eventListeners) fn(msg.payload);
  }
}

/**
 * Sends a command; resolves with the node's response payload (`{status:"ok",data}` or
 * `{status:"error",error:{code,message,field}}`). Never rejects: offline and time-outs are errors too.
 */
export function command(verb, payload = {}) {
  return new Promise((resolve) => {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      resolve({ status: "error", error: { code: "unavailable", message: "offline" } });
      return;
    }
    const id = "c" + nextId++;
    const timer = setTimeout(() => {
      pending.delete(id);
      resolve({ status: "error", error: { code: "timeout", message: "timeout" } });
    }, TIMEOUT_MS);
    pending.set(id, { resolve, timer });
    socket.send(JSON.stringify({ type: "command", verb, payload, id }));
  });
}

/**
 * The node's time to a second or two from `ping` (started_at + uptime_s), for a browser whose own
 * clock disagrees: the retained clock state alone can be a minute old.
 */
async function syncClock() {
  const sent = Date.now();
  const r = await command("ping");
  const at = Date.parse(r.data?.started_at) + Number(r.data?.uptime_s) * 1000;
  if (Number.isNaN(at)) return;
  observeRange(at, at + 2000, sent, Date.now());
  emit("clock");
}

/** The sound catalogs, their names in the language of the face's strings. */
export async function loadCatalogs() {
  const asked = language();
  const r = await command("sounds", asked ? { language: asked } : {});
  if (asked !== language()) return; // the language changed meanwhile: its own request follows
  if (r.status === "ok" && r.data) {
    store.sounds = { noise: r.data.noise || [], alarm: r.data.alarm || [], gong: r.data.gong || [] };
    emit("sounds");
  }
}
