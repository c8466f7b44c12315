#!/usr/bin/python3
"""Drives the NoiseClock face in headless Chromium, or in WPE WebKit through cog, against a running
node (SPEC §9, §7, §14).

    /usr/bin/python3 Tests/Face/face_browser_test.py --url http://127.0.0.1:PORT/ [--screenshots DIR]
        [--check-ringing [--ring-command CMD | --clock-file FILE --ring-at EPOCH]] [--check-disconnect]
        [--expect-disconnected] [--only GROUP,...] [--browser chromium|webkit]
    /usr/bin/python3 Tests/Face/face_browser_test.py --prepare-face DIR

Prints one JSON line per check ({"check", "ok", "detail"}) and exits 1 if any failed. It sets up
state only through the node's own API (POST /api/cmd/VERB) and puts the settings it changed back.

--check-ringing       an alarm rings during the run (the caller arranges it, or --ring-command
                      runs a shell command that does): the ringing view shows, a short click on
                      Dismiss does not dismiss, a hold does.
--clock-file          the libfaketime offset file of the node's clock: with --ring-at (seconds since
                      1970) the script itself sets the node's time to ring, and afterwards makes a
                      German alarm ring, snoozes and cancels it, looking for English on the way.
--expect-sound-failed with --check-ringing: the node rings without a sound (no audio device): the
                      ringing view says why and the page plays the tone itself until Dismiss.
--check-disconnect    at the end, wait (stderr says so) for the node to be stopped, then check the
                      page marks itself disconnected and keeps the time.
--expect-disconnected the URL serves the face but no node answers its WebSocket: only the
                      disconnected checks run.
--only                run only these groups of checks (theme, fit, digits, panels, timers,
                      meditation, library, daysoff, sunrise, bedtime, kids, lamp, pages, speech,
                      radio, idle, german, switch), e.g. to take screenshots. With speech and
                      --check-ringing, the ringing alarm has a briefing: its text is looked for after.
--only weather        the day (SPEC §17), run only when named: the node's weather.source is mqtt and
                      --mqtt-port gives its broker (--weather-topic, default t/wx): no report, no
                      overlay; a published one beside the date with its temperature, low and high
                      and the icon of its kind (every kind), at the six sizes, red, German; stale after
                      the node's clock moves three hours on (dimmed, "as of"); the alarm editor's
                      Earlier if saved to the node, the list saying why the node moved the alarm
                      (an hourly snow forecast published with the report), the calendar section
                      there exactly when B/calendar has feeds; then the idle page's budget with it.
--radio-live ID       the node's station that plays (a real stream), with --radio-title its ICY
                      title: the radio checks play it and look for the title on the clock.
The language checks (SPEC §11): in German, every screen of the face (the clock with its overlays,
the dock, each panel and editor, a finished timer, a session, the offline mark; ringing and snoozed
with --clock-file) shows no text and no accessible name that is an English catalog text; a change
of settings.language reaches a running page within a second, and back; the Settings panel's own
Language choice; strings that cannot be fetched leave the last ones in place; no key the face asks
for is missing from the catalog.
The timers, meditation and library checks (SPEC §10) drive the Timers and Meditation screens: a
timer from a preset counting in the panel and under the time, pause, +1 min, cancel, at most three
chips, a custom 3 s timer finishing in the view that names it; a session with its countdown and
affirmation, pause/resume/stop, the choices and stats; the guided meditations of the node's
meditations.dir grouped by teacher, one played, sought, renamed.
The speech checks (SPEC §16, group speech): the caption shows what B/speech says is spoken and goes
with speech_finished; a 1000-character text cut to its lines, the time kept clear and at least half
as tall, at the six sizes, red and German; the caption's Stop (say/stop); Say the time with the
controls (say/time); the alarm editor's Briefing switch saved to the node and marked in the list;
with --check-ringing, the briefing after the dismiss: shown while spoken, kept after, tapped away.
--browser webkit      WPE WebKit 2.38 (Safari 16's engine) through cog, headless, driven by
                      WPEWebDriver: the clock and every panel at 800x600 and (a new session with
                      cog's --scale=0.625) 1280x960, the window being fixed at 800x600; at 800x600 a
                      theme change, the digit cells, timers, a meditation session, the guided
                      meditations, the idle update rate, ringing with hold-to-dismiss, no console
                      error and --check-disconnect. Not the languages. WebKit's WebDriver has no
                      console log and no way to run a script before the page's own, so the node must
                      serve a face folder made by --prepare-face (NOISECLOCK_FACE_DIR=DIR).
--prepare-face DIR    copy Resources/face to DIR with face_init.js (the test's instrumentation:
                      error capture, WebSocket and animation-frame counts) loaded by its index.html
                      ahead of the face's scripts, and exit.
Needs Debian's chromium, chromium-driver and python3-selenium; for WebKit cog and wpewebkit-driver.
"""
import argparse, json, os, re, subprocess, sys, time, urllib.error, urllib.request
from datetime import datetime
from zoneinfo import ZoneInfo
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException, ElementNotInteractableException, ElementClickInterceptedException
from selenium.webdriver.common.action_chains import ActionChains

DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
SIZES = [(800, 480), (480, 800), (1024, 600), (1280, 800), (1920, 1080), (390, 844)]
FONTS = ["mono", "serif", "rounded", "sans"]
INTERACTIVE = "button, input, select, textarea, [role=switch], [role=spinbutton]"

# Before any page script (Tests/Face/face_init.js): count animation-frame requests and WebSocket
# messages; keep the sockets, and while __wsBlocked point new ones at a closed loopback port (the
# node out of reach); keep the page's errors (WebKit has no console log API).
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "face_init.js")) as _f:
    INIT_SCRIPT = _f.read()
INIT_FILE = "test-init.js"  # its name in a face folder made by --prepare-face

# WebKit (WPE, through cog): the window is 800x600 and WebDriver cannot resize it. cog's --scale
# (the page's zoom) changes the CSS viewport: 0.625 makes it 1280x960. Each is a session of its own.
WEBKIT_SCALES = [1.0, 0.625]

failures = []
STARTED = time.monotonic()
# What must come (the page's connection, its first state) is waited for up to this, as the Swift
# tests' eventHangGuard: a loaded machine makes it late, never absent.
HANG_GUARD = 300


def report(check, ok, detail=""):
    print(json.dumps({"check": check, "ok": bool(ok), "detail": detail, "t": round(time.monotonic() - STARTED, 1)}), flush=True)
    if not ok:
        failures.append(check)


