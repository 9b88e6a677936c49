/* global $, API, ask, cell, clock, data, element, failure, list, openRound, refresh, say, serverNow,
   state, t */
/* exported silent, drawDevices */
/* Lexicon Judge, the director's console: its devices (the list, pairing a new one with its code,
   URL and QR code, watching the code used, a fresh code, revoking). Part of static/director.js
   (director/state.js says how). */
// The hall at a glance: each device's last contact (any request: its page asks every few seconds while
// open), its last verdict (what, when, which round) and lexicon (by name, marked when it is not the
// event's); a paired device silent for SILENT_MS while a round is open is marked, and comes first,
// then devices not paired yet, then the others, the revoked last.
const SILENT_MS = 60000;
const silent = (device) => Boolean(openRound() && device.active && !device.revoked &&
  (!device.last_contact || serverNow() - Date.parse(device.last_contact) > SILENT_MS));
const need = (device) => silent(device) ? 0 : device.revoked ? 3 : device.paired ? 2 : 1;

function drawDevices() {
  const body = $("devices").tBodies[0], pin = state.lexicon;
  body.textContent = "";
  const sorted = state.devices.slice().sort((a, b) => need(a) - need(b) || a.id - b.id);
  for (const device of sorted) {
    const status = device.revoked ? "revoked" : device.paired ? "paired" : "waiting", quiet = silent(device);
    const row = body.insertRow();
    row.dataset.device = device.id;
    row.className = status + (quiet ? " silent" : "");
    cell(row, t("colName"), device.name).className = "name";
    cell(row, t("colRole"), t("role." + device.role));
    cell(row, t("table"), device.table || "—");
    const badge = element("span", "badge " + (quiet ? "silent" : status), t(quiet ? "state.silent" : "state." + status));
    cell(row, t("colState"), badge);
    cell(row, t("colContact"), device.last_contact ? clock(device.last_contact) : t("never")).className = "last-contact";
    const verdict = device.last_seen ? element("span", "", null) : t("never");
    if (device.last_seen) {
      verdict.append(element("span", "verdict " + (device.last_valid ? "valid" : "invalid"), t(device.last_valid ? "valid" : "invalid")),
        " · " + (device.last_round ? t("roundN", { n: device.last_round }) : t("noRound")) + " · " + clock(device.last_seen));
    }
    const lastSeen = cell(row, t("colLastSeen"), verdict);
    lastSeen.className = "last-seen";
    for (const [member, text] of [["refused_offline", "refusedOffline"], ["refused_offline_lexicon", "refusedOfflineLexicon"]]) {
      const refused = refusedOffline(device[member], text);
      if (refused) lastSeen.append(element("span", "refused-offline", refused));
    }
    const [id, ...version] = String(device.last_lexicon || "").split(" "), known = data.lexicons.find((l) => l.id === id);
    const other = device.last_lexicon && pin && (pin.id !== id || pin.version !== version.join(" "));
    const lexicon = cell(row, t("colLexicon"), device.last_lexicon ? (known ? known.name : id) + " " + version.join(" ") : "—");
    lexicon.className = "last-lexicon";
    if (other) lexicon.append(" ", element("span", "badge silent", t("notEventLexicon")));
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

// A judge's offline verdicts the record refused, one line per reason (said on the phone alone until
// then): its phone showed another verdict than the service gives (409 offline-verdict-differs,
// `text` refusedOffline) or judged with another list than the event's (409 offline-lexicon-changed,
// refusedOfflineLexicon): how many, and the latest one's round (as the phone showed it) and times.
// Never which words: the record holds none.
function refusedOffline(refused, text) {
  if (!refused) return "";
  const round = refused.shown_round === null ? t("roundUnsaid") : refused.shown_round ? t("roundN", { n: refused.shown_round }) : t("noRound");
  const judged = refused.device_time ? clock(refused.device_time) : "—";
  return t(refused.count === 1 ? text + "One" : text, { n: refused.count, round, judged, refused: clock(refused.time) });
}

function roleChanged() {
  $("device-table-box").hidden = $("device-role").value !== "table";
}

// What went wrong with the devices (a name missing or taken, a table missing, the service's refusal),
// said under the form. A line about a field (`on`: its id) marks it and takes the focus there, and
// goes as soon as the director changes it; one about the form ("form": a refusal naming no field,
// which the console's own requests never meet) goes at a change of any of its fields; any other (an
// action failed) stays. Each goes once an action succeeds (`wrong()`), not only at the form's next use.
const FIELDS = { "/name": "device-name", "/role": "device-role", "/table": "device-table" };
let wrongOn = "";
function wrong(on, said) {
  say("device-error", said);
  wrongOn = said ? on : "";
  for (const id of Object.values(FIELDS)) {
    if (id === wrongOn) $(id).setAttribute("aria-invalid", "true"); else $(id).removeAttribute("aria-invalid");
  }
  if (wrongOn.startsWith("device-")) $(wrongOn).focus();
}

function corrected(event) {
  const id = event.target.id, fields = id === "device-role" && event.target.value !== "table" ? [id, "device-table"] : [id];
  if (wrongOn === "form" || fields.includes(wrongOn)) wrong();  // a table no longer needed, too
}

async function pair(event) {
  event.preventDefault();
  const name = $("device-name").value.trim(), role = $("device-role").value, table = $("device-table").value.trim();
  if (!name) { wrong("device-name", () => t("nameRequired")); return; }
  if (role === "table" && !table) { wrong("device-table", () => t("tableRequired")); return; }
  const result = await ask("POST", API.devices, role === "table" ? { name, role, table } : { name, role });
  if (result.status === 401) return;
  if (result.status === 409 && result.body && String(result.body.type).endsWith("/device-name-taken")) {
    // Two devices of one name cannot be told apart in the list or the record: say what to do,
    // naming the device as its row shows it (the service compares without case or spaces; the
    // list read again, for a device another tab added).
    await refresh();
    const held = state.devices.find((d) => !d.revoked && d.name.trim().toLowerCase() === name.toLowerCase());
    wrong("device-name", () => t("nameTaken", { name: held ? held.name : name, newCode: t("newCode"), revoke: t("revoke") }));
    return;
  }
  if (result.status < 200 || result.status >= 300 || !result.body || !result.body.code) {
    // The field the service names (its `pointer`), said in words about that field: a name too long,
    // with no letter or digit one can see ("---") or with a character one cannot; a table likewise.
    const input = result.status === 400 || result.status === 422;
    const field = input ? FIELDS[result.body && result.body.pointer] : undefined;
    const said = { "device-name": () => t("nameRefused", { max: $("device-name").maxLength }),
      "device-table": () => t("tableRefused") }[field];
    wrong(input ? field || "form" : "", said || (() => failure(result)));
    return;
  }
  wrong();
  $("device-name").value = "";
  $("device-table").value = "";
  await showPairing(name, result.body);
  await refresh();
}

async function showPairing(name, body) {
  $("device-notice").textContent = "";
  watchPairing(body.device, body.expires_in);
  const url = new URL(body.pairing_url || body.url || `./#pair=${body.code}`, document.baseURI).href;
  // Said again in a language tapped (start.js's localize), as the lines of what went wrong.
  say("pairing-for", () => t("pairingFor", { name }));
  say("pairing-warning", body.reachable === false && (() => t("pairingUnreachable." + (body.unreachable || "loopback-only"))));
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
      say("device-notice", () => t("pairedNotice", { name: now.name }));
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
    wrong("", () => failure(result));
    return;
  }
  wrong();
  await showPairing(device ? device.name : "", result.body);
}

async function revoke(id) {
  const device = state.devices.find((d) => String(d.id) === String(id));
  if (!device || !window.confirm(t("revokeConfirm", { name: device.name }))) return;
  const result = await ask("DELETE", `${API.devices}/${encodeURIComponent(id)}`);
  if (result.status !== 401) {
    if (result.status < 200 || result.status >= 300) wrong("", () => failure(result)); else wrong();
  }
  await refresh();
}

$("device-role").addEventListener("change", roleChanged);
$("device-form").addEventListener("submit", pair);
$("device-form").addEventListener("input", corrected);
$("pairing-done").addEventListener("click", closePairing);
$("devices").addEventListener("click", (event) => {
  const button = event.target.closest("[data-revoke]"), code = event.target.closest("[data-code]");
  if (button) revoke(button.dataset.revoke);
  if (code) newCode(code.dataset.code);
});
roleChanged();
