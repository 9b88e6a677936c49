/* global $, data, element, first, forget, form, formError, inputOf, lexicon, LIMITS, list, readers,
   rows, state, submit, submitButton, t */
/* exported renumber, resetRows, setError, preview, problemFor, drawKeys */
/* Lexicon Judge, the judge's page: the word fields (one to eight, added and removed), each drawn
   as tiles while it is typed, its input errors said next to it (the page's own reading, and a
   422 from the service), and the special tile keys. Part of static/judge.js (judge/page.js says
   how). */
const addButton = $("add"), keys = $("keys"),
  capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const show = (char) => char === " " ? "␣" : /^\p{M}$/u.test(char) ? "◌" + char :
  /^[\p{C}\p{Z}]$/u.test(char) ? "U+" + char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") :
  char.toUpperCase().length === char.length ? char.toUpperCase() : char;  // as the field shows it
const reader = () => readers[lexicon().language];

// word fields

function renumber() {
  const all = rows();
  all.forEach((row, index) => {
    const n = index + 1, input = inputOf(row), label = row.querySelector("label"), id = "word-" + n;
    input.id = input.name = id;
    label.htmlFor = id;
    label.id = id + "-label";
    label.textContent = t("word", { n });
    row.querySelector(".preview").id = id + "-tiles";
    row.querySelector(".error").id = id + "-error";
    input.setAttribute("aria-describedby", `${id}-tiles ${id}-error`);
    const remove = row.querySelector(".remove");
    remove.setAttribute("aria-label", t("remove", { n }));
    remove.hidden = all.length === 1;
  });
  addButton.disabled = all.length >= LIMITS.maxWords;
}

function addRow() {
  if (rows().length >= LIMITS.maxWords) return null;
  const row = list.firstElementChild.cloneNode(true);
  list.appendChild(row);
  inputOf(row).value = "";
  renumber();
  preview(row, false);
  return inputOf(row);
}

function removeRow(row) {
  const all = rows(), index = all.indexOf(row);
  if (all.length === 1) return;
  row.remove();
  renumber();
  const left = rows();
  inputOf(left[Math.min(index, left.length - 1)]).focus();
}

function resetRows() {
  rows().slice(1).forEach((row) => row.remove());
  first().value = "";
  state.input = first();
  state.selection = [0, 0];
  renumber();
  preview(list.firstElementChild, false);
}

// the live preview and input errors

function reasonText(error, language) {
  const set = t("set." + language);
  const translated = (data.alphabets[language].hintsIn[state.ui] || {})[error.hint];
  if (error.why === "hint" && translated) return translated;
  if (error.why === "space") return t("why.space");
  if (error.why === "spelling") return t("why.spelling", { set });
  if (/^\p{L}$/u.test(error.char)) return t("why.letter", { set, letter: error.char.toUpperCase() });
  return t("why.other", { set });
}

function errorText(error) {
  if (error.kind === "tile") {
    return capital(t("at", { char: show(error.char), position: error.position, reason: reasonText(error, lexicon().language) }));
  }
  if (error.kind === "length") return capital(t("length", { min: error.min, max: error.max, n: error.tiles }));
  return capital(t("emptyWord"));
}

// Said as it appears (aria-live), and only then: the same message set again is no change.
function setError(row, message) {
  const said = row.querySelector(".error");
  if (said.textContent !== (message || "")) said.textContent = message || "";
  if (message) inputOf(row).setAttribute("aria-invalid", "true");
  else inputOf(row).removeAttribute("aria-invalid");
}

// Draws a field's tiles; `strict` (on submit) also reports a word too short to be played.
function preview(row, strict) {
  const box = row.querySelector(".preview"), value = inputOf(row).value;
  box.textContent = "";
  delete box.dataset.tiles;
  if (!value.trim()) { setError(row, ""); return null; }
  const read = reader().read(value), error = read.error;
  for (const label of read.tiles) box.appendChild(element("span", "tile", label));
  if (error && error.kind === "tile") {
    box.appendChild(element("span", "tile bad", show(error.char)));
  } else {
    box.dataset.tiles = read.tiles.join("|");
    box.appendChild(element("span", "count", read.tiles.length === 1 ? t("tile") : t("tiles", { n: read.tiles.length })));
  }
  setError(row, error && (error.kind === "tile" || strict || error.tiles > error.max) ? errorText(error) : "");
  return read;
}

