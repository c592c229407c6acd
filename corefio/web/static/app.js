// corefio evaluator: sortable tables and chain highlighting (the pages work without it).
(function () {
  "use strict";
  // -- sortable tables ------------------------------------------------------------------
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, col) {
      th.addEventListener("click", function () {
        var numeric = th.dataset.sort === "number";
        var asc = !th.classList.contains("sorted-asc");
        table.querySelectorAll("thead th").forEach(function (o) { o.classList.remove("sorted-asc", "sorted-desc"); });
        th.classList.add(asc ? "sorted-asc" : "sorted-desc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col];
          var u = numeric ? parseFloat(x.dataset.value) : x.textContent;
          var v = numeric ? parseFloat(y.dataset.value) : y.textContent;
          if (numeric) { u = isNaN(u) ? -Infinity : u; v = isNaN(v) ? -Infinity : v; }
          var c = u < v ? -1 : u > v ? 1 : 0;
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  // -- the key vs response view: each .pair-view on its own (a file may hold several) -------
  document.querySelectorAll(".pair-view").forEach(function (view) { pairView(view); });
  // -- the adjudication view: "next conflict" ------------------------------------------------
  document.querySelectorAll(".adjudication").forEach(function (view) { adjudication(view); });
  // -- forms that keep their files: sent without leaving the page, so that an error shows
  //    above the form with the files and options still chosen -------------------------------
  document.querySelectorAll("form.keeps").forEach(function (form) { keepsFiles(form); });
  // -- a preset chosen: its options and metrics shown in the form --------------------------
  document.querySelectorAll("select#preset").forEach(function (menu) { presetMenu(menu); });

  function presetMenu(menu) {
    var form = menu.form;
    menu.addEventListener("change", function () {
      var chosen = menu.options[menu.selectedIndex];
      var about = form.querySelector("#preset-about"), command = form.querySelector("#preset-command");
      if (about) { about.textContent = chosen.dataset.about; }
      if (command) { command.textContent = chosen.dataset.command; }
      form.querySelectorAll("select.preset-option").forEach(function (select) {
        var value = chosen.dataset[select.dataset.option];
        if (value !== undefined) { select.options[0].textContent = "as the preset (" + value + ")"; }
      });
      var metrics = (chosen.dataset.metrics || "").split(" ");
      var boxes = form.querySelectorAll('input[name="metrics"]');
      boxes.forEach(function (box) { box.checked = metrics.indexOf(box.value) >= 0; });
      form.querySelectorAll("details.metric-group").forEach(function (group) {
        if (group.querySelector('input[name="metrics"]:checked')) { group.open = true; }
      });
      var shown = form.querySelector("#metrics_of");
      if (shown) { shown.value = chosen.value || "-"; }
    });
  }

  function keepsFiles(form) {
    if (!window.fetch || !window.FormData || !window.DOMParser) { return; }
    var slot = form.querySelector(".form-error");
    var busy = form.querySelector(".busy");
    var button = form.querySelector("button[type=submit]");
    var limit = parseFloat(document.body.dataset.uploadMb || "0") * 1048576;
    function show(section) {
      slot.textContent = "";
      slot.appendChild(section);
      section.scrollIntoView({block: "nearest"});
    }
    function message(title, text) {
      var section = document.createElement("section");
      section.className = "error";
      section.id = "error";
      var h = document.createElement("h2");
      h.textContent = title;
      var p = document.createElement("p");
      p.id = "error-message";
      p.textContent = text;
      section.appendChild(h);
      section.appendChild(p);
      return section;
    }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var size = 0;
      form.querySelectorAll("input[type=file]").forEach(function (input) {
        Array.prototype.forEach.call(input.files || [], function (f) { size += f.size; });
      });
      if (limit && size > limit) {
        show(message("Upload too large", "the files chosen come to " + (size / 1048576).toFixed(1) +
          " MB, more than this server's limit of " + document.body.dataset.uploadMb + " MB"));
        return;
      }
      button.disabled = true;
      if (busy) { busy.textContent = "working…"; }
      fetch(form.action, {method: "POST", body: new FormData(form), credentials: "same-origin"})
        .then(function (answer) {
          if (answer.ok && answer.redirected) { window.location.assign(answer.url); return null; }
          return answer.text().then(function (html) {
            if (answer.ok) {  // a page that is not a redirect: show it as the browser would
              document.open(); document.write(html); document.close();
              return;
            }
            var page = new DOMParser().parseFromString(html, "text/html");
            var found = page.getElementById("error");
            var section = found ? document.importNode(found, true) :
              message("Error " + answer.status, answer.statusText || "the server refused the request");
            var status = section.querySelector(".status");
            if (status) {  // unlike a page loaded anew, this one still holds the files
              status.textContent = "HTTP " + answer.status + " · your files and options are still chosen below: " +
                "correct what is wrong and send the form again.";
            }
            show(section);
          });
        })
        .catch(function () {
          show(message("No answer", "the request did not get through (the connection was closed: too large an " +
            "upload, or the server stopped); nothing was lost here, the form still holds your files"));
        })
        .then(function () {
          button.disabled = false;
          if (busy) { busy.textContent = ""; }
        });
    });
  }

  function adjudication(view) {
    var rows = Array.prototype.slice.call(view.querySelectorAll("[data-row]"));
    var position = view.querySelector(".conflict-pos");
    var at = -1;
    function show(k) {
      if (!rows.length) { return; }
      at = (k + rows.length) % rows.length;
      var key = rows[at].dataset.row;
      view.querySelectorAll(".current").forEach(function (e) { e.classList.remove("current"); });
      var marks = view.querySelectorAll('[data-conflict~="' + key + '"]');
      marks.forEach(function (e) { e.classList.add("current"); });
      rows[at].classList.add("current");
      // each column scrolled to its mark of the conflict
      view.querySelectorAll(".column .text").forEach(function (pane) {
        var mark = pane.querySelector('[data-conflict~="' + key + '"]');
        if (mark) { pane.scrollTop = mark.offsetTop - pane.clientHeight / 3; }
      });
      position.textContent = "conflict " + (at + 1) + " of " + rows.length + ": " +
        rows[at].cells[2].textContent + " “" + rows[at].cells[3].textContent + "”";
      view.dataset.current = key;
    }
    var next = view.querySelector(".next-conflict"), prev = view.querySelector(".prev-conflict");
    if (!rows.length) { next.disabled = true; prev.disabled = true; }
    next.addEventListener("click", function () { show(at + 1); });
    prev.addEventListener("click", function () { show(at < 0 ? -1 : at - 1); });
    view.querySelectorAll("[data-goto]").forEach(function (a) {
      a.addEventListener("click", function (ev) {
        ev.preventDefault();
        show(rows.findIndex(function (r) { return r.dataset.row === a.dataset.goto; }));
      });
    });
  }

  function pairView(view) {
    var pair = view.querySelector(".pair");
    var panes = Array.prototype.slice.call(pair.querySelectorAll(".side .text"));
    var errors = Array.prototype.slice.call(view.querySelectorAll(".error-item"));
    var position = view.querySelector(".error-pos");
    var current = -1;

    // a pane's tokens (in text order) and the first one shown at its top
    var tokensOf = panes.map(function (pane) {
      return Array.prototype.slice.call(pane.querySelectorAll(".tok"));
    });
    function topToken(k) {
      var pane = panes[k], tokens = tokensOf[k], lo = 0, hi = tokens.length - 1;
      if (hi < 0) { return null; }
      while (lo < hi) {  // the first token whose bottom is below the pane's top
        var mid = (lo + hi) >> 1, t = tokens[mid];
        if (t.offsetTop + t.offsetHeight <= pane.scrollTop) { lo = mid + 1; } else { hi = mid; }
      }
      return tokens[lo];
    }
    function tokenAt(k, index) {
      return panes[k].querySelector('.tok[data-i="' + index + '"]');
    }
    // a pane scrolled by this script ignores the scroll event of that scroll (else the
    // panes would chase each other): the event whose position is the one set here. A
    // user's scroll, however soon after, lands elsewhere and is followed.
    var setByScript = panes.map(function () { return null; });
    function scrollPane(k, top) {
      var pane = panes[k];
      top = Math.max(0, Math.min(top, pane.scrollHeight - pane.clientHeight));
      if (Math.abs(pane.scrollTop - top) < 1) { return; }
      pane.scrollTop = top;
      setByScript[k] = pane.scrollTop;
    }
    // scroll pane k so that element el sits a third of the way down (no scroll of the page)
    function reveal(k, el) {
      if (el) { scrollPane(k, el.offsetTop - panes[k].clientHeight / 3); }
    }

    // -- the two panes scroll in step: the other pane shows the same token at its top ---------
    panes.forEach(function (pane, k) {
      pane.addEventListener("scroll", function () {
        var mine = setByScript[k];
        setByScript[k] = null;
        if (mine !== null && Math.abs(pane.scrollTop - mine) < 1) { return; }
        var top = topToken(k);
        if (!top) { return; }
        var shift = top.offsetTop - pane.scrollTop;
        panes.forEach(function (other, j) {
          if (j === k) { return; }
          var same = tokenAt(j, top.dataset.i);
          if (same) { scrollPane(j, same.offsetTop - shift); }
        });
      }, { passive: true });
    });

    // -- chain highlighting: a chain's mentions (by target) on both sides -------------------
    function clear() {
      pair.querySelectorAll(".hl").forEach(function (e) { e.classList.remove("hl"); });
      pair.querySelectorAll(".chain.active").forEach(function (e) { e.classList.remove("active"); });
    }
    function highlight(chain) {
      clear();
      var targets = {};
      pair.querySelectorAll('.br[data-chain="' + chain + '"]').forEach(function (b) { targets[b.dataset.t] = true; });
      pair.querySelectorAll(".br").forEach(function (b) { if (targets[b.dataset.t]) { b.classList.add("hl"); } });
      pair.querySelectorAll(".tok[data-ts]").forEach(function (t) {
        if (t.dataset.ts.split(" ").some(function (x) { return targets[x]; })) { t.classList.add("hl"); }
      });
      pair.querySelectorAll('.chain[data-chain="' + chain + '"]').forEach(function (c) { c.classList.add("active"); });
      pair.dataset.active = chain;
    }
    pair.addEventListener("click", function (ev) {
      var el = ev.target.closest(".br, .chain");
      if (!el) { return; }
      if (pair.dataset.active === el.dataset.chain) { clear(); pair.dataset.active = ""; return; }
      highlight(el.dataset.chain);
      if (!el.classList.contains("br")) {
        var first = pair.querySelector('.br.open[data-chain="' + el.dataset.chain + '"]');
        if (first) { panes.forEach(function (p, k) { reveal(k, p.querySelector('.br.open.hl') || first); }); }
        return;
      }
      // the clicked mention, and the same mention (else the same token) in the other pane
      var k = panes.indexOf(el.closest(".text"));
      panes.forEach(function (other, j) {
        if (j === k) { return; }
        reveal(j, other.querySelector('.br.open[data-t="' + el.dataset.t + '"]') ||
          tokenAt(j, el.dataset.t.split("-")[0]));
      });
    });

    // -- "next error": every mark of the error on both sides, each pane scrolled to it ---------
    function show(n) {
      if (!errors.length) { return; }
      current = (n + errors.length) % errors.length;
      var item = errors[current], id = item.dataset.err;
      view.querySelectorAll(".cur").forEach(function (e) { e.classList.remove("cur"); });
      item.classList.add("cur");
      var marked = pair.querySelectorAll(".br[data-errs]");
      marked.forEach(function (b) {
        if (b.dataset.errs.split(" ").indexOf(id) >= 0) { b.classList.add("cur"); }
      });
      panes.forEach(function (pane, k) {
        reveal(k, pane.querySelector(".br.open.cur") || tokenAt(k, item.dataset.first));
      });
      position.textContent = "error " + (current + 1) + " of " + errors.length + ": " +
        item.textContent.replace(/^\S+\s/, "");
      view.dataset.current = id;
    }
    var next = view.querySelector(".next-error"), prev = view.querySelector(".prev-error");
    if (!errors.length) { next.disabled = true; prev.disabled = true; }
    next.addEventListener("click", function () { show(current + 1); });
    prev.addEventListener("click", function () { show(current < 0 ? -1 : current - 1); });
    errors.forEach(function (item, n) { item.addEventListener("click", function () { show(n); }); });
  }
})();