class Face:
    """The face in headless Chromium: any viewport size (DevTools' device metrics), the console log."""
    engine = "chromium"
    resizable = True

    def __init__(self, url, shots, clock_file=None):
        self.url, self.shots, self.clock_file = url.rstrip("/") + "/", shots, clock_file
        self.missing = set()  # message keys the page asked for and its catalog lacked
        self.clock_offset = None  # the node's time minus ours, once set_node_time set it
        self.loaded_at = None  # when the page was last loaded (time.monotonic())
        self.console = []
        self.start()

    def start(self):
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-precise-memory-info"]:
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": INIT_SCRIPT})

    def quit(self):
        self.d.quit()

    def sizes(self, wanted):
        """The sizes a check can be run at: those wanted, or the one this browser has."""
        return wanted

    def size(self, w, h):
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
        time.sleep(0.35)

    def load(self, wait_connected=True):
        self.collect_missing()
        self.d.get(self.url)
        self.loaded_at = time.monotonic()
        if wait_connected:
            # Clicks made before the first state would be undone by it (a view that appears hides the controls).
            if not self.until(lambda: self.js("return !!(window.noiseclockFace && noiseclockFace.store.connected && noiseclockFace.store.state.clock)")):
                raise RuntimeError(f"the page never connected to the node; the page: {self.page_state()}")
        time.sleep(0.6)

    def page_state(self):
        """What a person would see of the page, for a report of a click that could not be made."""
        try:
            return self.js("""const f = window.noiseclockFace, shown = (id) => { const e = document.getElementById(id); return e && !e.hidden; };
                return JSON.stringify({connected: !!f?.store?.connected, clock: !!f?.store?.state?.clock,
                  shown: ['dock', 'sheet', 'ringing', 'timer-ring', 'session', 'lamp', 'kids', 'dim', 'wake'].filter(shown),
                  body: document.body.className, focus: document.activeElement?.id || document.activeElement?.tagName});""") \
                + (", never loaded" if self.loaded_at is None else f", {time.monotonic() - self.loaded_at:.1f} s after the last load")
        except Exception as e:
            return f"(no page state: {e})"

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def until(self, fn, timeout=HANG_GUARD, step=0.05):
        """Waits for fn() to hold: for an event that must come, up to the hang guard; a shorter
        timeout only where a time is the point (a promise 'within a second', a retry window)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if fn():
                return True
            time.sleep(step)
        return bool(fn())

    def collect_missing(self):
        try:
            self.missing |= set(self.js("return window.noiseclockFace ? [...noiseclockFace.missing] : []") or [])
        except Exception:
            pass  # no page yet

    def set_node_time(self, epoch):
        """Sets the node's clock (libfaketime's offset file) to `epoch`, from now on."""
        self.clock_offset = epoch - time.time()
        with open(self.clock_file + ".tmp", "w") as f:
            f.write(("+" if self.clock_offset >= 0 else "-") + "%.6f\n" % abs(self.clock_offset))
        os.rename(self.clock_file + ".tmp", self.clock_file)

    def logs(self):
        for e in self.d.get_log("browser"):
            if e["level"] == "SEVERE":
                self.console.append(e["message"])

    def shot(self, name):
        if self.shots:
            self.d.save_screenshot(f"{self.shots}/{name}.png")

    def viewport(self):
        return tuple(self.js("return [innerWidth, innerHeight]"))

    def click(self, css):
        # A panel redrawn by a state update between the lookup and the click leaves a stale
        # element (seen on a loaded machine): look it up again. One still sliding in may not take
        # the click yet.
        end = time.monotonic() + 5
        while True:
            try:
                self.d.find_element("css selector", css).click()
                break
            except (StaleElementReferenceException, ElementNotInteractableException, ElementClickInterceptedException) as e:
                if time.monotonic() > end:
                    raise RuntimeError(f"{css} could not be clicked for 5 s ({type(e).__name__}); the page: {self.page_state()}") from e
                time.sleep(0.1)
        time.sleep(0.4)

    # --- the node's HTTP API
    def cmd(self, verb, payload=None):
        req = urllib.request.Request(self.url + "api/cmd/" + verb, data=json.dumps(payload or {}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:  # a refused command: its answer is the body
            return json.loads(e.read())

    def state(self):
        with urllib.request.urlopen(self.url + "api/state", timeout=5) as r:
            return json.loads(r.read())


class WebKitFace(Face):
    """The face in WPE WebKit through cog, headless, driven by WPEWebDriver (a W3C session: Selenium
    4.8's own WPEWebKit class sends capabilities it refuses). The window is 800x600 and cannot be
    resized: a viewport of another size is a new session with cog's --scale (see WEBKIT_SCALES).
    Its WebDriver has no console log: the page must be served from a folder made by --prepare-face,
    whose index.html runs face_init.js before the face's scripts and keeps the errors in __errors."""
    engine = "webkit"
    resizable = False

    def start(self):
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.driver = subprocess.Popen(["/usr/bin/WPEWebDriver", f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.d = None
        self.scale = None
        self.hook_reported = False
        self.last_shot = None
        if not self.until(self.driver_up, 10, 0.1):
            raise RuntimeError("WPEWebDriver did not answer: " + (self.driver.stderr.read().decode() if self.driver.poll() is not None else ""))
        self.open(WEBKIT_SCALES[0])

    def driver_up(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/status", timeout=1) as r:
                return json.loads(r.read()).get("value", {}).get("ready", False)
        except Exception:
            return False

    def open(self, scale):
        """A new browser whose page is zoomed by `scale` (the one before it closed: one session per driver)."""
        from selenium.webdriver.common.options import ArgOptions
        if self.d is not None:
            self.logs()
            self.collect_missing()
            self.d.quit()
        options = ArgOptions()
        options.set_capability("wpe:browserOptions", {"binary": "/usr/bin/cog", "args": ["--platform=headless", "--automation", f"--scale={scale}"]})
        self.d = webdriver.Remote(command_executor=f"http://127.0.0.1:{self.port}", options=options)
        self.scale = scale

    def quit(self):
        try:
            if self.d is not None:
                self.d.quit()
        finally:
            self.driver.terminate()
            try:
                self.driver.wait(10)
            except subprocess.TimeoutExpired:
                self.driver.kill()

    def sizes(self, wanted):
        return [self.viewport()]

    def size(self, w, h):
        pass  # the window stays as it is

    def load(self, wait_connected=True):
        self.logs()
        super().load(wait_connected)
        hooked = self.js("return window.__faceInit === true")
        if not hooked or not self.hook_reported:
            report("the test's error hook ran before the face's scripts", hooked,
                   "" if hooked else f"{self.url} does not load {INIT_FILE}: serve a folder made by --prepare-face")
            self.hook_reported = True

    def logs(self):
        try:
            self.console += self.js("const e = window.__errors || []; window.__errors = []; return e;") or []
        except Exception:
            pass  # no page yet

    def click(self, css):
        if self.scale == 1.0:
            return super().click(css)
        # Zoomed, WebKit's element click checks the element against the unzoomed 800x600 window
        # and refuses one below or right of it: a pointer click at its centre, in window pixels.
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        where = lambda: self.js("""const el = document.querySelector(arguments[0]);
            el.scrollIntoView({block: 'nearest', inline: 'nearest'});
            const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
            const top = document.elementFromPoint(x, y);
            return el.contains(top) ? [x, y] : `(${Math.round(x)},${Math.round(y)}) in ${innerWidth}x${innerHeight}: `
              + (top ? top.outerHTML.slice(0, 80) : 'nothing') + (document.getElementById('dock').hidden ? ', the dock hidden' : '');""", css)
        found = []
        if not self.until(lambda: found.append(where()) or isinstance(found[-1], list), 5, 0.1):  # one sliding in may be covered a moment
            raise RuntimeError(f"{css}: its centre is covered or off the page: {found[-1]}; the page: {self.page_state()}")
        at = found[-1]
        actions = ActionBuilder(self.d)
        actions.pointer_action.move_to_location(int(at[0] * self.scale), int(at[1] * self.scale)).click()
        actions.perform()
        time.sleep(0.4)

    def shot(self, name):
        # Named by the size the page really has, whatever size the check would have asked for; a
        # loop over sizes the window cannot take would take the same picture again.
        name = re.sub(r'-[0-9]+x[0-9]+$', '', name)
        if self.shots and name != self.last_shot:
            self.last_shot = name
            w, h = self.viewport()
            self.d.save_screenshot(f"{self.shots}/webkit-{name}-{w}x{h}.png")


def prepare_face(source, target):
    """A copy of the face folder whose index.html runs face_init.js before the face's own scripts
    (as a classic script of the same origin, which the page's Content-Security-Policy allows)."""
    import shutil
    shutil.copytree(source, target, dirs_exist_ok=True)
    with open(os.path.join(target, INIT_FILE), "w") as f:
        f.write(INIT_SCRIPT)
    index = os.path.join(target, "index.html")
    with open(index) as f:
        page = f.read()
    tag = '<script type="module"'
    if tag not in page:
        raise SystemExit(f"{index} has no {tag}")
    with open(index, "w") as f:
        f.write(page.replace(tag, f'<script src="/static/{INIT_FILE}"></script>\n{tag}', 1))


def check_fit(face):
    """At every size the time fits the viewport, uses it, and nothing overflows."""
    for w, h in face.sizes(SIZES):
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
                   or font not in FONTS)
        time.sleep(0.6)
        cells = face.js("""return [...document.querySelectorAll('#time .tv-cell:not(.tv-small)')]
            .filter(c => !c.hidden).map(c => { const r = c.getBoundingClientRect(); return [r.width, r.height]; });""")
        same = len(cells) >= 3 and all(abs(c[0] - cells[0][0]) < 0.01 and abs(c[1] - cells[0][1]) < 0.01 for c in cells)
        report(f"digit cells equal ({font})", same, f"{len(cells)} cells, {cells[0] if cells else None}")


def check_theme(face):
    """A theme change sent to the node reaches the page within a second."""
    for theme in ["day", "red", "night"]:
        start = time.monotonic()
        face.cmd("settings", {"face": {"theme": theme, "night": {"enabled": False}}})
        ok = face.until(lambda: face.js("return document.documentElement.dataset.theme") == theme, 1.0, 0.02)
        report(f"theme {theme} within 1 s", ok, f"{time.monotonic() - start:.2f} s")
        if face.shots:
            for w, h in [(1280, 800), (480, 800)]:
                face.size(w, h)
                face.shot(f"face-{theme}-{w}x{h}")


def check_custom_colors(face):
    """The custom theme's colours can be chosen with what the browser has: its colour picker, or
    (WebKit on a kiosk has none) the swatches; the choice reaches the node and the digits."""
    before = face.state().get("settings", {}).get("face", {})
    face.size(1280, 800)
    face.load()
    open_panel(face, "settings")
    face.click('#sheet-body .seg [data-value="custom"]')
    custom = face.until(lambda: face.state().get("settings", {}).get("face", {}).get("theme") == "custom")
    picker = face.js("const i = document.querySelector('#sheet-body input.swatch'); return i ? i.type : null")
    want = "#FF8C00"
    if picker == "color":
        face.js("const i = document.querySelector('#sheet-body input.swatch'); i.value = arguments[0].toLowerCase(); i.dispatchEvent(new Event('input'));", want)
    else:
        face.click(f'#sheet-body .palette [data-value="{want}"]')
    face.js("document.querySelector('#sheet-body .palette, #sheet-body input.swatch').scrollIntoView({block: 'center'})")
    face.shot(f"face-settings-custom-{face.viewport()[0]}x{face.viewport()[1]}")
    chosen = face.until(lambda: face.state().get("settings", {}).get("face", {}).get("digit_color") == want)
    digits = lambda: face.js("return getComputedStyle(document.getElementById('time')).color")
    shown = face.until(lambda: digits() == "rgb(255, 140, 0)")
    report("a custom digit colour is chosen with the browser's picker or the swatches", custom and chosen and shown,
           f"picker: {picker}, node: {face.state().get('settings', {}).get('face', {}).get('digit_color')}, digits: {digits()}")
    texts = face.js("return [...document.querySelectorAll('#sheet-body input')].filter(i => i.classList.contains('swatch') && i.type !== 'color').length")
    report("no colour is asked for as text", texts == 0, f"{texts} colour fields are text fields")
    p = panel_problems(face)
    report("custom colours: touch targets and names", not p["small"] and not p["unnamed"], "; ".join(p["small"] + p["unnamed"]))
    close_sheet(face)
    face.cmd("settings", {"face": {k: before[k] for k in ("theme", "digit_color", "background_color") if k in before}})


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
        for (const el of document.querySelectorAll('#sheet, #dock, #session, #timer-ring')) {
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


# The open sheet: shown, on the screen, at least 240 px each way, titled, with content laid out in it.
SHEET_SHOWN = """
const sheet = document.getElementById('sheet'), body = document.getElementById('sheet-body');
// Its laid-out box, not where its slide-in animation has it now (fixed: offsets are the viewport's).
const r = {left: sheet.offsetLeft, top: sheet.offsetTop, width: sheet.offsetWidth, height: sheet.offsetHeight};
r.right = r.left + r.width; r.bottom = r.top + r.height;
const laid = [...body.children].filter((c) => c.getClientRects().length && c.getBoundingClientRect().height > 0).length;
const title = document.getElementById('sheet-title').textContent.trim();
const ok = !sheet.hidden && r.left >= -1 && r.top >= -1 && r.right <= innerWidth + 1 && r.bottom <= innerHeight + 1
  && r.width >= 240 && r.height >= 240 && !!title && laid > 0;
return {ok, title, laid, rect: [r.left, r.top, r.width, r.height].map(Math.round)};
"""


def check_panels(face):
    """Each panel (and the alarm editor) at every size: it opens on the screen with its title and
    content, targets >= 48 px, every control named."""
    for w, h in face.sizes(SIZES):
        face.size(w, h)
        face.load()
        for panel in ["noise", "radio", "radioadd", "alarms", "editor", "timers", "meditation", "library", "settings", "bedtime", "kids"]:
            # In portrait the sheet covers the dock; and the checks of a panel on a loaded machine
            # can take longer than the 10 s after which the controls hide.
            open_panel(face, {"editor": "alarms", "library": "meditation", "bedtime": "settings", "kids": "settings", "radioadd": "radio"}.get(panel, panel))
            if panel == "radioadd":
                face.click("#radio-add")
            if panel == "editor":
                face.click(".list-head .btn-primary")
            if panel == "library":
                face.click('.tabs [data-value="library"]')
            if panel in ("bedtime", "kids"):
                open_settings_page(face, panel)
            face.until(lambda: face.js(SHEET_SHOWN)["ok"])  # it slides in
            r = face.js(SHEET_SHOWN)
            report(f"panel {panel} opens {w}x{h}", r["ok"], json.dumps(r))
            p = panel_problems(face)
            report(f"touch targets {panel} {w}x{h}", not p["small"], "; ".join(p["small"][:4]))
            report(f"accessible names {panel} {w}x{h}", not p["unnamed"], "; ".join(p["unnamed"][:4]))
            if (w, h) in [(1280, 800), (390, 844)] or not face.resizable or panel in ("bedtime", "kids"):
                face.shot(f"face-{panel}-{w}x{h}")


def open_settings_page(face, name):
    """Settings -> Bedtime or Kids' clock, from the Settings list; waits until the page is drawn."""
    face.until(lambda: face.js("return !!document.querySelector(arguments[0])", f'[data-key="page-{name}"]'))
    face.click(f'[data-key="page-{name}"]')
    face.until(lambda: face.js("return !!document.querySelector(arguments[0])", f'.settings-page[data-page="{name}"] .section'))


def page_field_error(face, name):
    return face.js("const e = document.querySelector(arguments[0]); return e && !e.hidden ? e.textContent : null",
                   f'.settings-page [data-field="{name}"] .field-error')


def spin(face, label_css, which, times=1):
    """Presses a time picker's + (which='hour+' or 'minute+') `times` times, as a finger would."""
    kind, sign = which[:-1], which[-1]
    for _ in range(times):
        face.js("""const p = document.querySelector(arguments[0]);
            const spins = [...p.querySelectorAll('.spin')];
            const s = spins[arguments[1] === 'hour' ? 0 : 1];
            const b = s.querySelectorAll('button')[arguments[2] === '+' ? 0 : 1];
            b.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true})); b.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}));""",
                label_css, kind, sign)


def check_night_pages(face):
    """Settings -> Bedtime and Settings -> Kids' clock (SPEC §13) set from the face: each control
    changes settings.bedtime / settings.kids on the node, a time per weekday one day at a time,
    and a change the node refuses shows the node's own message beside its field (the answer MQTT
    gives to the same patch), changing nothing; both pages in the red theme."""
    face.size(800, 480)
    face.load()
    before = face.state().get("settings", {})
    bedtime = lambda: face.state().get("settings", {}).get("bedtime", {})
    kids = lambda: face.state().get("settings", {}).get("kids", {})
    face.cmd("settings", {"bedtime": {"time": None, "reminder_min": 15, "wind_down_min": 30, "sounds": [], "breathe": False, "volume": 30, "sleep_min": 45},
                          "kids": {"enabled": False, "wake": "07:00", "warn_min": 15, "ok_min": 60, "show_time": True, "sleep_from": "19:00"}})
    open_panel(face, "settings")
    summary = lambda name: face.js("const e = document.querySelector(arguments[0]); return e && e.textContent", f'[data-key="page-{name}"] .page-summary')
    report("pages: Settings lists Bedtime and Kids' clock, each saying it is off", face.until(lambda: summary("bedtime") == "Off" and summary("kids") == "Off"),
           f"{summary('bedtime')!r} {summary('kids')!r}")
    open_settings_page(face, "bedtime")
    report("pages: the Bedtime page has Back and its title", face.js("return !document.getElementById('sheet-back').hidden") and
           face.js("return document.getElementById('sheet-title').textContent") == "Bedtime", face.js("return document.getElementById('sheet-title').textContent"))
    page = '.settings-page[data-page="bedtime"]'
    face.click(f"{page} .section:first-child .switch")
    report("pages: the switch gives a bedtime, the same every day", face.until(lambda: bedtime().get("time") == "22:30"), json.dumps(bedtime()))
    face.until(lambda: face.js("return !!document.querySelector(arguments[0])", f'{page} [data-field="time"] .picker'))
    spin(face, f'{page} [data-field="time"] .picker', "hour+")
    report("pages: the picker moves every day's bedtime (sent once it stops)", face.until(lambda: bedtime().get("time") == "23:30"), json.dumps(bedtime()))
    face.click(f'{page} .seg [data-value="days"]')
    face.until(lambda: face.js("return !!document.querySelector(arguments[0])", f"{page} .week"))
    face.click(f'{page} .week [data-day="sat"]')
    face.until(lambda: face.js("return document.querySelector(arguments[0])?.getAttribute('aria-pressed')", f'{page} .week [data-day="sat"]') == "true")
    spin(face, f'{page} [data-field="time"] .picker', "hour+")
    report("pages: per day, Saturday alone moves", face.until(lambda: bedtime().get("time") == {**{d: "23:30" for d in DAYS}, "sat": "00:30"}),
           json.dumps(bedtime()))
    face.until(lambda: face.js("return document.querySelector(arguments[0])?.textContent", f'{page} .week [data-day="sat"] .week-time') == "00:30")
    face.click(f'{page} .week [data-day="sun"]')
    face.until(lambda: face.js("return document.querySelector(arguments[0])?.getAttribute('aria-pressed')", f'{page} .week [data-day="sun"]') == "true")
    face.click(f'{page} [data-field="time"] .switch')
    report("pages: Sunday's switch leaves Sunday without a bedtime", face.until(lambda: isinstance(bedtime().get("time"), dict) and "sun" not in bedtime()["time"]
                                                                             and bedtime()["time"].get("sat") == "00:30"), json.dumps(bedtime()))
    face.click(f'{page} [data-field="reminder_min"] [data-value="30"]')
    face.click(f'{page} [data-field="wind_down_min"] [data-value="45"]')
    face.click(f'{page} [data-field="sleep_min"] [data-value="90"]')
    report("pages: reminder, wind-down and sleep timer", face.until(lambda: (bedtime().get("reminder_min"), bedtime().get("wind_down_min"), bedtime().get("sleep_min")) == (30, 45, 90)),
           json.dumps(bedtime()))
    face.click(f"{page} .section:nth-of-type(2) .switch")
    report("pages: the breathing guide", face.until(lambda: bedtime().get("breathe") is True), json.dumps(bedtime()))
    face.js("const i = document.querySelector(arguments[0]); i.value = 55; i.dispatchEvent(new Event('input')); i.dispatchEvent(new Event('change'));",
            f"{page} input[type=range]")
    report("pages: the volume", face.until(lambda: bedtime().get("volume") == 55), json.dumps(bedtime()))
    noise = [s["id"] for s in (face.cmd("sounds").get("data") or {}).get("noise", [])]
    picks = lambda: face.js("return [...document.querySelectorAll(arguments[0])].map((b) => b.getAttribute('aria-checked'))", f'{page} [data-field="sounds"] .pick')
    face.until(lambda: len(picks()) == len(noise))
    for i in range(min(4, len(noise))):
        face.click(f'{page} [data-field="sounds"] .sound-row:nth-child({i + 1}) .pick')
        face.until(lambda: bedtime().get("sounds") == noise[:i + 1])
    report("pages: four sleep sounds chosen, in the order tapped", bedtime().get("sounds") == noise[:4] and picks()[:4] == ["true"] * 4, json.dumps(bedtime()))
    if len(noise) > 4:
        answer = face.cmd("settings", {"bedtime": {"sounds": noise[:5]}})
        face.click(f'{page} [data-field="sounds"] .sound-row:nth-child(5) .pick')
        shown = face.until(lambda: page_field_error(face, "sounds"))
        report("pages: a fifth sound is refused beside the list, with the node's MQTT answer, and nothing changes",
               shown and page_field_error(face, "sounds") == answer.get("error", {}).get("message") and answer.get("error", {}).get("field") == "bedtime.sounds"
               and bedtime().get("sounds") == noise[:4], f"{page_field_error(face, 'sounds')!r} vs {json.dumps(answer)}")
    # What the page sends, as the node receives it: the socket's messages, recorded from here on.
    face.js("""window.__sent = []; const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (d) { window.__sent.push(String(d)); return send.call(this, d); };""")
    face.click(f'{page} [data-field="sounds"] .sound-row:nth-child(1) .icon-btn')
    sent = lambda: [json.loads(m) for m in face.js("return window.__sent || []")]
    report("pages: a sound's play button previews it", face.until(lambda: any(m.get("verb") == "noise/preview" and m.get("payload", {}).get("sound") == noise[0]
                                                                           for m in sent())), json.dumps(sent()))
    face.shot("face-bedtime-set-800x480")
    face.click("#sheet-back")
    report("pages: Back returns to Settings, whose row now says the bedtime", face.until(lambda: summary("bedtime") == "6 days a week"), repr(summary("bedtime")))

    open_settings_page(face, "kids")
    page = '.settings-page[data-page="kids"]'
    face.click(f"{page} .section:first-child .switch")
    report("pages: the kids' clock switched on", face.until(lambda: kids().get("enabled") is True), json.dumps(kids()))
    face.click(f'{page} .seg [data-value="days"]')
    face.until(lambda: face.js("return !!document.querySelector(arguments[0])", f"{page} .week"))
    face.click(f'{page} .week [data-day="sat"]')
    face.until(lambda: face.js("return document.querySelector(arguments[0])?.getAttribute('aria-pressed')", f'{page} .week [data-day="sat"]') == "true")
    spin(face, f'{page} [data-field="wake"] .picker', "hour+")
    wake = {d: "07:00" for d in DAYS}
    report("pages: Saturday's wake-up time alone moves", face.until(lambda: kids().get("wake") == {**wake, "sat": "08:00"}), json.dumps(kids()))
    face.click(f'{page} [data-field="warn_min"] [data-value="10"]')
    face.click(f'{page} [data-field="ok_min"] [data-value="30"]')
    report("pages: almost and get-up minutes", face.until(lambda: (kids().get("warn_min"), kids().get("ok_min")) == (10, 30)), json.dumps(kids()))
    spin(face, f'{page} [data-field="sleep_from"] .picker', "hour+", 2)
    report("pages: stay in bed from", face.until(lambda: kids().get("sleep_from") == "21:00"), json.dumps(kids()))
    face.click(f"{page} .section:last-child .switch")
    report("pages: show the time, off", face.until(lambda: kids().get("show_time") is False), json.dumps(kids()))
    face.cmd("settings", {"kids": {"warn_min": 5}})
    report("pages: a change made over MQTT shows on the open page", face.until(lambda: face.js(
        "return document.querySelector(arguments[0])?.getAttribute('aria-pressed')", f'{page} [data-field="warn_min"] [data-value="5"]') == "true"))
    face.shot("face-kids-set-800x480")
    # Readable in the red theme: both pages drawn in it, at each of the two small screens.
    # The kids' clock off again: while it says "stay in bed" its view covers the clock (the dock
    # is opened by a tap on the clock) and caps the screen at the night brightness.
    face.cmd("settings", {"kids": {"enabled": False}, "face": {"theme": "red"}})
    face.until(lambda: face.js("return document.querySelector('#kids').hidden"))
    for w, h in [(800, 480), (480, 800)]:
        face.size(w, h)
        for name in ("bedtime", "kids"):
            open_panel(face, "settings")
            open_settings_page(face, name)
            face.until(lambda: face.js(SHEET_SHOWN)["ok"])
            p = panel_problems(face)
            report(f"pages: {name} in the red theme {w}x{h}, targets and names", not p["small"] and not p["unnamed"],
                   "; ".join((p["small"] + p["unnamed"])[:4]))
            face.shot(f"face-{name}-red-{w}x{h}")
    face.cmd("settings", {"face": {"theme": before.get("face", {}).get("theme", "night")},
                          "bedtime": {"time": None, "breathe": False, "sounds": before.get("bedtime", {}).get("sounds", [])},
                          "kids": {"enabled": False, "show_time": True, "wake": "07:00", "sleep_from": "19:00", "warn_min": 15, "ok_min": 60}})
    close_sheet(face)


def check_days_off(face):
    """Settings -> Days off through the face: a day off added (the alarm list then says which day a
    repeating alarm with skip_holidays skips) and removed, a vacation set (the list says so) and
    ended; screenshots of both."""
    face.size(1280, 800)
    face.load()
    added = face.cmd("alarm/add", {"time": "06:15", "label": "School", "days": ["mon", "tue", "wed", "thu", "fri"], "skip_holidays": True})
    alarm_id = added.get("data", {}).get("id")
    report("days off: an alarm with skip_holidays is added", added.get("status") == "ok", json.dumps(added))
    open_panel(face, "settings")
    face.until(lambda: face.js(SHEET_SHOWN)["ok"])
    put = "const i = document.querySelector(arguments[0]); i.value = arguments[1]; i.dispatchEvent(new Event('input'));"
    face.js(put, '[data-field="days_off"] input[type="date"]', "2026-06-16")
    face.click('[data-field="days_off"] .date-row .btn')
    wake = lambda: face.state().get("settings", {}).get("wake", {})
    ok = face.until(lambda: wake().get("days_off") == ["2026-06-16"])
    report("days off: the face adds a day off", ok, json.dumps(wake()))
    chips = lambda: face.js("return [...document.querySelectorAll('.day-chip')].map((c) => c.textContent.trim())")
    ok = face.until(lambda: chips() == ["Tue 16 Jun"])
    report("days off: the day off is listed by its date", ok, json.dumps(chips()))
    face.shot("face-days-off-1280x800")
    open_panel(face, "alarms")
    skip = lambda: face.js("return [...document.querySelectorAll('.alarm-skip')].map((e) => e.textContent.trim())")
    ok = face.until(lambda: skip() == ["Skips Tue 16 Jun, a day off"])
    report("days off: the alarm list says which day the alarm skips", ok, json.dumps(skip()))
    open_panel(face, "settings")
    face.click('[data-field="days_off"] .day-chip .icon-btn')
    ok = face.until(lambda: wake().get("days_off") == [])
    report("days off: the chip's button removes the day off", ok, json.dumps(wake()))
    face.js(put, '[data-field="vacation"] input[type="date"]', "2026-06-19")
    face.click('[data-field="vacation"] .date-row .btn')
    ok = face.until(lambda: wake().get("vacation_until") == "2026-06-19")
    report("days off: the face sets a vacation", ok, json.dumps(wake()))
    open_panel(face, "alarms")
    nexts = lambda: face.js("return [...document.querySelectorAll('.alarm-next')].map((e) => e.textContent.trim())")
    ok = face.until(lambda: any(t.startswith("On vacation") for t in nexts()))
    report("days off: the alarm list says the alarms are on vacation", ok, json.dumps(nexts()))
    face.shot("face-vacation-1280x800")
    open_panel(face, "settings")
    face.click('[data-field="vacation"] .date-row .btn:nth-of-type(2)')
    ok = face.until(lambda: wake().get("vacation_until") is None)
    report("days off: the face ends the vacation", ok, json.dumps(wake()))
    if alarm_id:
        face.cmd("alarm/delete", {"id": alarm_id})


def check_sunrise(face):
    """An alarm whose sunrise is under way: the face shows the sky behind the time (B/wake's
    phase), stepped (no animation-frame loop); the digits stand out from the sky at every step of
    it (WCAG's 3:1 for large text, worked out by the page's own module); the six sizes, screenshots;
    the alarm deleted, the sky goes."""
    face.size(1280, 800)
    face.load()
    clock = face.state().get("clock", {})
    local = datetime.fromisoformat(clock.get("iso"))
    ring = local.timestamp() + 12 * 60
    at = datetime.fromtimestamp(ring, local.tzinfo).strftime("%H:%M")
    added = face.cmd("alarm/add", {"time": at, "label": "Sunrise", "sunrise_min": 30})
    alarm_id = added.get("data", {}).get("id")
    report("sunrise: an alarm ringing in 12 minutes with a 30-minute sunrise is added", added.get("status") == "ok", json.dumps(added))
    on = face.until(lambda: face.js("return document.documentElement.dataset.sunrise") == "on")
    report("sunrise: the face shows it while B/wake says sunrise", on, json.dumps(face.state().get("wake")))
    shown = face.until(lambda: face.js("return getComputedStyle(document.querySelector('#sunrise')).opacity") == "1")
    report("sunrise: the sky has come in", shown)
    worst = face.d.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/static/sunrise.js').then((m) => {
          const ch = (c) => { const n = parseInt(c.slice(1), 16); return [(n >> 16) & 255, (n >> 8) & 255, n & 255]; };
          const mix = (a, b, t) => '#' + ch(a).map((v, k) => Math.round(v + (ch(b)[k] - v) * t).toString(16).padStart(2, '0')).join('');
          let worst = 99, where = '';
          for (let i = 0; i <= 100; i++) {
            const s = m.sky(i / 100);
            for (const t of [0.45, 0.67, 0.9]) {
              // Behind the digits: the sky between the horizon and the top, with the sun's glow.
              const behind = mix(mix(s.low, s.high, t), s.core, 0.4);
              const c = m.contrast(s.digit, behind);
              if (c < worst) { worst = c; where = `progress ${i / 100}, ${s.digit} on ${behind}`; }
            }
            // The small text at the bottom, on the horizon.
            const c = m.contrast(s.ink, s.low);
            if (c < worst) { worst = c; where = `progress ${i / 100}, small text ${s.ink} on ${s.low}`; }
          }
          done([worst, where]);
        });""")
    report("sunrise: the time and the small text stand out from the sky at every step (at least 3:1)", worst[0] >= 3, "worst %.2f at %s" % (worst[0], worst[1]))
    frames = face.js("return window.__rafCalls || 0")
    time.sleep(1.5)
    report("sunrise: no animation-frame loop", face.js("return window.__rafCalls || 0") - frames <= 1)
    time.sleep(10)  # the first step glides in from the night over 10 s: the screenshots show it settled
    for w, h in face.sizes(SIZES):
        face.size(w, h)
        fits = face.js("""const r = document.querySelector('#time').getBoundingClientRect();
            return r.width > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight""")
        report(f"sunrise: the time fits at {w}x{h}", fits)
        face.shot(f"face-sunrise-{w}x{h}")
    face.size(1280, 800)
    # Early (a faint red glow) and late (warm white, the digits dark): an alarm each.
    for name, minutes in [("early", 28), ("late", 2)]:
        if alarm_id:
            face.cmd("alarm/delete", {"id": alarm_id})
        at = datetime.fromtimestamp(datetime.fromisoformat(face.state()["clock"]["iso"]).timestamp() + minutes * 60 + 30, local.tzinfo).strftime("%H:%M")
        alarm_id = face.cmd("alarm/add", {"time": at, "label": "Sunrise", "sunrise_min": 30}).get("data", {}).get("id")
        progress = lambda: (face.state().get("wake") or {}).get("progress") or 0
        face.until(lambda: face.state().get("wake", {}).get("phase") == "sunrise")
        time.sleep(11)  # the sky glides to each 10 s step (and here from the last alarm's sky): let it settle
        face.shot(f"face-sunrise-{name}-1280x800")
        report(f"sunrise: {name} in the sunrise", (progress() < 0.2) if name == "early" else (progress() > 0.85), json.dumps(face.state().get("wake")))
    if alarm_id:
        face.cmd("alarm/delete", {"id": alarm_id})
    gone = face.until(lambda: face.js("return document.documentElement.dataset.sunrise") == "")
    report("sunrise: the alarm deleted, the sky goes", gone, json.dumps(face.state().get("wake")))


def node_hhmm(face, minutes):
    """The node's local time `minutes` from now, as HH:MM."""
    local = datetime.fromisoformat(face.state()["clock"]["iso"])
    return datetime.fromtimestamp(local.timestamp() + minutes * 60, local.tzinfo).strftime("%H:%M")


def node_state(face, topic):
    return face.state().get(topic) or {}


FITS = """const out = [];
for (const css of arguments[0]) {
  const el = document.querySelector(css);
  if (!el || el.closest('[hidden]') || !el.getClientRects().length) { out.push(css + ' not shown'); continue; }
  const r = el.getBoundingClientRect();
  if (r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) out.push(`${css} out of the screen (${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.right)},${Math.round(r.bottom)})`);
}
return out;"""


def six_sizes(face, name, shot, visible, german=None):
    """At the six sizes: `visible` (CSS selectors) shown inside the screen; a screenshot each; in
    German (with `german`, the English patterns) no English text on the way."""
    problems = []
    for w, h in face.sizes(SIZES):
        face.size(w, h)
        problems += [f"{w}x{h}: {p}" for p in face.js(FITS, visible)]
        if german is not None:
            problems += [f"{w}x{h}: {p}" for p in english_in(face.js(VISIBLE_TEXTS), german)]
        face.shot(f"{'de-' if german is not None else 'face-'}{shot}-{w}x{h}")
    face.size(1280, 800)
    report(f"{name}: shown and inside the screen at the six sizes{' in German' if german is not None else ''}", not problems, "; ".join(problems[:6]))


def check_bedtime(face):
    """Bedtime (SPEC §13): the reminder's quiet chip with "Wind down"; the wind-down (the red
    theme, the sunset, the 4-7-8 breathing guide, a CSS animation of 19 s that stands still with
    reduced motion and runs no animation-frame loop); "Stop" ends it; the six sizes, both languages."""
    en, de = catalog(face, "en"), catalog(face, "de")
    face.size(1280, 800)
    face.cmd("settings", {"bedtime": {"time": node_hhmm(face, 10), "reminder_min": 15, "wind_down_min": 5, "breathe": True, "sounds": []},
                          "face": {"night": {"theme": "red"}}})
    face.load()
    reminded = face.until(lambda: text(face, "#bedtime .chip-text") is not None)
    report("bedtime: the reminder shows a quiet chip while B/bedtime says reminder", reminded and node_state(face, "bedtime").get("phase") == "reminder",
           json.dumps(node_state(face, "bedtime")))
    report("bedtime: the chip names the bedtime and offers Wind down",
           (text(face, "#bedtime .chip-text") or "").startswith(en["bedtime.reminder"].split("{")[0]) and text(face, "#bedtime .chip-action") == en["bedtime.start"],
           f'{text(face, "#bedtime .chip-text")} / {text(face, "#bedtime .chip-action")}')
    six_sizes(face, "bedtime: the reminder", "bedtime-reminder", ["#bedtime", "#bedtime .chip-action", "#time"])
    face.cmd("settings", {"language": "de"})
    face.until(lambda: text(face, "#bedtime .chip-action") == de["bedtime.start"])
    six_sizes(face, "bedtime: the reminder", "bedtime-reminder", ["#bedtime", "#bedtime .chip-action"], english_patterns(en, de))
    face.cmd("settings", {"language": "en"})
    face.until(lambda: text(face, "#bedtime .chip-action") == en["bedtime.start"])

    frames = face.js("return window.__rafCalls || 0")
    face.click("#bedtime .chip-action")
    winding = face.until(lambda: face.js("return document.documentElement.dataset.sunset") == "on")
    report("bedtime: Wind down on the chip starts the wind-down, and the sunset shows", winding and node_state(face, "bedtime").get("phase") == "winding_down",
           json.dumps(node_state(face, "bedtime")))
    report("bedtime: the controls did not open for the chip's button", not face.js("return document.body.classList.contains('controls')"))
    report("bedtime: the wind-down turns the face to the night's theme (red)", face.until(lambda: face.js("return document.documentElement.dataset.theme") == "red"),
           face.js("return document.documentElement.dataset.theme"))
    timing = face.js("""const a = document.querySelector('.breathe-orb').getAnimations();
        if (!a.length) return null;
        return {duration: a[0].effect.getTiming().duration, offsets: a[0].effect.getKeyframes().map((k) => Math.round(k.computedOffset * 1900) / 100)};""")
    report("bedtime: the breathing guide breathes in 4 s, holds 7 s, out 8 s (a 19 s CSS animation)",
           timing is not None and timing["duration"] == 19000 and timing["offsets"] == [0, 4, 11, 19], json.dumps(timing))
    report("bedtime: the guide's words say where the breath is", text(face, "#breathe .b-in") == en["breathe.in"] and
           face.js("return document.querySelector('#breathe').getAttribute('aria-label')") == en["breathe.label"])
    time.sleep(3.5)  # the sunset's 3 s fade-in
    six_sizes(face, "bedtime: the wind-down with its breathing guide", "bedtime-winddown", ["#breathe", ".breathe-orb", "#time", "#bedtime"])
    report("bedtime: the breathing guide runs no animation-frame loop", face.js("return window.__rafCalls || 0") - frames <= 2)
    face.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    still = face.until(lambda: face.js("return document.querySelector('.breathe-orb').getAnimations().length") == 0)
    words = face.js("return getComputedStyle(document.querySelector('#breathe .b-still')).opacity")
    report("bedtime: with reduced motion the guide stands still and says its rhythm in words", still and words == "1" and
           text(face, "#breathe .b-still") == en["breathe.still"], f"animations stopped {still}, words opacity {words}")
    face.shot("face-bedtime-winddown-reduced-motion-1280x800")
    face.d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    report("bedtime: without reduced motion it breathes again", face.until(lambda: face.js("return document.querySelector('.breathe-orb').getAnimations().length") > 0))
    face.cmd("settings", {"language": "de"})
    face.until(lambda: text(face, "#breathe .b-in") == de["breathe.in"])
    six_sizes(face, "bedtime: the wind-down", "bedtime-winddown", ["#breathe", "#bedtime"], english_patterns(en, de))
    face.cmd("settings", {"language": "en"})
    face.until(lambda: text(face, "#bedtime .chip-action") == en["bedtime.stop"])
    face.click("#bedtime .chip-action")
    ended = face.until(lambda: face.js("return document.documentElement.dataset.sunset") == "" and
                       face.js("return document.querySelector('#breathe').hidden"))
    report("bedtime: Stop ends the wind-down: the sunset and the guide go", ended and node_state(face, "bedtime").get("phase") != "winding_down",
           json.dumps(node_state(face, "bedtime")))
    face.cmd("settings", {"bedtime": {"time": None, "breathe": False}})
    report("bedtime: no bedtime, no chip", face.until(lambda: text(face, "#bedtime .chip-text") is None))


def hue(rgb):
    r, g, b = [int(x) / 255 for x in re.findall(r"\d+", rgb)[:3]]
    hi, lo = max(r, g, b), min(r, g, b)
    if hi == lo:
        return 0.0
    d = hi - lo
    h = (g - b) / d % 6 if hi == r else (b - r) / d + 2 if hi == g else (r - g) / d + 4
    return h * 60


def check_kids(face):
    """The kids' clock (SPEC §13): stay in bed, almost and you can get up, each told by a colour
    and a picture of its own (hues far apart, a different picture shown), at the night brightness;
    the time under it with show_time; the six sizes, both languages."""
    en, de = catalog(face, "en"), catalog(face, "de")
    face.size(1280, 800)
    face.load()
    night = face.state().get("settings", {}).get("face", {}).get("night", {}).get("brightness", 5)
    looks = {}
    background = lambda: face.js("return getComputedStyle(document.querySelector('#kids')).backgroundColor")
    for state, wake, sleep_from in [("sleep", 180, -60), ("almost", 10, -60), ("ok", -5, -60)]:
        face.cmd("settings", {"kids": {"enabled": True, "wake": node_hhmm(face, wake), "sleep_from": node_hhmm(face, sleep_from),
                                       "warn_min": 15, "ok_min": 60, "show_time": True}})
        shown = face.until(lambda: face.js("return document.querySelector('#kids').hidden ? null : document.querySelector('#kids').dataset.state") == state)
        report(f"kids: {state} shows while B/kids says so", shown, json.dumps(node_state(face, "kids")))
        # The colour glides over 2 s from the last state's: read it once it holds still.
        face.until(lambda: background() == (time.sleep(0.4) or background()))
        looks[state] = face.js("""const v = document.querySelector('#kids');
            return {bg: getComputedStyle(v).backgroundColor, art: [...v.querySelectorAll('.kids-art > *')].filter((e) => getComputedStyle(e).display !== 'none').map((e) => e.getAttribute('class')).join(' ')}""")
        report(f"kids: {state} says so to the grown-ups, and shows the time", text(face, "#kids-label") == en["kids." + state] and
               re.fullmatch(r"\d{1,2}:\d\d( ?[AP]M)?", text(face, "#kids-time") or "") is not None, f'{text(face, "#kids-label")} {text(face, "#kids-time")}')
        capped = face.until(lambda: node_state(face, "display").get("brightness", 999) <= night)
        report(f"kids: {state} at the night brightness at most ({night})", capped, json.dumps(node_state(face, "display")))
        # The pictures as a backlit panel shows them (the page dims itself only for a screen the
        # node cannot dim, like this browser's): the night level at full for the screenshots.
        face.cmd("settings", {"face": {"night": {"brightness": 100}}})
        face.until(lambda: face.js("return getComputedStyle(document.documentElement).getPropertyValue('--dim').trim()") == "0.000")
        six_sizes(face, f"kids: {state}", f"kids-{state}", ["#kids", ".kids-art", "#kids-label", "#kids-time"])
        face.cmd("settings", {"language": "de"})
        face.until(lambda: text(face, "#kids-label") == de["kids." + state])
        six_sizes(face, f"kids: {state}", f"kids-{state}", ["#kids", "#kids-label"], english_patterns(en, de))
        face.cmd("settings", {"language": "en", "face": {"night": {"brightness": night}}})
        face.until(lambda: text(face, "#kids-label") == en["kids." + state])
    hues = {s: hue(v["bg"]) for s, v in looks.items()}
    apart = min(min(abs(a - b), 360 - abs(a - b)) for i, a in enumerate(hues.values()) for b in list(hues.values())[i + 1:]) if len(hues) == 3 else 0
    report("kids: the three colours are far apart in hue (at least 60°), blue, amber, green", apart >= 60 and 200 <= hues.get("sleep", 0) <= 250
           and 20 <= hues.get("almost", 0) <= 50 and 100 <= hues.get("ok", 0) <= 160, json.dumps(hues))
    report("kids: each state has a picture of its own", len({v["art"] for v in looks.values()}) == 3 and all(v["art"] for v in looks.values()),
           json.dumps(looks))
    face.cmd("settings", {"kids": {"show_time": False}})
    report("kids: without show_time, no time", face.until(lambda: text(face, "#kids-time") is None))
    face.cmd("settings", {"kids": {"enabled": False, "show_time": True}})
    report("kids: off, the clock again", face.until(lambda: face.js("return document.querySelector('#kids').hidden"))
           and node_state(face, "kids").get("state") == "off")


def long_press(face, css, seconds=1.0):
    el = face.d.find_element("css selector", css)
    ActionChains(face.d).move_to_element(el).click_and_hold().pause(seconds).release().perform()


def check_lamp(face):
    """The night light (SPEC §13): a long press on the clock turns it on in its colour (a short tap
    only shows the controls), the node's colour and brightness follow, it covers the kids' clock,
    a long press on it turns it off; the six sizes, both languages."""
    en, de = catalog(face, "en"), catalog(face, "de")
    face.size(1280, 800)
    face.cmd("nightlight", {"on": False, "color": "#FF8A3D", "brightness": 12, "off_after_min": 20})
    face.load()
    face.click("#stage")
    report("lamp: a short tap shows the controls, not the lamp", face.js("return document.body.classList.contains('controls')")
           and not node_state(face, "nightlight").get("on"), json.dumps(node_state(face, "nightlight")))
    face.js("document.body.classList.contains('controls') && document.querySelector('#stage').click()")
    time.sleep(0.4)
    long_press(face, "#stage")
    on = face.until(lambda: not face.js("return document.querySelector('#lamp').hidden"))
    light = node_state(face, "nightlight")
    report("lamp: a long press on the clock turns the night light on", on and light.get("on") is True and light.get("state") == "ON", json.dumps(light))
    report("lamp: it shines in its colour", face.js("return getComputedStyle(document.querySelector('#lamp')).backgroundColor") == "rgb(255, 138, 61)",
           face.js("return getComputedStyle(document.querySelector('#lamp')).backgroundColor"))
    report("lamp: the screen at the night light's brightness", face.until(lambda: node_state(face, "display").get("brightness") == 12),
           json.dumps(node_state(face, "display")))
    report("lamp: the long press did not also open the controls", not face.js("return document.body.classList.contains('controls')"))
    face.cmd("nightlight", {"color": "#3366FF", "brightness": 30})
    report("lamp: a new colour from the node shows", face.until(lambda: face.js(
        "return getComputedStyle(document.querySelector('#lamp')).backgroundColor") == "rgb(51, 102, 255)"))
    # Brighter for the screenshots: this browser is a screen the node cannot dim, so the page dims
    # itself to the lamp's brightness, and at 12 % the colour would hardly show in a picture.
    face.cmd("nightlight", {"color": "#FF8A3D", "brightness": 70})
    six_sizes(face, "lamp", "nightlight", ["#lamp", ".lamp-hint"])
    face.cmd("settings", {"language": "de"})
    face.until(lambda: text(face, ".lamp-hint") == de["lamp.hint"])
    six_sizes(face, "lamp", "nightlight", ["#lamp"], english_patterns(en, de))
    face.cmd("settings", {"language": "en", "kids": {"enabled": True, "wake": node_hhmm(face, 180), "sleep_from": node_hhmm(face, -60)}})
    face.until(lambda: node_state(face, "kids").get("state") == "sleep")
    report("lamp: it covers the kids' clock", not face.js("return document.querySelector('#lamp').hidden")
           and face.js("return document.querySelector('#kids').hidden"))
    long_press(face, "#lamp")
    off = face.until(lambda: face.js("return document.querySelector('#lamp').hidden"))
    report("lamp: a long press on the lamp turns it off, and the kids' clock is back", off and not node_state(face, "nightlight").get("on")
           and not face.js("return document.querySelector('#kids').hidden"), json.dumps(node_state(face, "nightlight")))
    face.cmd("settings", {"kids": {"enabled": False}})


def close_sheet(face):
    """Closes the open panel with its close button; one the face already put away (its controls
    hide after 10 s without a touch, as a slow machine's screenshots can take) is closed too."""
    if face.js("return !document.getElementById('sheet').hidden"):
        try:
            face.click("#sheet-close")
        except RuntimeError:
            if face.js("return !document.getElementById('sheet').hidden"):
                raise
    face.until(lambda: face.js("return document.getElementById('sheet').hidden"))


def text(face, css):
    return face.js("const e = document.querySelector(arguments[0]); return e && !e.closest('[hidden]') ? e.textContent.trim() : null", css)


def counting_down(face, css, limit, ends_at):
    """Whether the whole seconds shown in `css` count down with the node's time: read once, then
    again once they have gone down by two (an event, not a fixed sleep), never above `limit` at
    the start, and at each read never ahead of the time left to the node's `ends_at` (by the
    node's clock as the page keeps it, read in the same script). A display may lag on a loaded
    machine (a tick drawn late, then caught up), so two reads are not compared with the real
    seconds between them: a late first read made "58 then 56 in 0.8 s" look too fast. Nor is a read
    held to the page's clock where that is above `limit`: the face never shows more than the
    duration, and the page's estimate of the node's clock, made from messages that a loaded
    machine delays, can lag a second or more behind it (seen: 60 shown with 61.3 s left)."""
    def read():
        shown, left = face.js("""const el = document.querySelector(arguments[0]);
            return [el ? el.textContent : null, (Date.parse(arguments[1]) - noiseclockFace.now()) / 1000];""", css, ends_at or "")
        return seconds_of(shown), left

    first, left_first = read()
    start = time.monotonic()
    face.until(lambda: first is None or (read()[0] or first) <= first - 2)
    later, left_later = read()
    took = time.monotonic() - start
    not_ahead = all(shown is not None and isinstance(left, (int, float)) and shown >= min(left, limit) - 1
                    for shown, left in [(first, left_first), (later, left_later)])
    ok = first is not None and later is not None and first <= limit and first - later >= 2 and not_ahead
    return ok, f"{first} then {later} shown in {took:.1f} s, {left_first} then {left_later} s left to ends_at {ends_at}"


def seconds_of(clock):
    """ "4:12" -> 252, "1:02:03" -> 3723; None for anything else."""
    try:
        n = 0
        for part in (clock or "").split(":"):
            n = n * 60 + int(part)
        return n
    except ValueError:
        return None


def node_timers(face):
    return face.state().get("timers") or []


def check_timers(face):
    """Timers (SPEC §10): a preset counting in the panel and under the time, pause, +1 min,
    cancel, at most three chips, one DOM update a second, a custom 3 s timer finishing."""
    face.cmd("timer/cancel")
    face.size(1280, 800)
    face.load()
    open_panel(face, "timers")
    face.d.find_element("css selector", "#sheet-body input.input").send_keys("Pasta")
    face.click(".preset")  # 1 min
    ok = face.until(lambda: len(node_timers(face)) == 1)
    timer = node_timers(face)[0] if ok else {}
    report("timer started from the 1 min preset with its label", ok and timer.get("label") == "Pasta" and timer.get("duration_s") == 60, json.dumps(timer))
    tid = timer.get("id", "")
    row = f'.timer-row[data-id="{tid}"] .timer-time'
    face.until(lambda: text(face, row))
    chip = text(face, "#timer-chips")
    ok, detail = counting_down(face, row, 60, timer.get("ends_at"))
    report("the panel counts the timer down", ok, detail)
    report("a chip under the time names the timer with its time left", chip is not None and chip.startswith("Pasta") and seconds_of(chip[5:]) is not None, str(chip))
    face.shot("face-timers-1280x800")
    r = observe(face, 5)
    report("a running timer: at most one DOM update a second", r["batches"] <= per_second_budget(r) and r["raf"] == 0, json.dumps(r))

    face.click(f'[data-key="p{tid}"]')
    paused = face.until(lambda: (node_timers(face) or [{}])[0].get("state") == "paused")
    # The chip marked paused: the page has drawn the pause, so no tick drawn before it is left.
    marked = face.until(lambda: face.js("return !!document.querySelector('#timer-chips .tchip.paused')"))
    frozen = text(face, row)
    time.sleep(1.5)
    report("pause: paused on the node, the time stands still, the chip is marked",
           paused and marked and text(face, row) == frozen, str(frozen))
    face.click(f'[data-key="p{tid}"]')
    report("resume", face.until(lambda: (node_timers(face) or [{}])[0].get("state") == "running"))
    face.click(f'[data-key="e{tid}"]')
    report("+1 min adds a minute", face.until(lambda: (node_timers(face) or [{}])[0].get("duration_s") == 120), json.dumps(node_timers(face)))
    face.until(lambda: (seconds_of(text(face, row)) or 0) > 60)
    report("the panel shows the minute added", (seconds_of(text(face, row)) or 0) > 60, str(text(face, row)))
    face.click(f'[data-key="c{tid}"]')
    gone = face.until(lambda: not node_timers(face)) and face.until(lambda: face.js("return document.getElementById('timer-chips').hidden"))
    report("cancel removes the timer from the node, the panel and the face", gone)

    for minutes in (4, 2, 3, 5):
        face.cmd("timer/start", {"minutes": minutes, "label": f"T{minutes}"})
    # Three timers show three chips too: wait for the state of all four (the "+2"), which the
    # page may draw after the fourth command's answer has come back.
    face.until(lambda: face.js("return [...document.querySelectorAll('#timer-chips .tchip')].map(c => c.textContent).join('|')").endswith("|+2"))
    chips = face.js("return [...document.querySelectorAll('#timer-chips .tchip')].map(c => c.textContent)")
    report("four timers: two chips, the nearest first, and +2", len(chips) == 3 and chips[0].startswith("T2") and chips[1].startswith("T3") and chips[2] == "+2", json.dumps(chips))
    face.shot("face-timers-chips-1280x800")
    for w, h in [(480, 800), (800, 480)]:
        face.size(w, h)
        face.shot(f"face-timers-{w}x{h}")
    face.cmd("timer/cancel")

    # A custom 3 s timer, set with the steppers' keys, finishes in the view that names it.
    face.size(1280, 800)
    face.load()
    open_panel(face, "timers")
    face.d.find_element("css selector", "#sheet-body input.input").send_keys("Tea")
    spins = face.d.find_elements("css selector", ".custom-time [role=spinbutton]")
    for key, spin, times in [("\ue00f", spins[0], 3), ("\ue013", spins[1], 3)]:  # Page Down (-10 min), Arrow Up (+1 s)
        for _ in range(times):
            spin.send_keys(key)
    face.click(".custom-time ~ .btn-primary")
    started = face.until(lambda: any(t.get("label") == "Tea" for t in node_timers(face)))
    report("a custom 0:03 timer starts", started and node_timers(face)[0].get("duration_s") == 3, json.dumps(node_timers(face)))
    shown = face.until(lambda: face.js("return !document.getElementById('timer-ring').hidden"), step=0.1)
    report("the finished timer shows, named", shown and text(face, ".tring-item h2") == "Tea", str(text(face, "#timer-ring")))
    p = panel_problems(face)
    report("finished view: touch targets and names", not p["small"] and not p["unnamed"], "; ".join(p["small"] + p["unnamed"]))
    for w, h in [(1280, 800), (480, 800), (800, 480)]:
        face.size(w, h)
        face.shot(f"face-timer-finished-{w}x{h}")
    face.size(1280, 800)
    face.click(".tring-actions .ring-snooze")
    cleared = face.until(lambda: face.js("return document.getElementById('timer-ring').hidden")) and not node_timers(face)
    report("Dismiss clears it", cleared, json.dumps(node_timers(face)))

    face.cmd("timer/start", {"seconds": 1, "label": "Eggs"})
    face.cmd("timer/start", {"seconds": 1, "label": "Rice"})
    both = face.until(lambda: face.js("return document.querySelectorAll('#timer-ring .tring-item').length") == 2, step=0.1)
    report("two finished timers are listed", both, str(text(face, "#timer-ring")))
    face.shot("face-timer-finished-two-1280x800")
    face.click(".tring-item .btn")  # +1 min on the first
    again = face.until(lambda: any(t.get("state") == "running" and 55 <= t.get("remaining_s", 0) <= 61 for t in node_timers(face)))
    report("+1 min in the finished view runs the timer again for a minute", again, json.dumps(node_timers(face)))
    face.click(".tring-actions .ring-snooze")
    face.until(lambda: face.js("return document.getElementById('timer-ring').hidden"))
    face.cmd("timer/cancel")


def meditation(face):
    return face.state().get("meditation") or {}


def check_meditation(face):
    """A timed session from the Meditation screen (SPEC §10): its choices and stats, the full-screen
    countdown with an affirmation, pause/resume and stop."""
    before = face.state().get("settings", {}).get("meditation", {})
    face.cmd("settings", {"meditation": {"preparation_s": 2, "minutes": 10, "interval_min": 0}})
    face.size(1280, 800)
    face.load()
    open_panel(face, "meditation")
    face.click('.seg[aria-label="Interval gong"] [data-value="5"]')
    face.click('.seg[aria-label="Duration in minutes"] [data-value="5"]')
    face.until(lambda: face.state().get("settings", {}).get("meditation", {}).get("minutes") == 5)
    time.sleep(0.5)  # the lists are drawn again from the node's settings
    gongs = face.d.find_elements("css selector", '.sound-list [role=radio]')
    if len(gongs) > 1:
        gongs[1].click()
    face.until(lambda: face.state().get("settings", {}).get("meditation", {}).get("gong") != before.get("gong", "singing-bowl"))
    m = face.state().get("settings", {}).get("meditation", {})
    catalog = face.cmd("sounds").get("data", {}).get("gong", [])
    report("the choices go to settings.meditation", m.get("interval_min") == 5 and m.get("minutes") == 5
           and (len(catalog) < 2 or m.get("gong") == catalog[1]["id"]), json.dumps(m))
    stats = face.state().get("meditation/stats") or {}
    shown = face.js("return [...document.querySelectorAll('.stats dd')].map(d => d.textContent)")
    report("the stats show", shown == [str(stats.get(k, 0)) for k in ("sessions", "minutes_total", "minutes_7d", "streak_days")], f"{shown} vs {stats}")
    face.shot("face-meditation-1280x800")
    for w, h in [(480, 800), (800, 480)]:
        face.size(w, h)
        face.shot(f"face-meditation-{w}x{h}")
    face.size(1280, 800)
    face.click(".btn.wide")
    up = face.until(lambda: face.js("return !document.getElementById('session').hidden"))
    report("Start shows the session full screen", up and meditation(face).get("state") in ("preparing", "running"), json.dumps(meditation(face)))
    face.until(lambda: meditation(face).get("state") == "running")
    face.until(lambda: text(face, "#s-phase") == "Meditating")
    ok, detail = counting_down(face, "#s-time", 300, meditation(face).get("ends_at"))
    affirmation = text(face, ".aff.on")
    report("the countdown runs from the duration", ok, f"{text(face, '#s-phase')}: {detail}")
    report("an affirmation shows", bool(affirmation) and len(affirmation) > 10, str(affirmation))
    r = observe(face, 4)
    report("a session: at most one DOM update a second", r["batches"] <= per_second_budget(r) and r["raf"] == 0, json.dumps(r))
    p = panel_problems(face)
    report("session view: touch targets and names", not p["small"] and not p["unnamed"], "; ".join(p["small"] + p["unnamed"]))
    for w, h in face.sizes([(1280, 800), (480, 800), (800, 480), (390, 844)]):
        face.size(w, h)
        face.shot(f"face-meditation-running-{w}x{h}")
        fits = face.js("""const b = [...document.querySelectorAll('#session button, #s-time, .aff.on')].filter(e => e.offsetParent)
            .map(e => e.getBoundingClientRect()); return b.every(r => r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight)""")
        report(f"session fits {w}x{h}", fits)
    face.size(1280, 800)
    face.click("#s-pause")
    paused = face.until(lambda: meditation(face).get("state") == "paused") and face.until(lambda: text(face, "#s-phase") == "Paused")
    frozen = text(face, "#s-time")
    time.sleep(1.5)
    report("pause: the node pauses, the time stands still", paused and text(face, "#s-time") == frozen, str(frozen))
    face.click("#s-pause")
    report("resume", face.until(lambda: meditation(face).get("state") == "running"))
    face.click("#s-stop")
    stopped = face.until(lambda: meditation(face).get("state") == "idle") and face.until(lambda: face.js("return document.getElementById('session').hidden"))
    report("stop ends the session and its view", stopped, json.dumps(meditation(face)))
    restore = {k: before[k] for k in ("minutes", "preparation_s", "interval_min", "gong") if k in before}
    if restore:
        face.cmd("settings", {"meditation": restore})


def check_library(face):
    """The guided meditations of the node's meditations.dir, grouped by teacher: one played (seek,
    pause, stop), one renamed."""
    lib = face.state().get("meditations") or {}
    groups = [g for g in lib.get("groups", []) if g.get("items")]
    face.size(1280, 800)
    face.load()
    open_panel(face, "meditation")
    face.click('.tabs [data-value="library"]')
    heads = face.js("return [...document.querySelectorAll('#sheet-body h3.teacher')].map(h => h.textContent)")
    expected = [g["teacher"] or "Unknown teacher" for g in groups]
    report("the library lists the node's guided meditations by teacher", len(groups) >= 2 and [h.lower() for h in heads] == [e.lower() for e in expected],
           f"{heads} vs {expected}")
    rows = face.js("return [...document.querySelectorAll('.guided-row .row-btn')].map(b => [b.textContent, b.disabled])")
    items = [i for g in groups for i in g["items"]]
    report("each meditation is a row, a broken one disabled with its reason",
           len(rows) == len(items) and all(r[0].startswith(i["name"]) and r[1] == bool(i.get("error")) for r, i in zip(rows, items)), json.dumps(rows))
    for w, h in [(1280, 800), (480, 800), (390, 844)]:
        face.size(w, h)
        face.shot(f"face-library-{w}x{h}")
    face.size(1280, 800)
    playable = [i for i in items if not i.get("error") and i.get("duration_s", 0) >= 10]
    if not playable:
        report("a guided meditation to play", False, json.dumps(lib))
        return
    item = playable[0]
    face.click(f'[data-key="p{item["id"]}"]')
    up = face.until(lambda: face.js("return !document.getElementById('session').hidden"))
    m = meditation(face)
    report("play shows the guided session with its name", up and m.get("kind") == "guided" and item["name"] in (text(face, "#s-item") or ""), json.dumps(m))
    time.sleep(1.2)
    face.js("const r = document.getElementById('s-range'); r.value = 6; r.dispatchEvent(new Event('input')); r.dispatchEvent(new Event('change'));")
    sought = face.until(lambda: 5 <= (meditation(face).get("position_s") or 0) <= 9)
    report("the seek bar moves the node's position", sought, json.dumps(meditation(face)))
    face.until(lambda: (seconds_of((text(face, "#s-pos") or "").split(" / ")[0]) or 0) >= 6)
    report("the position shows", (seconds_of((text(face, "#s-pos") or "").split(" / ")[0]) or 0) >= 6, str(text(face, "#s-pos")))
    face.shot("face-library-playing-1280x800")
    face.click("#s-pause")
    report("pause a guided meditation", face.until(lambda: meditation(face).get("state") == "paused"))
    face.click("#s-pause")
    report("resume a guided meditation", face.until(lambda: meditation(face).get("state") == "running"))
    face.click("#s-stop")
    report("stop a guided meditation", face.until(lambda: meditation(face).get("state") == "idle"))

    face.load()
    open_panel(face, "meditation")
    face.click('.tabs [data-value="library"]')
    face.click(f'[data-key="e{item["id"]}"]')
    inputs = face.d.find_elements("css selector", "#sheet-body input.input")
    inputs[0].clear()
    inputs[0].send_keys("Evening Calm")
    inputs[1].clear()
    inputs[1].send_keys("Ana Teacher")
    face.click("#sheet-body .actions .btn-primary")
    renamed = face.until(lambda: "Ana Teacher" in face.js("return [...document.querySelectorAll('#sheet-body h3.teacher')].map(h => h.textContent)"))
    report("rename: the entry moves to its new teacher", renamed and "Evening Calm" in (text(face, "#sheet-body") or ""), str(text(face, "#sheet-body")))
    face.cmd("meditation/edit", {"id": item["id"], "name": "", "teacher": ""})


def observe(face, seconds):
    """DOM update batches, WebSocket messages and animation-frame requests over about `seconds`, and
    where each batch began (for the report). `window` is how long the page really watched, by its
    own clock: on a loaded machine the WebDriver call that reads the counts can come seconds after
    the sleep, so a budget of updates is counted against that (`per_second_budget`), not against
    `seconds`. Open controls are touched first (a wheel event, as a hand on the screen would): on a
    loaded machine the checks before may have taken most of the 10 s after which they hide, and
    their hiding is no update of a running clock."""
    face.js("""if (!document.getElementById('dock').hidden) document.body.dispatchEvent(new WheelEvent('wheel', {bubbles: true}));
        window.__batches = 0; window.__where = []; window.__mo?.disconnect();
        window.__mo = new MutationObserver((records) => {
          window.__batches++;
          const t = records[0].target, el = t.nodeType === 1 ? t : t.parentElement;
          window.__where.push(el ? (el.id || el.closest('[id]')?.id || el.className || el.tagName) : '?');
        });
        window.__mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
        window.__ws0 = window.__wsMessages; window.__raf0 = window.__rafCalls; window.__t0 = performance.now();""")
    time.sleep(seconds)
    return face.js("""return {batches: window.__batches, messages: window.__wsMessages - window.__ws0, raf: window.__rafCalls - window.__raf0,
        window: Math.round(performance.now() - window.__t0) / 1000, where: window.__where.slice(0, 12)}""")


def per_second_budget(r):
    """At most one update a second: one at each second boundary the window spans (int(window) + 1
    of them at most), one more for the tick of the boundary just before the window, which a loaded
    machine runs late, inside it (seen: 6 updates in 4.83 s, all the session's countdown, one per
    boundary), plus one per WebSocket message. Two updates for one boundary still exceed it over a
    window of a few seconds."""
    return int(r["window"]) + 2 + r["messages"]


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
    report("idle, seconds shown: about one DOM update a second", 4 <= r["batches"] <= per_second_budget(r), json.dumps(r))
    face.cmd("settings", {"show_seconds": show_seconds_before})
    if face.engine != "chromium":
        return  # performance.memory and a forced collection are Chromium's
    # The live heap: garbage the earlier pages of this tab left in its renderer is collected first.
    face.d.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
    heap = face.js("return performance.memory ? performance.memory.usedJSHeapSize : null")
    report("JS heap <= 10 MB", heap is not None and heap <= 10 * 1024 * 1024, f"{(heap or 0) / 1048576:.1f} MB")


def hold_until(face, button, done, longest=5):
    """Presses `button` and keeps it pressed until `done()` (the hold's action was taken) or
    `longest` seconds, then lets go; returns whether it was done. A hold of a fixed length raced
    the face's one-second timer on a loaded machine: a browser runs a waiting input event (the
    release) before a due timer, so a release sent 1.2 s after the press could arrive first."""
    ActionChains(face.d).click_and_hold(button).perform()
    try:
        return face.until(done, longest, 0.1)
    finally:
        ActionChains(face.d).release().perform()


def check_ringing(face, ring_command, ring_at, timeout, sound_failed=False):
    """A ringing alarm: the view shows; a short click on Dismiss does not dismiss; a hold does.
    With `sound_failed` (the node cannot make a sound), the page plays the tone itself until then."""
    face.size(1280, 800)
    face.load()
    if ring_command:
        subprocess.run(ring_command, shell=True, check=False)
    elif ring_at is not None and face.clock_file:
        face.set_node_time(ring_at)
    shown = face.until(lambda: face.js("return !document.getElementById('ringing').hidden"), timeout, 0.2)
    report("ringing view shows", shown, f"waited up to {timeout} s")
    if not shown:
        return
    face.shot("face-ringing-1280x800")
    if sound_failed:
        check_sound_failed(face)
    # A timer that finishes while the alarm rings: the alarm's view stays in front.
    face.cmd("timer/start", {"seconds": 1, "label": "Oven"})
    timer_rings = face.until(lambda: any(t.get("state") == "ringing" for t in node_timers(face)))
    report("a ringing alarm comes before a finished timer", timer_rings and face.js("return document.getElementById('timer-ring').hidden")
           and not face.js("return document.getElementById('ringing').hidden"), json.dumps(node_timers(face)))
    button = face.d.find_element("css selector", "#ring-dismiss")
    button.click()
    time.sleep(1.5)
    still = face.state().get("alarm/state", {}).get("state") == "ringing" and face.js("return !document.getElementById('ringing').hidden")
    report("short click on Dismiss does not dismiss", still)
    gone = hold_until(face, button, lambda: face.js("return document.getElementById('ringing').hidden"))
    report("holding Dismiss dismisses", gone and face.state().get("alarm/state", {}).get("state") != "ringing")
    if sound_failed:
        report("sound failed: Dismiss stops the page's tone", face.until(lambda: face.js("return noiseclockFace.browserTone().state") == ""),
               json.dumps(face.js("return noiseclockFace.browserTone()")))
    if timer_rings:
        after = face.until(lambda: text(face, ".tring-item h2") == "Oven")
        report("then the finished timer shows", after, str(text(face, "#timer-ring")))
        if after:
            face.click(".tring-actions .ring-snooze")
    face.cmd("timer/cancel")


# --- speaking (SPEC §16): the caption of what the clock says, Say the time, the briefing

SPOKEN = "The tea is ready."
LONG_TEXT = ("A message from the house: the washing machine has finished, the back door is still open, "
             "and the rain is coming at about half past nine, so the windows upstairs should be closed before then. "
             "Tomorrow starts with a dentist appointment at eight fifteen, then the school run, and the bins go out in the "
             "morning. The car's battery is charged to ninety percent. The living room is at twenty-one degrees, the "
             "bedroom at eighteen. A parcel was left with the neighbours at number twelve. ") * 3
LONG_TEXT = LONG_TEXT[:1000]
LONG_GERMAN = ("Eine Nachricht vom Haus: Die Waschmaschine ist fertig, die Hintertür steht noch offen, und gegen "
               "halb zehn kommt Regen, also bitte vorher die Fenster oben schließen. Morgen beginnt mit einem Zahnarzttermin "
               "um Viertel nach acht, dann geht es zur Schule, und die Mülltonnen müssen raus. Der Akku des Autos ist zu neunzig "
               "Prozent geladen. Im Wohnzimmer sind es einundzwanzig Grad, im Schlafzimmer achtzehn. ") * 3
LONG_GERMAN = LONG_GERMAN[:1000]

# The caption beside the time: both on the screen, the caption under the time and apart from it,
# nothing of the face's own bands covered; the text cut to its lines (never past the caption's box).
CAPTION_LAYOUT = """
const s = document.getElementById('speech'), t = document.getElementById('time'), x = s.querySelector('.speech-text');
if (s.hidden) return ['no caption'];
const a = s.getBoundingClientRect(), b = t.getBoundingClientRect(), c = x.getBoundingClientRect(), out = [];
const r = (q) => [q.left, q.top, q.right, q.bottom].map(Math.round).join(',');
if (a.top < b.bottom - 0.5) out.push(`the caption (${r(a)}) overlaps the time (${r(b)})`);
if (a.left < -0.5 || a.right > innerWidth + 0.5 || a.bottom > innerHeight + 0.5) out.push(`the caption (${r(a)}) leaves the screen`);
if (c.bottom > a.bottom + 0.5) out.push(`the text (${r(c)}) runs out of the caption (${r(a)})`);
const band = document.querySelector('.band-bottom').getBoundingClientRect();
if (band.height && a.bottom > band.top + 0.5 && !document.body.classList.contains('controls')) out.push(`the caption covers the bottom band (${r(band)})`);
return out;"""


def caption(face):
    return text(face, "#speech .speech-text")


def record_captions(face):
    """Keeps each caption the page shows ([text, its utterance's id], in window.__captions), as the
    page shows it."""
    face.js("""window.__captions = [];
        const s = document.getElementById('speech');
        const look = () => { const x = s.querySelector('.speech-text');
            if (x && !x.closest('[hidden]')) window.__captions.push([x.textContent.trim(), s.dataset.id]); };
        new MutationObserver(look).observe(s, {subtree: true, childList: true, characterData: true, attributes: true});""")


def shown_captions(face):
    return face.js("return window.__captions || []")


def time_height(face):
    return face.js("return document.getElementById('time').getBoundingClientRect().height")


def record_events(face):
    """Keeps the node's events that reach the page (in window.__events), from the page's socket."""
    face.js("""window.__events = [];
        const ws = window.__sockets[window.__sockets.length - 1];
        ws.addEventListener('message', (e) => { const m = JSON.parse(e.data); if (m.type === 'event') window.__events.push(m.payload); });""")


def page_events(face, name):
    return [e for e in face.js("return window.__events || []") if e.get("event") == name]


def caption_sizes(face, name, shot, heights, german=None):
    """At the six sizes: the caption under the time, on the screen, the time at least half as tall as
    without it (`heights`), a screenshot each; in German no English text on the way."""
    problems = []
    # Its half-second fade-in over (a picture taken at once would show it faint, or not yet).
    face.until(lambda: face.js("return document.getElementById('speech').getAnimations().every((a) => a.playState === 'finished')"), 5)
    for w, h in face.sizes(SIZES):
        face.size(w, h)
        problems += [f"{w}x{h}: {p}" for p in face.js(CAPTION_LAYOUT)]
        kept = time_height(face) / heights[(w, h)] if heights.get((w, h)) else 1
        if kept < 0.5:
            problems.append(f"{w}x{h}: the time shrank to {kept:.0%} of its height")
        if german is not None:
            problems += [f"{w}x{h}: {p}" for p in english_in(face.js(VISIBLE_TEXTS), german)]
        face.shot(f"{'de-' if german is not None else 'face-'}{shot}-{w}x{h}")
    face.size(1280, 800)
    report(f"speech: {name} under the time, clear of it, at the six sizes{' in German' if german is not None else ''}", not problems, "; ".join(problems[:6]))


def say(face, payload):
    r = face.cmd("say", payload)
    if r.get("status") != "ok":
        report(f"speech: say {json.dumps(payload)[:60]} is taken", False, json.dumps(r))
    return r.get("data", {}).get("id")


def check_speech(face):
    """The clock speaking on the face (SPEC §16): the caption shows the words while B/speech says
    they are spoken, and goes with speech_finished; a 1000-character text is cut to its lines and
    the time keeps its room, at the six sizes, red and German too; the caption's Stop says say/stop;
    Say the time (with the controls) sends say/time; the alarm editor's Briefing switch sets the
    alarm's `briefing` on the node, and the list shows it."""
    en, de = catalog(face, "en"), catalog(face, "de")
    face.size(1280, 800)
    face.cmd("say/stop")
    face.load()
    report("speech: the node says it can speak", node_state(face, "speech").get("engine") not in (None, "none"), json.dumps(node_state(face, "speech")))
    heights = {}
    for w, h in face.sizes(SIZES):
        face.size(w, h)
        heights[(w, h)] = time_height(face)
    face.size(1280, 800)
    record_events(face)
    record_captions(face)
    said = say(face, {"text": SPOKEN, "chime": False})
    # Seen by the page itself: a loaded machine's WebDriver may look only after a short sentence ended.
    shown = face.until(lambda: [SPOKEN, said] in shown_captions(face))
    report("speech: the caption shows the text being spoken", shown, f"{shown_captions(face)!r}; {json.dumps(node_state(face, 'speech'))}")
    gone = face.until(lambda: caption(face) is None)
    finished = [e for e in page_events(face, "speech_finished") if e.get("id") == said]
    report("speech: the caption goes when speech_finished arrives", gone and len(finished) == 1 and finished[0].get("text") == SPOKEN
           and node_state(face, "speech").get("speaking") is None, f"events {face.js('return window.__events')}")
    home = heights[tuple(face.viewport())]  # 1280x800, or the size WebKit's window has
    report("speech: the time takes its room back", abs(time_height(face) - home) < 2, f"{time_height(face)} vs {home}")

    said = say(face, {"text": LONG_TEXT, "chime": False})
    face.until(lambda: caption(face) == LONG_TEXT)
    lines = face.js("""const x = document.querySelector('#speech .speech-text');
        return Math.round(x.getBoundingClientRect().height / parseFloat(getComputedStyle(x).lineHeight));""")
    report("speech: 1000 characters are cut to three lines, the whole text kept for screen readers", lines == 3 and caption(face) == LONG_TEXT, f"{lines} lines")
    caption_sizes(face, "a 1000-character caption", "speech", heights)
    face.cmd("settings", {"face": {"theme": "red"}})
    face.until(lambda: face.js("return document.documentElement.dataset.theme") == "red")
    colour = face.js("return getComputedStyle(document.querySelector('#speech .speech-text')).color")
    report("speech: the caption in the red theme is red alone", re.fullmatch(r"rgb\(\d+, 0, 0\)", colour or "") is not None, colour)
    for w, h in [(800, 480), (480, 800), (1280, 800)]:
        face.size(w, h)
        face.shot(f"face-speech-red-{w}x{h}")
    face.size(1280, 800)
    face.cmd("settings", {"face": {"theme": "night"}})
    face.click("#speech .speech-btn")
    stopped = face.until(lambda: caption(face) is None)
    dropped = [e for e in page_events(face, "speech_dropped") if e.get("id") == said]
    report("speech: the caption's Stop stops it (say/stop): the caption goes", stopped and dropped and dropped[0].get("reason") == "stopped"
           and node_state(face, "speech").get("speaking") is None, json.dumps(dropped))
    report("speech: Stop did not open the controls", not face.js("return document.body.classList.contains('controls')"))

    face.cmd("settings", {"language": "de"})
    face.until(lambda: text(face, "#say-time span") == de["speech.say_time"] or face.js("return document.documentElement.lang") == "de")
    say(face, {"text": LONG_GERMAN, "chime": False, "language": "de"})
    face.until(lambda: caption(face) == LONG_GERMAN)
    report("speech: the caption's name in German", text(face, "#speech .speech-title") == de["speech.speaking"], str(text(face, "#speech .speech-title")))
    caption_sizes(face, "a German caption", "speech", heights, english_patterns(en, de))
    face.cmd("say/stop")
    face.until(lambda: caption(face) is None)
    face.cmd("settings", {"language": "en"})
    face.until(lambda: face.js("return document.documentElement.lang") == "en")

    # Say the time: the button comes with the controls, at the top, and sends say/time.
    face.size(800, 480)
    face.click("#stage")
    button = face.until(lambda: text(face, "#say-time span") == en["speech.say_time"] and face.js(FITS, ["#say-time"]) == [])
    size = face.js("const r = document.getElementById('say-time').getBoundingClientRect(); return [r.width, r.height]")
    report("speech: Say the time shows with the controls, 48 px at least", button and min(size) >= 47.5, json.dumps(size))
    face.click("#say-time")
    told = face.until(lambda: face.js("return document.getElementById('speech').dataset.kind") == "time")
    report("speech: Say the time asks the node (say/time), and its words show", told and bool(caption(face))
           and (node_state(face, "speech").get("speaking") or {}).get("kind") in ("time", None), f"{caption(face)!r}")
    face.shot("face-say-time-800x480")
    face.size(390, 844)
    face.shot("face-say-time-390x844")
    face.size(1280, 800)
    face.until(lambda: caption(face) is None)
    face.js("document.body.classList.contains('controls') && document.querySelector('#stage').click()")

    # The alarm editor's Briefing switch, saved to the node.
    alarm = next((a for a in node_state_list(face, "alarms") if a.get("label") == "Work"), None)
    if alarm is None:
        report("speech: the Work alarm is there to get a briefing", False, json.dumps(node_state_list(face, "alarms")))
        return
    face.size(480, 800)
    open_panel(face, "alarms")
    face.click(f'[data-key="edit-{alarm["id"]}"]')
    switch = '[data-field="briefing"]'
    report("speech: the editor has the Briefing switch, off", face.until(lambda: face.js(
        "return document.querySelector(arguments[0])?.getAttribute('aria-checked')", switch) == "false"))
    face.js("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", switch)
    face.click(switch)
    face.shot("face-alarm-editor-briefing-480x800")
    face.click("#sheet-body .actions .btn-primary")
    saved = face.until(lambda: next((a for a in node_state_list(face, "alarms") if a.get("id") == alarm["id"]), {}).get("briefing") is True)
    report("speech: the Briefing switch sets the alarm's briefing on the node (B/alarms)", saved, json.dumps(node_state_list(face, "alarms")))
    marked = face.until(lambda: text(face, f'[data-key="edit-{alarm["id"]}"] .alarm-briefing') == en["alarms.briefing"])
    report("speech: the alarm list says the alarm has a briefing", marked)
    face.shot("face-alarms-briefing-480x800")
    face.size(1280, 800)
    close_sheet(face)


def node_state_list(face, topic):
    return face.state().get(topic) or []


def check_briefing(face):
    """After the Work alarm (with its briefing, set by check_speech) was dismissed: the briefing's
    words show while they are spoken, stay after, and a tap puts them away."""
    en = catalog(face, "en")
    spoken = {}
    def speaking_briefing():
        s = (node_state(face, "speech").get("speaking") or {})
        if s.get("kind") == "briefing":
            spoken.update(s)
        return bool(spoken) and caption(face) == spoken.get("text")
    shown = face.until(speaking_briefing, step=0.1)
    report("briefing: its text shows while it is spoken", shown and face.js("return document.getElementById('speech').classList.contains('briefing')"),
           f"{caption(face)!r} / {json.dumps(spoken)}")
    report("briefing: named with the alarm's label", text(face, "#speech .speech-title") == en["speech.briefing.label"].replace("{label}", "Work"),
           str(text(face, "#speech .speech-title")))
    caption_sizes(face, "the briefing", "briefing", {})
    done = face.until(lambda: node_state(face, "speech").get("speaking") is None)
    report("briefing: it stays on the face after it was spoken, with Close", done and caption(face) == spoken.get("text")
           and face.js("return document.querySelector('#speech .speech-btn').getAttribute('aria-label')") == en["speech.close"])
    face.size(800, 480)
    face.shot("face-briefing-after-800x480")
    face.size(1280, 800)
    face.click("#speech .speech-text")
    report("briefing: a tap puts it away, without opening the controls", face.until(lambda: caption(face) is None)
           and not face.js("return document.body.classList.contains('controls')"))


# --- the day: weather on the face, why an alarm moved, the editor's day fields (SPEC §17)

# A WMO code of each kind the face draws; the kind is read back from the node's B/weather.
WEATHER_CODES = [0, 2, 3, 45, 53, 63, 66, 73, 81, 85, 95]

WEATHER_LAYOUT = """
const w = document.getElementById('weather'), d = document.getElementById('date'), t = document.getElementById('time');
if (w.hidden || !w.getClientRects().length) return ['no weather shown'];
const a = w.getBoundingClientRect(), b = t.getBoundingClientRect(), c = d.getBoundingClientRect(), out = [];
const r = (q) => [q.left, q.top, q.right, q.bottom].map(Math.round).join(',');
if (a.top < b.bottom - 0.5) out.push(`the weather (${r(a)}) overlaps the time (${r(b)})`);
if (a.left < -0.5 || a.right > innerWidth + 0.5 || a.bottom > innerHeight + 0.5) out.push(`the weather (${r(a)}) leaves the screen`);
if (!d.hidden && a.top < c.bottom - 0.5 && a.left < c.right - 0.5) out.push(`the weather (${r(a)}) overlaps the date (${r(c)})`);
if (!d.hidden && a.top >= c.bottom - 0.5 && a.top - c.bottom > a.height) out.push(`the weather (${r(a)}) is far from the date (${r(c)})`);
const band = document.querySelector('.band-bottom').getBoundingClientRect();
if (band.height && a.bottom > band.top + 0.5) out.push(`the weather covers the bottom band (${r(band)})`);
const icon = w.querySelector('svg').getBoundingClientRect();
if (icon.height < 18) out.push(`the icon is ${Math.round(icon.height)} px tall`);
return out;"""


def publish(args, payload):
    """Publishes `payload` to the node's weather topic (weather.source: mqtt), as an automation would."""
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(args.mqtt_port), "-t", args.weather_topic, "-m", json.dumps(payload)],
                   check=True, timeout=30)


