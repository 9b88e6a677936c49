/* Lexicon Judge, the director's console: the record (a page of the list, older rows on demand,
   filters and exports), its integrity (the chain the service verified, what this computer saw
   last), and the challenges per device in a round. Part of static/director.js (director/state.js
   says how). */
// -- the record's integrity ---------------------------------------------------------------------

// The whole record's state as the service verified it (GET v1/records: `chain`).
const CHAIN_POLL_MS = 3000;
let chainTimer = null;
function drawChain() {
  const chain = state.chain, box = $("chain-state");
  box.hidden = !chain;
  if (!chain) return;
  // Green only when the service confirmed the record as it is now; red at a break; amber while
  // not confirmed (being verified, a verification that failed, the guards removed).
  box.className = "chain " + (chain.broken ? "broken" : chain.intact ? "intact" : "unconfirmed");
  const counts = { n: chain.last, verified: chain.verified };
  box.textContent = chain.broken ? t("chainBroken", { seq: chain.broken.seq, verified: chain.verified,
    reason: breakWords(chain.broken) }) : chain.checking ? t("chainChecking", counts) : chain.failed ? t("chainFailed", counts) :
    !chain.intact ? t("chainUnconfirmed", counts) : chain.last ? t("chainIntact", counts) : t("chainEmpty");
  if (chain.checked && !chain.checking) box.textContent += " " + t("chainChecked", { time: clock(chain.checked) });
  // Only an edit of the file by hand removes the record's append-only guards (SQLite triggers).
  $("chain-guards").textContent = chain.guarded === false ? t("chainUnguarded") : "";
  // A verification of every row runs in the service, off this request (or is tried again after
  // one failed): ask again for its result.
  clearTimeout(chainTimer);
  if (chain.checking || chain.failed) chainTimer = setTimeout(() => { loadRecords(); }, CHAIN_POLL_MS);
}

// What this console saw last (the highest record and its hash, kept on this computer): a record
// now shorter, or with another hash there, lost or rewritten rows the chain alone cannot show.
const SEEN = "lexicon-judge.director.seen.";
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
  $("chain-seen").textContent = warning;
  // Remembered only once the service confirmed it: never a head found changed and still being verified.
  if (!warning && chain.intact && !chain.checking && chain.verified === chain.last && chain.last > 0 &&
      (!seen || chain.last > seen.seq)) {
    try { localStorage.setItem(key, JSON.stringify({ seq: chain.last, hash: chain.last_hash, at: new Date().toISOString() })); } catch (e) { /* memory only */ }
  }
}

// -- the list -----------------------------------------------------------------------------------

function fillRounds(select, withAll) {
  const keep = select.value;
  select.textContent = "";
  if (withAll) select.appendChild(new Option(t("allRounds"), ""));
  for (const round of state.rounds.slice().reverse()) select.appendChild(new Option(String(round.number), String(round.number)));
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
  const counts = $("counts-round"), had = counts.value;
  fillRounds(counts, false);
  counts.appendChild(new Option(t("noRound"), "-"));
  const open = openRound();
  if (!had || !Array.from(counts.options).some((o) => o.value === had)) {
    const latest = open || state.rounds[state.rounds.length - 1];
    counts.value = latest ? String(latest.number) : "-";
  }
  exportLinks();
}

function query(extra) {
  const params = new URLSearchParams();
  const round = $("filter-round").value, table = $("filter-table").value.trim(), device = $("filter-device").value;
  if (round) params.set("round", round);
  if (table) params.set("table", table);
  if (device) params.set("device", device);
  for (const key in extra || {}) params.set(key, extra[key]);
  const text = params.toString();
  return API.records + (text ? "?" + text : "");
}

function exportLinks() {
  const round = $("filter-round").value, name = "registro" + (round ? "-ronda-" + round : "");
  $("export-csv").href = query({ format: "csv" });
  $("export-csv").setAttribute("download", name + ".csv");
  $("export-json").href = query({ format: "json" });
  $("export-json").setAttribute("download", name + ".json");
}

// The list is a page of the record (its latest rows; older ones on demand): a record a hall's
// phones filled with thousands of rows must not be read whole after every action. Exports are whole.
async function loadRecords(older) {
  exportLinks();
  const first = state.records[0];
  const result = await ask("GET", query(older && first ? { before: first.seq } : {}));
  if (result.status === 401) return;
  if (result.status !== 200) {
    state.records = [];
    state.more = false;
    $("records-summary").textContent = result.body && /tamper|malformed/.test(String(result.body.type)) ? t("tampered") : failure(result);
    drawRecords(true);
    return;
  }
  const page = list(result.body, "records");
  state.records = older && first ? page.concat(state.records) : page;
  state.more = Boolean(result.body && result.body.more);
  state.chain = result.body && result.body.chain || null;
  drawChain();
  drawRecords();
  if (state.chain) await checkSeen(state.chain);
}

const words = (value) => Array.isArray(value) ? value.join(" · ") : String(value || "");

function drawRecords(keepSummary) {
  const body = $("records").tBodies[0];
  body.textContent = "";
  for (const record of state.records.slice().reverse()) {  // the newest first
    const row = body.insertRow();
    row.dataset.seq = record.seq;
    if (record.intact === false) row.className = "broken";
    cell(row, t("colSeq"), record.seq).className = "seq";
    cell(row, t("colTime"), clock(record.time));
    cell(row, t("round"), record.round === null || record.round === undefined ? "—" : record.round);
    cell(row, t("table"), record.table || "—");
    cell(row, t("colDevice"), record.device_name || deviceName(record.device_id) || t("noDevice"));
    cell(row, t("colWords"), element("span", "words", words(record.words)));
    const verdict = cell(row, t("colVerdict"), element("span", "verdict " + (record.valid ? "valid" : "invalid"), t(record.valid ? "valid" : "invalid")));
    if (record.intact === false) verdict.append(" ", element("span", "badge broken", t("rowBroken")));
    const button = element("button", "secondary small", t("slip"));
    button.type = "button";
    button.dataset.slip = record.seq;
    button.setAttribute("aria-label", `${t("slip")} ${record.seq}`);
    cell(row, t("slip"), button).className = "actions";
  }
  $("records-more").hidden = !state.more;
  if (!keepSummary) $("records-summary").textContent = !state.records.length ? t("recordsNone")
    : t(state.more ? "recordsLatest" : "recordsSummary", { n: state.records.length });
}

// -- challenges per device in one round ---------------------------------------------------------

// From the rounds' own counts (GET v1/rounds: `challenges` of each round), the most first.
async function loadCounts() {
  const chosen = $("counts-round").value, round = state.rounds.find((r) => String(r.number) === chosen);
  state.counts = (chosen === "-" ? state.outside : round && round.challenges || []).map((c) => {
    const device = state.devices.find((d) => d.id === c.device);
    return { id: c.device === null ? "" : String(c.device), name: c.name, role: device && device.role,
      table: device && device.table, n: c.count };
  }).sort((a, b) => b.n - a.n);
  drawCounts();
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
