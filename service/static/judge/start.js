/* global $, COMMON, data, drawKeys, element, EVENT, first, form, formError, GUARD_MS, lexicon, params,
   preview, problem, renumber, rows, say, showVerdict, state, store, submitButton, t, TEXTS, token, tokenBox,
   verdict */
/* Lexicon Judge, the judge's page: the interface language and the lexicon in use (chosen in the
   list, or offered by a language button; remembered on the phone and in cookies), and the start,
   last: the choice the page opens on, then the offline scripts once it has painted. Part of
   static/judge.js (judge/page.js says how). */
const select = $("lexicon");

// The phone's choice, also as cookies, so that the service serves the next load in it
// (service/page.py: no flash of another language); a year, this page's path.
function cookie(name, value) {
  try { document.cookie = `lexicon-judge-${name}=${encodeURIComponent(value)}; max-age=31536000; SameSite=Lax`; } catch (e) { /* refused */ }
}

// the interface language

function localize() {
  COMMON.localize(state.ui, t);
  for (const option of select.options) {
    const item = data.lexicons.find((l) => l.id === option.value);
    option.textContent = `${item.name} · ${t("lang." + item.language)} · ${item.version} · ${item.short}` +
      (item.default ? ` (${t("default")})` : "");
  }
  const item = lexicon();
  $("lexicon-name").textContent = item.name;  // cut to fit; the checksum beside it never is
  $("lexicon-short").textContent = "· " + item.short;
  $("lexicon-details").textContent = t("lexiconDetails",  // the whole name, wrapped: the select may cut it
    { name: item.name, language: t("lang." + item.language), version: item.version, short: item.short });
  submitButton.textContent = t(state.busy ? "checking" : "submit");
  if ($("token-error")?.textContent) $("token-error").textContent = t("tokenWrong");  // the venue code's one line
  const [line, said] = formError.said || [];
  if (line === formError.firstChild) say(said);  // none (undefined) is never its first node (an element, or null)
  renumber();
  rows().forEach((row) => preview(row, false));
  EVENT.draw();
}

// the lexicon in use: chosen in the list, or offered by a language button

const find = (name) => name ? data.lexicons.find((l) => l.id.toLowerCase() === name.toLowerCase()) ||
  data.lexicons.find((l) => l.default && l.language === name.toLowerCase()) : undefined;

// A language's lexicon: the one last used in it on this phone, else its default, else its first.
function offered(language) {
  const last = find(store("local", "lexicon." + language)), own = data.lexicons.filter((l) => l.language === language);
  return last && last.language === language ? last : own.find((l) => l.default) || own[0];
}

// The first of the browser's languages (ca-ES, ca, es-419…) the page has texts for.
function browserLanguage() {
  const tags = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  return tags.map((tag) => String(tag).split("-")[0].toLowerCase()).find((code) => code in TEXTS);
}

function choose(item) {
  state.lexicon = select.value = item.id;
  store("local", "lexicon", item.id);
  store("local", "lexicon." + item.language, item.id);
  cookie("lexicon", item.id);
  drawKeys();
  localize();
}

select.addEventListener("change", () => choose(find(select.value)));  // the interface stays
document.querySelectorAll(".lang").forEach((button) => button.addEventListener("click", () => {
  state.ui = button.dataset.lang;
  store("local", "ui", state.ui);
  cookie("ui", state.ui);
  choose(offered(state.ui) || lexicon());  // that language's lexicon, if the service has one
}));

// Held sideways at 200 % zoom the language buttons are drawn after the page (judge.css, from the
// first paint): moved after it in the document too, and back above it when the phone is turned
// upright, so that Tab and a screen reader meet them where they are drawn, after Comprobar, not
// before the lexicon's line (WCAG 2.4.3). Nothing moves on the screen; the focus stays where it was.
function placeBar() {
  const bar = $("langs").parentNode, main = form.parentNode, focus = document.activeElement;
  const after = getComputedStyle(bar).order > 0;
  if (after !== (bar.previousElementSibling === main)) { main[after ? "after" : "before"](bar); focus.focus(); }
}
addEventListener("resize", placeBar);
placeBar();

// start: ?lexicon= (and its language), else this phone's last choice, else the browser's
// first language we have texts for and its lexicon (in an event, the event's: the one its
// verdicts are judged with), else the service's default lexicon
function start() {
  const linked = find(params.get("lexicon"));
  let ui = linked ? linked.language : store("local", "ui");
  if (!(ui in TEXTS)) ui = browserLanguage();
  const chosen = linked || find(store("local", "lexicon")) || find(data.event?.lexicon) || offered(ui) ||
    find(select.value) || data.lexicons[0];
  if (!chosen) { submitButton.disabled = true; return; }
  state.lexicon = select.value = chosen.id;
  state.ui = ui in TEXTS ? ui : chosen.language in TEXTS ? chosen.language : Object.keys(TEXTS)[0];
  // The service chose by the same rule (service/page.py), from the cookies: kept in step with this
  // phone's storage, where an older page kept its choice without them.
  if (store("local", "ui")) cookie("ui", store("local", "ui"));
  if (store("local", "lexicon")) cookie("lexicon", store("local", "lexicon"));
  state.input = first();
  if (tokenBox && !token()) tokenBox.hidden = false;
  drawKeys();
  localize();
  EVENT.start({ data, t, store, find, choose, lexicon, element, state, formError, verdict, problem, say });
  Object.assign(window.LexiconJudge,  // offline.js, tests
    { state, token, element, verdict, showVerdict, EVENT, GUARD_MS, problem, formError, say });
  addEventListener("load", () => setTimeout(() => data.later.forEach((src) =>  // after first paint, in order
    document.body.append(Object.assign(document.createElement("script"), { src, async: false })))));
}
start();
