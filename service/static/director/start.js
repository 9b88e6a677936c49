/* global $, API, ask, changed, closeSlip, data, drawChain, drawCounts, drawDevices, drawFilters,
   drawLexicon, drawRecords, drawRound, drawSlip, failure, keepFocus, LexiconCommon, list, live,
   liveTimer, loadCounts, loadRecords, openRound, say, silent, state, t */
/* exported signedOut, refresh */
/* Lexicon Judge, the director's console: the interface language, logging in and out (and the
   session's end), reading the state and drawing it all, and the start, last. Part of
   static/director.js (director/state.js says how). */
const TEXTS = data.texts;
// -- the interface language ---------------------------------------------------------------------

function localize() {
  LexiconCommon.localize(state.ui, t);
  document.querySelectorAll(".error, .notice, .done-notice, .pairing-for").forEach((el) => {
    const [line, said] = el.said || [];
    if (line && line === el.textContent) say(el.id, said);
  });
  if (!$("console").hidden) drawAll();
}

// -- logging in and out -------------------------------------------------------------------------

function signedOut(said) {
  sessionEnds(null);
  clearTimeout(liveTimer);
  $("console").hidden = true;
  $("logout").hidden = true;
  closeSlip();
  $("login").hidden = false;
  say("login-error", said);
  $("password").focus();
}

// A login's answer says how long its session lasts; a page the service rendered signed in says
// only that there is one, so the service is asked how long it has left, while the state is read.
async function signedIn(session) {
  state.event = { name: session && session.event };
  $("event-name").textContent = state.event.name || "";
  const left = session && Number.isInteger(session.expires_in) ? null : ask("GET", API.session);
  if (!await refresh()) { signedOut(() => t("sessionOver")); return; }
  const lasts = left ? await left : { body: session };
  sessionEnds(lasts.body && lasts.body.expires_in);
  $("login").hidden = true;
  $("logout").hidden = false;
  $("console").hidden = false;  // once it has something to show
  live();
}

// The session's end, in this computer's time, a few seconds early: then the login comes back by
// itself (or at the next request, after a sleep that held the timer back), with nothing refused.
const EARLY_S = 5;
function sessionEnds(seconds) {
  clearTimeout(state.endTimer);
  state.ends = Number.isFinite(seconds) ? Date.now() + 1000 * Math.max(0, seconds - EARLY_S) : null;
  if (state.ends !== null) {
    state.endTimer = setTimeout(() => { if (!$("console").hidden) signedOut(() => t("sessionOver")); },
      Math.min(state.ends - Date.now(), 2 ** 31 - 1));
  }
}

async function login(event) {
  event.preventDefault();
  const field = $("password"), password = field.value;
  if (!password) { field.focus(); return; }
  const result = await ask("POST", API.session, { password });
  field.value = "";  // never kept, not even in the field
  if (result.status >= 200 && result.status < 300) { say("login-error"); await signedIn(result.body); return; }
  if (result.status === 429) {
    say("login-error", () => t("loginLocked", { seconds: result.retry || (result.body && result.body.retry_after) || 60 }));
  } else if (result.status === 401) {
    say("login-error", () => t("loginWrong"));
  } else {
    say("login-error", () => failure(result));
  }
  field.focus();
}

async function logout() {
  await ask("DELETE", API.session);
  signedOut();
}

// -- reading the state --------------------------------------------------------------------------

// The state read again: after an action, and every few seconds by itself (`quiet`, live.js:
// then a failure says nothing but the integrity line's "since when", and only what changed is
// drawn again).
async function refresh(quiet) {
  state.busy = true;
  try {
    const read = loadRecords(false, quiet);  // beside the devices and the rounds, not after them
    const [devices, rounds, event] = await Promise.all([ask("GET", API.devices), ask("GET", API.rounds),
      state.lexicon === undefined ? ask("GET", API.event) : null]);
    if (devices.status === 401 || rounds.status === 401) { await read; return false; }
    if (event && event.status === 200 && event.body) state.lexicon = event.body.lexicon || null;
    if (devices.status !== 200 || rounds.status !== 200) {
      if (!quiet) say("notice", () => failure(devices.status !== 200 ? devices : rounds));
      await read;
      return true;
    }
    say("notice");
    const date = Date.parse(devices.headers.get("Date"));
    if (state.skew === undefined && !isNaN(date)) state.skew = date - Date.now();
    state.devices = list(devices.body, "devices");
    state.rounds = list(rounds.body, "rounds").slice().sort((a, b) => a.number - b.number);
    state.outside = rounds.body && rounds.body.outside_rounds || [];
    if (!quiet) state.drawn = {};
    if (changed("devices", [state.devices, state.devices.map(silent), Boolean(openRound())])) keepFocus($("devices"), drawDevices);
    if (changed("rounds", [state.rounds, state.outside, state.lexicon])) { drawLexicon(); drawRound(); }
    if (changed("filters", [state.devices.map((d) => d.name), state.rounds.map((r) => r.number)])) drawFilters();
    const [records] = await Promise.all([read, loadCounts()]);
    if (records) state.fresh = Date.now();
    drawChain();
    return true;
  } finally {
    state.busy = false;
  }
}

function drawAll() {
  drawLexicon();
  drawChain();
  drawRound();
  drawDevices();
  drawFilters();
  drawRecords();
  drawCounts();
}

// -- events -------------------------------------------------------------------------------------

$("login-form").addEventListener("submit", login);
$("logout").addEventListener("click", logout);
document.querySelectorAll(".lang[data-lang]").forEach((button) => button.addEventListener("click", () => {
  state.ui = button.dataset.lang;
  document.cookie = `lexicon-judge-director-ui=${state.ui}; max-age=31536000; samesite=strict`;
  localize();
  drawSlip();
}));
window.LexiconDirector = { state, refresh, failure, drawChain };  // for tests, and for the curious

// -- start: the language the page was rendered in (the service chose it: the director's last
// choice, kept in a cookie, else the browser's); then the page's session, if any -------------

state.ui = document.documentElement.lang in TEXTS ? document.documentElement.lang : Object.keys(TEXTS)[0];
localize();
// A login link (`lexicon event login`: director#login=TOKEN), taken off the address at once:
// on opening, and in a tab already open on the login form, where pasting it changes only the
// address's `#` part (no reload). A tab signed in already leaves it unused, for another tab.
async function linkLogin() {
  const link = new URLSearchParams(location.hash.slice(1)).get("login");
  if (!link) return null;
  history.replaceState(null, "", location.pathname + location.search);
  if (!$("console").hidden) return "";
  const result = await ask("POST", API.link, { token: link });
  if (result.status >= 200 && result.status < 300) { await signedIn(result.body); return ""; }
  return () => failure(result);
}
window.addEventListener("hashchange", async () => {
  const refused = await linkLogin();
  if (refused) signedOut(refused);
});
(async () => {
  const refused = await linkLogin();
  if (refused === "") return;
  // The service rendered this page signed in or out (service/director.py): nothing to ask.
  if (data.session) await signedIn(data.session);
  else signedOut(refused);
})();
