/* global LexiconCommon, signedOut */
/* exported data, API, $, state, t, element, ask, failure, say, breakWords, list, openRound, serverNow,
   clock, deviceName, cell */
/* Lexicon Judge: the director's console. A client of the tournament API (/v1/director/session,
   /v1/devices, /v1/rounds, /v1/records, /v1/event) with the session cookie; the QR code of a
   pairing URL is drawn by the service (POST director/qr). No secret is ever kept by the page.

   Its script, static/director.js, is written in parts, one a concept, in static/director/, and
   sent as one file, in one function, in this order (PARTS in service/static_files.py, as the judge's
   page's): state.js (this: the page's data, the console's state, asking the service, the drawing
   helpers), live.js (following the event by itself), rounds.js, devices.js (and pairing),
   records.js (the list, its integrity, the counts per device), slip.js, start.js (logging in and out, reading the state, the start). They share
   that function's scope; a part calls a later one's functions only once the page has started
   (start.js runs last). What each part uses and gives is said in its first lines, as in the
   judge's page's parts (judge/page.js says how, and what checks them). */
const data = JSON.parse(document.getElementById("director-data").textContent);
const API = data.api;
const $ = (id) => document.getElementById(id);
const state = { ui: null, event: null, devices: [], rounds: [], records: [], more: false, shown: null, chain: null,
  lexicon: undefined, ends: null, countsNewest: null,
  busy: false, drawn: {}, fresh: null, seen: "", unreadable: "" };
const t = LexiconCommon.texts(data.texts, () => state.ui), element = LexiconCommon.element;  // common.js

// {status, body, retry}; a 401 on anything but the login itself means the session is over. Past
// the session's known end (state.ends, start.js) nothing is sent: the answer would be that 401,
// which a browser logs as an error; the login comes back at once instead.
async function ask(method, path, body) {
  if (state.ends && Date.now() >= state.ends && path !== API.session && path !== API.link) {
    signedOut(() => t("sessionOver"));
    return { status: 401, body: null, text: "", headers: new Headers(), timedOut: false, retry: null };
  }
  const result = await LexiconCommon.ask(method, path, { body });
  result.retry = result.headers.get("Retry-After");
  if (result.status === 401 && path !== API.session && !$("console").hidden) signedOut(() => t("sessionOver"));
  return result;
}

// The words for a failed request, for the panel it is about: each problem type the service
// answers has its text (problem.NAME); its English detail stays in the API, for tools.
const PROBLEM = "tag:lexicon-judge,2026:problem/";
function failure(result) {
  if (result.status === 0) return t("offline");
  const type = String(result.body && result.body.type || ""), name = type.slice(PROBLEM.length);
  if (type.startsWith(PROBLEM) && data.texts[state.ui]["problem." + name] !== undefined) {
    return t("problem." + name, { seconds: result.retry || result.body.retry_after || 60 });
  }
  return t(result.status >= 500 ? "failed" : "problem.other", { status: result.status });
}

// A line (an error, a notice) said by `said`, a function of the console's language, or emptied
// (no `said`): said again in a language tapped (localize), unless another was said there since.
function say(id, said) { const el = $(id); el.said = [el.textContent = said ? said() : "", said]; }

// A break of the record (its `kind` and `facts`, GET v1/records: chain.broken) in words.
const breakWords = (found) => data.texts[state.ui]["break." + found.kind] === undefined ? t("break.changed") :
  t("break." + found.kind, found.facts || {});

const list = (body, key) => Array.isArray(body) ? body : body && Array.isArray(body[key]) ? body[key] : [];

const openRound = () => state.rounds.find((r) => !r.closed);
// The service's time now, by this computer's clock and the difference its first answer showed
// (a phone's clock may be minutes off): how long a device has been silent is the service's.
const serverNow = () => Date.now() + (state.skew || 0);
// Every time the console shows (the list, the slip, the rounds, the devices): the record's UTC
// time in this computer's own time (the laptop's clock, as the hall's), one format everywhere, to
// the second.
const clock = (stamp) => {
  const moment = new Date(stamp || NaN);
  return isNaN(moment) ? "" : moment.toLocaleString(state.ui, { year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit" });
};
const deviceName = (id) => { const d = state.devices.find((x) => x.id === id); return d ? d.name : ""; };

// A table cell with its column's name, which a card shows beside it at phone width.
function cell(row, label, content) {
  const td = row.insertCell();
  td.dataset.label = label;
  if (content instanceof Node) td.appendChild(content); else td.textContent = content === undefined || content === null ? "" : content;
  return td;
}
