/* global $, API, ask, clock, data, element, failure, offlineMark, secondUnshown, shownUnknown, state, t, words */
/* exported openSlip, drawSlip, closeSlip */
/* Lexicon Judge, the director's console: one challenge as a slip for an appeal (a modal dialog
   with every field of the record, its tiles as tiles, what the record's integrity says of it).
   Part of static/director.js (director/state.js says how). */
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
    ["f.offline", offlineMark(record)],
    ["f.table", record.table || "—"],
    ["f.device", record.device_name ? `${record.device_name} (${t("role." + record.role)})` : t("noDevice")],
    ["f.words", words(record.words)],
    ["f.tiles", tilesElement(record)],
    ["f.lexicon", lexicon ? `${lexicon.name} (${record.lexicon_id})` : record.lexicon_id],
    ["f.version", record.lexicon_version],
    ["f.checksum", record.lexicon_checksum],
    ["f.notation", record.notation ? t("notation." + record.notation) : ""],
    ["f.verdict", t(record.valid ? "valid" : "invalid")],
    ["f.shown", shownUnknown(record)],  // an offline verdict whose phone did not say what it showed
    ...(record.second_lexicon_id ? [  // the second opinion the players were shown with it
      ["f.second", `${(data.lexicons.find((l) => l.id === record.second_lexicon_id) || {}).name || record.second_lexicon_id} ` +
      `(${record.second_lexicon_id}, ${record.second_lexicon_version})`],
      ["f.secondChecksum", record.second_lexicon_checksum],
      ["f.secondVerdict", t(record.second_valid ? "valid" : "invalid")],
      ["f.secondUnshown", secondUnshown(record)]] : []),  // its phone never showed it
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

$("slip-print").addEventListener("click", () => window.print());
$("slip-close").addEventListener("click", closeSlip);
$("slip").addEventListener("close", slipClosed);
