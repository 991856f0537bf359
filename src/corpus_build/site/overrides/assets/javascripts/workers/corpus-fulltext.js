/* corpus-build: full-text search over the mirrors, in the search worker (issue 24).
 *
 * corpus-search.js loads this beside Material's worker and, for every answer Material
 * gives, asks `cbFulltext.answer(query, result)` to add the mirror passages that match,
 * after Material's own results (annotations rank first). The index is site/fulltext.py's:
 * a manifest (search/fulltext/index.js), term shards sorted by term, passage files and
 * the Chinese folding tables, each a script that hands its JSON to `self.cbFulltext`
 * (over http the worker fetches the files side by side and reads the JSON; from file://
 * it runs them with importScripts, which fetch cannot replace there). A query loads the
 * manifest once, then only the shards holding its terms and the passage files of the
 * passages it shows. The manifest and the folding tables load when
 * the search box opens (Material then asks with an empty query), before the first word.
 *
 * The words of the query are cut and folded exactly as fulltext.py and hanfold.py cut
 * and fold the text (NFKC, lower case, Traditional to Simplified, Taiwanese terms to
 * mainland ones; Latin words with a plural s dropped, Chinese as character pairs), and
 * a Chinese run is looked up both with and without the Taiwanese-term step.
 *
 * Loading is asynchronous over http (fetch) and in the offline copy's iframe stand-in
 * (site/templates/offline-worker.js, where importScripts returns a promise); a worker's
 * own importScripts blocks. `answer` returns a promise in the first two cases and the
 * result at once in the last.
 */
