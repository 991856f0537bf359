/* corpus-build: the site's search, in the search worker (issues 24, 37, 38).
 *
 * corpus-search.js loads this when the reader opens search and answers each of Material's
 * queries with `cbFulltext.answer(query, {items: []})`: the site's own entries (a source's
 * title, annotation, identifiers and metadata; the headings of chapters, digests and other
 * pages: site/search.py) and the mirrors' passages, in Material's result form. The index is
 * site/fulltext.py's: a manifest (search/fulltext/index.js), term shards sorted by term (the
 * entries' terms start with "!"), passage files (listed by directory files in a large index)
 * and the Chinese folding tables, each a script that hands its JSON to `self.cbFulltext` (over
 * http the worker fetches the files side by side and reads the JSON; from file:// it runs
 * them with importScripts, which fetch cannot replace there). Search is ready once the
 * manifest is in; a query then loads only the shards holding its terms, and the passage files
 * of the results it shows. The manifest also carries the field's terms in both languages
 * (site/crossterms.py), with which a query also searches its other-language spellings.
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
  // One tokenizer with site/fulltext.py and site/hanfold.py (tests/test_tokenizer_cases.py runs both on
  // one table of hard cases): Chinese is hanfold.HAN's ranges, astral extensions included; a word is
  // letters, digits and Chinese characters (of folded text, which has no marks), inner underscores kept.
  var HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{323af}";
  var HAN_RUN = new RegExp("^[" + HAN + "]+$", "u");
  var HAN_ANY = new RegExp("[" + HAN + "]", "u");
  var PIECES = new RegExp("[" + HAN + "]+|[^" + HAN + "]+", "gu");
  var CHAR = "[\\p{L}\\p{N}" + HAN + "]";
  var WORDS = new RegExp(CHAR + "+(?:_+" + CHAR + "+)*", "gu");
  var MARK = /\p{M}/u;
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
  // The site's own entries (site/search.py: sources, headings of hand-written pages): their terms
  // start with ENTRY, their numbers are below manifest.entries (site/fulltext.py).
  var ENTRY = "!";
  var ENTRIES_LOADED = 40; // entries a query ranks by tier (their files loaded)
  var ENTRY_GROUPS = 40; // result groups of entries shown
  var FUZZY_MIN = 5; // letters: shorter words find too many neighbours
  var FUZZY_TWO = 8; // letters from which two edits are allowed
  var FUZZY_WEIGHT = 0.2; // a neighbour counts a fifth of the word as typed, per edit away
  var COMPOUND_WEIGHT = 1;
  var THREAD_WEIGHT = 10;
  var THREADS = /(?:\b(?:pr|pull|issues?)\s*[#\/]?\s*|#)(\d+)\b/gi;
  var THREAD_WORDS = { pr: true, pull: true, issue: true, issues: true };
  var CROSS_WEIGHT = 0.3; // a term found in the other language's spelling (site/crossterms.py)

  var base = null;
  var manifest = null;
  var shards = {}; // file -> Map(term -> [df, code])
  var chunks = {}; // file -> passages
  var dirs = {}; // directory file -> {starts, chunks}: where the passage files are, in a large index
  var fold = null; // {chars: Map, pattern: RegExp|null, phrases: {}}
  var cross = null; // the field's terms in both languages: see terms()
  var failed = false;

  var api = {
    // fetched: files already requested (corpus-search.js asks for the manifest before loading this
    // script), {name: promise of the file's text}; read as fetchAll reads its own.
    init: function (workerUrl, fetched) {
      base = new URL("../../../search/fulltext/", workerUrl).href;
      Object.keys(fetched || {}).forEach(function (name) { inflight[name] = fetched[name].then(run); });
    },
    manifest: function (data) { manifest = data; cross = terms(data.terms); },
    // A shard says which it is by its first term, a passage file by its first passage.
    shard: function (rows) {
      var map = new Map();
      rows.forEach(function (r) { map.set(r[0], [r[1], r[2]]); });
      if (manifest && rows.length) shards[manifest.shards[shardOf(rows[0][0])]] = map;
    },
    chunk: function (data) { var name = manifest ? chunkName(data.start) : null; if (name) chunks[name] = data; },
    directory: function (data) { if (manifest && manifest.dirs) dirs[manifest.dirs[dirOf(data.start)]] = data; },
    fold: function (data) {
      var chars = new Map(), list = Array.from(data.chars); // by code point: a character may be astral
      for (var i = 0; i + 1 < list.length; i += 2) chars.set(list[i], list[i + 1]);
      fold = { chars: chars, pattern: data.pattern ? new RegExp(data.pattern, "g") : null, phrases: data.phrases || {} };
    },
    answer: answer,
    // The search box opened: the manifest, which every query needs (search is ready then), and the
    // folding tables, which a Chinese query needs, fetched meanwhile.
    open: function () { return then(ready(false), function () { ready(true); }); },
    // The terms site/fulltext.py indexes for a text, and those a query looks up, clause by clause
    // (tests/test_tokenizer_cases.py compares them with Python's).
    indexTerms: indexTerms,
    queryTerms: function (text) {
      return parse(text + " ").clauses.map(function (alts) {
        return alts.filter(function (alt) { return !alt.cross; }).map(function (alt) { return alt.terms; });
      });
    }
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
  var CALL = /^self\.cbFulltext&&self\.cbFulltext\.(manifest|shard|chunk|fold|directory)\(/;

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

  // As hanfold.py's Fold.text, steps 1 and 2 (NFKC, lower case, marks dropped, Traditional → Simplified).
  function foldChars(text) {
    var out = "";
    for (var c of text.normalize("NFKC").toLowerCase()) { // by code point
      if (!MARK.test(c)) out += simplified(c);
    }
    return out;
  }

  // hanfold.py's Fold.text exactly: steps 1 and 2, and step 3 where step 2 changed a character.
  function indexFold(text) {
    var normal = "", folded = "";
    for (var c of text.normalize("NFKC").toLowerCase()) {
      if (MARK.test(c)) continue;
      normal += c;
      folded += simplified(c);
    }
    return folded !== normal ? foldPhrases(folded) : folded;
  }

  // fulltext.py's terms(Fold.text(text)).
  function indexTerms(text) {
    var out = [];
    pieces(indexFold(text)).forEach(function (word) {
      if (HAN_RUN.test(word)) out.push.apply(out, pairs(word));
      else out.push(stem(word));
    });
    return out;
  }

  function foldPhrases(text) {
    if (!fold || !fold.pattern) return text;
    return text.replace(fold.pattern, function (m) { return fold.phrases[m] || m; });
  }

  function stem(word) {
    if (word[word.length - 1] !== "s" || /(ss|us|is)$/.test(word) || /[0-9]/.test(word[word.length - 2])) return word;
    return Array.from(word).length > 3 ? word.slice(0, -1) : word; // length in code points, as Python's len
  }

  function pieces(text) {
    var out = [];
    (text.match(WORDS) || []).forEach(function (w) { out.push.apply(out, w.match(PIECES)); });
    return out;
  }

  function pairs(run) {
    var chars = Array.from(run); // by code point: Extension B and later are astral
    if (chars.length === 1) return [run];
    var out = [];
    for (var i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
    return out;
  }

  function length(text) { return Array.from(text).length; }

  // Clauses: each is a list of alternatives, each alternative the terms it needs and a weight.
  // `clauses` search the mirrors' passages; `own` the site's entries (their terms start with
  // ENTRY), where every Latin word may be unfinished (as Material's lunr adds a wildcard to
  // each), a number after PR, issue or # also looks up that thread (pr2900: site/search.py's
  // keys), two adjacent words also look up their compound (paged attention: PagedAttention),
  // and a long word also its neighbours one or two edits away (added once its shard is in: fuzzy).
  function parse(query) {
    var folded = foldChars(query);
    var words = pieces(folded);
    var open = !/\s$/.test(query); // the last word may be unfinished
    var threads = [], match;
    THREADS.lastIndex = 0;
    while ((match = THREADS.exec(query)) !== null) threads.push(String(parseInt(match[1], 10)));
    var clauses = [], needles = [], own = [], shown = [], latin = [], runs = [];
    words.forEach(function (word, i) {
      var last = open && i === words.length - 1;
      if (HAN_RUN.test(word)) {
        var other = foldPhrases(word);
        var alts = [{ terms: pairs(word), weight: 1, prefix: length(word) === 1 }];
        if (other !== word) alts.push({ terms: pairs(other), weight: 1, prefix: length(other) === 1 });
        clauses.push(alts);
        own.push(alts.map(function (alt) { return { terms: alt.terms.map(function (t) { return ENTRY + t; }), weight: 1, prefix: alt.prefix }; }));
        shown.push(word);
        needles.push(word, other);
        variants(other).forEach(function (v) { needles.push(v); });
        latin.push(null);
        runs.push(other !== word && cover(other) > cover(word) ? other : word);
        return;
      }
      if (threads.length && THREAD_WORDS[word]) return; // the PR of "PR 2900" names no word
      var term = stem(word);
      clauses.push([{ terms: [term], weight: 1, prefix: last && word.length >= 2 }]);
      var mine = [{ terms: [ENTRY + term], weight: 1, prefix: word.length >= 2 }];
      if (/^\d+$/.test(word) && threads.indexOf(String(parseInt(word, 10))) !== -1) {
        ["pr", "issue"].forEach(function (kind) { mine.push({ terms: [ENTRY + kind + parseInt(word, 10)], weight: THREAD_WEIGHT }); });
      }
      own.push(mine);
      shown.push(word);
      needles.push(word, term);
      latin.push(word);
      runs.push(null);
    });
    crossLatin(latin, clauses, own, needles);
    crossHan(runs, clauses, own, needles);
    latin.forEach(function (word, i) {
      var next = latin[i + 1];
      if (!word || !next) return;
      var compound = { terms: [ENTRY + word + next], weight: COMPOUND_WEIGHT, prefix: true };
      own[i].push(compound);
      own[i + 1].push(compound);
    });
    // For the tiers: the query's words run together, and its longest run of adjacent Latin words.
    var tokens = joinedWords(query);
    var phrase = [], run = [];
    tokens.concat([""]).forEach(function (token) {
      if (token && !HAN_ANY.test(token)) { run.push(token); return; }
      if (run.length > phrase.length) phrase = run;
      run = [];
    });
    return {
      clauses: clauses, own: own, latin: latin, needles: needles.filter(Boolean), shown: shown, threads: threads,
      whole: tokens.join(""), phrase: phrase.length >= 2 ? phrase.join("") : ""
    };
  }

  // --- the field's terms in both languages (site/crossterms.py) ----------------------------

  // The manifest's table (groups of folded spellings) as lookups: an English spelling by the key of
  // its first word (lookupKey: a plural's leftovers taken back), a Chinese one by itself. A spelling
  // may be in several groups (kernel: 算子 and 内核); each finds all of them.
  function terms(table) {
    var out = { latin: new Map(), han: new Map(), longest: 0, groups: [] };
    (table || []).forEach(function (forms, g) {
      var group = { han: [], latin: [] };
      forms.forEach(function (form) {
        var tokens = pieces(String(form));
        if (tokens.length === 1 && HAN_RUN.test(tokens[0])) {
          if (length(tokens[0]) < 2) return;
          group.han.push(tokens[0]);
          if (!out.han.has(tokens[0])) out.han.set(tokens[0], []);
          out.han.get(tokens[0]).push(g);
          out.longest = Math.max(out.longest, tokens[0].length);
        } else if (tokens.length && !tokens.some(function (t) { return HAN_ANY.test(t); })) {
          var spelling = { words: tokens.map(stem), keys: tokens.map(lookupKey), group: g };
          group.latin.push(spelling);
          if (!out.latin.has(spelling.keys[0])) out.latin.set(spelling.keys[0], []);
          out.latin.get(spelling.keys[0]).push(spelling);
        }
      });
      out.groups.push(group);
    });
    return out;
  }

  // A word's key for the table: its stem as the index keeps it, with what the stem leaves of a
  // plural taken back (branches → branche → branch, libraries → librarie → library), so the
  // table's singular meets a query's plural.
  function lookupKey(word) {
    var s = stem(word);
    if (/(?:ch|sh|[sxz])e$/.test(s) && s.length > 4) return s.slice(0, -1);
    if (/[^aeiou]ie$/.test(s) && s.length > 4) return s.slice(0, -2) + "y";
    return s;
  }

  // The index's forms of a table word: its stem and its plural's (branch: branch, branche).
  function wordForms(word) {
    var out = [word];
    if (/(?:ch|sh|[sxz])$/.test(word)) out.push(word + "e");
    else if (/[^aeiou]y$/.test(word)) out.push(word.slice(0, -1) + "ie");
    return out.length === 1 ? word : out;
  }

  // A spelling as the terms an alternative needs: each English word (in any of its forms), or each
  // character pair of a Chinese spelling.
  function spellingTerms(spelling) {
    return typeof spelling === "string" ? pairs(spelling) : spelling.words.map(wordForms);
  }

  // The best cover of a Chinese run by the table's terms: the most characters covered, then the
  // fewest terms (longer ones), found by dynamic programming over the run's positions (a greedy
  // longest-first match would cut 合并访存占用率 as 合并, 访存占...). [{start, end, groups}].
  function matchHan(run) {
    var out = [];
    if (!cross || !cross.longest) return out;
    var n = run.length, best = [{ covered: 0, count: 0 }];
    function better(a, b) { return !b || a.covered > b.covered || a.covered === b.covered && a.count < b.count; }
    for (var i = 0; i < n; i++) {
      var here = best[i];
      if (!here) continue;
      var skip = { covered: here.covered, count: here.count, from: i, hit: null };
      if (better(skip, best[i + 1])) best[i + 1] = skip;
      for (var j = i + 2; j <= Math.min(n, i + cross.longest); j++) {
        var groups = cross.han.get(run.slice(i, j));
        if (!groups) continue;
        var take = { covered: here.covered + j - i, count: here.count + 1, from: i, hit: { start: i, end: j, groups: groups } };
        if (better(take, best[j])) best[j] = take;
      }
    }
    for (var at = n; at > 0; at = best[at].from) if (best[at].hit) out.unshift(best[at].hit);
    return out;
  }

  function cover(run) { return matchHan(run).reduce(function (n, hit) { return n + hit.end - hit.start; }, 0); }

  function entryTerm(term) {
    if (typeof term === "string") return ENTRY + term;
    if (Array.isArray(term)) return term.map(entryTerm);
    return { options: term.options.map(function (option) { return option.map(entryTerm); }) };
  }

  function forBoth(clauses, own, i, alt) {
    alt.cross = true;
    clauses[i].push(alt);
    own[i].push({ terms: alt.terms.map(entryTerm), optional: (alt.optional || []).map(entryTerm), weight: alt.weight, prefix: alt.prefix, cross: true });
  }

  // English words of the table (the longest spelling at each place) also search the other spellings
  // of every group that has it: the Chinese ones (as character pairs) and the other English ones.
  function crossLatin(latin, clauses, own, needles) {
    if (!cross) return;
    for (var i = 0; i < latin.length;) {
      var found = [], size = 0;
      (latin[i] ? cross.latin.get(lookupKey(latin[i])) || [] : []).forEach(function (candidate) {
        for (var k = 0; k < candidate.keys.length; k++) {
          if (!latin[i + k] || lookupKey(latin[i + k]) !== candidate.keys[k]) return;
        }
        if (candidate.keys.length > size) { found = []; size = candidate.keys.length; }
        if (candidate.keys.length === size) found.push(candidate);
      });
      if (!found.length) { i++; continue; }
      var alts = [], seen = {}, mine = found[0].keys.join(" ");
      found.forEach(function (candidate) {
        var group = cross.groups[candidate.group];
        group.han.concat(group.latin).forEach(function (spelling) {
          var name = typeof spelling === "string" ? spelling : spelling.keys.join(" ");
          if (name === mine || seen[name]) return;
          seen[name] = true;
          alts.push({ terms: spellingTerms(spelling), weight: CROSS_WEIGHT });
          needles.push(typeof spelling === "string" ? spelling : spelling.words.join(" "));
        });
      });
      for (var k = 0; k < size; k++) alts.forEach(function (alt) { forBoth(clauses, own, i + k, alt); });
      i += size;
    }
  }

  // A Chinese run with terms of the table is also searched term by term: each term in any of its
  // groups' spellings (its own, English, Taiwanese) is needed, the rest of the run counts where
  // present but is not needed (原生稀疏注意力: native, sparse attention; 合并访存占用率: coalescing
  // and occupancy, in either language, anywhere in the text). Weighed by the share of the run the
  // table's terms cover: a run half of whose characters no term explains is half an answer.
  function crossHan(runs, clauses, own, needles) {
    runs.forEach(function (run, i) {
      if (!run) return;
      var found = matchHan(run);
      if (!found.length) return;
      var slots = [], optional = [], at = 0, covered = 0;
      var rest = function (piece) { if (piece.length >= 2) optional.push.apply(optional, pairs(piece)); };
      found.forEach(function (hit) {
        rest(run.slice(at, hit.start));
        var form = run.slice(hit.start, hit.end), options = [pairs(form)], seen = {};
        seen[form] = true;
        hit.groups.forEach(function (g) {
          var group = cross.groups[g];
          group.han.concat(group.latin).forEach(function (spelling) {
            var name = typeof spelling === "string" ? spelling : spelling.keys.join(" ");
            if (seen[name]) return;
            seen[name] = true;
            options.push(spellingTerms(spelling));
            needles.push(typeof spelling === "string" ? spelling : spelling.words.join(" "));
          });
        });
        slots.push({ options: options });
        covered += hit.end - hit.start;
        at = hit.end;
      });
      rest(run.slice(at));
      forBoth(clauses, own, i, { terms: slots, optional: optional, weight: CROSS_WEIGHT * covered / run.length });
    });
  }

  // Words as the tiers compare them: lower case, cut at anything not a letter, digit or mark,
  // Chinese apart from Latin letters beside it.
  function joinedWords(text) {
    var out = [];
    (String(text).toLowerCase().match(WORDS) || []).forEach(function (w) {
      w.split("_").forEach(function (part) { if (part) out.push.apply(out, part.match(PIECES)); });
    });
    return out;
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
  // The name of the passage file holding passage `pid` (null while its directory is not loaded).
  function chunkName(pid) {
    if (!manifest.dirs) return manifest.chunks[chunkOf(pid, manifest.starts)];
    var dir = dirs[manifest.dirs[dirOf(pid)]];
    return dir ? dir.chunks[chunkOf(pid, dir.starts)] : null;
  }

  function dirOf(pid) { return chunkOf(pid, manifest.dirStarts); }

  // The directory files the passages `pids` need (none when the manifest holds the list itself).
  function dirsFor(pids) {
    if (!manifest.dirs) return [];
    var names = [];
    pids.forEach(function (pid) {
      var name = manifest.dirs[dirOf(pid)];
      if (!dirs[name] && names.indexOf(name) === -1) names.push(name);
    });
    return names;
  }

  // The last of `starts` (sorted) that is not after `pid`.
  function chunkOf(pid, starts) {
    var lo = 0, hi = (starts || []).length - 1;
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

  function flatTerms(term, into) {
    if (typeof term === "string") into.push(term);
    else if (Array.isArray(term)) term.forEach(function (one) { flatTerms(one, into); });
    else term.options.forEach(function (option) { flatTerms(option, into); });
  }

  function shardsFor(plan) {
    var names = [];
    plan.clauses.concat(plan.own || []).forEach(function (alts) {
      alts.forEach(function (alt) {
        var all = [];
        alt.terms.concat(alt.optional || []).forEach(function (term) { flatTerms(term, all); });
        all.forEach(function (term) {
          var from = shardOf(term), to = alt.prefix ? shardOf(term + "\uffff") : from;
          for (var i = from; i <= to && i < manifest.shards.length; i++) names.push(manifest.shards[i]);
        });
      });
    });
    (plan.latin || []).forEach(function (word) { // where a word one or two edits away may be
      if (!word || word.length < FUZZY_MIN) return;
      var at = shardOf(ENTRY + word);
      [at - 1, at, at + 1].forEach(function (i) { if (i >= 0 && i < manifest.shards.length) names.push(manifest.shards[i]); });
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

  function idf(df, total) {
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
      var total = term.charAt(0) === ENTRY ? manifest.entryCount || 0 : manifest.passages;
      var df = pair[0][0], flat = postings(pair[0][1]), w = idf(df, total) * pair[1] * alt.weight * unit;
      if (df <= manifest.maxPostings) cut = false;
      for (var i = 0; i < flat.length; i += 2) scores.set(flat[i], Math.max(scores.get(flat[i]) || 0, flat[i + 1] * w));
    });
    return { scores: scores, cut: cut, found: lists.length > 0 };
  }

  // pid -> score of one alternative: the passages holding enough of its terms (see `combine`). A
  // term so common that the index kept only its best passages (cut) counts where present.
  function scoreAlternative(alt) {
    var parts = alt.terms.map(function (term) { return partScores(term, alt); });
    if (!parts.length || parts.length < 3 && parts.some(function (part) { return !part.found; })) return { scores: new Map(), optional: false };
    var hard = parts.filter(function (part) { return !part.cut; });
    var soft = parts.filter(function (part) { return part.cut; });
    (alt.optional || []).forEach(function (term) {
      var extra = termScores(term, alt);
      if (extra.found) soft.push(extra);
    });
    return { scores: combine(hard, soft), optional: !hard.length };
  }

  // A term of an alternative: a word; one of several words (["branch", "branche"]); or a term of the
  // table in any of its spellings ({options: [[words or pairs of one spelling], ...]}), each spelling
  // needing its own words. Each passage's best.
  function partScores(term, alt) {
    if (typeof term === "string") return termScores(term, alt);
    if (Array.isArray(term)) return bestPart(term.map(function (one) { return termScores(one, alt); }));
    return bestPart(term.options.map(function (option) {
      var got = scoreAlternative({ terms: option, weight: alt.weight });
      return { scores: got.scores, cut: got.optional, found: got.scores.size > 0 };
    }));
  }

  function bestPart(list) {
    var out = { scores: new Map(), cut: true, found: false };
    list.forEach(function (got) {
      if (!got.found) return;
      out.found = true;
      if (!got.cut) out.cut = false;
      got.scores.forEach(function (s, pid) { out.scores.set(pid, Math.max(out.scores.get(pid) || 0, s)); });
    });
    if (!out.found) out.cut = false;
    return out;
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
      var optional = true;
      var best = bestOf(alts, function (got) { if (!got.optional) optional = false; });
      (optional ? soft : hard).push({ scores: best });
    });
    var ranked = [];
    combine(hard, soft).forEach(function (s, pid) { ranked.push([pid, s]); });
    ranked.sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; });
    return ranked;
  }

  // pid -> score of a clause: its best alternative in the query's language, plus its best in the
  // other (site/crossterms.py): a text that holds the term in both languages is the likelier answer.
  function bestOf(alts, each) {
    var native = new Map(), other = new Map();
    alts.forEach(function (alt) {
      var got = scoreAlternative(alt), into = alt.cross ? other : native;
      if (each) each(got);
      got.scores.forEach(function (s, pid) { into.set(pid, Math.max(into.get(pid) || 0, s)); });
    });
    other.forEach(function (s, pid) { native.set(pid, (native.get(pid) || 0) + s); });
    return native;
  }

  // --- the site's own entries ------------------------------------------------------------

  // Neighbours of the query's long Latin words, one or two edits away, among the entries' terms
  // of the shards loaded for them: added to the word's clause at a low weight.
  function fuzzy(plan) {
    plan.latin.forEach(function (word, i) {
      if (!word || word.length < FUZZY_MIN || !/[a-z]/.test(word)) return;
      var reach = word.length >= FUZZY_TWO ? 2 : 1, seen = {};
      var at = shardOf(ENTRY + word);
      [at - 1, at, at + 1].forEach(function (k) {
        var map = k >= 0 && k < manifest.shards.length ? shards[manifest.shards[k]] : null;
        if (!map) return;
        map.forEach(function (value, term) {
          if (term.charAt(0) !== ENTRY || seen[term]) return;
          var bare = term.slice(1), mine = stem(word); // the index holds stems: puzzels is puzzel, one swap from puzzle
          if (bare === word || bare === mine || Math.abs(bare.length - mine.length) > reach) return;
          var edits = distance(mine, bare, reach);
          if (edits > 0 && edits <= reach) {
            seen[term] = true;
            plan.own[i].push({ terms: [term], weight: FUZZY_WEIGHT / edits, fuzzy: true });
          }
        });
      });
    });
  }

  // Edits from a to b (insert, delete, replace, swap two neighbours), or more than `most`.
  function distance(a, b, most) {
    var rows = [], i, j;
    for (i = 0; i <= a.length; i++) { rows.push([i]); }
    for (j = 1; j <= b.length; j++) rows[0][j] = j;
    for (i = 1; i <= a.length; i++) {
      var low = Infinity;
      for (j = 1; j <= b.length; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2][j - 2] + 1);
        rows[i][j] = d;
        if (d < low) low = d;
      }
      if (low > most) return most + 1;
    }
    return rows[a.length][b.length];
  }

  // How fully an entry answers a query of n clauses (words, Chinese runs) when it matches `got` of
  // them, in any language: 2 all; 1 all but a few of a long query (three in four of four or more, as
  // the passages' `combine`: a filler word such as 写的 need not be there); 0 fewer. Entries of
  // level 1 and 2 come before the mirrors' passages, each level by tier and score.
  function level(got, n) {
    if (got === n) return 2;
    return n >= 4 && got >= Math.ceil(n * 0.75) ? 1 : 0;
  }

  // The entries that match, best first: {pid, score, hits (the clauses they match)}. An entry
  // matching only some of the query's words is kept (shown after the mirrors, words missing).
  function rankEntries(plan) {
    var sums = new Map(), hits = new Map(), n = plan.own.length;
    plan.own.forEach(function (alts, c) {
      var best = bestOf(alts);
      best.forEach(function (s, pid) {
        sums.set(pid, (sums.get(pid) || 0) + s);
        (hits.get(pid) || hits.set(pid, []).get(pid)).push(c);
      });
    });
    var out = [];
    sums.forEach(function (s, pid) {
      var got = hits.get(pid);
      out.push({ pid: pid, score: s * got.length / n, hits: got, level: level(got.length, n) });
    });
    out.sort(function (a, b) { return (b.level - a.level) || b.score - a.score || a.pid - b.pid; });
    return out;
  }

  // Tier 4: the PR or issue the query names by number. Tier 3: the page (not a heading in one)
  // the query names: its whole title (deepgemm ascend for DeepGEMM-Ascend) or its repository's
  // one-word name (a `keys` word). Tier 2: a title that holds the query's Latin words as a phrase
  // (adjacent, in order; paged attention is also PagedAttention). Tier 1: a text that does.
  // Pages weighed down (site/search.py: digests, chapters, listings) keep their place by score.
  function tierOf(p, plan) {
    if (!(p.boost >= 1)) return 0;
    var keys = joinedWords(p.keys || "");
    if (plan.threads.some(function (n) { return keys.indexOf("pr" + n) !== -1 || keys.indexOf("issue" + n) !== -1; })) return 4;
    if (!plan.whole) return 0;
    var title = joined(p.title);
    var named = title.all === plan.whole || (/^[a-z0-9.]+$/.test(plan.whole) && keys.indexOf(plan.whole) !== -1);
    if (named && !p.anchor) return 3;
    if (plan.phrase && holds(title, plan.phrase)) return 2;
    if (plan.phrase && holds(joined(p.text), plan.phrase)) return 1;
    return 0;
  }

  function joined(text) {
    var all = "", starts = new Set();
    joinedWords(text).forEach(function (word) { starts.add(all.length); all += word; });
    return { all: all, starts: starts };
  }

  function holds(field, phrase) {
    for (var at = field.all.indexOf(phrase); at !== -1; at = field.all.indexOf(phrase, at + 1)) {
      if (field.starts.has(at) || !/[a-z0-9]/.test(field.all.charAt(at - 1))) return true;
    }
    return false;
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
      if (!manifest || !(manifest.passages || manifest.entryCount)) return result;
      var plan = parse(query);
      if (!plan.clauses.length && !plan.own.length) return result;
      var needed = shardsFor(plan).filter(function (name) { return !shards[name]; });
      return then(load(needed), function () {
        fuzzy(plan);
        var ranked = manifest.passages && plan.clauses.length ? rank(plan).slice(0, LOADED) : [];
        var own = manifest.entryCount ? rankEntries(plan).slice(0, ENTRIES_LOADED) : [];
        var pids = own.map(function (e) { return e.pid; }).concat(ranked.map(function (pair) { return pair[0]; }));
        return then(load(dirsFor(pids)), function () {
          // The files of the best entries and passages, a page's passages sharing one.
          var files = [];
          function need(pid, most) {
            var name = chunkName(pid);
            if (name && files.indexOf(name) === -1 && files.length < most) files.push(name);
          }
          own.forEach(function (e) { need(e.pid, FILES + 4); });
          var mine = files.length;
          ranked.forEach(function (pair) { need(pair[0], mine + FILES); });
          files = files.filter(function (name) { return !chunks[name]; });
          return then(load(files), function () { return merge(result, ranked, own, plan); });
        });
      });
    });
  }

  // A passage file holds runs of passages, [url, page title, first number, [[anchor, title, text], ...]]
  // (an entry's row also has its keys and weight: fulltext.py). Numbers between runs are unused:
  // a page's room to grow, fulltext.py's Layout.
  function passage(pid) {
    var name = chunkName(pid), data = name ? chunks[name] : null;
    if (!data) return null;
    for (var i = 0; i < data.pages.length; i++) {
      var run = data.pages[i], row = run[3][pid - run[2]];
      if (pid >= run[2] && row) return { url: run[0], pageTitle: run[1], anchor: row[0], title: row[1], text: row[2], keys: row[3] || "", boost: row.length > 4 ? row[4] : 1 };
    }
    return null;
  }

  // The answer, in Material's form: groups of items, a page and its sections. The site's own
  // entries that hold every word of the query come first (by tier, then score), then the
  // mirrors' passages grouped by page, then entries that miss a word.
  function merge(result, ranked, own, plan) {
    var entryGroups = new Map(), listed = [];
    own.forEach(function (e) {
      var p = passage(e.pid);
      if (!p) return;
      var group = entryGroups.get(p.url);
      if (!group) {
        if (listed.length >= ENTRY_GROUPS) return;
        group = { url: p.url, title: p.pageTitle, members: [], tier: 0, level: 0, score: 0 };
        entryGroups.set(p.url, group);
        listed.push(group);
      }
      group.members.push([p, e]);
      group.tier = Math.max(group.tier, tierOf(p, plan));
      group.level = Math.max(group.level, e.level);
      group.score = Math.max(group.score, e.score);
    });
    // Equal scores in the order of the pages' addresses (numbers come from a hash of them: fulltext.py).
    listed.sort(function (a, b) { return (b.level - a.level) || (b.tier - a.tier) || (b.score - a.score) || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0); });
    var complete = listed.filter(function (g) { return g.level > 0; }).map(function (g) { return entryItems(g, plan); });
    var partial = listed.filter(function (g) { return !g.level; }).map(function (g) { return entryItems(g, plan); });

    var groups = new Map(), order = [];
    ranked.forEach(function (pair) {
      var p = passage(pair[0]);
      if (!p) return;
      var group = groups.get(p.url);
      if (!group) {
        if (order.length >= PAGES) return;
        group = { page: p, items: [] };
        groups.set(p.url, group);
        order.push(group);
      }
      if (group.items.length < PER_PAGE) group.items.push(p);
    });
    var terms = {};
    plan.shown.forEach(function (word) { terms[word] = true; });
    var passages = order.map(function (group) {
      var list = [{ location: group.page.url, title: escape(group.page.pageTitle), text: "", terms: {} }];
      group.items.forEach(function (p, i) {
        list.push({ location: p.url + "#" + p.anchor, title: escape(p.title || group.page.pageTitle), text: snippet(p.text, plan.needles), terms: terms, more: i >= SHOWN });
      });
      return list;
    });
    var items = complete.concat(passages, partial);
    // Material's Enter opens the result of the highest score: the first group's.
    items.forEach(function (list, i) {
      list.forEach(function (item) { item.score = (items.length - i) * (item.more ? 0.5 : 1); delete item.more; });
    });
    var out = {};
    Object.keys(result || {}).forEach(function (key) { out[key] = result[key]; });
    out.items = items;
    return out;
  }

  // An entry group's items: the page first (its own entry, or its title alone), then its headings.
  function entryItems(group, plan) {
    function item(pair) {
      var p = pair[0], e = pair[1], terms = {};
      plan.shown.forEach(function (word, c) { terms[word] = terms[word] || e.hits.indexOf(c) !== -1; });
      return { location: p.url + (p.anchor ? "#" + p.anchor : ""), title: escape(p.title || group.title), text: snippet(p.text, plan.needles), terms: terms };
    }
    var page = group.members.filter(function (pair) { return !pair[0].anchor; })[0];
    var list = [page ? item(page) : { location: group.url, title: escape(group.title), text: "", terms: {} }];
    group.members.forEach(function (pair) { if (pair[0].anchor && list.length <= PER_PAGE) list.push(item(pair)); });
    return list;
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