def weather_shown(face):
    return face.js("""const w = document.getElementById('weather'), s = w.querySelectorAll('span');
        return w.hidden ? null : {kind: w.dataset.kind, icon: w.dataset.icon, temp: s[0].textContent, range: s[1].textContent,
          as_of: s[2].textContent, old: w.classList.contains('old'), drawn: !!document.getElementById('i-' + w.dataset.icon)
          && w.querySelector('svg').childElementCount > 0, label: w.getAttribute('aria-label')};""")


def check_weather(face, args):
    """The weather beside the date: none published, no overlay; an automation's report shows the
    temperature, low and high and the icon of its kind (every kind the node names); at the six
    sizes clear of the time, in the red theme red alone, in German; stale: dimmed, "as of"."""
    en, de = catalog(face, "en"), catalog(face, "de")
    face.size(1280, 800)
    face.load()
    report("weather: none published, no overlay", face.js("return document.getElementById('weather').hidden")
           and not (node_state(face, "weather") or {}).get("kind"), json.dumps(node_state(face, "weather")))
    publish(args, {"condition": "snowy", "temperature": -2, "low": -5, "high": 1, "precipitation_probability": 70})
    shown = face.until(lambda: (weather_shown(face) or {}).get("kind") == "snow")
    w = weather_shown(face) or {}
    report("weather: the overlay shows the temperature, the low and the high, and the icon of its kind",
           shown and w["temp"] == "\u22122°C" and w["range"] == "\u22125° / 1°" and w["icon"] == "w-snow" and w["drawn"] and not w["old"]
           and w["label"].startswith(node_state(face, "weather")["names"]["en"]), json.dumps(w))
    kinds, wrong = [], []
    for code in WEATHER_CODES:
        publish(args, {"condition": code, "temperature": 4.4, "low": -1, "high": 6})
        face.until(lambda: node_state(face, "weather").get("condition") == code)
        kind = node_state(face, "weather")["kind"]
        kinds.append(kind)
        want = {"ice": "freezing_rain", "thunder": "thunderstorm"}.get(kind, kind)
        face.until(lambda: (weather_shown(face) or {}).get("kind") == want, 10)
        w = weather_shown(face) or {}
        if w.get("kind") != want or not w.get("drawn") or w.get("temp") != "4°C":
            wrong.append(f"{code} ({kind}): {json.dumps(w)}")
        if code in (0, 63, 81, 95) and face.resizable:
            face.size(480, 800)
            face.shot(f"face-weather-{want}-480x800")
            face.size(1280, 800)
    report("weather: an icon of its own for every kind the node names", not wrong and len(set(kinds)) >= 9, "; ".join(wrong) or ", ".join(kinds))
    publish(args, {"condition": "snowy", "temperature": -2, "low": -5, "high": 1, "precipitation_probability": 70})
    face.until(lambda: (weather_shown(face) or {}).get("kind") == "snow")
    problems = []
    for w_, h_ in face.sizes(SIZES):
        face.size(w_, h_)
        problems += [f"{w_}x{h_}: {p}" for p in face.js(WEATHER_LAYOUT)]
        face.shot(f"face-weather-{w_}x{h_}")
    report("weather: beside the date, clear of the time, on the screen, at the six sizes", not problems, "; ".join(problems[:6]))
    face.size(1280, 800)
    face.cmd("settings", {"face": {"theme": "red"}})
    face.until(lambda: face.js("return document.documentElement.dataset.theme") == "red")
    colours = face.js("""const w = document.getElementById('weather');
        return [w, ...w.querySelectorAll('span, svg')].map((e) => [getComputedStyle(e).color, getComputedStyle(e).stroke]).flat()
          .filter((c) => c && c !== 'none');""")
    report("weather: in the red theme red alone", all(re.fullmatch(r"rgba?\(\d+, 0, 0(, [\d.]+)?\)|currentcolor", c, re.I) for c in colours),
           json.dumps(colours))
    for w_, h_ in face.sizes([(800, 480), (480, 800), (1280, 800)]):
        face.size(w_, h_)
        face.shot(f"face-weather-red-{w_}x{h_}")
    face.size(1280, 800)
    face.cmd("settings", {"face": {"theme": "night"}, "language": "de"})
    face.until(lambda: face.js("return document.documentElement.lang") == "de")
    face.until(lambda: (weather_shown(face) or {}).get("label", "").startswith(node_state(face, "weather")["names"]["de"]), 10)
    w = weather_shown(face) or {}
    problems = [f"label {w.get('label')!r}"] if not w.get("label", "").startswith(node_state(face, "weather")["names"]["de"]) else []
    patterns = english_patterns(en, de)
    for w_, h_ in face.sizes(SIZES):
        face.size(w_, h_)
        problems += [f"{w_}x{h_}: {p}" for p in face.js(WEATHER_LAYOUT) + english_in(face.js(VISIBLE_TEXTS), patterns)]
        face.shot(f"de-weather-{w_}x{h_}")
    report("weather: in German, named in German, at the six sizes", not problems, "; ".join(problems[:6]))
    face.size(1280, 800)
    # Three hours and a few minutes on, the node says the report is stale: dimmed, "Stand 07:00".
    published = node_state(face, "weather")["updated_at"]
    face.set_node_time(datetime.fromisoformat(face.state()["clock"]["iso"]).timestamp() + 3 * 3600 + 300)
    # The temperature dimmed, the "as of" that says why at full strength and the size of the rest.
    opacity = lambda css: float(face.js("return getComputedStyle(document.querySelector(arguments[0])).opacity", css))
    size = lambda css: float(face.js("return parseFloat(getComputedStyle(document.querySelector(arguments[0])).fontSize)", css))
    stale = face.until(lambda: node_state(face, "weather").get("stale") is True and (weather_shown(face) or {}).get("old")
                       and opacity("#weather > span") < 0.6, 60)
    hhmm = datetime.fromisoformat(published).strftime("%H:%M")
    w = weather_shown(face) or {}
    report("weather: stale, it is dimmed and says when it is from (German), the saying as large and strong as the rest",
           stale and w["as_of"] == de["weather.as_of"].replace("{time}", hhmm) and opacity("#weather .wx-as-of") == 1
           and size("#weather .wx-as-of") == size("#weather > span"),
           f"opacity {opacity('#weather > span')} / {opacity('#weather .wx-as-of')}, size {size('#weather .wx-as-of')} / {size('#weather > span')}: {json.dumps(w)}")
    for w_, h_ in face.sizes([(800, 480), (1280, 800)]):
        face.size(w_, h_)
        face.shot(f"de-weather-stale-{w_}x{h_}")
    face.cmd("settings", {"language": "en"})
    face.until(lambda: face.js("return document.documentElement.lang") == "en")
    w = weather_shown(face) or {}
    report("weather: stale, in English \"as of\"", w.get("as_of") == en["weather.as_of"].replace("{time}", hhmm), json.dumps(w))
    face.size(800, 480)
    face.shot("face-weather-stale-800x480")
    face.size(1280, 800)
    publish(args, {"condition": 0, "temperature": 21.6, "low": 12, "high": 24})
    fresh = face.until(lambda: (weather_shown(face) or {}).get("kind") == "clear" and not weather_shown(face)["old"])
    report("weather: a new report is current again", fresh and weather_shown(face)["as_of"] == "", json.dumps(weather_shown(face)))


