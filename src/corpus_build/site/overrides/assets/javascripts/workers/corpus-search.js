/* corpus-build: the site's search worker.
 *
 * overrides/main.html points Material's search at this file, with the name of
 * Material's own worker after the `#` (corpus-search.js#search.<hash>.min.js), and
 * defers Material's page script's download of search_index.json until the reader
 * opens search (nothing of search is downloaded on a page view before that).
 *
 * When search_index.json says its documents are in the sharded index
 * (`config.corpus_entries`: site/search.py), this worker answers Material's page
 * script itself, with corpus-fulltext.js beside it: the site's own results (a
 * source's title, annotation and identifiers; the headings of chapters, digests and
 * other pages) and the mirrors' passages, from the index site/fulltext.py writes
 * under search/fulltext/. A query loads only the files holding its words, so what a
 * reader downloads does not grow with the corpus, and Material's lunr is never
 * loaded. Material's messages: SETUP (0) is answered with READY (1) once the
 * index's manifest is in; QUERY (2) with RESULT (3), `{items: [[page, sections...], ...]}`.
 *
 * Any other search index (one that still holds its documents: an older build, a
 * configuration without our tuning) gets Material's own worker, unchanged.
 *
 * Runs as a Web Worker, or inside the offline copy's iframe stand-in
 * (site/templates/offline-worker.js), where importScripts returns a promise. It
 * requests nothing but Material's worker, corpus-fulltext.js beside it and the
 * site's own search/fulltext/ files.
 */
(function () {
  "use strict";

  var SETUP = 0, READY = 1, QUERY = 2, RESULT = 3;
  var scope = self;
  var here = typeof document !== "undefined" && document.currentScript ? document.currentScript.src : String(scope.location.href);
  var material = decodeURIComponent(here.split("#")[1] || "");
  // Only a worker file of this folder (Material's search.<hash>.min.js): never another origin's script.
  if (!/^search\.[A-Za-z0-9.]+\.js$/.test(material)) throw new Error("corpus-search: the address names no Material search worker after #");

  var mode = null; // "ours", or "material" once its worker has taken over
  var held = []; // messages that came while a script loads
  var busy = false;
  var ticket = 0; // the newest query: an older answer that comes later is dropped

  function then(value, next) { return value && typeof value.then === "function" ? value.then(next, next) : next(value); }

  // The worker starts when the reader opens search: begin on the index's manifest at once, while
  // Material's page script is still fetching search_index.json (its SETUP message says whose index it is).
  // Over http(s) the manifest is requested before corpus-fulltext.js, which would ask for it only once
  // loaded: on a real network, search is ready one round trip sooner.
  var early = null;
  try {
    if (typeof fetch === "function" && /^https?:$/.test(scope.location.protocol)) {
      early = fetch(new URL("../../../search/fulltext/index.js", here).href).then(function (response) {
        if (!response.ok) throw new Error(response.status + " index.js");
        return response.text();
      });
      early.catch(function () {}); // read (and its failure handled) by corpus-fulltext.js
    }
  } catch (error) {
    early = null;
  }
  var preparing;
  try {
    preparing = then(scope.importScripts("corpus-fulltext.js"), function () {
      if (!scope.cbFulltext) return undefined;
      scope.cbFulltext.init(here, early ? { "index.js": early } : null);
      return scope.cbFulltext.open();
    });
  } catch (error) {
    preparing = undefined;
  }

  scope.addEventListener("message", function onMessage(event) {
    if (mode === "material") return;
    if (busy) { held.push(event); return; }
    var message = event.data || {};
    if (message.type === SETUP) return setup(event, message.data || {});
    if (message.type === QUERY && mode === "ours") return query(message.data);
  });

  function release() {
    busy = false;
    var waiting = held;
    held = [];
    waiting.forEach(function (event) { scope.dispatchEvent(new MessageEvent("message", { data: event.data })); });
  }

  function setup(event, data) {
    busy = true;
    var config = data.config || {};
    if (!config.corpus_entries) { // Material's own search, unchanged: its worker handles this message and the next
      mode = "material";
      var loading;
      try { loading = scope.importScripts(material); } catch (error) { busy = false; return; }
      return then(loading, function () {
        scope.dispatchEvent(new MessageEvent("message", { data: event.data }));
        release();
      });
    }
    mode = "ours";
    return then(preparing, function () {
      if (!scope.cbFulltext) { busy = false; return; }
      scope.postMessage({ type: READY });
      release();
    });
  }

  function query(text) {
    var mine = ++ticket;
    if (typeof text !== "string") return;
    var answer;
    try {
      answer = scope.cbFulltext.answer(text, { items: [] });
    } catch (error) {
      console.warn("corpus-search: " + error);
      answer = { items: [] };
    }
    then(answer, function (result) {
      if (mine !== ticket) return; // a newer query's answer wins
      scope.postMessage({ type: RESULT, data: result && result.items ? result : { items: [] } });
    });
  }
})();
