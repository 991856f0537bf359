/* corpus-build: sort and filter the "All sources" table (table.cb-sources).
 *
 * Our own few lines, served from the site: no library, no request elsewhere.
 * Without JavaScript the page is the plain table, sorted by title; the filter
 * controls stay hidden. Filters are read from and written to the address
 * (sources/?kind=paper&tag=ascend), so links from the home and tags pages open a
 * filtered view. Row facts come from data-* attributes written at build time.
 */
(function () {
  "use strict";

  function init() {
    var table = document.querySelector("table.cb-sources");
    var panel = document.querySelector(".cb-filters");
    if (!table || !panel || table.getAttribute("data-cb-ready")) return;
    table.setAttribute("data-cb-ready", "1");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var controls = Array.prototype.slice.call(panel.querySelectorAll("[data-key]"));
    var count = panel.querySelector(".cb-filter-count");
    var params = new URLSearchParams(window.location.search);

    controls.forEach(function (control) {
      var wanted = params.get(control.getAttribute("data-key"));
      if (wanted === null) return;
      control.value = wanted;
      if (control.value !== wanted) control.value = ""; // an unknown choice shows everything
    });

    function listed(row, key) {
      var value = row.getAttribute("data-" + key) || "";
      return key === "tag" ? value.split("|") : key === "chapter" ? value.split(" ") : [value];
    }

    function fold(text) {
      return (text || "").toLowerCase().normalize("NFKC");
    }

    function apply() {
      var shown = 0;
      var query = new URLSearchParams();
      var words = [];
      controls.forEach(function (control) {
        var key = control.getAttribute("data-key");
        if (control.value) query.set(key, control.value);
        if (key === "text") words = fold(control.value).split(/\s+/).filter(Boolean);
      });
      rows.forEach(function (row) {
        var keep = controls.every(function (control) {
          var key = control.getAttribute("data-key");
          if (!control.value || key === "text") return true;
          return listed(row, key).indexOf(control.value) !== -1;
        });
        if (keep && words.length) {
          var haystack = fold(row.textContent + " " + row.getAttribute("data-tag") + " " + row.cells[0].querySelector("a").getAttribute("href"));
          keep = words.every(function (word) { return haystack.indexOf(word) !== -1; });
        }
        row.hidden = !keep;
        if (keep) shown += 1;
      });
      if (count) {
        count.textContent = count.getAttribute("data-template").replace("{shown}", shown).replace("{total}", rows.length);
      }
      var search = query.toString();
      window.history.replaceState(null, "", window.location.pathname + (search ? "?" + search : "") + window.location.hash);
    }

    function sortBy(column, header) {
      var ascending = header.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      function key(row) {
        var cell = row.cells[column];
        return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : fold(cell.textContent.trim());
      }
      // The root collation: Latin titles before Chinese ones, as the build sorts them; numbers by value (V2 before V10).
      var collator = new Intl.Collator("und", { numeric: true, sensitivity: "base" });
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (!x !== !y) return x ? -1 : 1; // empty cells last, either way
        return ascending ? collator.compare(x, y) : collator.compare(y, x);
      });
      rows.forEach(function (row) { body.appendChild(row); });
    }

    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "cb-sort";
      button.textContent = header.textContent;
      button.title = panel.getAttribute("data-sort-hint") || "";
      header.textContent = "";
      header.appendChild(button);
      button.addEventListener("click", function () { sortBy(column, header); });
    });
    controls.forEach(function (control) {
      control.addEventListener(control.tagName === "SELECT" ? "change" : "input", apply);
    });
    var reset = panel.querySelector(".cb-filter-reset");
    if (reset) {
      reset.addEventListener("click", function () {
        controls.forEach(function (control) { control.value = ""; });
        apply();
      });
    }
    panel.hidden = false;
    apply();
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
