// The cite box's copy button (src/corpus_build/render/citation.py): puts one source's BibTeX
// on the clipboard. The button stays hidden until this runs, so without JavaScript the
// reader gets the BibTeX to select by hand, and never a button that does nothing.
(function () {
  "use strict";

  function copyByHand(text) {
    // Where the Clipboard API is missing (an insecure origin, an old browser).
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var copied = false;
    try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
    document.body.removeChild(area);
    return copied;
  }

  function setUp() {
    var buttons = document.querySelectorAll("button[data-cb-copy]");
    Array.prototype.forEach.call(buttons, function (button) {
      if (button.getAttribute("data-cb-ready")) { return; }
      button.setAttribute("data-cb-ready", "1");
      var label = button.textContent;
      button.hidden = false;
      // The button's own label changes for a moment, and the status beside it says it in words
      // (a live region, so a screen reader says it too); a failure is said, never silent.
      var status = button.parentNode && button.parentNode.querySelector(".cb-cite-status");
      var timer = 0;
      function say(text, copied) {
        if (!status) { return; }
        status.textContent = text;
        status.className = "cb-cite-status" + (copied ? " cb-cite-copied" : "");
      }
      button.addEventListener("click", function () {
        var source = document.getElementById(button.getAttribute("data-cb-copy"));
        if (!source) { return; }
        var text = source.textContent;
        var done = function () {
          button.textContent = button.getAttribute("data-cb-done");
          say(button.getAttribute("data-cb-done-long") || button.getAttribute("data-cb-done"), true);
          window.clearTimeout(timer);
          timer = window.setTimeout(function () { button.textContent = label; say("", false); }, 4000);
        };
        var failed = function () {
          // The text is selected for the reader to copy by hand, and the status says how.
          var range = document.createRange();
          range.selectNodeContents(source);
          var selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          window.clearTimeout(timer);
          say(button.getAttribute("data-cb-failed") || "", false);
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { if (copyByHand(text)) { done(); } else { failed(); } });
        } else if (copyByHand(text)) {
          done();
        } else {
          failed();
        }
      });
    });
  }

  // Material's instant navigation swaps pages without a load event: document$ tells us.
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(setUp);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
