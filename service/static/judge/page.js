/* global clearVerdict, LexiconTiles, preview, problemFor, setError, showSecond, showVerdict */
/* exported data, TEXTS, LIMITS, readers, EVENT, $, form, list, submitButton, formError, tokenBox,
   state, COMMON, element, store, t, lexicon, rows, inputOf, first, token, submit, params,
   LexiconJudge, problem, say */
/* Lexicon Judge: the judge's page. What it needs is in the page (#judge-data, from
   service/page.py); its one request is a POST /v1/challenge for each verdict.

   The page's script, static/judge.js, is written in parts, one a concept, in static/judge/;
   service/static_files.py (PARTS) sends them as one file, in one function, in this order: page.js (this:
   the page's data, its state and storage, the venue's token, asking the service), words.js (the
   word fields, their tiles and input errors, the tile keys), verdict.js (the verdict's screen and
   its recall), start.js (the interface language, the lexicon in use, and the start). They share
   that function's scope, as the one file they were did, and so cost the page no byte and no
   request. Each part's first lines say what it uses from the others and the files before it
   (ESLint's `global` comment) and what it gives them (its `exported` comment): ESLint checks that a part uses
   nothing else, tests/page/test_script_headers.py that each name comes from a part before it (or
   is a later part's function, which a part calls only once the page has started: start.js runs
   last) and from one part only. */
const data = JSON.parse(document.getElementById("judge-data").textContent);
const TEXTS = data.texts, LIMITS = data.limits;
const TIMEOUT_MS = 10000;  // no answer by then: say so, show no verdict (3 s if offline.js can judge)
const readers = {};
for (const language in data.alphabets) {
  readers[language] = new LexiconTiles.Reader(data.alphabets[language], data.unicode, LIMITS);
}
window.LexiconJudge = { data, readers };  // for tests, and for the curious
// In an event, event.js (loaded before this file) adds the paired device; else these do nothing.
const EVENT = window.LexiconEvent || { token: () => "", answer: () => false, verdict() {}, draw() {},
  slip: (slip) => slip, fields: () => ({}), unreachable: () => "", start() {} };

// Not a secure context (plain HTTP on the venue's network): offline.js's line under the lexicon's
// has its place from the first paint, to say that judging offline needs this tab kept open.
document.documentElement.classList.toggle("tab", !isSecureContext);
if (navigator.serviceWorker) addEventListener("load", () => navigator.serviceWorker.register("sw.js").catch(() => {}));  // installable.py
const $ = (id) => document.getElementById(id);
const form = $("play"), list = $("word-list"), submitButton = $("submit"), formError = $("form-error");
const tokenBox = $("token-box"), tokenInput = $("token");
const state = { ui: null, lexicon: null, busy: false, input: null, selection: [0, 0],
  shown: false, shownAt: 0, deadline: 0, timers: [], memory: {}, last: null };
const COMMON = window.LexiconCommon, element = COMMON.element;

// Local (lexicon, language) and session (token) storage; memory when a browser refuses it. An
// event's of a service of many (data-ns, its path /e/ID) apart: no event's device read by another.
function store(area, key, value) {
  key = "lexicon-judge" + (document.documentElement.dataset.ns || "") + "." + key;
  try {
    const storage = window[area + "Storage"];
    if (value === undefined) return storage.getItem(key);
    if (value === null) storage.removeItem(key); else storage.setItem(key, value);
  } catch (e) {
    if (value === undefined) return state.memory[key] || null;
    state.memory[key] = value;
  }
  return null;
}

const t = COMMON.texts(TEXTS, () => state.ui);
const lexicon = () => data.lexicons.find((l) => l.id === state.lexicon);
const rows = () => Array.from(list.children);
const inputOf = (row) => row.querySelector("input");
const first = () => inputOf(list.firstElementChild);

// asking the service

const token = () => EVENT.token() || store("session", "token") || "";

function saveToken(value) {
  value = (value || "").trim();
  store("session", "token", value || null);
  if (value && tokenBox) { tokenBox.hidden = true; tokenInput.value = ""; $("token-error").textContent = ""; }
  return value;
}

// The token's field is in the page only when the service asks for one (service/page.py). `wrong`:
// the code given was refused, said under its button (and again in a language tapped: localize).
function askToken(wrong) {
  saveToken("");
  if (!tokenBox) { say(() => t("tokenWrong")); return; }  // a token refused: the box is there when one is missing
  tokenBox.hidden = false;
  $("token-error").textContent = wrong ? t("tokenWrong") : "";
  tokenInput.focus();
}

