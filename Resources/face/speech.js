// docs/face-modules.md

import { t } from "./i18n.js";
import { store, subscribe } from "./store.js";
import { command, onEvent } from "./connection.js";
import { $, setText, setHidden, setAttr, setClass } from "./dom.js";
import { errorText } from "./panel-noise.js";

/** How long a briefing stays on the face after it was spoken (or arrived, if it is not spoken). */
export const BRIEFING_KEEP_MS = 5 * 60000;

let el, titleEl, textEl, button, sayButton;
/** The last briefing: {text, label, until} (until: Date.now() after which it goes), or null. */
let briefing = null;
/** The id of an utterance the node said it finished or dropped: its caption goes at once. */
let ended = "";
let speakingBriefing = false;
let sayError = "";
let sayErrorTimer = 0;

export function initSpeech() {
  el = $("#speech");
  titleEl = $(".speech-title", el);
  textEl = $(".speech-text", el);
  button = $(".speech-btn", el);
  sayButton = $("#say-time");
  onEvent((e) => {
    if (e.event === "briefing" && typeof e.text === "string" && e.text) {
      briefing = { text: e.text, label: typeof e.label === "string" ? e.label : "", until: Date.now() + BRIEFING_KEEP_MS };
      renderSpeech();
    } else if ((e.event === "speech_finished" || e.event === "speech_dropped") && e.id && e.id === el.dataset.id) {
      ended = e.id;
      renderSpeech();
    }
  });
  subscribe((topics) => {
    if (topics?.has("minute") && briefing && !speakingBriefing && Date.now() >= briefing.until) {
      briefing = null;
      renderSpeech();
    }
  });
  // Stop while it speaks; Close on a briefing that was said. Neither opens the controls.
  button.addEventListener("click", (e) => {
    e.stopPropagation();
    if (speaking()) command("say/stop");
    else closeBriefing();
  });
  el.addEventListener("click", (e) => {
    if (el.classList.contains("briefing") && !speaking()) {
      e.stopPropagation();
      closeBriefing();
    }
  });
  sayButton.addEventListener("click", async (e) => {
    e.stopPropagation();
    const r = await command("say/time");
    if (r.status === "ok") return;
    sayError = errorText(r);
    labelSpeech();
    clearTimeout(sayErrorTimer);
    sayErrorTimer = setTimeout(() => {
      sayError = "";
      labelSpeech();
    }, 4000);
  });
}

/** The node's utterance being spoken now, or null (none, or the node out of reach: never old state). */
function speaking() {
  const now = store.connected ? store.state.speech?.speaking : null;
  return now && typeof now.text === "string" && now.id !== ended ? now : null;
}

function closeBriefing() {
  briefing = null;
  renderSpeech();
}

/** The texts written once: the button's names. */
export function labelSpeech() {
  setText($("span", sayButton), sayError || t("speech.say_time"));
  setAttr(sayButton, "aria-label", sayError || t("speech.say_time"));
  renderSpeech();
}

/** The caption, the briefing and whether the node can be asked to speak at all. */
export function renderSpeech() {
  const state = store.state.speech;
  setHidden(sayButton, !store.connected || !state || state.engine === "none");
  const now = speaking();
  // A briefing stays five minutes from when it was last heard.
  const wasBriefing = speakingBriefing;
  speakingBriefing = now?.kind === "briefing";
  if (wasBriefing && !speakingBriefing && briefing) briefing.until = Date.now() + BRIEFING_KEEP_MS;
  const shownBriefing = now ? (now.kind === "briefing" ? briefing || { text: now.text, label: "" } : null) : briefing;
  const text = now ? now.text : shownBriefing?.text || "";
  setAttr(el, "data-id", now?.id || null);
  setAttr(el, "data-kind", now?.kind || (shownBriefing ? "briefing" : null));
  setClass(el, "briefing", !!shownBriefing);
  setClass(el, "speaking", !!now);
  const title = shownBriefing
    ? (shownBriefing.label ? t("speech.briefing.label", { label: shownBriefing.label }) : t("speech.briefing"))
    : t("speech.speaking");
  setText(titleEl, title);
  setText(textEl, text);
  setAttr(textEl, "tabindex", shownBriefing && !now ? "0" : null); // a long briefing scrolls, by touch or keys
  const stop = !!now;
  setAttr($("use", button), "href", stop ? "#i-stop" : "#i-close");
  setAttr(button, "aria-label", stop ? t("speech.stop") : t("speech.close"));
  setAttr(button, "title", stop ? t("speech.stop") : t("speech.close"));
  setHidden(el, !text);
}
