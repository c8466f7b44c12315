// docs/face-modules.md

import { t } from "./i18n.js";
import { store } from "./store.js";

/** States in which a station is on its way or sounding (Stop applies). */
const ACTIVE = new Set(["connecting", "buffering", "playing", "retrying"]);

export const RADIO_PREFIX = "radio:";

export function radio() {
  return store.state.radio || {};
}

export function stations() {
  return radio().stations || [];
}

/** True while a station plays or is being connected to. */
export function radioActive(r = radio()) {
  return !!r.playing || ACTIVE.has(r.state);
}

/** The station's id of an alarm sound "radio:<id>", or null for a tone. */
export function stationOf(sound) {
  return typeof sound === "string" && sound.startsWith(RADIO_PREFIX) ? sound.slice(RADIO_PREFIX.length) : null;
}

/** A station's name by its id (the id itself when the node no longer has it). */
export function stationName(id) {
  return stations().find((s) => s.id === id)?.name || id;
}

/** What plays: the station's name, or "A stream" for an address played without a station. */
export function playingName(r = radio()) {
  return r.name || (r.station ? stationName(r.station) : t("radio.address"));
}

/**
 * What the radio is doing, in words: the title while it plays, the state on the way (connecting,
 * buffering), and trouble with the node's reason (retrying, failed). `tone` is "", "warn" or "alert".
 */
export function radioStatus(r = radio()) {
  const error = typeof r.error === "string" && r.error.trim() ? r.error.trim() : "";
  switch (r.state) {
    case "connecting":
    case "buffering":
      return { text: t("radio.state." + r.state), tone: "" };
    case "retrying":
      return { text: error ? t("radio.state.retrying", { error }) : t("radio.state.retrying.plain"), tone: "warn" };
    case "failed":
      return { text: error ? t("radio.state.failed", { error }) : t("radio.state.failed.plain"), tone: "alert" };
    default:
      return { text: r.playing ? r.now_playing || t("radio.state.playing") : "", tone: "" };
  }
}

/** "MP3 · 128 kbps", or "" before the stream says. */
export function streamMeta(r) {
  const codec = typeof r.codec === "string" && r.codec ? r.codec.toUpperCase() : "";
  const kbps = Number(r.bitrate_kbps ?? r.bitrate);
  if (codec && kbps > 0) return t("radio.meta", { codec, bitrate: Math.round(kbps) });
  return codec || (kbps > 0 ? t("radio.kbps", { bitrate: Math.round(kbps) }) : "");
}

/** A station address shortened to its host name ("st01.sslstream.dlf.de"), for a quiet second line. */
export function hostOf(url) {
  try {
    return new URL(url).hostname || url;
  } catch {
    return url || "";
  }
}
