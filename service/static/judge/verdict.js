/* global $, data, element, first, form, formError, list, resetRows, state, t */
/* exported GUARD_MS, verdict, showVerdict, showSecond, clearVerdict, forget */
/* Lexicon Judge, the judge's page: the verdict's screen (colour, shape and words, the slip's
   result, the lexicon that judged), its countdown (when set) and Borrar, what it covers out of reach while
   it is up, and the last verdict shown again for a minute (until the next play is typed). Part
   of static/judge.js (judge/page.js says how). */
// A verdict's buttons ignore taps and keys (but Escape) this long: a second tap on Comprobar,
// where Borrar then is, clears nothing.
const GUARD_MS = 1000;
const RECALL_MS = 60000;   // a verdict cleared can be shown again this long
const screen = $("screen"), verdict = $("verdict"), foot = $("screen-foot"), hint = $("clear-hint"), recallButton = $("recall");

// the verdict

const ICONS = {  // the insides of an <svg class="v-icon">: a tick in a circle, a cross in an octagon
  valid: '<circle cx="50" cy="50" r="45" stroke-width="8"/><path d="M28 52l15 15 30-33" stroke-width="10" stroke-linecap="round" stroke-linejoin="round"/>',
  invalid: '<path d="M31 5h38l26 26v38L69 95H31L5 69V31z" stroke-width="8" stroke-linejoin="round"/><path d="M33 33l34 34M67 33L33 67" stroke-width="10" stroke-linecap="round"/>',
};

function showVerdict(valid, words, identity, slip) {
  clearVerdict(false);
  forget();
  const kind = valid ? "valid" : "invalid";
  verdict.lang = state.ui;
  verdict.insertAdjacentHTML("beforeend", `<svg class="v-icon" viewBox="0 0 100 100" aria-hidden="true" fill="none" stroke="currentColor">${ICONS[kind]}</svg>`);
  verdict.appendChild(element("p", "v-title", t(kind))).id = "verdict-title";
  const ul = element("ul", "v-words");
  for (const word of words) ul.appendChild(element("li", "", word));
  verdict.appendChild(ul);
  const where = slip.table && slip.round ? "tableRound" : slip.table ? "tableOnly" : slip.round ? "roundOnly" : "";
  const line = element("p", "v-slip");
  if (where) line.append(t(where, slip), document.createElement("br"));
  line.appendChild(element("span", "v-result", `${t("slipResult")} ${t(valid ? "yes" : "no")}`));
  verdict.appendChild(line);
  verdict.appendChild(element("p", "v-lexicon",
    t("verdictLexicon", { name: identity.name, version: identity.version, short: identity.checksum.slice(0, 8) })));
  open(kind);
}

// The verdict's screen up, the focus on Borrar; with LEXICON_VERDICT_SECONDS set, its countdown
// started (by default it stays until Borrar: players point at it while they talk it over).
function open(kind) {
  const seconds = data.verdictSeconds, timed = seconds > 0;
  hint.textContent = timed ? t("clearHint", { n: Math.ceil(seconds) }) : t("stayHint");
  foot.hidden = screen.hidden = false;
  screen.className = "screen show " + kind;
  document.body.classList.add("verdict-open");
  behind(true);
  Object.assign(state, { shown: true, shownAt: Date.now(), deadline: timed ? Date.now() + seconds * 1000 : Infinity });
  state.timers = timed ? [setTimeout(expired, seconds * 1000 + 20), setInterval(() => {
    hint.textContent = t("clearHint", { n: Math.max(0, Math.ceil((state.deadline - Date.now()) / 1000)) });
    expired();
  }, 1000)] : [];
  $("clear").focus({ preventScroll: true });
}

// The second opinion (LEXICON_SECOND), smaller, above the lexicon line; it never replaces the verdict.
function showSecond(second, item) {
  if (!item.second || !second || second.valid !== !!second.valid || (second.lexicon || {}).id !== item.second) return;
  verdict.insertBefore(element("p", "v-second", t("second", { name: second.lexicon.name,
    verdict: t(second.valid ? "secondValid" : "secondInvalid") })), verdict.querySelector(".v-lexicon"));
}

// Takes the verdict off the screen; `empty` also puts the focus on word 1 and keeps the verdict a
// minute, for the Último veredicto button, and a new verdict's clearing empties the words (and
// the table number). A recalled one's leaves them: they hold what was typed since, if anything.
function clearVerdict(empty) {
  state.timers.forEach((id) => { clearTimeout(id); clearInterval(id); });
  const was = state.shown, recalled = Boolean(state.last);
  state.shown = false;
  if (was && empty) {
    if (!recalled) state.last = { kind: screen.classList.contains("valid") ? "valid" : "invalid", lang: verdict.lang, at: Date.now() };
    state.last.nodes = Array.from(verdict.childNodes).filter((node) => !node.classList || !node.classList.contains("v-recalled"));
    recallButton.hidden = false;
    clearTimeout(state.recallTimer);
    state.recallTimer = setTimeout(forget, Math.max(0, state.last.at + RECALL_MS - Date.now()));
  }
  verdict.textContent = "";
  foot.hidden = screen.hidden = true;
  screen.className = "screen";
  document.body.classList.remove("verdict-open");
  behind(false);
  if (!was || !empty) return;
  if (!recalled) {
    resetRows();
    $("table").value = "";
    formError.textContent = "";
  }
  // The page's top, and word 1, where the next play is typed, in view above the dock (the page's
  // scroll-padding) where the screen holds not both (a small phone at 200 % zoom).
  scrollTo(0, 0);
  first().focus({ preventScroll: true });
  first().scrollIntoView({ block: "nearest" });
}

// What the verdict covers is out of reach while it is up: no Tab or screen reader lands there.
function behind(covered) { for (const el of [form, document.querySelector(".bar")]) el.inert = covered; }

function expired() { if (state.shown && Date.now() >= state.deadline) clearVerdict(true); }

// The last verdict cleared, shown again (said to be the previous one) within a minute of its
// clearing: in the language it was shown in, the line that marks it in today's.
function recall() {
  const last = state.last;
  if (!last || state.shown || Date.now() - last.at > RECALL_MS) { forget(); return; }
  verdict.lang = last.lang;
  const mark = element("p", "v-recalled", t("recalled"));
  mark.lang = state.ui;
  verdict.append(mark, ...last.nodes);
  open(last.kind);
}

function forget() {
  state.last = null;
  clearTimeout(state.recallTimer);
  recallButton.hidden = true;
}

// A verdict stays until Borrar (or Escape): a stray tap or key clears nothing. Borrar, and a
// key on it, count only after GUARD_MS, so that the tap or Enter that asked is not taken for it.
const settled = () => Date.now() - state.shownAt >= GUARD_MS;
$("clear").addEventListener("click", () => { if (state.shown && settled()) clearVerdict(true); });
recallButton.addEventListener("click", recall);
// The next play typed (on the keyboard, or with a tile key: words.js's insertTile), the last verdict
// is no longer the one to show.
list.addEventListener("input", forget);
document.addEventListener("keydown", (event) => {
  if (!state.shown) return;
  if (event.key === "Escape") { event.preventDefault(); clearVerdict(true); return; }
  const onButton = screen.contains(event.target) && event.target.matches("button") && ["Enter", " ", "Tab"].includes(event.key);
  if (event.key === "Tab" || onButton && settled()) return;  // the button's own keys
  if (!event.ctrlKey && !event.metaKey && !event.altKey) event.preventDefault();
  event.stopPropagation();
}, true);
document.addEventListener("visibilitychange", expired);
window.addEventListener("focus", expired);
window.addEventListener("pageshow", expired);