def check_day_alarms(face, args):
    """The alarm editor's Earlier if sets the alarm's earlier_if on the node; the list says why an
    alarm moved, from each alarm's `next` in B/alarms; the calendar section offers B/calendar's feeds."""
    en = catalog(face, "en")
    # The evening before: 23:00 by the node's clock, a weekday alarm at 06:30 (within the 8 hours in
    # which the node decides) and snow forecast hour by hour for the next twelve (Home Assistant's
    # weather.get_forecasts shape).
    evening = datetime.fromisoformat(face.state()["clock"]["iso"]).replace(hour=23, minute=0, second=0, microsecond=0)
    face.set_node_time(evening.timestamp())
    face.until(lambda: face.state()["clock"]["iso"][11:13] == "23", 90)
    hours = [{"datetime": datetime.fromtimestamp(evening.timestamp() + i * 3600, evening.tzinfo).isoformat(), "condition": "snowy", "temperature": -3}
             for i in range(12)]
    publish(args, {"condition": "snowy", "temperature": -2, "low": -5, "high": 1, "precipitation_probability": 70, "forecast": hours})
    face.cmd("alarm/add", {"time": "08:30", "label": "Weekend", "days": ["sat", "sun"]})
    added = face.cmd("alarm/add", {"time": "06:30", "label": "Work", "days": DAYS[:5]})
    alarm_id = (added.get("data") or {}).get("id") or next((a["id"] for a in node_state_list(face, "alarms") if a.get("label") == "Work"), None)
    face.size(480, 800)
    open_panel(face, "alarms")
    face.click(f'[data-key="edit-{alarm_id}"]')
    snow = '[data-field="earlier_if.snow"]'
    report("day: the editor has Earlier if, off", face.until(lambda: face.js(
        "return document.querySelector(arguments[0] + ' [aria-pressed=true]')?.dataset.value", snow) == "0"))
    face.js("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", snow)
    face.click(f'{snow} [data-value="20"]')
    face.click('[data-field="earlier_if.rain"] [data-value="10"]')
    face.shot("face-alarm-editor-earlier-480x800")
    feeds = [f.get("id") for f in (node_state(face, "calendar") or {}).get("feeds", [])]
    has_section = face.js("return !!document.querySelector('[data-field=\"calendar.feed\"]')")
    report("day: the calendar section is there exactly when the node has feeds", has_section == bool(feeds), f"feeds {feeds}")
    if feeds:
        face.js("document.querySelector('[data-field=\"calendar.feed\"]').scrollIntoView({block: 'center'})")
        face.click(f'[data-field="calendar.feed"] [data-value="{feeds[0]}"]')
        face.shot("face-alarm-editor-calendar-480x800")
    face.click("#sheet-body .actions .btn-primary")
    def saved():
        a = next((a for a in node_state_list(face, "alarms") if a.get("id") == alarm_id), {})
        e = a.get("earlier_if") or {}
        return e.get("snow") == 20 and e.get("rain") == 10 and not e.get("ice") and (not feeds or (a.get("calendar") or {}).get("feed") == feeds[0])
    report("day: Earlier if sets the alarm's earlier_if on the node (B/alarms)", face.until(saved, 30), json.dumps(node_state_list(face, "alarms")))
    # The node says why each alarm moved (its `next`); the list says it in words.
    moved = lambda: [a for a in node_state_list(face, "alarms") if a.get("enabled") and a.get("next")]
    face.until(lambda: bool(moved()), 30)
    tz = datetime.fromisoformat(face.state()["clock"]["iso"]).tzinfo
    hm = lambda iso: datetime.fromisoformat(iso).astimezone(tz).strftime("%H:%M")

    def mismatches():
        """Each moved alarm whose line in the list is not what its `next` says, and how many moved."""
        out, alarms = [], moved()
        for a in alarms:
            n, parts = a["next"], [hm(a["next_fire"])]
            if n.get("event"):
                parts.append(en["alarms.why.event"].replace("{title}", n["event"]["title"]).replace("{start}", hm(n["event"]["start"])))
            if n.get("reason"):
                parts.append(en["alarms.why.earlier"].replace("{count}", str(n["earlier_by_min"])).replace("{reason}", en["alarms.reason." + n["reason"]]))
            got = (text(face, f'[data-key="edit-{a["id"]}"] .alarm-why') or "").replace("\u00a0", " ")
            if got != " · ".join(parts):
                out.append(f"{a['label']}: {got!r}, not {' · '.join(parts)!r}")
        return out, len(alarms)
    face.until(lambda: not mismatches()[0], 10)
    problems, seen = mismatches()
    report("day: the alarm list says why an alarm moved", seen > 0 and not problems, "; ".join(problems) or f"{seen} moved: {json.dumps(moved())}")
    if feeds:
        # The feed's dentist at 07:30 (the test's work.ics): an hour before, and 20 minutes more for the snow.
        why = lambda: text(face, f'[data-key="edit-{alarm_id}"] .alarm-why') or ""
        event = en["alarms.why.event"].replace("{title}", "Dentist").replace("{start}", "07:30")
        report("day: an alarm that follows the calendar names the event", face.until(lambda: event in why(), 30),
               f"{why()!r}; calendar {json.dumps(node_state(face, 'calendar'))[:300]}")
    face.shot("face-alarms-why-480x800")
    face.size(390, 844)
    face.shot("face-alarms-why-390x844")
    # In German: „06:10 · 20 Min. früher: Schnee“.
    de = catalog(face, "de")
    face.cmd("settings", {"language": "de"})
    word = de["alarms.why.earlier"].split("{count}")[1].split("{reason}")[0]
    german = face.until(lambda: word in (text(face, f'[data-key="edit-{alarm_id}"] .alarm-why') or ""), 10)
    report("day: the alarm list says why in German", german and (text(face, f'[data-key="edit-{alarm_id}"] .alarm-why') or "").endswith(
        de["alarms.reason.snow"]), str(text(face, f'[data-key="edit-{alarm_id}"] .alarm-why')))
    face.size(480, 800)
    face.shot("de-alarms-why-480x800")
    face.cmd("settings", {"language": "en"})
    face.until(lambda: face.js("return document.documentElement.lang") == "en")
    face.size(1280, 800)
    close_sheet(face)
    face.cmd("alarm/disable", {"id": alarm_id})  # it would ring under the disconnection check
    # 23:00, after the sunset B/display names (the node's latitude and longitude): no sun in any
    # icon — a clear sky is a moon, a partly cloudy one a moon behind a cloud, and showers too.
    night = []
    face.js("document.body.classList.contains('controls') && document.querySelector('#stage').click()")
    for code, icon in [(0, "moon"), (2, "w-night"), (80, "w-showers-night")]:
        publish(args, {"condition": code, "temperature": 9, "low": 4, "high": 17})
        night.append(face.until(lambda: (weather_shown(face) or {}).get("icon") == icon and weather_shown(face).get("drawn"), 10))
        if code in (0, 80):
            face.size(800, 480)
            face.shot("face-weather-night-800x480" if code == 0 else "face-weather-showers-night-800x480")
            face.size(1280, 800)
    report("weather: after sunset a moon for a clear sky, behind a cloud, and over showers", all(night),
           f"{json.dumps(weather_shown(face))}; display {json.dumps(node_state(face, 'display'))}")


