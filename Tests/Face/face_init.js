// The browser test's instrumentation, run before any of the face's own scripts (never shipped).
// Chromium gets it through the DevTools protocol (Page.addScriptToEvaluateOnNewDocument); WebKit,
// whose WebDriver has no such command, through a copy of the face folder whose index.html loads it
// as a classic script ahead of app.js (face_browser_test.py --prepare-face).
//
// It counts animation-frame requests and WebSocket messages, keeps the sockets, and while
// __wsBlocked points new ones at a closed loopback port (the node out of reach). It also keeps
// every error a person would see in the console: uncaught exceptions, unhandled rejections,
// console.error, a resource that failed to load and a Content-Security-Policy violation, since
// WebKit's WebDriver has no log API like Chromium's.
(() => {
  if (window.__faceInit) return;
  window.__faceInit = true;
  window.__rafCalls = 0; window.__wsMessages = 0; window.__sockets = []; window.__wsBlocked = false;
  window.__errors = [];
  const note = (text) => window.__errors.push(String(text).slice(0, 500));
  // WebKit's stack has no message in it: the error as text, then where it was thrown.
  const describe = (a) => (a instanceof Error ? `${a} at ${(a.stack || '').split('\n')[0]}` : String(a));
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) => { window.__rafCalls++; return raf(cb); };
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(url, ...a) {
      super(window.__wsBlocked ? 'ws://127.0.0.1:9/' : url, ...a);
      window.__sockets.push(this);
      this.addEventListener('message', () => window.__wsMessages++);
    }
  };
  // Capturing: an element's failed load (a script, a style sheet, a font's link) does not bubble.
  window.addEventListener('error', (e) => {
    if (e.target && e.target !== window && e.target.tagName) {
      note(`failed to load: <${e.target.tagName.toLowerCase()}> ${e.target.src || e.target.href || ''}`);
    } else {
      note(`uncaught: ${e.message} at ${e.filename}:${e.lineno}:${e.colno}`);
    }
  }, true);
  window.addEventListener('unhandledrejection', (e) => {
    note(`unhandled rejection: ${describe(e.reason)}`);
  });
  document.addEventListener('securitypolicyviolation', (e) => {
    note(`CSP violation: ${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`);
  });
  const error = console.error.bind(console);
  console.error = (...args) => {
    note(`console.error: ${args.map(describe).join(' ')}`);
    error(...args);
  };
})();
