/* Lexicon Judge: the judge's page. What it needs is in the page (#judge-data, from
   service/page.py); its one request is a POST /v1/challenge for each verdict. */
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("judge-data").textContent);
  const TEXTS = data.texts, LIMITS = data.limits;
  const GUARD_MS = 400;      // a verdict's buttons ignore taps and keys (but Escape) this long
  const RECALL_MS = 60000;   // a verdict cleared can be shown again this long
  const TIMEOUT_MS = 10000;  // no answer by then: say so, show no verdict (3 s if offline.js can judge)
  const readers = {};
  for (const language in data.alphabets) {
    readers[language] = new LexiconTiles.Reader(data.alphabets[language], data.unicode, LIMITS);
  }
  window.LexiconJudge = { data, readers };  // for tests, and for the curious
  // In an event, event.js (loaded before this file) adds the paired device; else these do nothing.
  const EVENT = window.LexiconEvent || { token: () => "", answer: () => false, verdict() {}, draw() {},
    slip: (slip) => slip, fields: () => ({}), unreachable: () => "", start() {} };

  if (navigator.serviceWorker) addEventListener("load", () => navigator.serviceWorker.register("sw.js").catch(() => {}));  // installable.py
  const $ = (id) => document.getElementById(id);
  const form = $("play"), select = $("lexicon"), list = $("word-list"), addButton = $("add");
  const keys = $("keys"), submitButton = $("submit"), formError = $("form-error");
  const screen = $("screen"), verdict = $("verdict"), foot = $("screen-foot"), hint = $("clear-hint");
  const tokenBox = $("token-box"), tokenInput = $("token"), recallButton = $("recall");
  const state = { ui: null, lexicon: null, busy: false, input: null, selection: [0, 0],
                  shown: false, shownAt: 0, deadline: 0, timers: [], memory: {}, last: null };
  const COMMON = window.LexiconCommon, element = COMMON.element;

  // Local (lexicon, language) and session (token) storage; memory when a browser refuses it.
  function store(area, key, value) {
    key = "lexicon-judge." + key;
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

  // The phone's choice, also as cookies, so that the service serves the next load in it
  // (service/page.py: no flash of another language); a year, this page's path.
  function cookie(name, value) {
    try { document.cookie = `lexicon-judge-${name}=${encodeURIComponent(value)}; max-age=31536000; SameSite=Lax`; } catch (e) { /* refused */ }
  }

  const t = COMMON.texts(TEXTS, () => state.ui);
  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  const show = (char) => char === " " ? "␣" : /^\p{M}$/u.test(char) ? "◌" + char :
    /^[\p{C}\p{Z}]$/u.test(char) ? "U+" + char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") :
    char.toUpperCase().length === char.length ? char.toUpperCase() : char;  // as the field shows it
  const lexicon = () => data.lexicons.find((l) => l.id === state.lexicon);
  const reader = () => readers[lexicon().language];
  const rows = () => Array.from(list.children);
  const inputOf = (row) => row.querySelector("input");
  const first = () => inputOf(list.firstElementChild);

  // the interface language

  function localize() {
    COMMON.localize(state.ui, t);
    for (const option of select.options) {
      const item = data.lexicons.find((l) => l.id === option.value);
      option.textContent = `${item.name} · ${t("lang." + item.language)} · ${item.version} · ${item.short}` +
        (item.default ? ` (${t("default")})` : "");
    }
    const item = lexicon();
    $("lexicon-name").textContent = `${item.name} · ${item.short}`;
    $("lexicon-details").textContent = t("lexiconDetails",  // the whole name, wrapped: the select may cut it
      { name: item.name, language: t("lang." + item.language), version: item.version, short: item.short });
    submitButton.textContent = t(state.busy ? "checking" : "submit");
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

  function setError(row, message) {
    row.querySelector(".error").textContent = message || "";
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
  }

  // the verdict

  const ICONS = {  // the insides of an <svg class="v-icon">: a tick in a circle, a cross in an octagon
    valid: '<circle cx="50" cy="50" r="45" stroke-width="8"/><path d="M28 52l15 15 30-33" stroke-width="10" stroke-linecap="round" stroke-linejoin="round"/>',
    invalid: '<path d="M31 5h38l26 26v38L69 95H31L5 69V31z" stroke-width="8" stroke-linejoin="round"/><path d="M33 33l34 34M67 33L33 67" stroke-width="10" stroke-linecap="round"/>'
  };

  function showVerdict(valid, words, identity, slip) {
    clearVerdict(false);
    forget();
    const kind = valid ? "valid" : "invalid";
    verdict.lang = state.ui;
    verdict.insertAdjacentHTML("beforeend", `<svg class="v-icon" viewBox="0 0 100 100" aria-hidden="true" fill="none" stroke="#fff">${ICONS[kind]}</svg>`);
    verdict.appendChild(element("p", "v-title", t(kind)));
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

  // The verdict's screen up, its countdown started, and the focus on Borrar.
  function open(kind) {
    const seconds = data.verdictSeconds;
    $("countdown-bar").style.animationDuration = seconds + "s";
    hint.textContent = t("clearHint", { n: Math.ceil(seconds) });
    foot.hidden = false;
    screen.className = "screen show " + kind;
    document.body.classList.add("verdict-open");
    behind(true);
    Object.assign(state, { shown: true, shownAt: Date.now(), deadline: Date.now() + seconds * 1000 });
    state.timers = [setTimeout(expired, seconds * 1000 + 20), setInterval(() => {
      hint.textContent = t("clearHint", { n: Math.max(0, Math.ceil((state.deadline - Date.now()) / 1000)) });
      expired();
    }, 1000)];
    $("clear").focus({ preventScroll: true });
  }

  // The second opinion (LEXICON_SECOND), smaller, above the lexicon line; it never replaces the verdict.
  function showSecond(second, item) {
    if (!item.second || !second || second.valid !== !!second.valid || (second.lexicon || {}).id !== item.second) return;
    verdict.insertBefore(element("p", "v-second", t("second", { name: second.lexicon.name,
      verdict: t(second.valid ? "secondValid" : "secondInvalid") })), verdict.querySelector(".v-lexicon"));
  }

  // Takes the verdict off the screen; `empty` also empties the words (and the table number),
  // puts the focus on word 1 and keeps the verdict a minute, for the Último veredicto button.
  function clearVerdict(empty) {
    state.timers.forEach((id) => { clearTimeout(id); clearInterval(id); });
    const was = state.shown;
    state.shown = false;
    if (was && empty) {
      if (!state.last) state.last = { kind: screen.classList.contains("valid") ? "valid" : "invalid", at: Date.now() };
      state.last.nodes = Array.from(verdict.childNodes).filter((node) => !node.classList || !node.classList.contains("v-recalled"));
      recallButton.hidden = false;
      clearTimeout(state.recallTimer);
      state.recallTimer = setTimeout(forget, Math.max(0, state.last.at + RECALL_MS - Date.now()));
    }
    verdict.textContent = "";
    foot.hidden = true;
    screen.className = "screen";
    document.body.classList.remove("verdict-open");
    behind(false);
    const bar = $("countdown-bar");  // restarts the countdown next time
    bar.style.animationName = "none";
    void bar.offsetWidth;
    bar.style.animationName = "";
    if (!was || !empty) return;
    resetRows();
    $("table").value = "";
    formError.textContent = "";
    first().focus({ preventScroll: true });
    scrollTo(0, 0);
  }

  // What the verdict covers is out of reach while it is up: no Tab or screen reader lands there.
  function behind(covered) { for (const el of [form, document.querySelector(".bar")]) el.inert = covered; }

  function expired() { if (state.shown && Date.now() >= state.deadline) clearVerdict(true); }

  // The last verdict cleared, shown again (said to be the previous one) within a minute of its clearing.
  function recall() {
    const last = state.last;
    if (!last || state.shown || Date.now() - last.at > RECALL_MS) { forget(); return; }
    verdict.lang = state.ui;
    verdict.append(element("p", "v-recalled", t("recalled")), ...last.nodes);
    open(last.kind);
  }

  function forget() {
    state.last = null;
    clearTimeout(state.recallTimer);
    recallButton.hidden = true;
  }

  // asking the service

  const token = () => EVENT.token() || store("session", "token") || "";

  function saveToken(value) {
    value = (value || "").trim();
    store("session", "token", value || null);
    if (value && tokenBox) { tokenBox.hidden = true; tokenInput.value = ""; $("token-error").textContent = ""; }
    return value;
  }

  // The token's field is in the page only when the service asks for one (service/page.py).
  function askToken(message) {
    saveToken("");
    if (!tokenBox) { formError.textContent = message || t("tokenWrong"); return; }
    tokenBox.hidden = false;
    $("token-error").textContent = message;
    tokenInput.focus();
  }

  function busy(on) {
    state.busy = on;
    submitButton.disabled = on;
    submitButton.textContent = t(on ? "checking" : "submit");
    form.setAttribute("aria-busy", String(on));
    rows().forEach((row) => { inputOf(row).readOnly = on; });
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

  function answer(status, body, item, sent, slip, response) {
    if (EVENT.answer(status, body, response)) return;
    if (status === 200 && body && typeof body.valid === "boolean" && body.lexicon &&
        body.lexicon.id === item.id && typeof body.lexicon.checksum === "string") {
      showVerdict(body.valid, sent.map((s) => s.word), body.lexicon, EVENT.slip(slip, body));
      if (window.LexiconOffline) LexiconOffline.served(body.lexicon);
      EVENT.verdict(body);
      showSecond(body.second, item);
    } else if (status === 401) {
      askToken(t("tokenWrong"));
    } else if (status === 404 && body && /unknown-lexicon$/.test(body.type)) {
      formError.textContent = t("unknownLexicon");
    } else if (status === 422 && body && sent[body.word - 1]) {
      problemFor(sent[body.word - 1].row, body);
    } else if (status >= 400 && status < 500 && body && body.title) {
      formError.textContent = t("refused", { detail: body.title });
    } else {
      formError.textContent = t("failed", { status });
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
    if (data.tokenRequired && !key) { askToken(""); return; }
    if (key && !/^[\x21-\x7e]+$/.test(key)) { askToken(t("tokenWrong")); return; }

    const item = lexicon(), slip = EVENT.slip({ table: $("table").value.trim(), round: $("round").value.trim() });
    const play = { lexicon: item.id, words: sent.map((s) => s.typed), notation: "spelling", second: item.second && EVENT.role?.() != "table", ...EVENT.fields(slip) };
    // The service out of reach (no answer, a 5xx): offline.js judges, if this phone can.
    const off = window.LexiconOffline, local = () => !!off && off.judge(item, sent, slip, play);
    if (off && off.standalone) return local() || (formError.textContent = t("offline"));
    busy(true);
    COMMON.ask("POST", data.challenge, { body: play, token: key, timeout: off && off.ready(item.id) ? 3000 : TIMEOUT_MS })
      .then((result) => {
        busy(false);
        if (!result.status) {
          if (!local()) formError.textContent = EVENT.unreachable() || t(result.timedOut ? "timeout" : "offline");
        } else if (result.status < 500 && result.body || !local()) {  // no JSON: not the service
          answer(result.status, result.body, item, sent, slip, result);
        }
      });
  }

  // events

  form.addEventListener("submit", (event) => { event.preventDefault(); submit(); });
  list.addEventListener("input", (event) => {
    remember(event.target);
    preview(event.target.closest("li"), false);
    formError.textContent = "";
  });
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
  select.addEventListener("change", () => choose(find(select.value)));  // the interface stays
  document.querySelectorAll(".lang").forEach((button) => button.addEventListener("click", () => {
    state.ui = button.dataset.lang;
    store("local", "ui", state.ui);
    cookie("ui", state.ui);
    choose(offered(state.ui) || lexicon());  // that language's lexicon, if the service has one
  }));
  if (tokenBox) $("token-save").addEventListener("click", () => {
    if (saveToken(tokenInput.value)) { formError.textContent = ""; first().focus(); }
  });
  // A verdict stays until Borrar (or Escape): a stray tap or key clears nothing. Borrar, and a
  // key on it, count only after GUARD_MS, so that the tap or Enter that asked is not taken for it.
  const settled = () => Date.now() - state.shownAt >= GUARD_MS;
  $("clear").addEventListener("click", () => { if (state.shown && settled()) clearVerdict(true); });
  recallButton.addEventListener("click", recall);
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

  // start: ?lexicon= (and its language), else this phone's last choice, else the browser's
  // first language we have texts for and its lexicon, else the service's default lexicon

  const params = new URLSearchParams(location.search);
  if (params.has("token")) {  // taken once from the address, kept for this tab, off the screen
    saveToken(params.get("token"));
    params.delete("token");
    const query = params.toString();
    history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
  }
  const linked = find(params.get("lexicon"));
  let ui = linked ? linked.language : store("local", "ui");
  if (!(ui in TEXTS)) ui = browserLanguage();
  const chosen = linked || find(store("local", "lexicon")) || offered(ui) || find(select.value) || data.lexicons[0];
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
  EVENT.start({ data, t, store, find, choose, lexicon, element, state, formError, verdict });
  Object.assign(window.LexiconJudge, { state, token, element, verdict, showVerdict, EVENT, GUARD_MS });  // offline.js, tests
  addEventListener("load", () => setTimeout(() => data.later.forEach((src) =>  // after first paint, in order
    document.body.append(Object.assign(document.createElement("script"), { src, async: false })))));
})();