# --- the radio (SPEC §15)

def radio_state(face):
    return node_state(face, "radio")


def station_names(face):
    return face.js("return [...document.querySelectorAll('#sheet-body .station-row .station-name')].map((e) => e.textContent.trim())")


def field_error(face, name):
    return face.js("""const e = document.querySelector(`#sheet-body .field[data-field="${arguments[0]}"] .field-error`);
        return e && !e.hidden ? e.textContent.trim() : null""", name)


def type_into(face, css, value):
    el = face.d.find_element("css selector", css)
    el.clear()
    el.send_keys(value)


def check_radio(face, live=None, title=None):
    """The Radio panel (SPEC §15) against the node's stations (radio.stations in its file): listed in
    order; a tap plays a station and the panel follows the node's state (an unreachable one is
    connecting or retrying, with the node's reason; `live` plays with the ICY `title` on the clock);
    Stop; a station added by its address is the node's; an address the node refuses shows its
    message beside the field it names; the bell makes a station the sound new alarms get; the alarm
    editor offers the stations and saves radio:<id>, and the alarm list names the station; a delete
    takes two taps; no search without a directory; the six sizes, red, German."""
    en, de = catalog(face, "en"), catalog(face, "de")
    face.cmd("radio/stop")
    face.size(1280, 800)
    face.load()
    open_panel(face, "radio")
    stations = radio_state(face).get("stations") or []
    wanted = [st["name"] for st in stations]
    face.until(lambda: station_names(face) == wanted)
    report("radio: the panel lists the node's stations, in order", len(wanted) >= 2 and station_names(face) == wanted,
           f"{station_names(face)} vs {wanted}")
    report("radio: nothing playing says so", text(face, ".radio-now strong") == en["radio.nothing"], str(text(face, ".radio-now strong")))

    # A station that cannot be reached: the panel shows the node's state (connecting, then retrying with why).
    down = next((st for st in stations if st["id"] != live), None)
    if down:
        face.click(f'[data-key="play-{down["id"]}"]')
        on_way = face.until(lambda: radio_state(face).get("station") == down["id"] and radio_state(face).get("state") in ("connecting", "buffering", "retrying"))
        shown = face.until(lambda: face.js("return document.querySelector('.radio-now').dataset.state") == radio_state(face).get("state")
                           and text(face, ".radio-now strong") == down["name"])
        report("radio: a tap on a station plays it; the panel shows its name and the node's state", on_way and shown,
               f'{json.dumps({k: radio_state(face).get(k) for k in ("station", "state", "error")})} / {text(face, ".radio-now")}')
        retrying = face.until(lambda: radio_state(face).get("state") == "retrying", 60)
        if retrying:
            error = radio_state(face).get("error") or ""
            said = face.until(lambda: error and error in (text(face, ".radio-status") or ""))
            report("radio: retrying, the panel says so with the node's reason", said, f'{error!r} / {text(face, ".radio-status")!r}')
            face.shot("face-radio-retrying-1280x800")
        report("radio: the clock names the station while it plays", face.until(lambda: (text(face, "#radio-now .chip-text") or "").startswith(down["name"])),
               str(text(face, "#radio-now .chip-text")))
        face.click("#radio-stop")
        report("radio: Stop stops it", face.until(lambda: radio_state(face).get("state") == "idle" and text(face, ".radio-now strong") == en["radio.nothing"]),
               json.dumps(radio_state(face).get("state")))

    # A station that plays, with its title on the clock.
    if live:
        face.click(f'[data-key="play-{live}"]')
        playing = face.until(lambda: radio_state(face).get("state") == "playing" and (not title or radio_state(face).get("now_playing") == title), 60)
        report("radio: a live station plays, with its title", playing, json.dumps({k: radio_state(face).get(k) for k in ("state", "now_playing", "codec", "error")}))
        name = next(st["name"] for st in stations if st["id"] == live)
        if title:
            report("radio: the panel shows the title and the stream", face.until(lambda: text(face, ".radio-status") == title and bool(text(face, ".radio-meta"))),
                   f'{text(face, ".radio-status")!r} {text(face, ".radio-meta")!r}')
        six_sizes(face, "radio: the panel with a station playing", "radio", [".radio-now", "#radio-stop"])
        face.cmd("radio/sleep", {"minutes": 30})
        report("radio: the sleep timer's end shows", face.until(lambda: bool(text(face, "#sheet-body .field .hint"))))
        face.cmd("settings", {"face": {"theme": "red"}})
        face.until(lambda: face.js("return document.documentElement.dataset.theme") == "red")
        for w, h in [(800, 480), (1280, 800)]:
            face.size(w, h)
            face.shot(f"face-radio-red-{w}x{h}")
        face.size(1280, 800)
        face.cmd("settings", {"face": {"theme": "night"}})
        close_sheet(face)
        chip = lambda: text(face, "#radio-now .chip-text") or ""
        report("radio: the clock shows what plays: the station and its title", face.until(lambda: chip().startswith(f"{name} · {title or ''}")), chip())
        clipped = face.js("const e = document.querySelector('#radio-now'); return e.getBoundingClientRect().right <= innerWidth && e.getBoundingClientRect().left >= 0")
        report("radio: a long title is cut short inside the screen", clipped)
        six_sizes(face, "radio: the clock with what plays", "radio-clock", ["#radio-now", "#time"])
        face.cmd("settings", {"language": "de"})
        face.until(lambda: face.js("return document.documentElement.lang") == "de")
        open_panel(face, "radio")
        six_sizes(face, "radio: the panel", "radio", [".radio-now", "#radio-stop"], english_patterns(en, de))
        face.cmd("settings", {"language": "en"})
        face.until(lambda: face.js("return document.documentElement.lang") == "en")
        face.cmd("radio/stop")
    else:
        six_sizes(face, "radio: the panel", "radio", [".radio-now"])

    # Adding by address: the node's station; a refused address: the node's message by the field.
    open_panel(face, "radio")
    face.click("#radio-add")
    searchable = radio_state(face).get("directory") is True
    report("radio: the search shows only with a directory", searchable == face.js("return !!document.querySelector('#sheet-body .radio-search')"),
           f"directory {radio_state(face).get('directory')!r}")
    if searchable:
        type_into(face, ".radio-search input[type=search]", "jazz")
        type_into(face, ".radio-search .country", "de")
        face.click("#radio-search-go")
        answer = face.cmd("radio/search", {"query": "jazz", "country": "de", "limit": 30})
        found = [st["name"] for st in (answer.get("data") or {}).get("stations", [])]
        names = lambda: face.js("return [...document.querySelectorAll('.result-row strong')].map((e) => e.textContent.trim())")
        report("radio: a search lists the directory's stations, each with Add", len(found) >= 2 and face.until(lambda: names() == found)
               and face.js("return document.querySelectorAll('.result-row .result-add').length") == len(found), f"{names()} vs {json.dumps(answer)}")
        six_sizes(face, "radio: the search's results", "radio-search", [".radio-search", ".result-row .result-add"])
        face.click(".result-row .result-add")
        first = (answer.get("data") or {}).get("stations", [{}])[0]
        added = face.until(lambda: any(st["url"] == first.get("url") and st["name"] == first.get("name") for st in radio_state(face).get("stations") or []))
        report("radio: Add on a result makes it one of the node's stations, and says so",
               added and face.until(lambda: text(face, ".result-row .result-add") == catalog(face, "en")["radio.search.added"]),
               json.dumps(radio_state(face).get("stations")))
        searched_id = next((st["id"] for st in radio_state(face).get("stations") or [] if st["url"] == first.get("url")), None)
        if searched_id:
            face.cmd("radio/station/delete", {"id": searched_id})
        face.click("#sheet-back")
        face.click("#radio-add")
    face.shot("face-radio-add-1280x800")
    type_into(face, '.field[data-field="name"] input', "Night Rain")
    type_into(face, '.field[data-field="url"] input', "http://127.0.0.1:9/rain.mp3")
    face.click("#radio-url-add")
    added = face.until(lambda: any(st["name"] == "Night Rain" for st in radio_state(face).get("stations") or []))
    new_id = next((st["id"] for st in radio_state(face).get("stations") or [] if st["name"] == "Night Rain"), None)
    report("radio: a station added by its address is the node's, and listed", added and face.until(lambda: "Night Rain" in station_names(face)),
           json.dumps(radio_state(face).get("stations")))
    face.click("#radio-add")
    type_into(face, '.field[data-field="name"] input', "Other")
    type_into(face, '.field[data-field="url"] input', "ftp://example.org/stream")
    face.click("#radio-url-add")
    answer = face.cmd("radio/station/add", {"name": "Other", "url": "ftp://example.org/stream"})
    message = (answer.get("error") or {}).get("message")
    report("radio: an address the node refuses shows its message beside the address",
           answer.get("status") == "error" and (answer.get("error") or {}).get("field") == "url" and face.until(lambda: field_error(face, "url") == message),
           f"{field_error(face, 'url')!r} vs {json.dumps(answer)}")
    report("radio: a refused address adds nothing", not any(st["name"] == "Other" for st in radio_state(face).get("stations") or []))
    face.shot("face-radio-add-error-1280x800")
    face.click("#sheet-back")

    # The bell: the sound new alarms get; the editor offers the stations and saves radio:<id>.
    target = new_id or stations[0]["id"]
    face.until(lambda: face.js("return !!document.querySelector(arguments[0])", f'[data-key="wake-{target}"]'))
    face.click(f'[data-key="wake-{target}"]')
    wake = lambda: (face.state().get("settings") or {}).get("wake", {}).get("sound")
    report("radio: the bell makes a station the sound new alarms get (settings.wake.sound)", face.until(lambda: wake() == f"radio:{target}"), repr(wake()))
    report("radio: the station says it wakes", face.until(lambda: face.js("return document.querySelector(arguments[0]).getAttribute('aria-pressed')",
                                                                                  f'[data-key="wake-{target}"]') == "true"))
    open_panel(face, "alarms")
    face.click(".list-head .btn-primary")
    rows = face.js("return [...document.querySelectorAll('.sound-list .pick[data-sound^=\"radio:\"]')].map((e) => [e.dataset.sound, e.textContent.trim()])")
    report("radio: the alarm editor offers the stations beside the tones",
           rows == [[f"radio:{st['id']}", st["name"]] for st in radio_state(face).get("stations") or []], json.dumps(rows))
    report("radio: a new alarm has the wake sound chosen", face.js("return document.querySelector(`.pick[data-sound=\"radio:${arguments[0]}\"]`)?.getAttribute('aria-checked')", target) == "true")
    other = next(st["id"] for st in stations if st["id"] != target)
    face.d.execute_script("document.querySelector(`.pick[data-sound=\"radio:${arguments[0]}\"]`).scrollIntoView({block: 'center'})", other)
    face.click(f'.pick[data-sound="radio:{other}"]')
    face.shot("face-alarm-editor-radio-1280x800")
    before = {a["id"] for a in face.state().get("alarms") or []}
    face.click("#sheet-body .actions .btn-primary")
    made = lambda: [a for a in face.state().get("alarms") or [] if a["id"] not in before]
    saved = face.until(lambda: len(made()) == 1)
    report("radio: saving stores the station as the alarm's sound", saved and made()[0].get("sound") == f"radio:{other}", json.dumps(made()))
    name = next(st["name"] for st in stations if st["id"] == other)
    report("radio: the alarm list names the station", face.until(lambda: name in (face.js("return [...document.querySelectorAll('.alarm-station')].map((e) => e.textContent.trim()).join('|')") or "")))
    face.shot("face-alarms-radio-1280x800")
    for alarm in made():
        face.cmd("alarm/delete", {"id": alarm["id"]})
    face.cmd("settings", {"wake": {"sound": None}})

    # A delete takes two taps; the file's stations have none (they are changed only in the file).
    if new_id:
        open_panel(face, "radio")
        face.until(lambda: "Night Rain" in station_names(face))
        fixed = [st["id"] for st in radio_state(face).get("stations") or [] if st.get("fixed")]
        report("radio: the file's stations have no delete, the added ones do",
               bool(fixed) and not any(face.js("return !!document.querySelector(arguments[0])", f'[data-key="delete-{i}"]') for i in fixed)
               and face.js("return !!document.querySelector(arguments[0])", f'[data-key="delete-{new_id}"]'), json.dumps(fixed))
        face.click(f'[data-key="delete-{new_id}"]')
        armed = face.js("return document.querySelector(arguments[0]).classList.contains('armed')", f'[data-key="delete-{new_id}"]')
        report("radio: one tap on delete only arms it", armed and any(st["id"] == new_id for st in radio_state(face).get("stations") or []))
        face.click(f'[data-key="delete-{new_id}"]')
        report("radio: the second tap deletes the station", face.until(lambda: not any(st["id"] == new_id for st in radio_state(face).get("stations") or [])
                                                                         and "Night Rain" not in station_names(face)))
    close_sheet(face)
    face.cmd("radio/stop")