(function () {
  "use strict";

  var scope = self;
  var HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff";
  var HAN_RUN = new RegExp("^[" + HAN + "]+$");
  var HAN_ANY = new RegExp("[" + HAN + "]");
  var PIECES = new RegExp("[" + HAN + "]+|[^" + HAN + "]+", "g");
  var WORDS = /[\p{L}\p{N}\p{M}]+(?:_+[\p{L}\p{N}\p{M}]+)*/gu;
  var END = "0123456789abcdefghijklmnopqrstuv";
  var MORE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&*";
  var PAGES = 10; // pages of passages in an answer
  var SHOWN = 2; // passages of a page shown; the others under Material's "more"
  var PER_PAGE = 4;
  var LOADED = 24; // passages a query may show
  var FILES = 12; // passage files it may load for them (a page's passages share a file: fulltext.py)
  var PREFIX_TERMS = 16; // words an unfinished last word may stand for
  var PREFIX_WEIGHT = 0.6;
  var SNIPPET = 220;

  var base = null;
  var manifest = null;
  var shards = {}; // file -> Map(term -> [df, code])
  var chunks = {}; // file -> passages
  var fold = null; // {chars: Map, pattern: RegExp|null, phrases: {}}
  var failed = false;

  var api = {
    init: function (workerUrl) { base = new URL("../../../search/fulltext/", workerUrl).href; },
    manifest: function (data) { manifest = data; },
    // A shard says which it is by its first term, a passage file by its first passage.
    shard: function (rows) {
      var map = new Map();
      rows.forEach(function (r) { map.set(r[0], [r[1], r[2]]); });
      if (manifest && rows.length) shards[manifest.shards[shardOf(rows[0][0])]] = map;
    },
    chunk: function (data) { if (manifest) chunks[manifest.chunks[chunkOf(data.start)]] = data; },
    fold: function (data) {
      var chars = new Map();
      for (var i = 0; i + 1 < data.chars.length; i += 2) chars.set(data.chars[i], data.chars[i + 1]);
      fold = { chars: chars, pattern: data.pattern ? new RegExp(data.pattern, "g") : null, phrases: data.phrases || {} };
    },
    answer: answer,
    prefetch: prefetch
  };
  scope.cbFulltext = api;

  // --- loading ----------------------------------------------------------------------

  function then(value, next) { return value && typeof value.then === "function" ? value.then(next) : next(value); }

  // Over http(s), fetch the files side by side and read the JSON inside each (no script runs):
  // Chromium's importScripts fetches one file after another, about 10 ms a file on 127.0.0.1
  // and a round trip each on a real network. From file:// (the offline copy) fetch cannot
  // read files, so importScripts (there, the stand-in's) loads them.
  var parallel = typeof fetch === "function" && /^https?:/.test(scope.location && scope.location.protocol || "");

  // A file is `self.cbFulltext&&self.cbFulltext.<call>(<JSON>);` (fulltext.py: _js).
  var CALL = /^self\.cbFulltext&&self\.cbFulltext\.(manifest|shard|chunk|fold)\(/;

  function run(text) {
    var call = CALL.exec(text);
    if (!call) throw new Error("not an index file");
    api[call[1]](JSON.parse(text.slice(call[0].length, text.lastIndexOf(")"))));
  }

  var inflight = {}; // file -> the promise of its fetch, so a file asked for twice is fetched once

  function fetchAll(names) {
    return Promise.all(names.map(function (name) {
      return inflight[name] || (inflight[name] = fetch(base + name).then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + name);
        return response.text();
      }).then(run));
    })).catch(function () { failed = true; });
  }

  // Load files: fetched together, or in one importScripts call, which runs them in order.
  function load(names) {
    var todo = names.filter(function (n, i) { return n && names.indexOf(n) === i; });
    if (!todo.length) return undefined;
    if (parallel) return fetchAll(todo);
    try {
      return scope.importScripts.apply(scope, todo.map(function (name) { return base + name; }));
    } catch (error) {
      failed = true; // a file missing (an older copy of the site): Material's results alone
      return undefined;
    }
  }

  function ready(han) {
    if (!base || failed) return undefined;
    var first = manifest ? undefined : load(["index.js"]);
    return then(first, function () {
      if (!manifest) { failed = true; return undefined; }
      if (han && !fold) return load([manifest.fold]);
      return undefined;
    });
  }

  // --- words, as fulltext.py cuts them -------------------------------------------------------

  function simplified(c) { return fold && fold.chars.has(c) ? fold.chars.get(c) : c; }

  // As hanfold.py's Fold.text, steps 1 and 2 (NFKC, lower case, Traditional → Simplified).
  function foldChars(text) {
    var out = "";
    var lower = text.normalize("NFKC").toLowerCase();
    for (var i = 0; i < lower.length; i++) out += simplified(lower[i]);
    return out;
  }

  function foldPhrases(text) {
    if (!fold || !fold.pattern) return text;
    return text.replace(fold.pattern, function (m) { return fold.phrases[m] || m; });
  }

  function stem(word) {
    if (word.length > 3 && word[word.length - 1] === "s" && !/(ss|us|is)$/.test(word) && !/\d/.test(word[word.length - 2])) return word.slice(0, -1);
    return word;
  }

  function pieces(text) {
    var out = [];
    (text.match(WORDS) || []).forEach(function (w) { out.push.apply(out, w.match(PIECES)); });
    return out;
  }

  function pairs(run) {
    if (run.length === 1) return [run];
    var out = [];
    for (var i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
    return out;
  }

  // Clauses: each is a list of alternatives, each alternative the terms it needs and a weight.
  function parse(query) {
    var folded = foldChars(query);
    var words = pieces(folded);
    var open = !/\s$/.test(query); // the last word may be unfinished
    var clauses = [], needles = [];
    words.forEach(function (word, i) {
      var last = open && i === words.length - 1;
      if (HAN_RUN.test(word)) {
        var other = foldPhrases(word);
        var alts = [{ terms: pairs(word), weight: 1, prefix: word.length === 1 }];
        if (other !== word) alts.push({ terms: pairs(other), weight: 1, prefix: other.length === 1 });
        clauses.push(alts);
        needles.push(word, other);
        variants(other).forEach(function (v) { needles.push(v); });
      } else {
        var term = stem(word);
        clauses.push([{ terms: [term], weight: 1, prefix: last && word.length >= 2 }]);
        needles.push(word, term);
      }
    });
    return { clauses: clauses, needles: needles.filter(Boolean), shown: words };
  }

  // Taiwanese spellings of a folded run (内存 → 记忆体), for marking the snippet of a Taiwanese page.
  function variants(run) {
    var out = [];
    if (!fold) return out;
    Object.keys(fold.phrases).forEach(function (key) {
      var value = fold.phrases[key];
      if (value.length > 1 && run.indexOf(value) !== -1) out.push(run.split(value).join(key));
    });
    return out.slice(0, 8);
  }

  // --- the index ----------------------------------------------------------------------

  // The passage file holding passage `pid`: the last whose first passage is not after it.
  function chunkOf(pid) {
    var starts = manifest.starts || [], lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pid) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function shardOf(term) {
    var firsts = manifest.firsts, lo = 0, hi = firsts.length - 1;
    if (hi < 0 || term < firsts[0]) return 0;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (firsts[mid] <= term) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function shardsFor(plan) {
    var names = [];
    plan.clauses.forEach(function (alts) {
      alts.forEach(function (alt) {
        alt.terms.forEach(function (term) {
          var from = shardOf(term), to = alt.prefix ? shardOf(term + "\uffff") : from;
          for (var i = from; i <= to && i < manifest.shards.length; i++) names.push(manifest.shards[i]);
        });
      });
    });
    return names;
  }

  function entry(term) {
    var found = shards[manifest.shards[shardOf(term)]];
    return found ? found.get(term) : undefined;
  }

  function withPrefix(prefix) {
    var out = [];
    var from = shardOf(prefix), to = shardOf(prefix + "\uffff");
    for (var i = from; i <= to; i++) {
      var map = shards[manifest.shards[i]];
      if (!map) continue;
      map.forEach(function (value, term) { if (term.indexOf(prefix) === 0 && term !== prefix) out.push([term, value[0]]); });
    }
    out.sort(function (a, b) { return b[1] - a[1]; });
    return out.slice(0, PREFIX_TERMS).map(function (pair) { return pair[0]; });
  }

  function postings(code) {
    var out = [], n = 0, pid = 0, odd = false;
    for (var i = 0; i < code.length; i++) {
      var c = code[i], more = MORE.indexOf(c);
      if (more >= 0) { n = n * 32 + more; continue; }
      n = n * 32 + END.indexOf(c);
      if (!odd) { pid += n; } else { out.push(pid, n); }
      odd = !odd;
      n = 0;
    }
    return out; // [pid, weight, pid, weight, ...]
  }

  function idf(df) {
    var total = manifest.passages;
    return Math.log(1 + (total - df + 0.5) / (df + 0.5));
  }

  // pid -> score of one term of the query: its word, and the words it begins when unfinished.
  function termScores(term, alt) {
    var lists = [];
    var hit = entry(term);
    if (hit) lists.push([hit, 1]);
    if (alt.prefix) withPrefix(term).forEach(function (other) { var more = entry(other); if (more) lists.push([more, PREFIX_WEIGHT]); });
    var scores = new Map(), cut = lists.length > 0, unit = (manifest.k1 + 1) / manifest.weightSteps;
    lists.forEach(function (pair) {
      var df = pair[0][0], flat = postings(pair[0][1]), w = idf(df) * pair[1] * alt.weight * unit;
      if (df <= manifest.maxPostings) cut = false;
      for (var i = 0; i < flat.length; i += 2) scores.set(flat[i], Math.max(scores.get(flat[i]) || 0, flat[i + 1] * w));
    });
    return { scores: scores, cut: cut, found: lists.length > 0 };
  }

  // pid -> score of one alternative: the passages holding enough of its terms (see `combine`). A
  // term so common that the index kept only its best passages (cut) counts where present.
  function scoreAlternative(alt) {
    var parts = alt.terms.map(function (term) { return termScores(term, alt); });
    if (!parts.length || parts.length < 3 && parts.some(function (part) { return !part.found; })) return { scores: new Map(), optional: false };
    var hard = parts.filter(function (part) { return !part.cut; });
    var soft = parts.filter(function (part) { return part.cut; });
    return { scores: combine(hard, soft), optional: !hard.length };
  }

  // The passages in enough maps of `hard` (in any of `soft` when there is none), scores added.
  // Enough: all of one or two; of three or more, three in four (Lucene's minimum_should_match
  // habit): a long query's small words (for, or) or a pair of characters across two of its
  // words need not be in the passage. Each score is scaled by the share of maps it is in.
  function combine(hard, soft) {
    var scores = new Map(), counts = new Map();
    var need = hard.length <= 2 ? hard.length : Math.ceil(hard.length * 0.75);
    hard.forEach(function (part) {
      part.scores.forEach(function (s, pid) {
        scores.set(pid, (scores.get(pid) || 0) + s);
        counts.set(pid, (counts.get(pid) || 0) + 1);
      });
    });
    var out = new Map();
    scores.forEach(function (s, pid) {
      var n = counts.get(pid);
      if (n >= need) out.set(pid, s * n / hard.length);
    });
    soft.forEach(function (part) {
      part.scores.forEach(function (s, pid) {
        if (out.has(pid)) out.set(pid, out.get(pid) + s);
        else if (!hard.length) out.set(pid, (out.get(pid) || 0) + s);
      });
    });
    return out;
  }

  function rank(plan) {
    var hard = [], soft = [];
    plan.clauses.forEach(function (alts) {
      var best = new Map(), optional = true;
      alts.forEach(function (alt) {
        var got = scoreAlternative(alt);
        if (!got.optional) optional = false;
        got.scores.forEach(function (s, pid) { best.set(pid, Math.max(best.get(pid) || 0, s)); });
      });
      (optional ? soft : hard).push({ scores: best });
    });
    var ranked = [];
    combine(hard, soft).forEach(function (s, pid) { ranked.push([pid, s]); });
    ranked.sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; });
    return ranked;
  }

  // --- the answer ---------------------------------------------------------------------

  function answer(query, result) {
    if (!base || failed || typeof query !== "string") return result;
    if (!query.trim()) { // the search box opened (Material asks with an empty query): load what every query needs
      ready(true);
      return result;
    }
    var han = HAN_ANY.test(query);
    return then(ready(han), function () {
      if (!manifest || !manifest.passages) return result;
      var plan = parse(query);
      if (!plan.clauses.length) return result;
      var needed = shardsFor(plan).filter(function (name) { return !shards[name]; });
      return then(load(needed), function () {
        var ranked = rank(plan).slice(0, LOADED);
        // The files of the best passages, a page's passages sharing one: about one file per page shown.
        var files = [];
        ranked.forEach(function (pair) {
          var name = manifest.chunks[chunkOf(pair[0])];
          if (name && files.indexOf(name) === -1 && files.length < FILES) files.push(name);
        });
        files = files.filter(function (name) { return !chunks[name]; });
        return then(load(files), function () { return merge(result, ranked, plan); });
      });
    });
  }

  // Called as a query arrives, before Material searches: over http the query's shards are
  // fetched while Material's lunr answers (answer() then waits for the same fetches).
  function prefetch(query) {
    if (!parallel || !base || failed || !manifest || typeof query !== "string" || !query.trim()) return;
    if (HAN_ANY.test(query) && !fold) return;
    var plan = parse(query);
    load(shardsFor(plan).filter(function (name) { return !shards[name]; }));
  }

  // A passage file holds runs of passages, [url, page title, first number, [[anchor, title, text], ...]]
  // (numbers between runs are unused: a page's room to grow, fulltext.py's Layout).
  function passage(pid) {
    var data = chunks[manifest.chunks[chunkOf(pid)]];
    if (!data) return null;
    for (var i = 0; i < data.pages.length; i++) {
      var run = data.pages[i], row = run[3][pid - run[2]];
      if (pid >= run[2] && row) return { url: run[0], pageTitle: run[1], anchor: row[0], title: row[1], text: row[2] };
    }
    return null;
  }

  function merge(result, ranked, plan) {
    var groups = new Map(), order = [];
    ranked.forEach(function (pair) {
      var p = passage(pair[0]);
      if (!p) return;
      var group = groups.get(p.url);
      if (!group) {
        if (order.length >= PAGES) return;
        group = { page: p, items: [], score: pair[1] };
        groups.set(p.url, group);
        order.push(group);
      }
      if (group.items.length < PER_PAGE) group.items.push([p, pair[1]]);
    });
    var terms = {};
    plan.shown.forEach(function (word) { terms[word] = true; });
    // Material's results that hold every word of the query come first (annotations rank above
    // mirror text), then the passages, then Material's results that miss some word.
    var material = result && result.items ? result.items : [];
    var complete = material.filter(function (group) { return group.some(whole); });
    var items = complete.slice(), partial = material.filter(function (group) { return !group.some(whole); });
    order.forEach(function (group) {
      var top = group.score;
      var list = [{ location: group.page.url, title: escape(group.page.pageTitle), text: "", score: top, terms: {} }];
      group.items.forEach(function (pair, i) {
        var p = pair[0];
        list.push({
          location: p.url + "#" + p.anchor,
          title: escape(p.title || group.page.pageTitle),
          text: snippet(p.text, plan.needles),
          score: i < SHOWN ? top : top / 2,
          terms: terms
        });
      });
      items.push(list);
    });
    items.push.apply(items, partial);
    var out = {};
    Object.keys(result || {}).forEach(function (key) { out[key] = result[key]; });
    out.items = items;
    return out;
  }

  function whole(item) {
    var terms = item.terms || {};
    return Object.keys(terms).length > 0 && Object.keys(terms).every(function (t) { return terms[t]; });
  }

  function escape(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  // A short piece of the passage around its first match, every match in it marked.
  function snippet(text, needles) {
    var low = ""; // as long as `text`, so a match's place is its place in the text
    for (var i = 0; i < text.length; i++) {
      var l = text[i].toLowerCase();
      low += simplified(l.length === 1 ? l : text[i]);
    }
    var marks = [];
    needles.forEach(function (needle) {
      if (!needle) return;
      for (var at = low.indexOf(needle); at !== -1; at = low.indexOf(needle, at + needle.length)) marks.push([at, at + needle.length]);
    });
    marks.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var first = marks.length ? marks[0][0] : 0;
    var from = Math.max(0, first - 60), to = Math.min(text.length, from + SNIPPET);
    var out = from > 0 ? "…" : "", at = from;
    marks.forEach(function (m) {
      if (m[0] < at || m[1] > to) return;
      out += escape(text.slice(at, m[0])) + "<mark>" + escape(text.slice(m[0], m[1])) + "</mark>";
      at = m[1];
    });
    out += escape(text.slice(at, to)) + (to < text.length ? "…" : "");
    return out.replace(/\n/g, " ");
  }
})();
