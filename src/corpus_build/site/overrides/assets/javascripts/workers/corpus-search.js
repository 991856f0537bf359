/* corpus-build: Material's search worker with this corpus's ranking.
 *
 * overrides/main.html points Material's search at this file, with the name of
 * Material's own worker after the `#` (corpus-search.js#search.<hash>.min.js). It
 * loads that worker unchanged and changes three things, nothing else:
 *
 * 1. How a query is looked up (a wrapper around lunr's Index#search, which
 *    Material calls with the query it has already rewritten):
 *    - a word of five letters or more also finds words one edit away (two from
 *      eight letters on: lunr's `term~N`), at a low weight, so a typo
 *      (flashatention) still finds FlashAttention;
 *    - two adjacent words also look up their compound (paged attention →
 *      pagedattention*, as in PagedAttention);
 *    - a number after PR, pull, issue or `#` looks up that thread's key
 *      (pr2900, issue2900: site/search.py puts them in the `keys` field), and the
 *      word PR itself no longer matches every word that starts with "pr";
 *    - a run of Chinese characters is cut into the longest words the index
 *      holds (Material's own cut never tries a word that ends the run, so 算子
 *      was searched as 算*).
 * 2. How results are ordered: by tier, then in Material's order (its score).
 *    Tier 4: the PR or issue the query names by number. Tier 3: the page (not
 *    a heading in one) the query names: its whole title (deepgemm ascend for
 *    DeepGEMM-Ascend) or its repository's one-word name (tilelang, a `keys`
 *    word). Tier 2: a page or heading whose title holds the query's Latin
 *    words as a phrase (in order, adjacent; case, punctuation and spaces
 *    between them ignored, so paged attention is also PagedAttention; the last
 *    word may be unfinished). Tier 1: one whose text holds that phrase.
 *    Chinese words take no part in phrases: a Traditional page would not hold
 *    the Simplified phrase it answers. Tiers lift only pages of full weight
 *    (sources, the user's own pages): those site/search.py weighs down
 *    (digests, chapters, section and listing pages) keep their place by score.
 *
 * 3. Every answer gets the mirrors' passages that match, after Material's results
 *    (corpus-fulltext.js, the index site/fulltext.py writes under search/fulltext/).
 *
 * And one thing about how the index comes to be: where search_index.json names a
 * lunr index built with the site (`config.lunr`: site/lunrindex.py), lunr loads
 * that instead of building it from the documents on every page view. It holds no
 * token positions: those of the results shown, which Material's highlighting
 * reads, are found with Material's own tokenizer when a query is answered.
 *
 * Runs as a Web Worker, or inside the offline copy's iframe stand-in
 * (site/templates/offline-worker.js), where importScripts returns a promise. It
 * requests nothing but Material's worker and corpus-fulltext.js beside it and the
 * site's own search/fulltext/ files. A worker that is not
 * Material's lunr one (Zensical's) runs as it would alone.
 */
