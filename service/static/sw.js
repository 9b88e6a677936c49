/* Lexicon Judge: the installed app's service worker, at /sw.js so that its scope is the page's.
   service/installable.py serves this file behind one line it writes at start, `const SHELL =
   {cache, urls}`: the cache's name, which carries a digest of everything listed, and the URLs of
   the page's shell (the page, its files at their ?v=digest, the web manifests, the icons) and,
   when the service asks for no token, each served lexicon's browser file. A new page, asset or
   lexicon is a new digest, so a new sw.js, which the browser installs in place of this one.
   Verdicts (POST) and anything sent with a token are never cached, never answered from here:
   this worker only reads, from the cache it filled at install, what the service served then. */
"use strict";
const PREFIX = "lexicon-judge-";  // every cache of this app: the others are left alone
const WAIT_MS = 3000;             // the page from the network, else the cached one after this

const scope = new URL(self.registration.scope);
const listed = new Set(SHELL.urls.map((url) => new URL(url, scope).pathname));

self.addEventListener("install", (event) => {
  // "no-cache": the browser lexicon's URL names its id, not its checksum, so HTTP's cache may hold an older one.
  event.waitUntil(caches.open(SHELL.cache)
    .then((cache) => cache.addAll(SHELL.urls.map((url) => new Request(new URL(url, scope), { cache: "no-cache" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith(PREFIX) && name !== SHELL.cache)
      .map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

// The network's page unless it fails, answers 5xx or takes longer than WAIT_MS.
function network(request) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(reject, WAIT_MS);
    fetch(request).then((response) => {
      clearTimeout(timer);
      if (response.status >= 500) reject(); else resolve(response);
    }, reject);
  });
}

self.addEventListener("fetch", (event) => {
  const request = event.request, url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== scope.origin || !listed.has(url.pathname) ||
      request.headers.has("Authorization")) return;
  if (request.mode === "navigate") {  // the page, with its ?lexicon= or ?token=: the same page
    event.respondWith(network(request).catch(() => caches.open(SHELL.cache)
      .then((cache) => cache.match(scope.href))
      .then((page) => page || fetch(request))));
  } else if (!url.searchParams.has("token")) {
    event.respondWith(caches.open(SHELL.cache)
      .then((cache) => cache.match(request, { ignoreSearch: url.pathname.endsWith("/browser") }))
      .then((hit) => hit || fetch(request)));
  }
});
