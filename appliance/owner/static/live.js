// Refreshes the Status page's screenshot while the page is visible.
// The page works without this file.
(function () {
  "use strict";
  var img = document.querySelector("img[data-live]");
  if (!img) return;
  var base = img.getAttribute("data-live");
  var busy = false;
  function tick() {
    if (document.hidden || busy) return;
    busy = true;
    var next = new Image();
    next.onload = function () { img.src = next.src; busy = false; };
    next.onerror = function () { busy = false; };
    next.src = base + "?t=" + Date.now();
  }
  setInterval(tick, 2000);
})();