(function () {
  "use strict";

  var SETUP = 0, QUERY = 2, RESULT = 3;
  var FUZZY_MIN = 5; // letters: shorter words find too many neighbours
  var FUZZY_TWO = 8; // letters from which two edits are allowed
  var FUZZY_BOOST = 0.2; // a neighbour counts a fifth of the word as typed
  var COMPOUND_BOOST = 2;
  var THREAD_BOOST = 10;
  var HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  var HAN_RUNS = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var PIECES = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[^\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
  var LONGEST_WORD = 8; // as site/search.py's MAX_WORD
  var THREADS = /(?:\b(?:pr|pull|issues?)\s*[#/]?\s*|#)(\d+)\b/gi;
  var THREAD_WORDS = { pr: true, pull: true, issue: true, issues: true };

  var scope = self;
  var here = typeof document !== "undefined" && document.currentScript ? document.currentScript.src : String(scope.location.href);
  var material = decodeURIComponent(here.split("#")[1] || "");
  // Only a worker file of this folder (Material's search.<hash>.min.js): never another origin's script.
  if (!/^search\.[A-Za-z0-9.]+\.js$/.test(material)) throw new Error("corpus-search: the address names no Material search worker after #");

  var docs = new Map(); // location -> document, from the setup message
  var separator = /[\s\-]+/;
  var plan = null; // the query being answered
  var cache = new Map(); // location -> its title and text as phrase-searchable strings

  // Material's worker registers one message listener and answers with postMessage:
  // take the listener, to run it after looking at the message, and wrap postMessage.
  var deliver = null;
  var waiting = [];
  var listen = scope.addEventListener;
  scope.addEventListener = function (type, listener, options) {
    if (type === "message" && !deliver) { deliver = listener; return; }
    return listen.call(scope, type, listener, options);
  };
  var post = scope.postMessage;
  var asked = null; // the query Material is answering, for the mirrors' full text
  var answered = 0;
  scope.postMessage = function (message) {
    if (message && message.type === RESULT && plan) reorder(message.data, plan);
    if (message && message.type === RESULT && scope.cbFulltext && typeof asked === "string") {
      var ticket = ++answered;
      var data;
      try {
        data = scope.cbFulltext.answer(asked, message.data);
      } catch (error) {
        console.warn("corpus-fulltext: " + error);
        return post.apply(scope, arguments); // Material's answer, without the mirrors
      }
      if (data && typeof data.then === "function") { // the offline copy: the index loads asynchronously
        data.then(function (full) {
          if (ticket === answered) post.call(scope, { type: RESULT, data: full }); // a newer query's answer wins
        }, function () {
          if (ticket === answered) post.call(scope, message);
        });
        return undefined;
      }
      return post.call(scope, { type: RESULT, data: data });
    }
    return post.apply(scope, arguments);
  };
  var passive = false;
  var holding = null; // messages that came while the prebuilt index loads (the offline copy)
  listen.call(scope, "message", function (event) {
    if (passive) return;
    if (holding) holding.push(event);
    else if (deliver && scope.lunr) receive(event);
    else waiting.push(event);
  });

  function receive(event) {
    var message = event.data || {};
    if (message.type === SETUP) {
      setup(message.data);
      var loading = loadPrebuilt(message.data);
      if (loading && typeof loading.then === "function") { // the offline copy: importScripts is asynchronous
        holding = [];
        var release = function () {
          var held = holding;
          holding = null;
          deliver(event);
          held.forEach(receive);
        };
        loading.then(release, release);
        return;
      }
    }
    plan = message.type === QUERY && typeof message.data === "string" ? parse(message.data) : null;
    asked = message.type === QUERY && typeof message.data === "string" ? message.data : null;
    if (asked && scope.cbFulltext && scope.cbFulltext.prefetch) scope.cbFulltext.prefetch(asked);
    deliver(event); // Material's handler searches at once, before anything else can arrive
  }

  function setup(data) {
    docs = new Map();
    cache = new Map();
    spots = new Map();
    builder = null;
    prebuilt = null;
    (data.docs || []).forEach(function (doc) { docs.set(doc.location, doc); });
    try {
      separator = new RegExp(data.config.separator);
    } catch (error) { /* Material's own default then */ }
  }

  // --- the prebuilt index (site/lunrindex.py) ---------------------------------------------

  var prebuilt = null; // {compact index, documents}, once loaded and matched: build() expands and loads it
  var builder = null; // Material's configured lunr builder: its tokenizer finds positions
  var spots = new Map(); // location and field -> term -> positions

  function loadPrebuilt(data) {
    var name = data && data.config && data.config.lunr;
    if (typeof name !== "string" || !/^lunr_index\.[0-9a-f]+\.js$/.test(name)) return null;
    scope.cbLunrIndex = null;
    var url = new URL("../../../search/" + name, here).href;
    var accept = function () {
      prebuilt = matching(scope.cbLunrIndex, data);
      scope.cbLunrIndex = null;
      if (!prebuilt) console.warn("corpus-search: " + name + " is not an index of this search index: building one");
    };
    var loading;
    try { loading = scope.importScripts(url); } catch (error) { return null; } // not there: lunr builds
    if (loading && typeof loading.then === "function") return loading.then(accept, function () {});
    accept();
    return null;
  }

  // The index only if it was made with these fields for this many documents (the file's
  // name, which the search index gives, is a digest of its content).
  function matching(compact, data) {
    if (!compact || compact.form !== 2 || !Array.isArray(compact.terms) || !Array.isArray(compact.vectors)) return null;
    var fields = Object.keys(data.config.fields || {});
    if (String(compact.fields) !== String(fields) || compact.vectors.length !== (data.docs || []).length) return null;
    return { compact: compact, docs: data.docs };
  }

  // lunr's serialisation of the compact form (site/lunrindex.py: build and expand).
  // Numbers come as gaps from the one before; a score as lunr rounds it, in thousandths
  // (x / 1000 is the double lunr's Math.round(score * 1000) / 1000 gives).
  function expand(compact, list, version) {
    var fields = compact.fields, refs = list.map(function (doc) { return doc.location; });
    var none = Object.freeze(Object.create(null)); // a posting's metadata: no positions kept
    var inverted = new Array(compact.terms.length);
    for (var i = 0; i < compact.terms.length; i++) {
      var posting = { _index: compact.numbers[i] }, holders = compact.postings[i];
      for (var f = 0; f < fields.length; f++) {
        var held = holders[f] || [], found = Object.create(null);
        for (var k = 0, n = 0; k < held.length; k++) { n += held[k]; found[refs[n]] = none; }
        posting[fields[f]] = found;
      }
      inverted[i] = [compact.terms[i], posting];
    }
    var vectors = new Array(refs.length * fields.length);
    for (var d = 0; d < refs.length; d++) {
      for (var g = 0; g < fields.length; g++) {
        var flat = compact.vectors[d][g] || [], elements = new Array(flat.length), number = 0;
        for (var j = 0; j < flat.length; j += 2) {
          number += flat[j];
          elements[j] = number;
          elements[j + 1] = flat[j + 1] / 1000;
        }
        vectors[d * fields.length + g] = [fields[g] + "/" + refs[d], elements];
      }
    }
    return { version: version, fields: fields, fieldVectors: vectors, invertedIndex: inverted, pipeline: [] };
  }

  function usePrebuilt(lunr) {
    var add = lunr.Builder.prototype.add, build = lunr.Builder.prototype.build;
    var skipped = [];
    lunr.Builder.prototype.add = function (doc, attributes) {
      if (!prebuilt) return add.call(this, doc, attributes);
      skipped.push([doc, attributes]);
    };
    lunr.Builder.prototype.build = function () {
      var serialized = prebuilt, pending = skipped;
      prebuilt = null;
      skipped = [];
      if (serialized) {
        try {
          var index = lunr.Index.load(expand(serialized.compact, serialized.docs, lunr.version));
          index.pipeline = this.searchPipeline; // Material's, as a built index would have it
          builder = this;
          return index;
        } catch (error) {
          console.warn("corpus-search: the prebuilt index did not load (" + error + "): building it");
        }
      }
      var self = this;
      pending.forEach(function (entry) { add.call(self, entry[0], entry[1]); });
      return build.call(this);
    };
  }

  // Material highlights the words a result matched by their positions: give it those of the
  // results it shows, from its own tokenizer, as a built index would hold them.
  function place(results) {
    if (!builder) return;
    results.forEach(function (result) {
      var doc = docs.get(result.ref);
      var metadata = result.matchData.metadata;
      Object.keys(metadata).forEach(function (term) {
        Object.keys(metadata[term]).forEach(function (field) {
          var found = doc ? positions(doc, field)[term] : null;
          metadata[term][field] = { position: found ? found.slice() : [] }; // a new object: postings share theirs
        });
      });
    });
  }

  function positions(doc, field) {
    var key = doc.location + "\u0000" + field;
    var found = spots.get(key);
    if (!found) {
      found = Object.create(null);
      var spec = builder._fields[field] || {};
      var value = spec.extractor ? spec.extractor(doc) : doc[field]; // Material's extractor starts its position table
      builder.pipeline.run(builder.tokenizer(value, { fields: [field] })).forEach(function (token) {
        var word = token.toString();
        (found[word] || (found[word] = [])).push(token.metadata.position);
      });
      spots.set(key, found);
    }
    return found;
  }

  function start() {
    if (!deliver || !scope.lunr || !scope.lunr.Index) {
      // Not Material's lunr worker (another engine's, Zensical's, answers on onmessage): step aside.
      scope.addEventListener = listen;
      scope.postMessage = post;
      passive = true;
      return;
    }
    patch(scope.lunr);
    usePrebuilt(scope.lunr);
    // The mirrors' full text (corpus-fulltext.js, beside this file): added to Material's answers.
    var fulltext;
    try { fulltext = scope.importScripts("corpus-fulltext.js"); } catch (error) { fulltext = null; }
    function go() {
      if (scope.cbFulltext) scope.cbFulltext.init(here);
      waiting.splice(0).forEach(receive);
    }
    if (fulltext && typeof fulltext.then === "function") fulltext.then(go, go);
    else go();
  }

  var loading = scope.importScripts(material);
  if (loading && typeof loading.then === "function") loading.then(start);
  else start();

  // --- the query ------------------------------------------------------------------------

  function words(text) {
    return text.toLowerCase().split(separator).filter(Boolean);
  }

  function parse(query) {
    var plain = query.replace(/["+]/g, " ").replace(/(^|\s)-+/g, " ");
    // Words as the index cuts them, a Chinese run apart from Latin letters beside it (vLLM昇腾: vllm, 昇腾).
    var tokens = [];
    words(plain).forEach(function (word) { tokens.push.apply(tokens, word.match(PIECES)); });
    var threads = [];
    var match;
    THREADS.lastIndex = 0;
    while ((match = THREADS.exec(plain)) !== null) threads.push(String(parseInt(match[1], 10)));
    // The phrase: the longest run of adjacent Latin words (two at least).
    var phrase = [], run = [];
    tokens.concat([""]).forEach(function (token) {
      if (token && !HAN.test(token)) { run.push(token); return; }
      if (run.length > phrase.length) phrase = run;
      run = [];
    });
    var compounds = [];
    tokens.forEach(function (token, i) {
      var next = tokens[i + 1];
      if (next && !HAN.test(token) && !HAN.test(next)) compounds.push([token + next, [token, next]]);
    });
    return {
      tokens: tokens,
      compounds: compounds,
      latin: tokens.filter(function (token) { return !HAN.test(token); }),
      han: plain.match(HAN_RUNS) || [],
      threads: threads,
      whole: tokens.join(""),
      phrase: phrase.length >= 2 ? phrase.join("") : "",
      fuzzy: [], // [word, its index terms within reach]
      tiers: new Map(),
      found: new Map() // location -> the fuzzy words it matched
    };
  }

  function patch(lunr) {
    var search = lunr.Index.prototype.search;
    lunr.Index.prototype.search = function (queryString) {
      var current = plan;
      if (!current) {
        var found = search.call(this, queryString);
        place(found);
        return found;
      }
      var index = this;
      var results = this.query(function (query) {
        new lunr.QueryParser(queryString, query).parse();
        adjust(lunr, index, query, current);
      if (scope.__debug) console.log(JSON.stringify(query.clauses.map(function (c) { return [c.term, c.boost, c.editDistance, c.wildcard]; })));
      });
      rank(results, current);
      place(results);
      return results;
    };
  }

  function optional(lunr, clause) {
    return clause.presence === undefined || clause.presence === lunr.Query.presence.OPTIONAL;
  }

  function adjust(lunr, index, query, current) {
    var terms = index.invertedIndex;
    var seen = {};
    var beside = []; // Latin letters of a clause that held Chinese too (vllm昇腾*)
    query.clauses = query.clauses.filter(function (clause) {
      var bare = clause.term.replace(/\*/g, "");
      if (!optional(lunr, clause)) return true;
      if (HAN.test(bare)) { // cut again below
        beside.push.apply(beside, bare.split(HAN_RUNS).filter(Boolean));
        return false;
      }
      if (current.threads.length && THREAD_WORDS[bare]) return false;
      seen[clause.term] = true;
      return true;
    });
    function add(term, options) {
      var key = term + (options.wildcard ? "*" : "") + (options.editDistance ? "~" + options.editDistance : "");
      if (seen[key]) return;
      seen[key] = true;
      options.usePipeline = false;
      query.term(term, options);
    }
    var trailing = lunr.Query.wildcard.TRAILING;
    beside.forEach(function (word) { add(word, { wildcard: trailing }); });
    current.han.forEach(function (run) {
      cut(run, terms).forEach(function (word) { add(word, { wildcard: trailing }); });
    });
    current.compounds.forEach(function (pair) { add(pair[0], { wildcard: trailing, boost: COMPOUND_BOOST }); });
    current.latin.forEach(function (word) {
      if (word.length < FUZZY_MIN || !/[a-z]/.test(word)) return;
      var distance = word.length >= FUZZY_TWO ? 2 : 1;
      var reach = index.tokenSet.intersect(lunr.TokenSet.fromFuzzyString(word, distance)).toArray();
      current.fuzzy.push([word, new Set(reach)]);
      // Each step away counts less: a word one edit away beats one two away (cutlasss: CUTLASS, not CATLASS).
      for (var edits = 1; edits <= distance; edits++) add(word, { editDistance: edits, boost: FUZZY_BOOST / edits });
    });
    current.threads.forEach(function (number) {
      ["pr", "issue"].forEach(function (kind) { add(kind + number, { boost: THREAD_BOOST }); });
    });
  }

  // The longest words of the index, left to right; a character no word covers stays alone.
  function cut(run, terms) {
    var out = [];
    for (var i = 0; i < run.length;) {
      var end = 0;
      for (var j = Math.min(run.length, i + LONGEST_WORD); j > i + 1; j--) {
        if (Object.prototype.hasOwnProperty.call(terms, run.slice(i, j))) { end = j; break; }
      }
      if (!end) end = i + 1;
      out.push(run.slice(i, end));
      i = end;
    }
    return out;
  }

  // --- the order ------------------------------------------------------------------------

  function rank(results, current) {
    results.forEach(function (result) {
      var doc = docs.get(result.ref);
      if (!doc) return;
      record(result, current);
      // Pages the index weighs down (site/search.py: digests, chapters, section and listing pages
      // mention sources in passing) keep their place by score: tiers lift sources and the user's pages.
      if (doc.boost !== undefined && doc.boost < 1) return;
      var tier = 0;
      var keys = words(doc.keys || "");
      if (current.threads.length) {
        if (current.threads.some(function (n) { return keys.indexOf("pr" + n) !== -1 || keys.indexOf("issue" + n) !== -1; })) tier = 4;
      }
      if (!tier && current.whole) {
        var shown = phrases(doc);
        var named = shown.title.all === current.whole || (/^[a-z0-9.]+$/.test(current.whole) && keys.indexOf(current.whole) !== -1);
        if (named && doc.location.indexOf("#") === -1) tier = 3;
        else if (current.phrase && holds(shown.title, current.phrase)) tier = 2;
        else if (current.phrase && holds(shown.text, current.phrase)) tier = 1;
      }
      if (tier) current.tiers.set(result.ref, tier);
    });
  }

  // The query's words a result holds in another form: one or two edits away, or run together (PagedAttention).
  function record(result, current) {
    var matched = Object.keys(result.matchData.metadata);
    var found = current.fuzzy.filter(function (pair) {
      return matched.some(function (term) { return pair[1].has(term); });
    }).map(function (pair) { return pair[0]; });
    current.compounds.forEach(function (pair) {
      if (matched.some(function (term) { return term.indexOf(pair[0]) === 0; })) found.push.apply(found, pair[1]);
    });
    if (found.length) current.found.set(result.ref, found);
  }

  // A field as its words run together, with where each word starts.
  function joined(markup) {
    var text = String(markup || "").replace(/<[^>]*>/g, " ").replace(/\u200b/g, "")
      .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&amp;/g, "&");
    var all = "", starts = new Set();
    words(text).forEach(function (word) { starts.add(all.length); all += word; });
    return { all: all, starts: starts };
  }

  function phrases(doc) {
    var shown = cache.get(doc.location);
    if (!shown) {
      shown = { title: joined(doc.title), text: joined(doc.text) };
      cache.set(doc.location, shown);
    }
    return shown;
  }

  function holds(field, phrase) {
    for (var at = field.all.indexOf(phrase); at !== -1; at = field.all.indexOf(phrase, at + 1)) {
      if (field.starts.has(at) || !/[a-z0-9]/.test(field.all.charAt(at - 1))) return true;
    }
    return false;
  }

  function reorder(result, current) {
    var groups = (result.items || []).map(function (group, place) {
      var tier = 0;
      group.forEach(function (item) {
        tier = Math.max(tier, current.tiers.get(item.location) || 0);
        // A word found in another form is not shown as missing.
        (current.found.get(item.location) || []).forEach(function (word) {
          if (item.terms && item.terms[word] === false) item.terms[word] = true;
        });
      });
      return { group: group, tier: tier, place: place };
    });
    groups.sort(function (a, b) { return b.tier - a.tier || a.place - b.place; });
    result.items = groups.map(function (entry) { return entry.group; });
  }
})();