// A 422 from the service, next to the field it is about.
function problemFor(row, problem) {
  const read = reader().read(inputOf(row).value), type = String(problem.type || "");
  let message = capital(t("emptyWord"));
  if (type.endsWith("not-a-tile")) {
    message = read.error && read.error.kind === "tile" && read.error.position === problem.position ? errorText(read.error) :
      capital(t("notTile", { char: show(String(problem.character || "?")), position: problem.position }));
  } else if (type.endsWith("word-length")) {
    message = capital(t("length", { min: LIMITS.minTiles, max: LIMITS.maxTiles, n: problem.tiles }));
  }
  setError(row, message);
  inputOf(row).focus();
}

// tile keys

// The service drew the keys of the lexicon it served the page with; others are drawn here.
function drawKeys() {
  const language = lexicon().language;
  if (keys.dataset.language === language) return;
  keys.textContent = "";
  keys.dataset.language = language;
  for (const key of data.alphabets[language].keys) {
    const button = element("button", "key", key.tile);
    button.type = "button";
    button.dataset.tile = key.tile;
    keys.appendChild(button);
  }
}
keys.addEventListener("mousedown", (event) => { if (event.target.closest(".key")) event.preventDefault(); });  // the caret stays
keys.addEventListener("click", (event) => {
  const button = event.target.closest(".key");
  const key = button && data.alphabets[lexicon().language].keys.find((k) => k.tile === button.dataset.tile);
  if (key) insertTile(key);
});

function remember(input) {
  state.input = input;
  state.selection = [input.selectionStart || 0, input.selectionEnd || 0];
}

function insertTile(key) {
  if (state.busy) return;
  const input = state.input && list.contains(state.input) ? state.input : first();
  let [start, end] = document.activeElement === input ? [input.selectionStart, input.selectionEnd] : state.selection;
  const value = input.value;
  start = Math.min(start, value.length);
  end = Math.min(Math.max(end, start), value.length);
  const before = value.slice(0, start), after = value.slice(end);
  const inserted = reader().insertion(key, before, after);
  input.value = before + inserted + after;
  input.focus();
  input.setSelectionRange(start + inserted.length, start + inserted.length);
  remember(input);
  preview(input.closest("li"), false);
  forget();  // verdict.js: a new play typed
}

// A play is typed word by word: a space in word N, or the keyboard's action key (Enter), goes to
// word N+1, added when N is the last (up to eight); what followed the space goes with it (a play
// pasted whole). Only Comprobar, or Ctrl/Cmd+Enter, judges: a tap on "next" never does.
function next(input, rest) {
  const after = input.closest("li").nextElementSibling, to = after ? inputOf(after) : addRow();
  if (!to) return;
  to.value = rest + to.value;
  to.focus();
  to.setSelectionRange(rest.length || to.value.length, rest.length || to.value.length);
  if (/\s/.test(rest)) to.dispatchEvent(new Event("input", { bubbles: true }));  // the words after it
  remember(to);
  preview(to.closest("li"), false);
}

list.addEventListener("input", (event) => {
  const input = event.target, value = input.value.trimStart(), space = value.search(/\s/);
  if (value !== input.value) input.value = value;  // no word starts with a space
  if (space > 0 && !event.isComposing && (input.closest("li").nextElementSibling || rows().length < LIMITS.maxWords)) {
    input.value = value.slice(0, space);
    preview(input.closest("li"), false);
    next(input, value.slice(space).trimStart());
    return;
  }
  remember(input);
  preview(input.closest("li"), false);
  formError.textContent = "";
});
form.addEventListener("keydown", (event) => {
  const field = event.target;
  if (event.key !== "Enter" || event.isComposing || !field.matches("input")) return;
  event.preventDefault();  // no field's Enter submits the form (judges) by itself
  if (event.ctrlKey || event.metaKey) submit();
  else if (field.matches(".word-input")) next(field, "");
  else if (field.id === "token") $("token-save").click();
  else (field.id === "table" && !$("round-field").hidden ? $("round") : submitButton).focus();
});
// The focus in view above the dock (WCAG 2.4.11): the page's scroll-padding keeps it there in
// Chromium and Firefox, but WebKit's own scroll to a field reached by Tab ignores it (at 200 %
// zoom the slip's table lay under the dock) and heeds it only in scrollIntoView.
form.addEventListener("focusin", ({ target }) => target.closest(".dock") || target.scrollIntoView({ block: "nearest" }));
for (const name of ["focusin", "keyup", "click", "select"]) {
  list.addEventListener(name, (event) => { if (event.target.matches(".word-input")) remember(event.target); });
}
document.addEventListener("selectionchange", () => {
  const active = document.activeElement;
  if (active && active.matches(".word-input")) remember(active);
});
list.addEventListener("click", (event) => {
  const remove = event.target.closest(".remove");
  if (remove) removeRow(remove.closest("li"));
});
addButton.addEventListener("click", () => {
  const input = addRow();
  if (input) { input.focus(); remember(input); }
});
