/* corpus-build: the offline copy's Web Worker stand-in (loaded only in the zip's pages).
 *
 * Browsers refuse to start a Web Worker from a file:// page, and Material's search runs
 * in one. Opened from file://, this runs the worker script in a hidden same-origin
 * iframe instead and passes messages both ways. `importScripts` loads scripts one
 * after another and returns a promise (Material's search worker awaits it), and
 * `IFrameWorker` on the parent tells that worker where its language scripts live.
 * Served over http(s), it does nothing.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:") return;

  function IFrameWorker(url) {
    var self = this;
    var target = document.createDocumentFragment();
    this.addEventListener = target.addEventListener.bind(target);
    this.removeEventListener = target.removeEventListener.bind(target);
    this.dispatchEvent = target.dispatchEvent.bind(target);
    this.onmessage = null;
    this.onerror = null;
    this._queue = [];
    this._ready = false;
    this._url = new URL(String(url), location.href).href;
    this._frame = document.createElement("iframe");
    this._frame.hidden = true;
    this._frame.setAttribute("aria-hidden", "true");
    (document.body || document.documentElement).appendChild(this._frame);
    var win = this._frame.contentWindow;
    var doc = win.document;
    var base = this._url;

    function load(src) {
      return new Promise(function (resolve, reject) {
        var script = doc.createElement("script");
        script.src = new URL(src, base).href;
        script.onload = function () { resolve(); };
        script.onerror = function () { reject(new Error("cannot load " + script.src)); };
        doc.head.appendChild(script);
      });
    }
    win.importScripts = function () {
      var urls = Array.prototype.slice.call(arguments);
      return urls.reduce(function (done, src) { return done.then(function () { return load(src); }); }, Promise.resolve());
    };
    // The worker answers with postMessage(data): deliver it to the page as a message event.
    win.postMessage = function (data) {
      var event = new MessageEvent("message", { data: data });
      self.dispatchEvent(event);
      if (typeof self.onmessage === "function") self.onmessage(event);
    };
    load(this._url).then(function () {
      self._ready = true;
      self._queue.splice(0).forEach(function (data) { self.postMessage(data); });
    }, function (error) {
      var event = new ErrorEvent("error", { message: String(error) });
      self.dispatchEvent(event);
      if (typeof self.onerror === "function") self.onerror(event);
    });
  }
  IFrameWorker.prototype.postMessage = function (data) {
    if (!this._ready) { this._queue.push(data); return; }
    var win = this._frame.contentWindow;
    win.dispatchEvent(new win.MessageEvent("message", { data: data }));
  };
  IFrameWorker.prototype.terminate = function () {
    this._frame.remove();
  };

  window.IFrameWorker = IFrameWorker;
  window.Worker = IFrameWorker;
  // Material reads <link rel="alternate"> as other language versions and asks for their
  // sitemap.xml, which a file:// page may not request. Here it is only the Atom feed, which
  // a copy on disk has no use for: drop it as soon as it is parsed, before the bundle runs.
  new MutationObserver(function (changes, observer) {
    document.querySelectorAll('link[rel="alternate"]').forEach(function (node) { node.remove(); });
    if (document.body) observer.disconnect();
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
