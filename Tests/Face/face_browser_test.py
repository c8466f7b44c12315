#!/usr/bin/python3
"""Drives the NoiseClock face in headless Chromium against a running node (SPEC §9, §7).

    /usr/bin/python3 Tests/Face/face_browser_test.py --url http://127.0.0.1:PORT/ [--screenshots DIR]
        [--check-ringing [--ring-command CMD]] [--check-disconnect] [--expect-disconnected]

Prints one JSON line per check ({"check", "ok", "detail"}) and exits 1 if any failed. It sets up
state only through the node's own API (POST /api/cmd/VERB) and puts the settings it changed back.

--check-ringing       an alarm rings during the run (the caller arranges it, or --ring-command
                      runs a shell command that does): the ringing view shows, a short click on
                      Dismiss does not dismiss, a 1.2 s hold does.
--check-disconnect    at the end, wait (stderr says so) for the node to be stopped, then check the
                      page marks itself disconnected and keeps the time.
--expect-disconnected the URL serves the face but no node answers its WebSocket: only the
                      disconnected checks run.
Needs Debian's chromium, chromium-driver and python3-selenium.
"""
import argparse, json, subprocess, sys, time, urllib.request
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains

SIZES = [(800, 480), (480, 800), (1024, 600), (1280, 800), (1920, 1080), (390, 844)]
FONTS = ["mono", "serif", "rounded", "sans"]
INTERACTIVE = "button, input, select, textarea, [role=switch], [role=spinbutton]"

# Before any page script: count animation-frame requests and WebSocket messages.
INIT_SCRIPT = """
window.__rafCalls = 0; window.__wsMessages = 0;
const raf = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (cb) => { window.__rafCalls++; return raf(cb); };
const WS = window.WebSocket;
window.WebSocket = class extends WS {
  constructor(...a) { super(...a); this.addEventListener('message', () => window.__wsMessages++); }
};
"""

failures = []


def report(check, ok, detail=""):
    print(json.dumps({"check": check, "ok": bool(ok), "detail": detail}), flush=True)
    if not ok:
        failures.append(check)


