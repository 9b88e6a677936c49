/* global $, API, ask, breakWords, cell, changed, clock, data, deviceName, element, failure, keepFocus,
   list, openRound, openSlip, refresh, STALE_MS, state, t */
/* exported drawChain, drawFilters, loadRecords, offlineMark, shownUnknown, secondUnshown, words, drawRecords, loadCounts,
   drawCounts */
/* Lexicon Judge, the director's console: the record (a page of the list, older rows on demand,
   filters and exports), its integrity (the chain the service verified, what this computer saw
   last), and the challenges per device in a round. Part of static/director.js (director/state.js
   says how). */
// -- the record's integrity ---------------------------------------------------------------------

// The record's integrity in one line, the worst first: red at a break, at rows this console saw
// that are gone or rewritten, at guards removed, at a record that cannot be read; amber while
// not confirmed (being verified, a verification that failed, no answer for STALE_MS: live.js);
// green only when the service confirmed the record as it is now and nothing else says otherwise.
function drawChain() {
  const chain = state.chain, box = $("chain-state");
  const stale = state.fresh !== null && Date.now() - state.fresh > STALE_MS;
  box.hidden = !chain && !state.unreadable;
  if (box.hidden) return;
  const red = [], amber = [];
  if (state.unreadable) red.push(state.unreadable);
  if (chain && chain.broken) red.push(t("chainBroken", { seq: chain.broken.seq, verified: chain.verified, reason: breakWords(chain.broken) }));
  if (state.seen) red.push(state.seen);
  for (const { name, split } of state.devices || []) {  // a device another file of the event answered
    if (split) red.push(t(split.missing ? "fileCopy" : "fileSplit", { name, seen: split.seen, served: split.served, time: clock(split.time) }));
  }
  if (chain && chain.guarded === false) red.push(t("chainUnguarded"));  // only an edit of the file by hand removes them
  if (chain && chain.moved) red.push(t("chainMoved", { time: clock(chain.moved), to: chain.moved_to }));  // every write refuses
  if (chain && chain.replaced) red.push(t("chainReplaced"));  // the file at the event's path is another: nothing recorded
  const counts = chain && { n: chain.last, verified: chain.verified };
  if (chain && !chain.broken) {
    if (chain.checking) amber.push(t("chainChecking", counts));
    else if (chain.failed) amber.push(t("chainFailed", counts));
    else if (!chain.intact && chain.guarded !== false) amber.push(t("chainUnconfirmed", counts));
  }
  // The line as it reads now, and as it would with the service silent (no answer since the last):
  // that one is its place, drawn unseen under it (`data-room`, director.css), so that nothing under
  // it (the round's buttons) moves when the service stops answering or answers again.
  const line = (late) => {
    const said = red.concat(late ? [t("chainStale", { time: clock(state.fresh) })] : [], amber);
    let text = said.join(" ");
    if (!said.length && chain) text = chain.last ? t("chainIntact", counts) : t("chainEmpty");
    if (chain && chain.checked && !chain.checking && !late) text += " " + t("chainChecked", { time: clock(chain.checked) });
    return text;
  };
  box.className = "chain " + (red.length ? "broken" : amber.length || stale ? "unconfirmed" : "intact");
  const text = line(stale), room = state.fresh === null ? "" : line(true), shown = box.firstElementChild;
  if (shown.textContent !== text) shown.textContent = text;
  if (box.dataset.room !== room) box.dataset.room = room;
}

