/* Lexicon Judge: the director's console. A client of the tournament API (/v1/director/session,
   /v1/devices, /v1/rounds, /v1/records, /v1/event) with the session cookie; the QR code of a
   pairing URL is drawn by the service (POST director/qr). No secret is ever kept by the page. */
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("director-data").textContent);
  const TEXTS = data.texts, API = data.api;
  const $ = (id) => document.getElementById(id);
  const state = { ui: null, event: null, devices: [], rounds: [], records: [], shown: null };

  const t = (key, values) => TEXTS[state.ui][key].replace(/\{(\w+)\}/g,
    (all, name) => values && name in values ? String(values[name]) : all);

  function element(tag, className, content) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (content !== undefined && content !== null) el.textContent = content;
    return el;
  }

  // -- asking the service -------------------------------------------------------------------------

  // {status, body, retry}; a 401 on anything but the login itself means the session is over.
  async function ask(method, path, body) {
    const headers = { Accept: "application/json, application/problem+json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(path, { method, headers, credentials: "same-origin", cache: "no-store",
        redirect: "error", body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      return { status: 0, body: null };
    }
    const text = await response.text();
    let parsed = null;
    try { parsed = text ? JSON.parse(text) : null; } catch (e) { /* not JSON */ }
    const result = { status: response.status, body: parsed, retry: response.headers.get("Retry-After"), text };
    if (response.status === 401 && path !== API.session && !$("console").hidden) signedOut(t("sessionOver"));
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
    document.documentElement.lang = state.ui;
    document.title = t("title");
    $("langs").setAttribute("aria-label", t("language"));
    document.querySelectorAll(".lang[data-lang]").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.lang === state.ui)));
    document.querySelectorAll("[data-t]").forEach((el) => { el.textContent = t(el.dataset.t); });
    if (!$("console").hidden) drawAll();
  }

  // -- logging in and out -------------------------------------------------------------------------

  function signedOut(message) {
    $("console").hidden = true;
    $("logout").hidden = true;
    $("slip").hidden = true;
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
    const [devices, rounds] = await Promise.all([ask("GET", API.devices), ask("GET", API.rounds)]);
    if (devices.status === 401 || rounds.status === 401) return false;
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
  // A record's UTC time as this computer's clock shows it (the slip keeps UTC, as recorded).
  const clock = (stamp) => {
    const moment = new Date(stamp || NaN);
    return isNaN(moment) ? "" : moment.toLocaleTimeString(state.ui, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  };
  const deviceName = (id) => { const d = state.devices.find((x) => x.id === id); return d ? d.name : ""; };

  function drawAll() {
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
    const closed = !open && last && last.closed ? last : null;
    $("round-head").textContent = closed && closed.head_hash !== undefined && closed.head_hash !== null ?
      t("roundClosed", { n: closed.number, seq: closed.head_seq, hash: closed.head_hash }) : "";
  }

  async function roundOpen(event) {
    event.preventDefault();
    const number = parseInt($("round-number").value, 10);
    const result = await ask("POST", API.rounds, Number.isInteger(number) ? { number } : {});
    $("round-error").textContent = result.status >= 200 && result.status < 300 ? "" : result.status === 401 ? "" : failure(result);
    await refresh();
  }

  async function roundClose() {
    const open = openRound();
    if (!open || !window.confirm(t("roundCloseConfirm", { n: open.number }))) return;
    const result = await ask("POST", API.close, {});
    $("round-error").textContent = result.status >= 200 && result.status < 300 || result.status === 401 ? "" : failure(result);
    await refresh();
  }

  // -- devices ------------------------------------------------------------------------------------

  function drawDevices() {
    const body = $("devices").tBodies[0];
    body.textContent = "";
    for (const device of state.devices) {
      const status = device.revoked ? "revoked" : device.paired ? "paired" : "waiting";
      const row = body.insertRow();
      row.dataset.device = device.id;
      row.className = status;
      row.insertCell().textContent = device.name;
      row.insertCell().textContent = t("role." + device.role);
      row.insertCell().textContent = device.table || "";
      row.insertCell().appendChild(element("span", "badge " + status, t("state." + status)));
      const actions = row.insertCell();
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
    $("pairing-done").focus();
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

  async function loadRecords() {
    exportLinks();
    const result = await ask("GET", query());
    if (result.status === 401) return;
    if (result.status !== 200) {
      state.records = [];
      $("records-summary").textContent = result.body && /tamper|malformed/.test(String(result.body.type)) ? t("tampered") : failure(result);
      drawRecords(true);
      return;
    }
    state.records = list(result.body, "records");
    drawRecords();
  }

  const words = (value) => Array.isArray(value) ? value.join(" · ") : String(value || "");

  function drawRecords(keepSummary) {
    const body = $("records").tBodies[0];
    body.textContent = "";
    for (const record of state.records.slice().reverse()) {  // the newest first
      const row = body.insertRow();
      row.dataset.seq = record.seq;
      row.insertCell().textContent = record.seq;
      row.insertCell().textContent = clock(record.time);
      row.insertCell().textContent = record.round === null || record.round === undefined ? "—" : record.round;
      row.insertCell().textContent = record.table || "";
      row.insertCell().textContent = record.device_name || deviceName(record.device_id) || t("noDevice");
      row.insertCell().appendChild(element("span", "words", words(record.words)));
      row.insertCell().appendChild(element("span", "verdict " + (record.valid ? "valid" : "invalid"), t(record.valid ? "valid" : "invalid")));
      const button = element("button", "secondary small", t("slip"));
      button.type = "button";
      button.dataset.slip = record.seq;
      button.setAttribute("aria-label", `${t("slip")} ${record.seq}`);
      row.insertCell().appendChild(button);
    }
    if (!keepSummary) $("records-summary").textContent = state.records.length ? t("recordsSummary", { n: state.records.length }) : t("recordsNone");
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
    $("slip").hidden = false;
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
      ["f.time", String(record.time || "").replace("T", " ").replace("Z", "")],
      ["f.round", record.round === null || record.round === undefined ? t("noRound") : record.round],
      ["f.table", record.table || "—"],
      ["f.device", record.device_name ? `${record.device_name} (${t("role." + record.role)})` : t("noDevice")],
      ["f.words", words(record.words)],
      ["f.tiles", words(record.tiles)],
      ["f.lexicon", lexicon ? `${lexicon.name} (${record.lexicon_id})` : record.lexicon_id],
      ["f.version", record.lexicon_version],
      ["f.checksum", record.lexicon_checksum],
      ["f.notation", record.notation],
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
      const wrap = element("div", "slip-field " + key.slice(2));
      wrap.append(element("dt", "", t(key)), element("dd", "", String(value)));
      list.appendChild(wrap);
    }
  }

  function closeSlip() {
    $("slip").hidden = true;
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
  $("records").addEventListener("click", (event) => {
    const button = event.target.closest("[data-slip]");
    if (button) openSlip(button.dataset.slip);
  });
  $("slip-print").addEventListener("click", () => window.print());
  $("slip-close").addEventListener("click", closeSlip);
  document.addEventListener("keydown", (event) => { if (event.key === "Escape" && !$("slip").hidden) closeSlip(); });
  document.querySelectorAll(".lang[data-lang]").forEach((button) => button.addEventListener("click", () => {
    state.ui = button.dataset.lang;
    try { localStorage.setItem("lexicon-judge.director.ui", state.ui); } catch (e) { /* memory only */ }
    localize();
    drawSlip();
  }));
  window.LexiconDirector = { state, refresh };  // for tests, and for the curious

  // -- start: the language last chosen here, else the browser's; then the session, if any ----------

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
    const session = await ask("GET", API.session);  // 401: not signed in, the login shows
    if (session.status === 200) await signedIn(session.body);
    else signedOut(session.status === 401 ? refused : failure(session));
  })();
})();
