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
// - #control-holder follows who holds control (GET /status/control.json);
//   the page reloads when Take over should appear or go.
// - main[data-reload=N]: the page reloads every N seconds (new requests on
//   Access, new operations on Activity) until the owner touches a form.
(function () {
  "use strict";
  var live = document.getElementById("phone-live");
  var csrfInput = document.querySelector("input[name=csrf]");
  var csrf = csrfInput ? csrfInput.value : "";
  var note = document.getElementById("live-note");
  var noteText = note ? note.innerHTML : "";
  var noteTimer = null;
  function say(text, bad) {
    if (!note) return;
    clearTimeout(noteTimer);
    note.textContent = text;
    note.className = bad ? "bad" : "";
    noteTimer = setTimeout(function () { note.innerHTML = noteText; note.className = ""; }, bad ? 8000 : 2500);
  }
  function post(url, params) {
    params.set("csrf", csrf);
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
      next.src = still + "?t=" + Date.now();
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
      live.src = stream + "?t=" + Date.now();
    };
    if (document.readyState === "complete") watch();
    else window.addEventListener("load", watch);
    document.addEventListener("visibilitychange", function () {
      if (mode === "poll" || mode === "loading") return;
      if (document.hidden) {
        mode = "hidden";
        live.src = still + "?t=" + Date.now(); // one picture; the stream closes
      } else {
        mode = "stream";
        live.src = stream + "?t=" + Date.now();
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

  var control = document.querySelector("[data-control-state]");
  var holder = document.getElementById("control-holder");
  if (control && holder) {
    var shown = control.getAttribute("data-control-state");
    // Changes the owner's own input makes (taking the free lease, its
    // lapsing) only change the text; others need other forms: reload.
    var quiet = function (a, b) {
      var pa = a.split(","), pb = b.split(",");
      var mine = function (w) { return w === "free" || w === "owner"; };
      return mine(pa[0]) && mine(pb[0]) && pa.length === pb.length;
    };
    var typing = function () {
      var f = document.activeElement;
      return f && (f.tagName === "INPUT" || f.tagName === "TEXTAREA") && f.value;
    };
    setInterval(function () {
      if (document.hidden) return;
      fetch("/status/control.json", { credentials: "same-origin", cache: "no-store" })
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (c) {
          if (!c || c.state === shown) return;
          if (!quiet(shown, c.state)) {
            if (!typing()) location.reload();
            return;
          }
          shown = c.state;
          control.setAttribute("data-control-state", shown);
          holder.textContent = c.owner ? "You hold control; your input on the phone below renews it." : "Nobody holds control.";
        }, function () {});
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