// What this console saw last (the highest record and its hash, kept on this computer): a record
// now shorter, or with another hash there, lost or rewritten rows the chain alone cannot show.
const SEEN = "lexicon-judge" + (document.documentElement.dataset.ns || "") + ".director.seen.";
async function checkSeen(chain) {
  const key = SEEN + (state.event && state.event.name || "");
  let seen = null;
  try { seen = JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { /* none */ }
  let warning = "";
  if (seen && Number.isInteger(seen.seq) && seen.seq > 0) {
    const at = clock(seen.at);
    if (chain.last < seen.seq) {
      warning = t("seenShorter", { seen: seen.seq, at, last: chain.last });
    } else {
      const row = chain.last === seen.seq ? { status: 200, body: { hash: chain.last_hash } } :
        await ask("GET", `${API.records}/${seen.seq}`);
      if (row.status === 200 && row.body && row.body.hash !== seen.hash) warning = t("seenRewritten", { seen: seen.seq, at });
    }
  }
  state.seen = warning;
  // Remembered only once the service confirmed it: never a head found changed and still being verified.
  if (!warning && chain.intact && !chain.checking && chain.verified === chain.last && chain.last > 0 &&
    (!seen || chain.last > seen.seq)) {
    const seen = { seq: chain.last, hash: chain.last_hash, at: new Date().toISOString() };
    try { localStorage.setItem(key, JSON.stringify(seen)); } catch (e) { /* memory only */ }
  }
}

// -- the list -----------------------------------------------------------------------------------

function fillRounds(select, withAll) {
  const keep = select.value;
  select.textContent = "";
  if (withAll) select.appendChild(new Option(t("allRounds"), ""));
  for (const round of state.rounds.slice().reverse()) {
    select.appendChild(new Option(String(round.number), String(round.number)));
  }
  const values = Array.from(select.options).map((o) => o.value);
  if (values.includes(keep)) select.value = keep;
}

function drawFilters() {
  fillRounds($("filter-round"), true);
  const device = $("filter-device"), keep = device.value;
  device.textContent = "";
  device.appendChild(new Option(t("allDevices"), ""));
  for (const d of state.devices) device.appendChild(new Option(d.name, String(d.id)));
  if (Array.from(device.options).some((o) => o.value === keep)) device.value = keep;
  // The counts follow the round being played: a round opened since they were last drawn is shown
  // (a console left open all day showed the round before, as if the new one had no challenges);
  // another round the director picks, or "fuera de ronda", stays until the next round opens.
  const counts = $("counts-round"), had = counts.value;
  fillRounds(counts, false);
  counts.appendChild(new Option(t("noRound"), "-"));
  const latest = openRound() || state.rounds[state.rounds.length - 1], newest = latest ? String(latest.number) : "-";
  const kept = had && newest === state.countsNewest && Array.from(counts.options).some((o) => o.value === had);
  counts.value = kept ? had : newest;
  state.countsNewest = newest;
  exportLinks();
}

// The filters as the form has them now; the list shows those applied last (`state.applied`),
// which the console reads again by itself until Ver applies others.
function filters() {
  const round = $("filter-round").value, table = $("filter-table").value.trim(), device = $("filter-device").value;
  return Object.fromEntries(Object.entries({ round, table, device }).filter(([, value]) => value));
}

function query(extra, applied) {
  const text = new URLSearchParams({ ...(applied || filters()), ...extra }).toString();
  return API.records + (text ? "?" + text : "");
}

// The file's name is the service's (Content-Disposition): the event's, the filters', in the console's language.
function exportLinks() {
  $("export-csv").href = query({ format: "csv" });
  $("export-json").href = query({ format: "json" });
}

// The list is a page of the record (its latest rows; older ones on demand): a record a hall's
// phones filled with thousands of rows must not be read whole after every action. Exports are whole.
// Read again by itself (`quiet`), the list keeps the rows it shows, older pages included (up to
// the service's most in one answer), and is drawn again only when something in it changed. A page
// is 100 rows, 20 on a phone, where each row is a card.
const RECORDS_MOST = 1000, page = () => window.matchMedia("(max-width: 40rem)").matches ? 20 : 100;
async function loadRecords(older, quiet) {
  if (!quiet) exportLinks();
  const first = state.records[0], shown = state.records.length;
  if (!quiet && !older) state.applied = filters();
  const result = await ask("GET", quiet ? query({ limit: Math.min(Math.max(shown, page()), RECORDS_MOST) }, state.applied) :
    query(older && first ? { before: first.seq, limit: page() } : { limit: page() }, state.applied));
  if (result.status === 401 || (quiet && result.status === 0)) return false;
  const tampered = result.body && /record-tampered$/.test(String(result.body.type));
  state.unreadable = tampered ? failure(result) : "";
  if (result.status !== 200) {
    state.records = [];
    state.more = false;
    $("records-summary").textContent = failure(result);
    drawRecords(true);
    drawChain();
    return tampered;
  }
  const rows = list(result.body, "records");
  state.records = older && first ? rows.concat(state.records) : rows;
  state.more = Boolean(result.body && result.body.more);
  state.chain = result.body && result.body.chain || null;
  if (state.chain) await checkSeen(state.chain);
  drawChain();
  if (!quiet || changed("records", [state.records.map((r) => [r.seq, r.intact]), state.more])) keepFocus($("records"), drawRecords);
  return true;
}

// A verdict judged offline: when the phone judged it and when the record received it, and, when
// the round its phone showed could not take it, why it is where it is (docs/tournament.md).
const hms = (stamp) => new Date(stamp).toLocaleTimeString(state.ui, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
function offlineMark(record) {
  if (!record.offline || !record.device_time) return "";
  const mark = t("offlineMark", { judged: hms(record.device_time), received: hms(record.time) });
  if (record.shown_round === null || record.shown_round === undefined) return mark + "; " + t("offlineUnsaid");
  return record.shown_round && record.round !== record.shown_round ? mark + "; " + t("offlineUnplaced", { shown: record.shown_round }) : mark;
}

// A verdict judged offline by a phone that did not say which verdict it showed (a page from before
// it did: `shown_valid` null, tournament/shown.py): the row holds the service's verdict, and what
// the players were shown is not on the record, as `lexicon records verify` says too.
function shownUnknown(record) {
  return record.offline && (record.shown_valid === null || record.shown_valid === undefined) ? t("shownUnknown") : "";
}

// A row's second opinion its phone never showed (tournament/unshown_second.py): at the phone's time.
function secondUnshown(record) {
  return record.second_not_shown ? t("secondUnshown", { judged: hms(record.second_not_shown) }) : "";
}

// A record's time in whole microseconds since 1970, read as tournament/times.py reads it: exactly
// as the service writes it (2026-11-22T10:31:07.120034Z), else NaN. A Date alone keeps
// milliseconds, and a row 1.0005 s back went unmarked here where `lexicon records verify` names it.
function stampMicros(stamp) {
  const parts = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})Z$/.exec(typeof stamp === "string" ? stamp : "");
  const seconds = parts ? Date.parse(parts[1] + "Z") : NaN;
  if (isNaN(seconds) || new Date(seconds).toISOString().slice(0, 19) !== parts[1]) return NaN;  // a Date rolls 30 February over
  return seconds * 1000 + Number(parts[2]);
}