def check_sound_failed(face):
    """The node rings but cannot make a sound (B/alarm/state's sound_failed): the ringing view says
    why, quietly; the page plays the alarm tone with WebAudio, fading in (a page not yet touched
    is held back by the browser: its button lets the tone sound)."""
    seen = []
    def failed():
        reason = face.state().get("alarm/state", {}).get("sound_failed")
        if isinstance(reason, str):
            seen.append(reason)
        return bool(seen)
    report("sound failed: the node says why it cannot sound", face.until(failed, 60), json.dumps(face.state().get("alarm/state")))
    if not seen:
        return
    said = face.until(lambda: seen[0] in (text(face, "#ring-sound") or ""))
    report("sound failed: the ringing view says why", said, f'{text(face, "#ring-sound")!r} vs {seen[0]!r}')
    tone = lambda: face.js("return document.getElementById('ringing').dataset.browserTone || ''")
    face.until(lambda: tone() != "")
    if tone() == "blocked":
        face.shot("face-ringing-no-sound-blocked-1280x800")
        report("sound failed: held back by the browser, a button offers the tone", text(face, "#ring-sound-play") is not None)
        face.click("#ring-sound-play")
    playing = face.until(lambda: tone() == "playing", 10)
    first = face.js("return noiseclockFace.browserTone()")
    time.sleep(1)
    later = face.js("return noiseclockFace.browserTone()")
    report("sound failed: the page plays the alarm tone (WebAudio), fading in", playing and later["time"] > first["time"] + 0.5 and later["gain"] > 0,
           json.dumps([first, later]))
    face.shot("face-ringing-no-sound-1280x800")
    for w, h in [(800, 480), (390, 844)]:
        face.size(w, h)
        problems = face.js(FITS, ["#ring-sound", "#ring-snooze", "#ring-dismiss", "#ring-time"])
        report(f"sound failed: the view fits {w}x{h}", not problems, "; ".join(problems))
        face.shot(f"face-ringing-no-sound-{w}x{h}")
    face.size(1280, 800)


