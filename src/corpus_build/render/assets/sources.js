/* corpus-build: sort, filter and page the "All sources" table (table.cb-sources).
 *
 * Our own few lines, served from the site: no library, no request elsewhere.
 * Without JavaScript the page is a plain table of the first rows, sorted by
 * title, with links to the next pages (sources/page/2/ …); the filter controls
 * stay hidden. With it, the whole corpus comes from the data file the table
 * names (data-cb-rows: sources-index.js, which sets window.cbSources; a script
 * element, so that it also loads from file://), read the first time the reader
 * uses the controls, and filters, sorting and pages work across every source.
 * Filters, the sort and the page are read from and written to the address
 * (sources/?kind=paper&tag=ascend&sort=-added&page=2: a leading "-" sorts
 * downwards), so links from the home, tags and status pages open a filtered
 * view, a reload keeps what the reader chose, and Back returns to the view
 * before (each choice of a list, a sort or a page is a step in the history;
 * typing in the text box is not). The text filter folds case, full-width forms
 * and Traditional to Simplified characters (the map comes with the data), so
 * 昇騰 finds 昇腾. The range line names the sort shown. Registry text is written
 * with textContent, never as HTML.
 */
(function () {
  "use strict";

  // The controls show at once; the data file (every row of the corpus: 0.6 MB for 5,000
  // sources) is read only when the reader uses them — sorts, filters, pages through the
  // script's pager, points at or tabs into the controls — or arrives with filters in the
  // address (the home, tags and status pages link such views). Reading page 1 costs nothing more.
  function init() {
    var table = document.querySelector("table.cb-sources[data-cb-rows]");
    var panel = document.querySelector(".cb-filters");
    if (!table || !panel || table.getAttribute("data-cb-ready")) return;
    table.setAttribute("data-cb-ready", "1");
    var engine = null;
    var waiting = [];
    var loading = false;

    function withData(action) {
      if (engine) return action(engine);
      waiting.push(action);
      if (loading) return;
      loading = true;
      load(table.getAttribute("data-cb-rows"), function (data) {
        engine = start(table, panel, data);
        table.setAttribute("data-cb-loaded", "1");
        var queued = waiting;
        waiting = [];
        queued.forEach(function (queuedAction) { queuedAction(engine); });
      });
    }
    function nothing() {}

    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (header, column) {
      var sortButton = element("button", header.textContent, "cb-sort");
      sortButton.type = "button";
      sortButton.title = panel.getAttribute("data-sort-hint") || "";
      header.textContent = "";
      header.appendChild(sortButton);
      sortButton.addEventListener("click", function () {
        withData(function (e) { e.sortBy(header, column); });
      });
    });
    var controls = Array.prototype.slice.call(panel.querySelectorAll("[data-key]"));
    controls.forEach(function (control) {
      var choice = control.tagName === "SELECT";
      control.addEventListener(choice ? "change" : "input", function () {
        withData(function (e) { e.filter(choice); }); // a choice is a step in the history; each key typed is not
      });
      if (control.tagName !== "SELECT") return;
      // A choice list opened before the data came would be empty: open it once it is filled.
      control.addEventListener("mousedown", function (event) {
        if (engine) return;
        event.preventDefault();
        withData(function () {
          control.focus();
          if (typeof control.showPicker === "function") {
            try { control.showPicker(); } catch (error) { /* no user activation left: a click opens it */ }
          }
        });
      });
    });
    var reset = panel.querySelector(".cb-filter-reset");
    if (reset) reset.addEventListener("click", function () { withData(function (e) { e.reset(); }); });
    // Intent: the pointer over the controls or the column titles, or the keyboard in them.
    panel.addEventListener("pointerenter", function () { withData(nothing); });
    panel.addEventListener("focusin", function () { withData(nothing); });
    table.tHead.addEventListener("pointerenter", function () { withData(nothing); });
    panel.hidden = false;
    var params = new URLSearchParams(window.location.search);
    var asked = controls.some(function (control) { return params.get(control.getAttribute("data-key")) !== null; });
    if (asked || params.get("page") !== null || params.get("sort") !== null) withData(nothing);
  }

  // The sort's name in the address, per column: each header names its own (data-sort), since a
  // build leaves out the columns nothing would fill (no mirrors, no `added` dates).
  function sortNames(table) {
    return Array.prototype.map.call(table.tHead.rows[0].cells, function (cell) { return cell.getAttribute("data-sort") || ""; });
  }

  function load(src, done) {
    if (window.cbSources) return done(window.cbSources);
    var script = document.createElement("script");
    script.src = src;
    // If the data cannot be read, the page stays as it is without JavaScript.
    script.onload = function () { if (window.cbSources) done(window.cbSources); };
    document.head.appendChild(script);
  }

  var HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/g;

  // Case, full-width forms and, with the data's map, Traditional characters folded to Simplified.
  function folder(map) {
    function simplified(ch) { return map[ch] || ch; }
    return function (text) { return (text || "").toLowerCase().normalize("NFKC").replace(HAN, simplified); };
  }

  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function start(table, panel, data) {
    var strings = JSON.parse(table.getAttribute("data-cb-strings") || "{}");
    var body = table.tBodies[0];
    var size = data.page_size || 100;
    var labels = data.labels || {};
    var sections = data.sections || [];
    var rows = data.rows || [];
    var controls = Array.prototype.slice.call(panel.querySelectorAll("[data-key]"));
    var count = panel.querySelector(".cb-filter-count");
    var sort = { column: 0, ascending: true };
    var page = 1;
    var fold = folder(data.fold || {});
    var SORTS = sortNames(table);

    rows.forEach(function (row, rank) {
      row.rank = rank; // the build sorts by title: a row's place is its title order
      row.kind_label = (labels.kind || {})[row.k] || row.k;
      row.lang_label = (labels.lang || {})[row.l] || row.l;
      row.mirror_label = (labels.mirror || {})[row.m] || row.m;
      row.section = sections[row.s] || ["", "", ""];
    });

    // The choices of each filter come with the data (every tag, section, chapter…).
    (data.filters || []).forEach(function (filter) {
      var select = panel.querySelector("select[data-key='" + filter.key + "']");
      if (!select) return;
      filter.options.forEach(function (option) {
        var node = element("option", option[1]);
        node.value = option[0];
        select.appendChild(node);
      });
    });
    var headers = table.tHead.rows[0].cells;

    // The view the address names: filters, sort, page (on load, and when Back or Forward returns to it).
    // On load, what the reader typed or chose before the data came stays (the address names nothing of it yet).
    function restore(keepChosen) {
      var params = new URLSearchParams(window.location.search);
      controls.forEach(function (control) {
        if (keepChosen && control.value && params.get(control.getAttribute("data-key")) === null) return;
        var wanted = params.get(control.getAttribute("data-key")) || "";
        control.value = wanted;
        if (control.value !== wanted) control.value = ""; // an unknown choice shows everything
      });
      var named = params.get("sort") || "";
      var column = SORTS.indexOf(named.replace(/^-/, ""));
      sort = column === -1 ? { column: 0, ascending: true } : { column: column, ascending: named.charAt(0) !== "-" };
      Array.prototype.forEach.call(headers, function (cell) { cell.removeAttribute("aria-sort"); });
      if (column !== -1) headers[column].setAttribute("aria-sort", sort.ascending ? "ascending" : "descending");
      page = Math.max(1, parseInt(params.get("page"), 10) || 1);
    }
    restore(true);

    function values(row, key) {
      switch (key) {
        case "kind": return [row.k];
        case "section": return [row.section[0]];
        case "lang": return [row.l];
        case "tag": return row.g || [];
        case "chapter": return row.c || [];
        case "verified": return [row.v === 0 ? "no" : "yes"];
        case "mirror": return [row.m];
        default: return [];
      }
    }

    function haystack(row) {
      if (row.text === undefined) {
        var badges = (row.b || []).map(function (b) { return b[0]; }).join(" ");
        row.text = fold([row.t, badges, row.kind_label, row.section[1], row.lang_label, row.mirror_label, row.a || "", (row.g || []).join("|"), row.h].join(" "));
      }
      return row.text;
    }

    function sortKey(row, column) {
      switch (SORTS[column]) {
        case "kind": return fold(row.kind_label);
        case "section": return fold(row.section[1]);
        case "lang": return fold(row.lang_label);
        case "mirror": return fold(row.mirror_label);
        case "added": return row.a || "";
        default: return "";
      }
    }

    function render(row) {
      if (row.node) return row.node;
      var tr = document.createElement("tr");
      tr.dataset.kind = row.k;
      tr.dataset.section = row.section[0];
      tr.dataset.lang = row.l;
      tr.dataset.tag = (row.g || []).join("|");
      tr.dataset.chapter = (row.c || []).join(" ");
      tr.dataset.verified = row.v === 0 ? "no" : "yes";
      tr.dataset.mirror = row.m;
      SORTS.forEach(function (column) {
        if (column === "title") {
          var title = element("td");
          var link = element("a", row.t);
          link.href = row.h;
          title.appendChild(link);
          (row.b || []).forEach(function (badge) {
            title.appendChild(document.createTextNode(" "));
            title.appendChild(element("span", badge[0], "cb-badge cb-" + badge[1]));
          });
          tr.appendChild(title);
        } else if (column === "section") {
          var section = element("td");
          var sectionLink = element("a", row.section[1]);
          sectionLink.href = row.section[2];
          section.appendChild(sectionLink);
          tr.appendChild(section);
        } else {
          tr.appendChild(element("td", { kind: row.kind_label, lang: row.lang_label, mirror: row.mirror_label, added: row.a || "" }[column] || ""));
        }
      });
      row.node = tr;
      return tr;
    }

    // The root collation: Latin titles before Chinese ones, as the build sorts them; numbers by value (V2 before V10).
    var collator = new Intl.Collator("und", { numeric: true, sensitivity: "base" });

    function matching() {
      var words = [];
      var chosen = [];
      controls.forEach(function (control) {
        var key = control.getAttribute("data-key");
        if (!control.value) return;
        if (key === "text") words = fold(control.value).split(/\s+/).filter(Boolean);
        else chosen.push([key, control.value]);
      });
      var found = rows.filter(function (row) {
        var keep = chosen.every(function (pair) { return values(row, pair[0]).indexOf(pair[1]) !== -1; });
        if (keep && words.length) {
          var text = haystack(row);
          keep = words.every(function (word) { return text.indexOf(word) !== -1; });
        }
        return keep;
      });
      if (sort.column === 0) {
        if (!sort.ascending) found.reverse();
      } else {
        found.sort(function (a, b) {
          var x = sortKey(a, sort.column), y = sortKey(b, sort.column);
          if (!x !== !y) return x ? -1 : 1; // empty cells last, either way
          var order = sort.ascending ? collator.compare(x, y) : collator.compare(y, x);
          return order || a.rank - b.rank;
        });
      }
      return found;
    }

    // The pager: the static one (links to the numbered pages) gives way to buttons over the filtered rows.
    var pager = document.querySelector("nav.cb-pager");
    if (!pager) {
      pager = element("nav", "", "cb-pager");
      pager.setAttribute("data-search-exclude", "");
      table.parentNode.insertBefore(pager, table.nextSibling);
    }
    // The range line says which rows of how many this page shows, in which order: the script's view, not the build's.
    var range = document.querySelector(".cb-page-range");

    function button(label, target, current) {
      var node = element("button", label, "cb-page");
      node.type = "button";
      if (current) node.setAttribute("aria-current", "page");
      if (target === null) node.disabled = true;
      else node.addEventListener("click", function () { page = target; apply(true); table.scrollIntoView({ block: "start" }); });
      return node;
    }

    function drawPager(pages) {
      pager.textContent = "";
      pager.hidden = pages <= 1;
      if (pages <= 1) return;
      pager.appendChild(button("‹ " + (strings.prev || "‹"), page > 1 ? page - 1 : null));
      var shown = {};
      [1, pages].concat([page - 2, page - 1, page, page + 1, page + 2]).forEach(function (n) { if (n >= 1 && n <= pages) shown[n] = true; });
      var previous = 0;
      Object.keys(shown).map(Number).sort(function (a, b) { return a - b; }).forEach(function (n) {
        if (n - previous > 1) pager.appendChild(element("span", "…", "cb-pager-off"));
        pager.appendChild(button(String(n), n === page ? null : n, n === page));
        previous = n;
      });
      pager.appendChild(button((strings.next || "›") + " ›", page < pages ? page + 1 : null));
      pager.appendChild(element("span", (strings.page_of || "{page}/{pages}").replace("{page}", page).replace("{pages}", pages), "cb-page-of"));
    }

    function drawRange(first, last, total, pages) {
      if (!range || !strings.range) return;
      if (!total) {
        // Nothing matches: say so, not "0–0 of 0".
        range.hidden = false;
        range.textContent = strings.none || "";
        return;
      }
      range.hidden = pages <= 1;
      var header = headers[sort.column];
      range.textContent = strings.range.replace("{first}", first).replace("{last}", last).replace("{total}", total)
        .replace("{column}", (header.textContent || "").trim())
        .replace("{direction}", (sort.ascending ? strings.ascending : strings.descending) || "");
    }

    // Draw the view; `step`: a new entry in the history (Back returns to the view before), else the address is only updated.
    function apply(step) {
      var found = matching();
      var pages = Math.max(1, Math.ceil(found.length / size));
      page = Math.min(Math.max(1, page), pages);
      var shown = found.slice((page - 1) * size, page * size);
      var fragment = document.createDocumentFragment();
      shown.forEach(function (row) { fragment.appendChild(render(row)); });
      body.textContent = "";
      body.appendChild(fragment);
      drawPager(pages);
      drawRange((page - 1) * size + Math.min(1, shown.length), (page - 1) * size + shown.length, found.length, pages);
      if (count) {
        count.textContent = count.getAttribute("data-template").replace("{shown}", found.length).replace("{total}", rows.length);
      }
      if (step === null) return; // drawn from the address: it stays as it is
      var query = new URLSearchParams();
      controls.forEach(function (control) { if (control.value) query.set(control.getAttribute("data-key"), control.value); });
      if (sort.column !== 0 || !sort.ascending) query.set("sort", (sort.ascending ? "" : "-") + SORTS[sort.column]);
      if (page > 1) query.set("page", String(page));
      var search = query.toString();
      var address = window.location.pathname + (search ? "?" + search : "") + window.location.hash;
      if (address === window.location.pathname + window.location.search + window.location.hash) return;
      if (step) window.history.pushState(null, "", address);
      else window.history.replaceState(null, "", address);
    }

    window.addEventListener("popstate", function () { restore(); apply(null); });
    apply(false);
    return {
      sortBy: function (header, column) {
        var ascending = header.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (cell) { cell.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        sort = { column: column, ascending: ascending };
        page = 1;
        apply(true);
      },
      filter: function (step) { page = 1; apply(step); },
      reset: function () {
        controls.forEach(function (control) { control.value = ""; });
        page = 1;
        apply(true);
      }
    };
  }

  // Material's instant navigation announces each new page on document$; without it, wait for the DOM.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
