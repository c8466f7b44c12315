// docs/face-modules.md

let table = {};
let lang = "";
let plural = new Intl.PluralRules("en");
let loading = "";
/** Keys asked for but missing from the catalog (for the browser test). */
export const missing = new Set();

/** The language whose strings are in use ("" before the first catalog). */
export function language() {
  return lang;
}

/**
 * Fetches the catalog of `language` and uses it; true when it changed. Kept as it was when the
 * node cannot be reached, or when another language was asked for meanwhile.
 */
export async function loadStrings(language) {
  if (language === lang) loading = ""; // a load of another language under way no longer counts
  if (!language || language === lang || language === loading) return false;
  loading = language;
  try {
    const r = await fetch("/api/strings/" + encodeURIComponent(language));
    if (!r.ok) throw new Error(r.status);
    const strings = await r.json();
    if (loading !== language) return false;
    table = strings;
    lang = language;
    plural = new Intl.PluralRules(language);
    document.documentElement.lang = language;
    return true;
  } catch {
    return false;
  } finally {
    if (loading === language) loading = "";
  }
}

/** The string for `key`, with `{name}` placeholders filled from `params` and plural forms chosen by `params.count`. */
export function t(key, params = {}) {
  let entry = table[key];
  if (entry === undefined) {
    missing.add(key);
    return key;
  }
  if (typeof entry === "object") entry = entry[plural.select(params.count ?? 0)] ?? entry.other;
  return entry.replace(/\{(\w+)\}/g, (_, name) => (params[name] ?? "").toString());
}

/** True when the catalog has `key` (for names that come from the node, such as sound categories). */
export function has(key) {
  return key in table;
}

/** The catalog's texts whose keys start with `prefix`, in key order (the affirmations). */
export function list(prefix) {
  return Object.keys(table).filter((k) => k.startsWith(prefix)).sort().map((k) => t(k));
}
