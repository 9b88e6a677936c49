/* exported LexiconCommon */
/* Lexicon Judge: what the scripts of every page share (the judge's page, its event part, its
   offline part, the director's console), loaded before them: asking the service, and the texts.
   One way to ask, so that every request is sent alike (same-origin, never cached, never
   redirected, JSON both ways) and every answer read alike (status 0: no answer at all). */
window.LexiconCommon = (() => {
  "use strict";

  /* Asks the service: {status, body (parsed JSON, or null), text, headers, timedOut}.
     `body` is sent as JSON; `token` as a bearer token; after `timeout` ms the request is
     abandoned (status 0, timedOut). Never throws: a network error is status 0. */
  async function ask(method, path, options) {
    const { body, token, timeout } = options || {};
    const headers = { Accept: "application/json, application/problem+json" };
    if (token) headers.Authorization = "Bearer " + token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const controller = new AbortController(), timer = timeout ? setTimeout(() => controller.abort(), timeout) : null;
    try {
      const response = await fetch(path, { method, headers, cache: "no-store", credentials: "same-origin",
        redirect: "error", signal: controller.signal, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      let parsed = null;
      try { parsed = text ? JSON.parse(text) : null; } catch (e) { /* not JSON: a captive portal, a proxy */ }
      return { status: response.status, body: parsed, text, headers: response.headers, timedOut: false };
    } catch (error) {
      return { status: 0, body: null, text: "", headers: new Headers(), timedOut: Boolean(error && error.name === "AbortError") };
    } finally {
      clearTimeout(timer);
    }
  }

  /* A text with its {placeholders} filled in; a placeholder without a value stays as it is.
     Every language has every text, with the same placeholders: service/page_texts.py checks. */
  const fill = (text, values) => text.replace(/\{(\w+)\}/g,
    (all, name) => values && name in values ? String(values[name]) : all);

  /* `t(key, values)` over a table of texts by language, in the language `language()` names. */
  const texts = (table, language) => (key, values) => fill(table[language()][key], values);

  /* What every page does when its language changes: the document's language and title, the
     language buttons (#langs .lang[data-lang]), and every element whose data-ATTR names a text. */
  function localize(language, t, attributes) {
    document.documentElement.lang = language;
    document.title = t("title");
    const langs = document.getElementById("langs");
    if (langs) langs.setAttribute("aria-label", t("language"));
    document.querySelectorAll(".lang[data-lang]").forEach((button) =>
      button.setAttribute("aria-pressed", String(button.dataset.lang === language)));
    for (const attribute of attributes || ["t"]) {
      document.querySelectorAll(`[data-${attribute}]`).forEach((el) => { el.textContent = t(el.dataset[attribute]); });
    }
  }

  function element(tag, className, content) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (content !== undefined && content !== null) el.textContent = content;
    return el;
  }

  return { ask, fill, texts, localize, element };
})();
