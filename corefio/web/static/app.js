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
  // -- chain highlighting: a chain's mentions (by target) on both sides ---------------------
  var pair = document.querySelector(".pair");
  if (!pair) { return; }
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
  });
})();