// A row whose time cannot be read, or stamped more than the tolerance before the row numbered just
// before it (instances' clocks that disagree, or one set back): tournament/times.py's rule, as
// `lexicon records verify` names them. Its time is no order, its number is; a row after one whose
// time cannot be read is compared with none.
function stampedBack(record, before) {
  const time = stampMicros(record.time);
  if (isNaN(time)) return t("timeUnread");
  if (!before || before.seq !== record.seq - 1) return "";
  const by = stampMicros(before.time) - time;
  return by > Math.round(data.stampTolerance * 1e6) ? t("stampedBack", { by: (by / 1e6).toLocaleString(state.ui), before: before.seq }) : "";
}

const words = (value) => Array.isArray(value) ? value.join(" · ") : String(value || "");

function drawRecords(keepSummary) {
  const body = $("records").tBodies[0];
  body.textContent = "";
  for (let i = state.records.length - 1; i >= 0; i--) {  // the newest first
    const record = state.records[i], row = body.insertRow();
    row.dataset.seq = record.seq;
    if (record.intact === false) row.className = "broken";
    cell(row, t("colSeq"), record.seq).className = "seq";
    const time = cell(row, t("colTime"), clock(record.time)), mark = offlineMark(record);
    if (mark) time.append(element("span", "offline-mark", mark));
    const back = stampedBack(record, state.records[i - 1]);
    if (back) time.append(element("span", "stamped-back", back));
    cell(row, t("round"), record.round === null || record.round === undefined ? "—" : record.round);
    cell(row, t("table"), record.table || "—");
    cell(row, t("colDevice"), record.device_name || deviceName(record.device_id) || t("noDevice"));
    cell(row, t("colWords"), element("span", "words", words(record.words)));
    const verdict = cell(row, t("colVerdict"), element("span", "verdict " + (record.valid ? "valid" : "invalid"), t(record.valid ? "valid" : "invalid")));
    const unknown = shownUnknown(record);
    if (unknown) verdict.append(element("span", "shown-unknown", unknown));
    const unshown = secondUnshown(record);
    if (unshown) verdict.append(element("span", "second-unshown", unshown));
    if (record.intact === false) verdict.append(" ", element("span", "badge broken", t("rowBroken")));
    const button = element("button", "secondary small", t("slip"));
    button.type = "button";
    button.dataset.slip = record.seq;
    button.setAttribute("aria-label", `${t("slip")} ${record.seq}`);
    cell(row, t("slip"), button).className = "actions";
  }
  $("records-more").hidden = !state.more;
  if (!keepSummary) $("records-summary").textContent = !state.records.length ? t("recordsNone") :
    state.records.length === 1 && !state.more ? t("recordsOne") :  // "1 registros" is no Spanish
    t(state.more ? "recordsLatest" : "recordsSummary", { n: state.records.length });
}