class Face:
    def __init__(self, url, shots):
        self.url, self.shots = url.rstrip("/") + "/", shots
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-precise-memory-info"]:
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": INIT_SCRIPT})
        self.console = []

    def size(self, w, h):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
        time.sleep(0.35)

    def load(self, wait_connected=True):
        self.d.get(self.url)
        if wait_connected:
            self.until(lambda: self.js("return !!(window.noiseclockFace && noiseclockFace.store.connected && noiseclockFace.store.state.clock)"), 5)
        time.sleep(0.6)

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def until(self, fn, timeout, step=0.05):
        end = time.time() + timeout
        while time.time() < end:
            if fn():
                return True
            time.sleep(step)
        return bool(fn())

    def logs(self):
        for e in self.d.get_log("browser"):
            if e["level"] == "SEVERE":
                self.console.append(e["message"])

    def shot(self, name):
        if self.shots:
            self.d.save_screenshot(f"{self.shots}/{name}.png")

    def click(self, css):
        self.d.find_element("css selector", css).click()
        time.sleep(0.4)

    # --- the node's HTTP API
    def cmd(self, verb, payload=None):
        req = urllib.request.Request(self.url + "api/cmd/" + verb, data=json.dumps(payload or {}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read())

    def state(self):
        with urllib.request.urlopen(self.url + "api/state", timeout=5) as r:
            return json.loads(r.read())


def check_fit(face):
    """At every size the time fits the viewport, uses it, and nothing overflows."""
    for w, h in SIZES:
        face.size(w, h)
        r = face.js("""const t = document.getElementById('time').getBoundingClientRect();
            const d = document.documentElement;
            return {l: t.left, t: t.top, r: t.right, b: t.bottom, w: t.width, h: t.height,
                    sw: d.scrollWidth, sh: d.scrollHeight, vw: innerWidth, vh: innerHeight};""")
        inside = r["l"] >= 0 and r["t"] >= 0 and r["r"] <= r["vw"] and r["b"] <= r["vh"]
        no_scroll = r["sw"] <= r["vw"] and r["sh"] <= r["vh"]
        large = max(r["w"] / r["vw"], r["h"] / r["vh"]) >= 0.5
        report(f"fit {w}x{h}", inside and no_scroll and large,
               f"time {r['w']:.0f}x{r['h']:.0f} at ({r['l']:.0f},{r['t']:.0f}); page {r['sw']}x{r['sh']}")


def check_digit_cells(face, original_font):
    """Every digit cell is as wide and tall as every other, for each font."""
    for font in FONTS + ([original_font] if original_font not in FONTS else []):
        face.cmd("settings", {"face": {"font": font}})
        face.until(lambda: face.js("return getComputedStyle(document.getElementById('time')).fontFamily").find(font.capitalize()) >= 0
                   or font not in FONTS, 2)
        time.sleep(0.6)
        cells = face.js("""return [...document.querySelectorAll('#time .tv-cell:not(.tv-small)')]
            .filter(c => !c.hidden).map(c => { const r = c.getBoundingClientRect(); return [r.width, r.height]; });""")
        same = len(cells) >= 3 and all(abs(c[0] - cells[0][0]) < 0.01 and abs(c[1] - cells[0][1]) < 0.01 for c in cells)
        report(f"digit cells equal ({font})", same, f"{len(cells)} cells, {cells[0] if cells else None}")


def check_theme(face):
    """A theme change sent to the node reaches the page within a second."""
    for theme in ["day", "red", "night"]:
        start = time.time()
        face.cmd("settings", {"face": {"theme": theme, "night": {"enabled": False}}})
        ok = face.until(lambda: face.js("return document.documentElement.dataset.theme") == theme, 1.0, 0.02)
        report(f"theme {theme} within 1 s", ok, f"{time.time() - start:.2f} s")
        if face.shots:
            for w, h in [(1280, 800), (480, 800)]:
                face.size(w, h)
                face.shot(f"face-{theme}-{w}x{h}")


def panel_problems(face):
    """Controls in the open sheet (and the dock) under 48 px, or without an accessible name."""
    return face.js("""
        const nameOf = (el) => {
          const by = (el.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean)
            .map(id => document.getElementById(id)?.textContent.trim() || '').join(' ');
          const label = el.labels && el.labels.length ? el.labels[0].textContent.trim() : '';
          const text = ['BUTTON'].includes(el.tagName) || el.getAttribute('role') ? el.textContent.trim() : '';
          return (el.getAttribute('aria-label') || '').trim() || by || label || text || (el.title || '').trim();
        };
        const small = [], unnamed = [];
        for (const el of document.querySelectorAll('#sheet, #dock')) {
          if (el.hidden) continue;
          for (const c of el.querySelectorAll(arguments[0])) {
            if (!c.offsetParent) continue;
            const r = c.getBoundingClientRect();
            const id = c.tagName.toLowerCase() + '.' + (c.className || '') + ' ' + (nameOf(c) || c.outerHTML.slice(0, 80));
            if (c.getAttribute('role') !== 'spinbutton' && (r.width < 47.5 || r.height < 47.5)) small.push(id + ` ${r.width.toFixed(0)}x${r.height.toFixed(0)}`);
            if (!nameOf(c)) unnamed.push(id);
          }
        }
        return {small, unnamed};""", INTERACTIVE)


def check_panels(face):
    """Each panel (and the alarm editor) at every size: targets >= 48 px, every control named."""
    for w, h in SIZES:
        face.size(w, h)
        face.load()
        face.click("#face")
        for panel in ["noise", "alarms", "editor", "settings"]:
            if not face.js("return document.getElementById('sheet').hidden"):
                face.click("#sheet-close")  # in portrait the sheet covers the dock
            face.click(f'[data-panel="{"alarms" if panel == "editor" else panel}"]')
            if panel == "editor":
                face.click(".list-head .btn-primary")
            p = panel_problems(face)
            report(f"touch targets {panel} {w}x{h}", not p["small"], "; ".join(p["small"][:4]))
            report(f"accessible names {panel} {w}x{h}", not p["unnamed"], "; ".join(p["unnamed"][:4]))
            if (w, h) in [(1280, 800), (390, 844)]:
                face.shot(f"face-{panel}-{w}x{h}")


def observe(face, seconds):
    """DOM update batches, WebSocket messages and animation-frame requests over `seconds`."""
    face.js("""window.__batches = 0; window.__mo?.disconnect();
        window.__mo = new MutationObserver(() => window.__batches++);
        window.__mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
        window.__ws0 = window.__wsMessages; window.__raf0 = window.__rafCalls;""")
    time.sleep(seconds)
    return face.js("return {batches: window.__batches, messages: window.__wsMessages - window.__ws0, raf: window.__rafCalls - window.__raf0}")


def check_idle(face, show_seconds_before):
    """Seconds hidden: no DOM update in 5 s besides state messages; shown: about one a second."""
    face.size(1280, 800)
    face.cmd("settings", {"show_seconds": False})
    face.load()
    # Keep the window clear of a minute boundary (by the node's clock as the page keeps it).
    to_boundary = face.js("return 60 - (noiseclockFace.now() / 1000) % 60")
    if to_boundary < 7:
        time.sleep(to_boundary + 1)
    r = observe(face, 5)
    report("idle, seconds hidden: no DOM update in 5 s", r["batches"] <= r["messages"], json.dumps(r))
    report("no animation-frame loop", r["raf"] <= 1, f"{r['raf']} requestAnimationFrame calls in 5 s")
    face.cmd("settings", {"show_seconds": True})
    time.sleep(1.5)
    r = observe(face, 5)
    report("idle, seconds shown: about one DOM update a second", 4 <= r["batches"] <= 6 + r["messages"], json.dumps(r))
    face.cmd("settings", {"show_seconds": show_seconds_before})
    heap = face.js("return performance.memory ? performance.memory.usedJSHeapSize : null")
    report("JS heap <= 10 MB", heap is not None and heap <= 10 * 1024 * 1024, f"{(heap or 0) / 1048576:.1f} MB")


def check_ringing(face, ring_command, timeout):
    """A ringing alarm: the view shows; a short click on Dismiss does not dismiss; a 1.2 s hold does."""
    face.size(1280, 800)
    face.load()
    if ring_command:
        subprocess.run(ring_command, shell=True, check=False)
    shown = face.until(lambda: face.js("return !document.getElementById('ringing').hidden"), timeout, 0.2)
    report("ringing view shows", shown, f"waited up to {timeout} s")
    if not shown:
        return
    face.shot("face-ringing-1280x800")
    button = face.d.find_element("css selector", "#ring-dismiss")
    button.click()
    time.sleep(1.5)
    still = face.state().get("alarm/state", {}).get("state") == "ringing" and face.js("return !document.getElementById('ringing').hidden")
    report("short click on Dismiss does not dismiss", still)
    ActionChains(face.d).click_and_hold(button).pause(1.2).release().perform()
    gone = face.until(lambda: face.js("return document.getElementById('ringing').hidden"), 3, 0.1)
    report("holding Dismiss 1.2 s dismisses", gone and face.state().get("alarm/state", {}).get("state") != "ringing")


def check_disconnected(face, wait_for_stop):
    """The page marks itself disconnected, strikes state-dependent overlays and keeps the time."""
    if wait_for_stop:
        print("waiting for the node to stop", file=sys.stderr, flush=True)

        def node_gone():
            try:
                urllib.request.urlopen(face.url + "api/state", timeout=1)
                return False
            except Exception:
                return True
        report("node stopped", face.until(node_gone, 120, 0.5))
    marked = face.until(lambda: face.js("return !document.getElementById('conn').hidden"), 5, 0.1)
    report("disconnected mark shows", marked)
    stale = face.js("""return [...document.querySelectorAll('#battery, #next-alarm, #noise-now, #snoozed')]
        .filter(e => !e.hidden && !e.classList.contains('stale')).map(e => e.id)""")
    report("state overlays marked as not current", not stale, ", ".join(stale))
    face.shot("face-disconnected-1280x800")
    shown = face.js("""const s = noiseclockFace.store.state, tz = s.clock?.timezone || undefined;
        const f = (ms) => new Intl.DateTimeFormat('en-GB', {timeZone: tz, hour: '2-digit', minute: '2-digit', hourCycle: 'h23'})
            .format(ms).replace(':', '');
        const digits = [...document.querySelectorAll('#time .tv-cell:not(.tv-small) .tv-g')].map(g => g.textContent.trim() || '0').join('');
        const now = noiseclockFace.now();  // the node's time: its last clock plus the page's own clock since
        return {digits, now: f(now), before: f(now - 60000), offset_s: Math.round((now - Date.now()) / 1000)};""")
    twelve = lambda v: f"{int(v[:2]) % 12 or 12:02d}{v[2:]}"
    ok = shown["digits"] in (shown["now"], shown["before"], twelve(shown["now"]), twelve(shown["before"]))
    report("time kept while disconnected", ok, json.dumps(shown))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True)
    ap.add_argument("--screenshots")
    ap.add_argument("--check-ringing", action="store_true")
    ap.add_argument("--ring-command")
    ap.add_argument("--ringing-timeout", type=float, default=90)
    ap.add_argument("--check-disconnect", action="store_true")
    ap.add_argument("--expect-disconnected", action="store_true")
    args = ap.parse_args()
    face = Face(args.url, args.screenshots)
    try:
        if args.expect_disconnected:
            face.size(1280, 800)
            face.load(wait_connected=False)
            check_disconnected(face, False)
        else:
            before = face.state().get("settings", {})
            face_before = before.get("face", {})
            face.size(1280, 800)
            face.load()
            try:
                check_theme(face)
                face.cmd("settings", {"face": {"theme": "night"}})
                face.load()
                check_fit(face)
                check_digit_cells(face, face_before.get("font", "sans"))
                check_panels(face)
                check_idle(face, before.get("show_seconds", False))
                face.logs()
                if args.check_ringing:
                    check_ringing(face, args.ring_command, args.ringing_timeout)
            finally:
                restore = {k: face_before[k] for k in ("theme", "font", "night") if k in face_before}
                face.cmd("settings", {"face": restore, "show_seconds": before.get("show_seconds", False)})
            face.logs()
            report("no console errors", not face.console, " | ".join(face.console[:3]))
            if args.check_disconnect:
                face.load()
                check_disconnected(face, True)
    finally:
        face.d.quit()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