// The dock's line, `said` in the page's language (a function of it, giving a text or a list of texts
// and elements: a countdown's, event.js): said again in a language tapped (localize), unless another
// line was said there since (its first node is another).
function say(said) { formError.replaceChildren(...[said()].flat()); formError.said = [formError.firstChild, said]; }

function busy(on) {
  state.busy = on;
  submitButton.disabled = on;
  submitButton.textContent = t(on ? "checking" : "submit");
  form.setAttribute("aria-busy", String(on));
  rows().forEach((row) => { inputOf(row).readOnly = on; });
}

// A problem the service answers, said in the page's language: its text comes after first paint
// (offline-data.js, from texts/problems/, as the console's); until then, or for a type it does
// not know, a short sentence of the page's own (a 5xx, a front end's with no instance behind it:
// failed, try again). Never the service's title or detail, in English.
function problem(body, response) {
  const said = ((window.LexiconOfflineData || {}).problems || {})[state.ui] || {};
  const text = said[String(body.type).split("/").pop()] || t(body.status >= 500 ? "failed" : "refused");
  const wait = response && response.headers && response.headers.get("Retry-After");
  return text.replace("{seconds}", wait || 60).replace("{status}", body.status);
}

function answer(status, body, item, sent, slip, response) {
  if (EVENT.answer(status, body, response)) return;
  if (status === 200 && body && typeof body.valid === "boolean" && body.lexicon &&
    body.lexicon.id === item.id && typeof body.lexicon.checksum === "string") {
    showVerdict(body.valid, sent.map((s) => s.word), body.lexicon, EVENT.slip(slip, body));
    window.LexiconOffline?.served(body.lexicon);
    EVENT.verdict(body);
    showSecond(body.second, item);
  } else if (status === 401) {
    askToken(true);
  } else if (status === 404 && body && /unknown-lexicon$/.test(body.type)) {
    say(() => t("unknownLexicon"));
  } else if (status === 422 && body && sent[body.word - 1]) {
    problemFor(sent[body.word - 1].row, body);
  } else if (status >= 400 && body && body.type) {
    say(() => problem(body, response));
  } else {
    say(() => t("failed", { status }));
  }
}

function submit() {
  if (state.busy) return;
  clearVerdict(false);
  formError.textContent = "";
  if (tokenBox && !tokenBox.hidden && tokenInput.value.trim()) saveToken(tokenInput.value);
  const sent = [];
  let bad = null;
  for (const row of rows()) {
    const read = preview(row, true);
    if (!read) continue;  // an empty field is no word of the play
    if (read.error) bad = bad || inputOf(row);
    else sent.push({ row, typed: inputOf(row).value, word: read.word.toUpperCase() });
  }
  if (bad) { bad.focus(); return; }
  if (!sent.length) { setError(list.firstElementChild, t("empty")); first().focus(); return; }
  const key = token();
  if (data.tokenRequired && !key) { askToken(false); return; }
  if (key && !/^[\x21-\x7e]+$/.test(key)) { askToken(true); return; }

  const item = lexicon(), slip = EVENT.slip({ table: $("table").value.trim(), round: $("round").value.trim() });
  const play = { lexicon: item.id, words: sent.map((s) => s.typed), notation: "spelling", second: item.second && EVENT.role?.() != "table", ...EVENT.fields(slip, sent.map((s) => s.typed)) };
  // The service out of reach (no answer, a 5xx, a 429 not its own: a front end's per address, which
  // anyone behind the hall's NAT may spend): offline.js judges, if this phone can.
  const off = window.LexiconOffline, local = () => !!off && off.judge(item, sent, slip, play);
  if (off && off.standalone) return local() || say(() => t("offline"));
  busy(true);
  COMMON.ask("POST", data.challenge, { body: play, token: key, timeout: off && off.ready(item.id) ? 3000 : TIMEOUT_MS })
    .then((result) => {
      busy(false);
      if (!result.status) {
        if (!local()) say(() => EVENT.unreachable() || t(result.timedOut ? "timeout" : "offline"));
      } else if (result.status < 500 && result.body && (result.status !== 429 || /^tag:/.test(result.body.type)) ||
        !local()) {  // no JSON: not the service
        answer(result.status, result.body, item, sent, slip, result);
      }
    });
}

form.addEventListener("submit", (event) => { event.preventDefault(); submit(); });
if (tokenBox) $("token-save").addEventListener("click", () => {
  if (saveToken(tokenInput.value)) { formError.textContent = ""; first().focus(); }
});
const params = new URLSearchParams(location.search);
if (params.has("token")) {  // taken once from the address, kept for this tab, off the screen
  saveToken(params.get("token"));
  params.delete("token");
  const query = params.toString();
  history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
}
