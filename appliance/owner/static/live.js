// Live refresh for the box page; every page works without this file.
// - img[data-live]: the Status page's screenshot, fetched anew every 2 s.
// - main[data-reload=N]: the page reloads every N seconds (new requests on
//   Access, new operations on Activity) until the owner touches a form.
(function () {
  "use strict";
  var img = document.querySelector("img[data-live]");
  if (img) {
    var base = img.getAttribute("data-live");
    var busy = false;
    setInterval(function () {
      if (document.hidden || busy) return;
      busy = true;
      var next = new Image();
      next.onload = function () { img.src = next.src; busy = false; };
      next.onerror = function () { busy = false; };
      next.src = base + "?t=" + Date.now();
    }, 2000);
  }
  var main = document.querySelector("main[data-reload]");
  if (main) {
    var every = parseInt(main.getAttribute("data-reload"), 10);
    var touched = false;
    var stop = function () { touched = true; };
    document.addEventListener("input", stop, true);
    document.addEventListener("change", stop, true);
    document.addEventListener("focusin", function (e) {
      if (e.target && e.target.form) stop();
    }, true);
    if (every > 0) {
      setInterval(function () {
        if (!touched && !document.hidden) location.reload();
      }, every * 1000);
    }
  }
})();
