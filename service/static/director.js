/* Lexicon Judge: the director's console. A client of the tournament API (/v1/director/session,
   /v1/devices, /v1/rounds, /v1/records, /v1/event) with the session cookie; the QR code of a
   pairing URL is drawn by the service (POST director/qr). No secret is ever kept by the page. */
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("director-data").textContent);
  const TEXTS = data.texts, API = data.api;
  const $ = (id) => document.getElementById(id);
  const state = { ui: null, event: null, devices: [], rounds: [], records: [], more: false, shown: null, chain: null, lexicon: undefined };

  const t = LexiconCommon.texts(TEXTS, () => state.ui), element = LexiconCommon.element;  // common.js

  // -- asking the service -------------------------------------------------------------------------

  // {status, body, retry}; a 401 on anything but the login itself means the session is over.
  async function ask(method, path, body) {
    const result = await LexiconCommon.ask(method, path, { body });
    result.retry = result.headers.get("Retry-After");
    if (result.status === 401 && path !== API.session && !$("console").hidden) signedOut(t("sessionOver"));
    return result;
  }

  // The words for a failed request, for the panel it is about.
  function failure(result) {
    if (result.status === 0) return t("offline");
    if (result.body && result.body.title && result.status < 500) {
      return t("refused", { detail: result.body.detail || result.body.title });
    }
    return t("failed", { status: result.status });
  }

  const list = (body, key) => Array.isArray(body) ? body : body && Array.isArray(body[key]) ? body[key] : [];

  // -- the interface language ---------------------------------------------------------------------

  function localize() {
    LexiconCommon.localize(state.ui, t);
    if (!$("console").hidden) drawAll();
  }

  // -- logging in and out -------------------------------------------------------------------------

  function signedOut(message) {
    $("console").hidden = true;
    $("logout").hidden = true;
    closeSlip();
    $("login").hidden = false;
    $("login-error").textContent = message || "";
    $("password").focus();
  }

  async function signedIn(session) {
    state.event = { name: session && session.event };
    $("event-name").textContent = state.event.name || "";
    if (!await refresh()) { signedOut(t("sessionOver")); return; }
    $("login").hidden = true;
    $("logout").hidden = false;
    $("console").hidden = false;  // once it has something to show
  }

  async function login(event) {
    event.preventDefault();
    const field = $("password"), password = field.value;
    if (!password) { field.focus(); return; }
    const result = await ask("POST", API.session, { password });
    field.value = "";  // never kept, not even in the field
    if (result.status >= 200 && result.status < 300) { $("login-error").textContent = ""; await signedIn(result.body); return; }
    if (result.status === 429) {
      $("login-error").textContent = t("loginLocked", { seconds: result.retry || (result.body && result.body.retry_after) || 60 });
    } else if (result.status === 401 || result.status === 403) {
      $("login-error").textContent = t("loginWrong");
    } else {
      $("login-error").textContent = failure(result);
    }
    field.focus();
  }

  async function logout() {
    await ask("DELETE", API.session);
    signedOut("");
  }

  // -- reading the state --------------------------------------------------------------------------

  async function refresh() {
    const [devices, rounds, event] = await Promise.all([ask("GET", API.devices), ask("GET", API.rounds),
      state.lexicon === undefined ? ask("GET", API.event) : null]);
    if (devices.status === 401 || rounds.status === 401) return false;
    if (event && event.status === 200 && event.body) state.lexicon = event.body.lexicon || null;
    if (devices.status !== 200 || rounds.status !== 200) {
      $("notice").textContent = failure(devices.status !== 200 ? devices : rounds);
      return true;
    }
    $("notice").textContent = "";
    state.devices = list(devices.body, "devices");
    state.rounds = list(rounds.body, "rounds").slice().sort((a, b) => a.number - b.number);
    state.outside = rounds.body && rounds.body.outside_rounds || [];
    drawAll();
    await Promise.all([loadRecords(), loadCounts()]);
    return true;
  }

  const openRound = () => state.rounds.find((r) => !r.closed);
  // Every time the console shows (the list, the slip, the rounds, the devices): the record's UTC
  // time in this computer's zone, one format everywhere, to the second, with the zone's name.
  const clock = (stamp) => {
    const moment = new Date(stamp || NaN);
    return isNaN(moment) ? "" : moment.toLocaleString(state.ui, { year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" });
  };
  const deviceName = (id) => { const d = state.devices.find((x) => x.id === id); return d ? d.name : ""; };

  function drawAll() {
    drawLexicon();
    drawChain();
    drawRound();
    drawDevices();
    drawFilters();
    drawRecords();
    drawCounts();
  }

  // -- rounds -------------------------------------------------------------------------------------

  function drawRound() {
    const open = openRound(), last = state.rounds[state.rounds.length - 1];
    $("round-state").textContent = open ? t("roundOpenState", { n: open.number, time: clock(open.opened) }) : t("roundNone");
    $("round-state").className = "state " + (open ? "open" : "closed");
    $("round-open").hidden = Boolean(open);
    $("round-number").hidden = $("round-number").previousElementSibling.hidden = Boolean(open);
    $("round-close").hidden = !open;
    if (!open) $("round-number").value = last ? last.number + 1 : 1;
    // The last closed round's head, large enough to copy onto its sheet: `lexicon records verify
    // --head SEQ:HASH` checks an export against it later.
    const closed = !open && last && last.closed && last.head_hash ? last : null;
    $("round-head").hidden = !closed;
    if (closed) {
      $("round-head-title").textContent = t("roundHeadTitle", { n: closed.number });
      $("head-seq").textContent = closed.head_seq;
      $("head-prefix").textContent = closed.head_hash.slice(0, 8);
      $("head-full").textContent = closed.head_hash;
    }
  }

  // The event's lexicon (GET v1/event), in full: what every table device judges with.
  function drawLexicon() {
    const lexicon = state.lexicon, box = $("event-lexicon");
    if (lexicon === undefined) { box.textContent = ""; return; }
    const known = lexicon && data.lexicons.find((l) => l.id === lexicon.id);
    box.textContent = lexicon ? t("eventLexicon", { name: (known && known.name) || lexicon.name || lexicon.id,
      id: lexicon.id, version: lexicon.version, checksum: lexicon.checksum }) : t("eventLexiconNone");
  }

  // -- the record's integrity ---------------------------------------------------------------------

  // The whole record's state as the service verified it (GET v1/records: `chain`).
  function drawChain() {
    const chain = state.chain, box = $("chain-state");
    box.hidden = !chain;
    if (!chain) return;
    box.className = "chain " + (chain.intact ? "intact" : "broken");
    box.textContent = !chain.intact && chain.broken ? t("chainBroken", { seq: chain.broken.seq, verified: chain.verified,
      reason: chain.broken.reason }) : chain.last ? t("chainIntact", { n: chain.last }) : t("chainEmpty");
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
    if (!warning && chain.intact && chain.last > 0 && (!seen || chain.last > seen.seq)) {
      try { localStorage.setItem(key, JSON.stringify({ seq: chain.last, hash: chain.last_hash, at: new Date().toISOString() })); } catch (e) { /* memory only */ }
    }
  }

  async function roundOpen(event) {
    event.preventDefault();
    const number = parseInt($("round-number").value, 10);
    const result = await ask("POST", API.rounds, Number.isInteger(number) ? { number } : {});
    $("round-error").textContent = result.status >= 200 && result.status < 300 ? "" : result.status === 401 ? "" : failure(result);
    await refresh();
  }

  async function roundClose() {  // asked first, as a revocation is: closing cannot be undone
    const open = openRound();
    if (!open || !window.confirm(t("roundCloseConfirm", { n: open.number }))) return;
    const result = await ask("POST", API.close, {});
    $("round-error").textContent = result.status >= 200 && result.status < 300 || result.status === 401 ? "" : failure(result);
    await refresh();
  }

  // -- devices ------------------------------------------------------------------------------------

  // A table cell with its column's name, which a card shows beside it at phone width.
  function cell(row, label, content) {
    const td = row.insertCell();
    td.dataset.label = label;
    if (content instanceof Node) td.appendChild(content); else td.textContent = content === undefined || content === null ? "" : content;
    return td;
  }

  function drawDevices() {
    const body = $("devices").tBodies[0];
    body.textContent = "";
    for (const device of state.devices) {
      const status = device.revoked ? "revoked" : device.paired ? "paired" : "waiting";
      const row = body.insertRow();
      row.dataset.device = device.id;
      row.className = status;
      cell(row, t("colName"), device.name).className = "name";
      cell(row, t("colRole"), t("role." + device.role));
      cell(row, t("table"), device.table || "—");
      cell(row, t("colState"), element("span", "badge " + status, t("state." + status)));
      cell(row, t("colLastSeen"), device.last_seen ? clock(device.last_seen) : t("never")).className = "last-seen";
      cell(row, t("colLexicon"), device.last_lexicon || "—").className = "last-lexicon";
      const actions = cell(row, t("colActions"));
      actions.className = "actions";
      if (!device.revoked) {
        const again = element("button", "secondary small", t("newCode"));
        again.type = "button";
        again.dataset.code = device.id;
        again.setAttribute("aria-label", `${t("newCode")} ${device.name}`);
        actions.appendChild(again);
        const button = element("button", "danger small", t("revoke"));
        button.type = "button";
        button.dataset.revoke = device.id;
        button.setAttribute("aria-label", `${t("revoke")} ${device.name}`);
        actions.appendChild(button);
      }
    }
    $("devices").hidden = !state.devices.length;
    $("devices-empty").hidden = Boolean(state.devices.length);
  }

  function roleChanged() {
    $("device-table-box").hidden = $("device-role").value !== "table";
  }

  async function pair(event) {
    event.preventDefault();
    const name = $("device-name").value.trim(), role = $("device-role").value, table = $("device-table").value.trim();
    const error = $("device-error");
    if (!name) { error.textContent = t("nameRequired"); $("device-name").focus(); return; }
    if (role === "table" && !table) { error.textContent = t("tableRequired"); $("device-table").focus(); return; }
    const result = await ask("POST", API.devices, role === "table" ? { name, role, table } : { name, role });
    if (result.status === 401) return;
    if (result.status < 200 || result.status >= 300 || !result.body || !result.body.code) {
      error.textContent = failure(result);
      return;
    }
    error.textContent = "";
    $("device-name").value = "";
    $("device-table").value = "";
    await showPairing(name, result.body);
    await refresh();
  }

  async function showPairing(name, body) {
    $("device-notice").textContent = "";
    watchPairing(body.device, body.expires_in);
    const url = new URL(body.pairing_url || body.url || `./#pair=${body.code}`, document.baseURI).href;
    $("pairing-for").textContent = t("pairingFor", { name });
    $("pairing-warning").textContent = body.reachable === false ? t("pairingUnreachable." + (body.unreachable || "loopback-only")) : "";
    $("pairing-code").textContent = body.code;
    $("pairing-url").textContent = url;
    const image = $("pairing-qr");
    image.removeAttribute("src");
    image.alt = `QR: ${url}`;
    $("pairing").hidden = false;
    const qr = await fetch(API.qr, { method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: url }) }).catch(() => null);
    if (qr && qr.ok) {
      const svg = await qr.text();
      image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
    }
    // Into view whole (it fits a laptop's screen), focus on it without scrolling its top away.
    $("pairing").focus({ preventScroll: true });
    $("pairing").scrollIntoView({ block: "nearest" });
  }

  function closePairing() {
    watchPairing(null);
    $("pairing").hidden = true;
    $("pairing-qr").removeAttribute("src");
  }

  // While a code is shown, ask every 2 s whether its device has been paired since (its `paired`
  // time changes when a phone uses the code): then the dialog closes and the console says so.
  // It stops when the dialog closes, the code expires, or the device is revoked.
  const PAIRING_POLL_MS = 2000;
  let watching = null;

  function watchPairing(device, expiresIn) {
    if (watching) clearTimeout(watching.timer);
    watching = null;
    if (!device || device.id === undefined) return;
    const mine = { id: device.id, before: device.paired || null, until: Date.now() + 1000 * (expiresIn || 600) };
    const check = async () => {
      const result = await ask("GET", API.devices);
      if (watching !== mine) return;  // closed, or another code shown meanwhile
      const now = result.status === 200 ? list(result.body, "devices").find((d) => d.id === mine.id) : null;
      if (now && now.paired && now.paired !== mine.before && !now.revoked) {
        closePairing();
        $("device-notice").textContent = t("pairedNotice", { name: now.name });
        await refresh();
      } else if (result.status === 401 || (now && now.revoked) || Date.now() > mine.until) {
        watching = null;
      } else {
        mine.timer = setTimeout(check, PAIRING_POLL_MS);
      }
    };
    watching = mine;
    mine.timer = setTimeout(check, PAIRING_POLL_MS);
  }

  // A fresh pairing code for a device (a phone that lost its key): its old unused codes go.
  async function newCode(id) {
    const device = state.devices.find((d) => String(d.id) === String(id));
    const result = await ask("POST", `${API.devices}/${encodeURIComponent(id)}/code`, {});
    if (result.status === 401) return;
    if (result.status < 200 || result.status >= 300 || !result.body || !result.body.code) {
      $("device-error").textContent = failure(result);
      return;
    }
    $("device-error").textContent = "";
    await showPairing(device ? device.name : "", result.body);
  }

  async function revoke(id) {
    const device = state.devices.find((d) => String(d.id) === String(id));
    if (!device || !window.confirm(t("revokeConfirm", { name: device.name }))) return;
    const result = await ask("DELETE", `${API.devices}/${encodeURIComponent(id)}`);
    if (result.status !== 401 && (result.status < 200 || result.status >= 300)) $("device-error").textContent = failure(result);
    await refresh();
  }

  // -- the record ---------------------------------------------------------------------------------

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

  // A word in engine tile notation (CA[RR]O, COL·LEGI) as its tiles: a bracketed tile, else the
  // language's longest tile that starts there (L·L, NY, QU), else one letter.
  function tilesOf(text, language) {
    const multi = data.tiles && data.tiles[language] || [], out = [];
    for (let i = 0; i < text.length;) {
      const close = text[i] === "[" ? text.indexOf("]", i) : -1;
      if (close > i) { out.push(text.slice(i + 1, close)); i = close + 1; continue; }
      const tile = multi.find((m) => text.startsWith(m, i)) || text[i];
      out.push(tile);
      i += tile.length;
    }
    return out;
  }

  // The play's tiles as tiles: one box each, a tile of two letters marked as one.
  function tilesElement(record) {
    const lexicon = data.lexicons.find((l) => l.id === record.lexicon_id), box = element("span", "tiles-list");
    (record.tiles || []).forEach((word, n) => {
      const tiles = tilesOf(String(word), lexicon && lexicon.language), group = element("span", "tile-word");
      group.setAttribute("aria-label", tiles.join(" "));
      for (const tile of tiles) group.appendChild(element("span", "tile" + (tile.length > 1 ? " multi" : ""), tile));
      if (n) box.appendChild(document.createTextNode(" "));
      box.appendChild(group);
    });
    return box;
  }

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

  // -- one challenge as a slip for an appeal --------------------------------------------------------

  async function openSlip(seq) {
    const result = await ask("GET", `${API.records}/${encodeURIComponent(seq)}`);
    if (result.status === 401) return;
    const record = result.body && (result.body.record || result.body);
    if (result.status !== 200 || !record || record.seq === undefined) { $("records-summary").textContent = failure(result); return; }
    state.shown = record;
    drawSlip();
    const dialog = $("slip");
    if (!dialog.open) dialog.showModal();  // modal: nothing behind it takes the focus or a click
    document.body.classList.add("slip-open");
    $("slip-print").focus();
  }

  function drawSlip() {
    const record = state.shown, list = $("slip-fields");
    if (!record) return;
    list.textContent = "";
    const lexicon = data.lexicons.find((l) => l.id === record.lexicon_id);
    const fields = [
      ["f.event", state.event && state.event.name],
      ["f.seq", record.seq],
      ["f.time", clock(record.time)],
      ["f.round", record.round === null || record.round === undefined ? t("noRound") : record.round],
      ["f.table", record.table || "—"],
      ["f.device", record.device_name ? `${record.device_name} (${t("role." + record.role)})` : t("noDevice")],
      ["f.words", words(record.words)],
      ["f.tiles", tilesElement(record)],
      ["f.lexicon", lexicon ? `${lexicon.name} (${record.lexicon_id})` : record.lexicon_id],
      ["f.version", record.lexicon_version],
      ["f.checksum", record.lexicon_checksum],
      ["f.notation", record.notation ? t("notation." + record.notation) : ""],
      ["f.verdict", t(record.valid ? "valid" : "invalid")],
      ...(record.second_lexicon_id ? [  // the second opinion the players were shown with it
        ["f.second", `${(data.lexicons.find((l) => l.id === record.second_lexicon_id) || {}).name || record.second_lexicon_id} ` +
          `(${record.second_lexicon_id}, ${record.second_lexicon_version})`],
        ["f.secondChecksum", record.second_lexicon_checksum],
        ["f.secondVerdict", t(record.second_valid ? "valid" : "invalid")]] : []),
      ["f.hash", record.hash],
    ];
    for (const [key, value] of fields) {
      if (value === undefined || value === null || value === "") continue;
      const wrap = element("div", "slip-field " + key.slice(2)), dd = element("dd");
      if (value instanceof Node) dd.appendChild(value); else dd.textContent = String(value);
      wrap.append(element("dt", "", t(key)), dd);
      list.appendChild(wrap);
    }
    // A row that is not as recorded, or one after the record's first break, says so on the slip.
    const chain = state.chain, warning = $("slip-warning");
    warning.textContent = record.intact === false ? t("slipBroken") :
      chain && chain.broken && chain.broken.seq <= record.seq ? t("slipAfterBreak", { seq: chain.broken.seq }) : "";
    warning.hidden = !warning.textContent;
    $("slip").classList.toggle("broken", !warning.hidden);
  }

  function closeSlip() {
    const dialog = $("slip");
    if (dialog.open) dialog.close();
  }

  function slipClosed() {  // the dialog closed, by its button or Escape
    document.body.classList.remove("slip-open");
    state.shown = null;
  }

  // -- events -------------------------------------------------------------------------------------

  $("login-form").addEventListener("submit", login);
  $("logout").addEventListener("click", logout);
  $("round-form").addEventListener("submit", roundOpen);
  $("round-close").addEventListener("click", roundClose);
  $("device-role").addEventListener("change", roleChanged);
  $("device-form").addEventListener("submit", pair);
  $("pairing-done").addEventListener("click", closePairing);
  $("devices").addEventListener("click", (event) => {
    const button = event.target.closest("[data-revoke]"), code = event.target.closest("[data-code]");
    if (button) revoke(button.dataset.revoke);
    if (code) newCode(code.dataset.code);
  });
  $("filter").addEventListener("submit", (event) => { event.preventDefault(); refresh(); });
  $("filter").addEventListener("change", exportLinks);
  $("filter-table").addEventListener("input", exportLinks);
  $("counts-round").addEventListener("change", loadCounts);
  $("records-more").addEventListener("click", () => loadRecords(true));
  $("records").addEventListener("click", (event) => {
    const button = event.target.closest("[data-slip]");
    if (button) openSlip(button.dataset.slip);
  });
  $("slip-print").addEventListener("click", () => window.print());
  $("slip-close").addEventListener("click", closeSlip);
  $("slip").addEventListener("close", slipClosed);
  document.querySelectorAll(".lang[data-lang]").forEach((button) => button.addEventListener("click", () => {
    state.ui = button.dataset.lang;
    try { localStorage.setItem("lexicon-judge.director.ui", state.ui); } catch (e) { /* memory only */ }
    localize();
    drawSlip();
  }));
  window.LexiconDirector = { state, refresh };  // for tests, and for the curious

  // -- start: the language last chosen here, else the browser's; then the page's session, if any -----

  let ui = null;
  try { ui = localStorage.getItem("lexicon-judge.director.ui"); } catch (e) { /* none */ }
  if (!(ui in TEXTS)) {
    const tags = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
    ui = tags.map((tag) => String(tag).split("-")[0].toLowerCase()).find((code) => code in TEXTS) || Object.keys(TEXTS)[0];
  }
  state.ui = ui;
  localize();
  roleChanged();
  (async () => {
    // A login link (`lexicon event login`: director#login=TOKEN), taken off the address at once.
    const link = new URLSearchParams(location.hash.slice(1)).get("login");
    let refused = "";
    if (link) {
      history.replaceState(null, "", location.pathname + location.search);
      const result = await ask("POST", API.link, { token: link });
      if (result.status >= 200 && result.status < 300) { await signedIn(result.body); return; }
      refused = failure(result);
    }
    // The service rendered this page signed in or out (service/director.py): nothing to ask.
    if (data.session) await signedIn(data.session);
    else signedOut(refused);
  })();
})();