// -- challenges per device in one round ---------------------------------------------------------

// From the rounds' own counts (GET v1/rounds: `challenges` of each round), the most first.
async function loadCounts() {  // drawn again only when they changed
  const chosen = $("counts-round").value, round = state.rounds.find((r) => String(r.number) === chosen);
  state.counts = (chosen === "-" ? state.outside : round && round.challenges || []).map((c) => {
    const device = state.devices.find((d) => d.id === c.device);
    return { id: c.device === null ? "" : String(c.device), name: c.name, role: device && device.role,
      table: device && device.table, n: c.count };
  }).sort((a, b) => b.n - a.n);
  if (changed("counts", [chosen, state.counts])) drawCounts();
}

function drawCounts() {
  const body = $("counts").tBodies[0], counts = state.counts || [];
  body.textContent = "";
  const most = counts.reduce((m, c) => Math.max(m, c.n), 0);
  for (const entry of counts) {
    const row = body.insertRow();
    row.dataset.device = entry.id;
    row.insertCell().textContent = entry.name || t("noDevice");
    row.insertCell().textContent = entry.role ? t("role." + entry.role) : "";
    row.insertCell().textContent = entry.table || "";
    const cell = row.insertCell();
    cell.className = "count";
    const bar = element("span", "bar-fill");
    bar.style.width = Math.round(100 * entry.n / most) + "%";
    cell.append(element("span", "n", String(entry.n)), bar);
  }
  if (!counts.length) {
    const row = body.insertRow(), cell = row.insertCell();
    cell.colSpan = 4;
    cell.className = "help";
    cell.textContent = t("countsNone");
  }
}

$("filter").addEventListener("submit", (event) => { event.preventDefault(); refresh(); });
$("filter").addEventListener("change", exportLinks);
$("filter-table").addEventListener("input", exportLinks);
$("counts-round").addEventListener("change", loadCounts);
$("records-more").addEventListener("click", () => loadRecords(true));
$("records").addEventListener("click", (event) => {
  const button = event.target.closest("[data-slip]");
  if (button) openSlip(button.dataset.slip);
});