# --- languages (SPEC §11)

# Every text a person can read or hear on the page: text nodes and the attributes screen readers
# and tooltips use, of what is laid out (hidden views and closed panels are not), and the title.
VISIBLE_TEXTS = """
const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
const where = (el) => el.id ? '#' + el.id : el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className.trim()
  ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
const out = [['title', document.title, 'document']];
const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n; (n = walk.nextNode());) {
  const el = n.parentElement, text = n.textContent.replace(/\\s+/g, ' ').trim();
  if (text && el && !el.closest('svg') && shown(el)) out.push(['text', text, where(el)]);
}
const names = ['aria-label', 'title', 'placeholder', 'alt', 'aria-valuetext'];
for (const el of document.querySelectorAll(names.map((a) => `[${a}]`).join(', ')))
  if (shown(el)) for (const a of names) {
    const v = (el.getAttribute(a) || '').trim();
    if (v) out.push([a, v, where(el)]);
  }
return out;
"""


def catalog(face, language):
    with urllib.request.urlopen(face.url + "api/strings/" + language, timeout=5) as r:
        return json.loads(r.read())


def forms(value):
    return [value] if isinstance(value, str) else [value.get("one", ""), value.get("other", "")]


def english_patterns(en, de):
    """Each English text (both forms of a plural) that is no German text too, as a regex to match a
    whole text: a placeholder matches anything. Texts of placeholders and signs only are left out."""
    german = {f for v in de.values() for f in forms(v)}
    out = []
    for key, value in en.items():
        for form in forms(value):
            if form in german or not re.sub(r"\{\w+\}|[\W\d_]", "", form):
                continue
            out.append((key, form, re.compile(".+".join(re.escape(p) for p in re.split(r"\{\w+\}", form)))))
    return out


def english_in(items, patterns):
    """The texts (or their parts between " · " and ", ") that are an English catalog text."""
    bad = []
    for kind, value, el in items:
        for piece in {value, *re.split(r" · |, ", value)}:
            hit = next(((k, f) for k, f, rx in patterns if rx.fullmatch(piece.strip())), None)
            if hit:
                bad.append(f'{el} {kind} "{value}" is en {hit[0]} "{hit[1]}"')
                break
    return bad


def open_panel(face, name):
    """Opens a panel from the dock (shown first, the open sheet closed), and waits until it is open."""
    hidden = lambda id: face.js("return document.getElementById(arguments[0]).hidden", id)
    for attempt in range(2):
        if not hidden("sheet"):
            try:
                close_sheet(face)
            except (ElementNotInteractableException, RuntimeError):
                if not hidden("sheet"):
                    raise  # else the controls hid themselves meanwhile (10 s untouched, on a slow machine)
            face.until(lambda: hidden("sheet"))
        if hidden("dock"):
            face.click("#face")
            face.until(lambda: not hidden("dock"))
        face.click(f'[data-panel="{name}"]')
        # The dock's labels can move under a click while its font loads: one more try.
        if face.until(lambda: face.js("return document.querySelector(`[data-panel='${arguments[0]}']`).getAttribute('aria-expanded')", name) == "true", 5):
            return
    title = face.js("return document.getElementById('sheet-title').textContent")
    report(f"the dock opens the {name} panel", False, f"twice clicked, the sheet shows {title!r}")


GERMAN_SIZES = [(1280, 800), (800, 480), (480, 800), (390, 844)]

# Labels that break onto a second line or run out of their box (or out of the scrolling box or the
# screen around them). Running text may wrap: paragraphs, hints, descriptions, people's own labels;
# a switch's label up to two lines. A row that scrolls sideways (the categories) may run on.
LAYOUT_PROBLEMS = """
const where = (el) => el.id ? '#' + el.id : el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className.trim()
  ? '.' + el.className.trim().split(/\s+/).join('.') : '');
const rectsOf = new Map();
const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n; (n = walk.nextNode());) {
  const el = n.parentElement;
  if (!n.textContent.trim() || !el || el.closest('svg, #time, .preview, .cats') || !el.getClientRects().length) continue;
  if (el.matches('p, .hint, .tile span, .aff, .tring-item h2, .toast, .field-error')) continue;
  const r = document.createRange();
  r.selectNodeContents(n);
  rectsOf.set(el, [...(rectsOf.get(el) || []), ...[...r.getClientRects()].filter((x) => x.width > 0)]);
}
const out = [];
const out_of = (x, r) => x.right > r.right + 1 || x.left < r.left - 1;
const clip = (el) => {
  let box = el;
  while ((box = box.parentElement) && box !== document.body && getComputedStyle(box).overflowX === 'visible');
  return box && box !== document.body ? box.getBoundingClientRect() : {left: 0, right: innerWidth};
};
for (const el of document.querySelectorAll('button, input'))
  if (el.getClientRects().length && !el.closest('.cats') && [clip(el), {left: 0, right: innerWidth}].some((r) => out_of(el.getBoundingClientRect(), r)))
    out.push(`${where(el)} "${el.textContent.trim().slice(0, 40)}" cut off`);
for (const [el, rects] of rectsOf) {
  if (!rects.length) continue;
  const tops = rects.map((x) => x.top).sort((a, b) => a - b), h = Math.min(...rects.map((x) => x.height));
  const lines = tops.filter((t, i) => i === 0 || t - tops[i - 1] > h * 0.6).length;
  const text = `${where(el)} "${el.textContent.trim().slice(0, 40)}"`;
  if (lines > (el.matches('.switch-label') ? 2 : 1)) out.push(`${text} on ${lines} lines`);
  if (rects.some((x) => out_of(x, clip(el)) || out_of(x, {left: 0, right: innerWidth}))
      || (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible'))
    out.push(`${text} cut off`);
}
return out;
"""


def german_look(face, name, shot=None):
    """At each size: labels that wrap or are cut off (reported), and screenshots when asked for."""
    problems = []
    for w, h in GERMAN_SIZES:
        face.size(w, h)
        problems += [f"{w}x{h}: {p}" for p in face.js(LAYOUT_PROBLEMS)]
        if shot:
            face.shot(f"de-{shot}-{w}x{h}")
    face.size(1280, 800)
    report(f"German: every label fits on {name}", not problems, "; ".join(problems[:6]))


