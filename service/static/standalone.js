/* global LexiconOffline */
/* Lexicon Judge: the single-file judge (`lexicon export-page`, service/single_file.py), which
   has no service behind it. Inlined last in that file, after offline.js (standalone: judge.js
   never asks a service): it reads the browser lexicon embedded in the file as base64 and hands
   it to LexiconOffline.load, which verifies it (checksum, structure, word count) before any
   verdict, and keeps the line that says this file judges on this phone in the interface's
   language. Never part of the served page. */
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("standalone-data").textContent);
  const line = document.getElementById("standalone");
  let state = "standalone";
  const say = () => {
    line.textContent = (data.texts[document.documentElement.lang] || data.texts[data.language])[state];
  };
  document.getElementById("langs").addEventListener("click", () => setTimeout(say));  // after judge.js switched
  say();
  const text = atob(document.getElementById("lexicon-bytes").textContent.trim());
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  LexiconOffline.load(bytes).catch(() => { state = "refused"; say(); });
})();
