// Live parts of the box page; every page works without this file.
// - img#phone-live: the Status page's live phone. The page loads with the
//   still picture (an MJPEG src would keep the page loading for as long
//   as the stream runs); once it has loaded, the image becomes the MJPEG
//   stream (data-stream). The stream is closed while the page is hidden
//   and reopened when it shows again; when it fails (too many viewers, a
//   browser without MJPEG) the still picture is fetched every second
//   instead.
// - With data-drive on it, a click is a tap at that fraction of the
//   screen, a long press a long press, a drag a swipe; the owner's
//   buttons and the typing field post without leaving the page. All go to
//   the owner routes with the page's CSRF token, through the same control
//   rules as any client's input.
// - The control block ([data-control-state], #control-holder) follows
//   who holds control: GET /status/control.json every 2 s and after each
//   of the owner's inputs, its forms included.
// - img[data-refresh=N]: a still picture fetched again every N seconds.
// - time.local[datetime]: shown in the reader's time zone.
// - main[data-reload=N]: the page reloads every N seconds (new requests on
//   Access, new operations on Activity) until the owner touches a form.
(function () {
  "use strict";
  var live = document.getElementById("phone-live");
  // On a box of several phones the live view names its phone: the
  // owner's input and the control block are that phone's.
  var livePhone = live ? live.getAttribute("data-phone") : null;
  var csrfInput = document.querySelector("input[name=csrf]");
  var csrf = csrfInput ? csrfInput.value : "";
  var note = document.getElementById("live-note");
  var noteText = note ? note.innerHTML : "";
  var noteTimer = null;
  var refreshControl = function () {}; // set below on a page with the control block

  // time.local[datetime]: a time the box wrote in its own zone, shown in
  // the reader's (the box's text stays as the tooltip).
  function localize(root) {
    root.querySelectorAll("time.local[datetime]").forEach(function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (isNaN(d.getTime())) return;
      var opts = { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" };
      if (d.toDateString() !== new Date().toDateString()) {
        opts.year = "numeric";
        opts.month = "short";
        opts.day = "numeric";
      }
      if (!t.title) t.title = t.textContent;
      t.textContent = d.toLocaleString([], opts);
    });
  }
  localize(document);
  // fresh is u with a cache buster: a query parameter of its own, so a
  // URL that names its phone (?phone=sim-2) keeps naming it.
  function fresh(u) {
    return u + (u.indexOf("?") < 0 ? "?" : "&") + "t=" + Date.now();
  }
  function say(text, bad) {
    if (!note) return;
    clearTimeout(noteTimer);
    note.textContent = text;
    note.className = bad ? "bad" : "";
    noteTimer = setTimeout(function () { note.innerHTML = noteText; note.className = ""; }, bad ? 8000 : 2500);
  }
  function post(url, params) {
    params.set("csrf", csrf);
    if (livePhone && !params.has("phone")) params.set("phone", livePhone);
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      body: params.toString()
    }).then(function (res) {
      return res.json().catch(function () {
        return { ok: false, message: "The box answered " + res.status + "; reload the page." };
      });
    }).then(function (a) {
      say(a.message || (a.ok ? "Done." : "Not done."), !a.ok);
      refreshControl();
      return a;
    }, function () {
      say("The box could not be reached.", true);
      return { ok: false };
    });
  }

  if (live) {
    var stream = live.getAttribute("data-stream");
    var still = live.getAttribute("data-still");
    var mode = "loading";
    var poller = null;
    var busy = false;
    var pollStill = function () {
      if (document.hidden || busy) return;
      busy = true;
      var next = new Image();
      next.onload = function () { live.src = next.src; busy = false; };
      next.onerror = function () { busy = false; };
      next.src = fresh(still);
    };
    live.addEventListener("error", function () {
      if (mode !== "stream") return;
      mode = "poll";
      pollStill();
      poller = setInterval(pollStill, 1000);
    });
    var watch = function () {
      if (document.hidden) {
        mode = "hidden";
        return;
      }
      mode = "stream";
      live.src = fresh(stream);
    };
    if (document.readyState === "complete") watch();
    else window.addEventListener("load", watch);
    document.addEventListener("visibilitychange", function () {
      if (mode === "poll" || mode === "loading") return;
      if (document.hidden) {
        mode = "hidden";
        live.src = fresh(still); // one picture; the stream closes
      } else {
        mode = "stream";
        live.src = fresh(stream);
      }
    });

    var drive = live.getAttribute("data-drive");
    if (drive) {
      var epoch = live.getAttribute("data-epoch") || "";
      var down = null;
      var at = function (e) {
        var r = live.getBoundingClientRect();
        var x = (e.clientX - r.left - live.clientLeft) / live.clientWidth;
        var y = (e.clientY - r.top - live.clientTop) / live.clientHeight;
        return { x: Math.min(1, Math.max(0, x)), y: Math.min(1, Math.max(0, y)), px: e.clientX, py: e.clientY };
      };
      var fix = function (v) { return v.toFixed(4); };
      live.addEventListener("dragstart", function (e) { e.preventDefault(); });
      live.addEventListener("pointerdown", function (e) {
        if (e.button !== 0) return;
        e.preventDefault();
        if (live.setPointerCapture) live.setPointerCapture(e.pointerId);
        down = at(e);
        down.t = Date.now();
      });
      live.addEventListener("pointercancel", function () { down = null; });
      live.addEventListener("pointerup", function (e) {
        if (!down) return;
        var from = down, to = at(e);
        down = null;
        var secs = (Date.now() - from.t) / 1000;
        var p = new URLSearchParams({ x: fix(from.x), y: fix(from.y), epoch: epoch });
        if (Math.abs(to.px - from.px) + Math.abs(to.py - from.py) < 10) {
          if (secs >= 0.6) {
            p.set("seconds", Math.min(2, secs).toFixed(2));
            post(drive + "/long_press", p);
          } else {
            post(drive + "/tap", p);
          }
          return;
        }
        p.set("x2", fix(to.x));
        p.set("y2", fix(to.y));
        p.set("seconds", Math.min(2, Math.max(0.1, secs)).toFixed(2));
        post(drive + "/swipe", p);
      });
      var ajax = function (form, after) {
        form.addEventListener("submit", function (e) {
          e.preventDefault();
          var p = new URLSearchParams(new FormData(form));
          var by = e.submitter;
          if (by && by.name) p.set(by.name, by.value);
          var to = (by && by.getAttribute("formaction")) || form.getAttribute("action");
          if (by && by.getAttribute("formaction")) p.delete("text"); // a key, not the typed text
          post(to, p).then(function (a) { if (a.ok && after && !(by && by.name === "key")) after(); });
        });
      };
      document.querySelectorAll("form.owner-buttons").forEach(function (f) { ajax(f); });
      var typeForm = document.getElementById("owner-type");
      if (typeForm) {
        ajax(typeForm, function () { document.getElementById("owner-text").value = ""; });
      }
    }
  }

  // The control block follows the lease: control.json carries the block
  // as Status draws it now, put in place of the page's own when it
  // differs (the owner's tap took control: Give control back shows; an
  // agent took it: Take over shows). A notice of what the owner did
  // (?done=) goes once the state it spoke of has changed, and is dropped
  // from the address so a reload does not say it again.
  var control = document.querySelector("[data-control-state]");
  if (control) {
    if (window.history && history.replaceState && /[?&]done=/.test(location.search)) {
      var here = new URL(location.href);
      here.searchParams.delete("done");
      history.replaceState(null, "", here.pathname + here.search + here.hash);
    }
    var shownState = control.getAttribute("data-control-state");
    var shownHTML = null;
    refreshControl = function () {
      if (document.hidden) return;
      fetch("/status/control.json" + (livePhone ? "?phone=" + encodeURIComponent(livePhone) : ""), { credentials: "same-origin", cache: "no-store" })
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (c) {
          if (!c || !c.html || c.html === shownHTML) return;
          var box = document.createElement("div");
          box.innerHTML = c.html;
          var next = box.querySelector("[data-control-state]");
          if (!next) return;
          control.replaceWith(next);
          control = next;
          shownHTML = c.html;
          localize(next);
          if (c.state !== shownState) {
            shownState = c.state;
            document.querySelectorAll("main > p.done").forEach(function (d) { d.remove(); });
          }
        }, function () {});
    };
    setInterval(refreshControl, 2000);
  }

  // img[data-refresh=N]: a still picture fetched anew every N seconds
  // while the page shows (each phone's picture in Status's list).
  document.querySelectorAll("img[data-refresh]").forEach(function (img) {
    var every = parseInt(img.getAttribute("data-refresh"), 10);
    var base = img.getAttribute("src");
    if (!(every > 0) || !base) return;
    setInterval(function () {
      if (document.hidden) return;
      img.src = fresh(base);
    }, every * 1000);
  });

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