def check_german(face):
    """In German, no screen shows a text or an accessible name that is an English catalog text."""
    en, de = catalog(face, "en"), catalog(face, "de")
    patterns = english_patterns(en, de)
    report("the catalogs give English texts to look for", len(patterns) > 150 and en.keys() == de.keys(), f"{len(patterns)} patterns")
    settings = face.state().get("settings", {})

    def screen(name, shot=None):
        face.collect_missing()
        bad = english_in(face.js(VISIBLE_TEXTS), patterns)
        report(f"German: no English text on {name}", not bad, "; ".join(bad[:6]))
        german_look(face, name, shot)

    face.cmd("settings", {"language": "de", "meditation": {"preparation_s": 2, "minutes": 5, "interval_min": 5}})
    made = [face.cmd("alarm/add", a).get("data", {}).get("id") for a in (
        {"time": "06:15", "days": ["mon", "wed"], "label": "Sport"},
        {"time": "05:45", "days": ["mon", "tue", "wed", "thu", "fri"]})]
    alarms = {a["id"]: a for a in face.state().get("alarms", [])}
    report("a new alarm without a label is named in German", alarms.get(made[1], {}).get("label") == de["label.alarm"],
           json.dumps(alarms.get(made[1])))
    noise = (face.cmd("sounds", {"language": "de"}).get("data") or {}).get("noise") or []
    if noise:
        face.cmd("noise/play", {"sound": noise[0]["id"]})
        face.cmd("noise/sleep", {"minutes": 30})
    face.cmd("timer/start", {"minutes": 5, "label": "Tee"})
    face.cmd("timer/start", {"minutes": 8})
    face.size(1280, 800)
    face.load()
    report("the page is German", face.js("return document.documentElement.lang") == "de" and
           face.js("return document.querySelector('[data-panel=settings]').getAttribute('aria-label')") == de["dock.settings"])
    report("sound names in German", [s["name"] for s in face.js("return noiseclockFace.store.sounds?.noise || []")] == [s["name"] for s in noise])
    # The date in the node's language (clock.locale is not set): "2. Dezember Mi." (SPEC §11).
    german_days = ("So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.")
    german_months = [de[f"month.{m}"] for m in range(1, 13)] if "month.1" in de else []
    face.until(lambda: face.js("return document.getElementById('date').textContent") == (face.state().get("clock") or {}).get("date"))
    shown = face.js("return document.getElementById('date').textContent")
    form = re.fullmatch(r"(\d{1,2})\. (\S+) (\S+)", shown or "")
    report("the German date has the day's period and German names", bool(form) and form.group(3) in german_days and
           (not german_months or any(form.group(2).startswith(m.rstrip(".")) for m in german_months)), repr(shown))
    screen("the clock", "clock")
    face.click("#face")
    face.until(lambda: face.js("return !document.getElementById('dock').hidden"))
    screen("the dock", "dock")

    open_panel(face, "noise")
    screen("Noise", "noise")
    search = face.d.find_element("css selector", "#sheet-body input[type=search]")
    search.send_keys((noise[0]["name"] if noise else "Re")[:3])
    screen("Noise, searched")
    search.send_keys("zzzz")
    screen("Noise, nothing found")
    search.clear()
    search.send_keys(" ")
    cats = face.d.find_elements("css selector", ".cats button")
    if len(cats) > 1:
        cats[1].click()
        time.sleep(0.3)
    screen("Noise, a category")

    open_panel(face, "radio")
    screen("Radio")
    face.click("#radio-add")
    screen("Radio, adding a station", "radio-add")

    open_panel(face, "alarms")
    screen("Alarms", "alarms")
    face.click(f'[data-key="edit-{made[0]}"]')
    screen("the alarm editor", "alarm-editor")
    face.click("#sheet-body .btn-danger")
    screen("the alarm editor, Delete armed", "alarm-editor-delete")
    face.click("#sheet-back")
    face.click(".list-head .btn-primary")
    screen("a new alarm", "alarm-new")

    open_panel(face, "timers")
    screen("Timers", "timers")
    face.click("#sheet-body .timer-row [data-key^=p]")
    face.until(lambda: face.js("return !!document.querySelector('.timer-row.paused')"))
    screen("Timers, one paused", "timers-paused")

    open_panel(face, "meditation")
    screen("Meditation", "meditation")
    face.click('.tabs [data-value="library"]')
    # The library's rows come with B/meditations, which may reach a page just loaded after its first state.
    face.until(lambda: face.js("return !!document.querySelector('#sheet-body .guided-row [data-key^=e]')"))
    screen("the guided meditations", "library")
    face.click("#sheet-body .guided-row [data-key^=e]")
    screen("a guided meditation's editor", "library-edit")

    open_panel(face, "settings")
    face.click('#sheet-body .seg [data-value="custom"]')
    tz = face.d.find_element("css selector", "#sheet-body input[type=text]")
    tz.clear()
    tz.send_keys("a")
    tz.send_keys("\ue003")  # Backspace: an empty zone offers the clock's own
    screen("Settings", "settings")
    face.click('#sheet-body .seg [data-value="night"]')
    face.cmd("settings", {"time_format": "12h"})
    face.until(lambda: face.js("return noiseclockFace.store.state.settings?.time_format") == "12h")
    open_panel(face, "settings")  # drawn again: the night's time pickers with AM and PM
    report("Settings in 12 hours: AM/PM pickers", face.until(lambda: face.js("return !!document.querySelector('#sheet-body .picker .seg')")))
    screen("Settings, 12 hours", "settings-12h")
    face.cmd("settings", {"time_format": settings.get("time_format", "24h")})
    # The two pages of Settings, with a bedtime per day and the kids' clock on (their summaries too).
    face.cmd("settings", {"bedtime": {"time": {"mon": "21:30", "tue": "21:30", "fri": "22:30"}, "sounds": noise[:2] and [s["id"] for s in noise[:2]]},
                          "kids": {"enabled": True}})
    open_panel(face, "settings")
    screen("Settings, its pages listed")
    for name in ("bedtime", "kids"):
        open_panel(face, "settings")
        open_settings_page(face, name)
        face.click(f'.settings-page[data-page="{name}"] .seg [data-value="days"]')
        face.until(lambda: face.js("return !!document.querySelector('.settings-page .week')"))
        screen(f"Settings, the {name} page", f"settings-{name}")
    face.cmd("settings", {"bedtime": {"time": None, "sounds": settings.get("bedtime", {}).get("sounds", [])}, "kids": {"enabled": False}})
    close_sheet(face)

    for label in ("Ei", "Reis"):
        face.cmd("timer/start", {"seconds": 1, "label": label})
    face.until(lambda: face.js("return document.querySelectorAll('#timer-ring .tring-item').length") == 2, step=0.1)
    screen("two finished timers", "timer-finished")
    face.cmd("timer/cancel")

    face.cmd("meditation/start")
    face.until(lambda: text(face, "#s-phase") == de["med.phase.preparing"])
    screen("a session preparing", "session-preparing")
    face.until(lambda: meditation(face).get("state") == "running")
    time.sleep(0.3)
    screen("a session", "session")
    face.cmd("meditation/pause")
    face.until(lambda: text(face, "#s-phase") == de["med.phase.paused"])
    screen("a paused session")
    face.cmd("meditation/stop")
    items = [i for g in (face.state().get("meditations") or {}).get("groups", []) for i in g.get("items", []) if not i.get("error")]
    if items:
        face.cmd("meditation/play", {"id": items[0]["id"]})
        face.until(lambda: not face.js("return document.getElementById('s-seek').hidden"))
        screen("a guided session", "session-guided")
        face.cmd("meditation/seek", {"position_s": max(0, int(items[0].get("duration_s", 3)) - 1)})
        done = face.until(lambda: meditation(face).get("state") == "completed", step=0.1)
        time.sleep(0.3)
        report("a guided session completes", done, json.dumps(meditation(face)))
        screen("a completed session", "session-completed")
        face.cmd("meditation/stop")

    face.cmd("settings", {"face": {"night": {"enabled": True, "start": "00:00", "end": "23:59", "brightness": 0}}})
    dark = face.until(lambda: not face.js("return document.getElementById('wake').hidden"))
    report("night at brightness 0: the wake hint shows", dark)
    screen("the dark screen's wake hint", "wake")
    face.cmd("settings", {"face": {"night": settings.get("face", {}).get("night", {"enabled": False})}})

    face.logs()
    face.js("window.__wsBlocked = true; for (const s of window.__sockets) s.close();")
    report("the node out of reach: the offline mark shows", face.until(lambda: not face.js("return document.getElementById('conn').hidden")))
    screen("the offline mark", "offline")
    face.load()
    # The blocked sockets' errors were wanted; any other is kept.
    face.console += [e["message"] for e in face.d.get_log("browser") if e["level"] == "SEVERE" and "127.0.0.1:9" not in e["message"]]

    for alarm in made:
        face.cmd("alarm/delete", {"id": alarm})
    face.cmd("noise/stop")
    face.cmd("timer/cancel")
    face.cmd("settings", {"language": settings.get("language", "en"),
                          "meditation": {k: v for k, v in settings.get("meditation", {}).items() if k in ("preparation_s", "minutes", "interval_min")}})


def dock_name(face):
    return face.js("return document.querySelector('[data-panel=settings]').getAttribute('aria-label')")


def check_language_switch(face):
    """settings.language changed on the node reaches a running page within a second, and back; the
    Settings panel's own choice; strings that cannot be fetched leave the last ones."""
    en, de = catalog(face, "en"), catalog(face, "de")
    before = face.state().get("settings", {}).get("language", "en")
    face.cmd("settings", {"language": "en"})
    face.size(1280, 800)
    face.load()
    open_panel(face, "settings")
    for lang, strings in (("de", de), ("en", en)):
        start = time.monotonic()
        face.cmd("settings", {"language": lang})
        ok = face.until(lambda: dock_name(face) == strings["dock.settings"] and text(face, "#sheet-title") == strings["settings.title"]
                        and face.js("return document.documentElement.lang") == lang
                        and face.js("return document.getElementById('time').getAttribute('aria-label')").startswith(strings["clock.label"].split("{")[0]), 1.0, 0.02)
        report(f"settings.language {lang}: the page within 1 s", ok, f"{time.monotonic() - start:.2f} s: {dock_name(face)}, {text(face, '#sheet-title')}")
        names = lambda: [s["name"] for s in face.js("return noiseclockFace.store.sounds?.noise || []")]
        wanted = [s["name"] for s in (face.cmd("sounds", {"language": lang}).get("data") or {}).get("noise", [])]
        report(f"settings.language {lang}: sound names asked again", face.until(lambda: names() == wanted), f"{names()[:3]} vs {wanted[:3]}")
    face.click('#sheet-body [lang="de"]')
    ok = face.until(lambda: face.state().get("settings", {}).get("language") == "de" and text(face, "#sheet-title") == de["settings.title"])
    report("the Settings panel's Deutsch switches the node and the page", ok, str(text(face, "#sheet-title")))
    face.click('#sheet-body [lang="en"]')
    ok = face.until(lambda: face.state().get("settings", {}).get("language") == "en" and text(face, "#sheet-title") == en["settings.title"])
    report("the Settings panel's English switches back", ok and face.js("return document.querySelector('#sheet-body [lang=en]').getAttribute('aria-pressed')") == "true")

    # An alarm being edited stays open through a change of language, with what was typed.
    open_panel(face, "alarms")
    face.click(".list-head .btn-primary")
    face.d.find_element("css selector", "#sheet-body input.input").send_keys("Brunch")
    face.cmd("settings", {"language": "de"})
    kept = face.until(lambda: text(face, "#sheet-title") == de["editor.new"], step=0.02)
    typed = face.js("return document.querySelector('#sheet-body input.input')?.value")
    report("an alarm being edited stays open in the new language, as typed", kept and typed == "Brunch", f"{text(face, '#sheet-title')}: {typed}")
    face.click("#sheet-back")
    face.cmd("settings", {"language": "en"})
    face.until(lambda: dock_name(face) == en["dock.settings"])
    open_panel(face, "settings")

    face.d.execute_cdp_cmd("Network.enable", {})
    face.d.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/strings/*"]})
    face.cmd("settings", {"language": "de"})
    face.until(lambda: face.js("return noiseclockFace.store.state.settings?.language") == "de")
    time.sleep(0.5)
    report("strings that cannot be fetched: the last ones stay", dock_name(face) == en["dock.settings"] and text(face, "#sheet-title") == en["settings.title"],
           f"{dock_name(face)}, {text(face, '#sheet-title')}")
    face.d.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    face.cmd("settings", {"show_seconds": not face.state().get("settings", {}).get("show_seconds", False)})
    report("and the next settings bring the new ones", face.until(lambda: dock_name(face) == de["dock.settings"]), str(dock_name(face)))
    face.cmd("settings", {"show_seconds": not face.state().get("settings", {}).get("show_seconds", False), "language": before})


def check_ringing_german(face):
    """A German alarm rings (the node's clock set 2 s before it), is snoozed, and the snooze is held away."""
    de = catalog(face, "de")
    en = catalog(face, "en")
    patterns = english_patterns(en, de)
    before = face.state().get("settings", {}).get("language", "en")
    face.cmd("settings", {"language": "de"})
    zone = ZoneInfo(face.state().get("clock", {}).get("timezone") or "UTC")
    now = time.time() + face.clock_offset
    ring = datetime.fromtimestamp((now // 60 + 3) * 60, zone)
    alarm = face.cmd("alarm/add", {"time": ring.strftime("%H:%M"), "snooze_min": 5}).get("data", {}).get("id")
    face.size(1280, 800)
    face.load()
    face.set_node_time(ring.timestamp() - 2)
    shown = face.until(lambda: face.js("return !document.getElementById('ringing').hidden"), step=0.1)
    report("a German alarm rings, named in German", shown and text(face, "#ring-label") == de["label.alarm"], str(text(face, "#ring-label")))
    bad = english_in(face.js(VISIBLE_TEXTS), patterns)
    report("German: no English text on the ringing view", shown and not bad, "; ".join(bad[:6]))
    german_look(face, "the ringing view", "ringing")
    face.click("#ring-snooze")
    snoozed = face.until(lambda: face.js("return !document.getElementById('snoozed').hidden"))
    bad = english_in(face.js(VISIBLE_TEXTS), patterns)
    report("German: no English text on the snoozed state", snoozed and not bad, "; ".join(bad[:6]))
    german_look(face, "the snoozed state", "snoozed")
    ended = hold_until(face, face.d.find_element("css selector", "#snoozed-dismiss"),
                       lambda: face.state().get("alarm/state", {}).get("state") not in ("snoozed", "ringing"))
    report("holding the snooze's cancel ends it", ended, json.dumps(face.state().get("alarm/state")))
    face.collect_missing()
    face.cmd("alarm/delete", {"id": alarm})
    face.cmd("settings", {"language": before})


def restore_settings(face, before):
    """Puts back the settings the run changed (`before` is the node's settings at the start)."""
    face_before = before.get("face", {})
    restore = {k: face_before[k] for k in ("theme", "font", "night") if k in face_before}
    face.cmd("settings", {"face": restore, "show_seconds": before.get("show_seconds", False),
                          "language": before.get("language", "en")})


def check_page_health(face, check_disconnect):
    """No message key missing and no console error; then, when asked, the node stopped under the page."""
    face.collect_missing()
    report("no message key missing from the catalog", not face.missing, ", ".join(sorted(face.missing)))
    face.logs()
    report("no console errors", not face.console, " | ".join(face.console[:3]))
    if check_disconnect:
        face.load()
        check_disconnected(face, True)


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
        report("node stopped", face.until(node_gone, step=0.5))
    marked = face.until(lambda: face.js("return !document.getElementById('conn').hidden"), step=0.1)
    report("disconnected mark shows", marked)
    stale = face.js("""return [...document.querySelectorAll('#battery, #next-alarm, #noise-now, #radio-now, #snoozed')]
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
    ap.add_argument("--url")
    ap.add_argument("--screenshots")
    ap.add_argument("--check-ringing", action="store_true")
    ap.add_argument("--ring-command")
    ap.add_argument("--clock-file")
    ap.add_argument("--ring-at", type=float)
    ap.add_argument("--ringing-timeout", type=float, default=90)
    ap.add_argument("--check-disconnect", action="store_true")
    ap.add_argument("--expect-disconnected", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--browser", choices=["chromium", "webkit"], default="chromium")
    ap.add_argument("--expect-sound-failed", action="store_true")
    ap.add_argument("--radio-live")
    ap.add_argument("--radio-title")
    ap.add_argument("--prepare-face", metavar="DIR")
    ap.add_argument("--mqtt-port", type=int)
    ap.add_argument("--weather-topic", default="t/wx")
    args = ap.parse_args()
    if args.prepare_face:
        prepare_face(os.path.join(HERE, "..", "..", "Resources", "face"), args.prepare_face)
        return
    if not args.url:
        ap.error("--url is required")
    only = set(filter(None, args.only.split(",")))
    run = lambda group: not only or group in only
    if args.browser == "webkit":
        face = WebKitFace(args.url, args.screenshots, args.clock_file)
        try:
            run_webkit(face, args, run)
        finally:
            face.quit()
        sys.exit(1 if failures else 0)
    face = Face(args.url, args.screenshots, args.clock_file)
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
                if run("theme"):
                    check_theme(face)
                    check_custom_colors(face)
                face.cmd("settings", {"face": {"theme": "night"}})
                face.load()
                if run("fit"):
                    check_fit(face)
                if run("digits"):
                    check_digit_cells(face, face_before.get("font", "sans"))
                if run("panels"):
                    check_panels(face)
                for group, check in [("timers", check_timers), ("meditation", check_meditation), ("library", check_library),
                                     ("daysoff", check_days_off), ("sunrise", check_sunrise), ("bedtime", check_bedtime),
                                     ("kids", check_kids), ("lamp", check_lamp), ("pages", check_night_pages), ("speech", check_speech),
                                     ("radio", lambda f: check_radio(f, args.radio_live, args.radio_title))]:
                    if run(group):
                        check(face)
                        face.logs()
                # The day (SPEC §17) when asked for by name: it needs a node with weather.source mqtt.
                if "weather" in only:
                    check_weather(face, args)
                    check_day_alarms(face, args)
                    check_idle(face, before.get("show_seconds", False))  # with the weather shown
                    face.logs()
                if run("idle"):
                    face.cmd("timer/cancel")
                    check_idle(face, before.get("show_seconds", False))
                for group, check in [("german", check_german), ("switch", check_language_switch)]:
                    if run(group):
                        check(face)
                        face.logs()
                if args.check_ringing:
                    check_ringing(face, args.ring_command, args.ring_at, args.ringing_timeout, args.expect_sound_failed)
                    if run("speech"):
                        check_briefing(face)
                    if face.clock_offset is not None and run("german"):
                        check_ringing_german(face)
            finally:
                restore_settings(face, before)
            check_page_health(face, args.check_disconnect)
    finally:
        face.quit()
    sys.exit(1 if failures else 0)


def run_webkit(face, args, run):
    """The checks that WebKit can run: the clock and every panel at each of WEBKIT_SCALES' sizes,
    then at 800x600 a theme change, the digit cells in every font, timers, a meditation session,
    the guided meditations, the idle update rate, a ringing alarm, no console error, and the node
    stopping under the page. Not the languages (the Chromium run covers them with DevTools' request
    blocking and its six sizes)."""
    ua = face.js("return navigator.userAgent")
    report("the browser is WebKit (a Safari 16 user agent)", "AppleWebKit" in ua and "Version/16" in ua and "Chrome" not in ua, ua)
    before = face.state().get("settings", {})
    face_before = before.get("face", {})
    try:
        face.cmd("settings", {"face": {"theme": "night"}})
        for i, scale in enumerate(WEBKIT_SCALES):
            if i:
                face.open(scale)
            face.load()
            w, h = face.viewport()
            report(f"the page is {w}x{h} at zoom {scale}", (w, h) == (round(800 / scale), round(600 / scale)), f"{w}x{h}")
            face.shot(f"face-{w}x{h}")
            if run("fit"):
                check_fit(face)
            # The panels at 800x600 only: zoomed, every click is a pointer action at scaled window
            # pixels, and on a loaded machine those clicks proved unreliable (3 failures in 3 runs
            # beside three busy loops); the zoomed session checks that the clock fits.
            if run("panels") and i == 0:
                check_panels(face)
        face.open(WEBKIT_SCALES[0])
        face.load()
        if run("theme"):
            check_theme(face)
            check_custom_colors(face)
        face.cmd("settings", {"face": {"theme": "night"}})
        if run("digits"):
            check_digit_cells(face, face_before.get("font", "sans"))
        for group, check in [("timers", check_timers), ("meditation", check_meditation), ("library", check_library), ("pages", check_night_pages)]:
            if run(group):
                check(face)
        # Speech when asked for by name (its own test): the caption, Say the time, the switch, the briefing.
        speech = "speech" in args.only.split(",")
        if speech:
            check_speech(face)
        if "weather" in args.only.split(","):
            check_weather(face, args)
            check_day_alarms(face, args)
            check_idle(face, before.get("show_seconds", False))  # with the weather shown
        if run("idle"):
            face.cmd("timer/cancel")
            check_idle(face, before.get("show_seconds", False))
        if args.check_ringing:
            check_ringing(face, args.ring_command, args.ring_at, args.ringing_timeout)
            if speech:
                check_briefing(face)
    finally:
        restore_settings(face, before)
    check_page_health(face, args.check_disconnect)
    if args.check_disconnect:
        face.logs()
        # The node gone, the page's own reconnecting is all that may fail; nothing else.
        report("no errors while disconnected", not face.console, " | ".join(face.console[:3]))


if __name__ == "__main__":
    main()
