package reports

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
)

// htmlStyle and htmlScript are the page's only style and script, inline.
// The page's Content-Security-Policy allows exactly these two by hash, so
// even markup that escaped escaping could run or load nothing.
const htmlStyle = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--bg:#fff;--soft:#f5f7fa;--bad:#b42318;--warn:#b54708;--ok:#067647;--note:#175cd3}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:20px 28px 8px;border-bottom:1px solid var(--line);background:var(--soft)}
h1{margin:0 0 4px;font-size:22px}
h2{font-size:17px;margin:28px 0 8px}
main{padding:8px 28px 28px}
.meta{color:var(--muted);font-size:13px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 16px;min-width:120px;background:var(--bg)}
.card .value{font-size:24px;font-weight:650}
.card .label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card.bad{border-color:#f3b2ab;background:#fff4f2}.card.bad .value{color:var(--bad)}
.card.warn{border-color:#f6d29a;background:#fffaf0}.card.warn .value{color:var(--warn)}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:12px}
.chart{margin:0;border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.chart figcaption{font-weight:600;margin-bottom:6px}
.bar{fill:#6172f3}.bar-label{font-size:12px;fill:var(--fg)}.bar-value{font-size:12px;fill:var(--muted)}
.bar.sev-error,.bar.st-blocked,.bar.st-invalid,.bar.st-rejected{fill:#d92d20}.bar.sev-warning,.bar.st-pending-approval{fill:#f79009}.bar.sev-note{fill:#2e90fa}
.bar.st-active{fill:#12b76a}.bar.st-disabled,.bar.st-shadowed,.bar.st-suppressed{fill:#98a2b3}
.filters{position:sticky;top:0;z-index:1;display:flex;flex-wrap:wrap;gap:12px;align-items:center;padding:10px 0;background:var(--bg);border-bottom:1px solid var(--line)}
.filters[hidden]{display:none}
select,button{font:inherit;padding:3px 6px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}
th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;position:relative}
table.sortable th{cursor:pointer}
th.num,td.num{text-align:right}
tbody tr:hover{background:#fafbff}
tr[hidden]{display:none}
td.code,dd.code,li.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;word-break:break-all}
td.path{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;color:var(--muted);word-break:break-all}
td.name{font-weight:600;min-width:8em;overflow-wrap:anywhere}
td.nw{white-space:nowrap}
.reasons{color:var(--muted);font-size:12px}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;background:#eef0f4;white-space:nowrap}
.badge.bad,.badge.sev-error,.badge.st-blocked,.badge.st-invalid,.badge.st-rejected,.badge.st-unverified-policy,.badge.in-error{background:#fee4e2;color:var(--bad)}
.badge.warn,.badge.sev-warning,.badge.st-pending-approval,.badge.in-timeout{background:#fef0c7;color:var(--warn)}
.badge.ok,.badge.st-active,.badge.in-ok{background:#dcfae6;color:var(--ok)}
.badge.sev-note{background:#d1e9ff;color:var(--note)}
.fix{margin-top:4px;color:var(--muted)}
details{margin-top:4px}dl{margin:4px 0}dt{font-weight:600;font-size:12px}dd{margin:0 0 4px 12px}
.cut{color:var(--warn)}
footer{padding:12px 28px;border-top:1px solid var(--line)}
.pager{margin:8px 0;display:flex;gap:8px;align-items:center}
main>section{content-visibility:auto;contain-intrinsic-size:auto 600px}
@media print{.filters,.pager{display:none!important}details{display:block}details>*{display:block}header{background:none}.charts{grid-template-columns:1fr 1fr}}
`

const htmlScript = `(function () {
  "use strict";
  var PAGE = 200;
  var KEYS = ["host", "user", "client", "status", "rule"];
  var filters = document.getElementById("filters");
  filters.hidden = false;
  var selects = Array.prototype.slice.call(filters.querySelectorAll("select[data-filter]"));
  var shown = document.getElementById("shown");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function badgeCell(cls, text) {
    var td = el("td");
    td.appendChild(el("span", "badge " + cls, text));
    return td;
  }
  // A data row is [filters, cells]. Filters are the raw host, user,
  // client, status and rule; a cell that shows one of them is null when
  // its visible form is the same text (the page does not carry it twice).
  function cellText(r, cell, filter) { var v = r[1][cell]; return v === null ? r[0][filter] : v; }
  // Per table: the cells of a row as the markup has them (text only,
  // textContent, never markup), and what each header column sorts by.
  var tables = {
    servers: {
      render: function (r, fleet, data) {
        var c = r[1], tds = [];
        if (fleet) { tds.push(el("td", "nw", cellText(r, 0, 0))); }
        tds.push(el("td", "nw", cellText(r, 1, 1)), el("td", "nw", cellText(r, 2, 2)), el("td", "nw", c[3]), el("td", "name", c[4]), badgeCell("st-" + r[0][3], r[0][3]));
        var allowed = el("td");
        allowed.appendChild(c[5] ? document.createTextNode("yes") : el("strong", null, "no"));
        allowed.appendChild(el("div", "reasons", c[6]));
        tds.push(allowed, el("td", "code", c[7]), el("td", "num", c[8]), el("td", "path", c[9]));
        return tds;
      },
      sort: function (fleet) {
        var cols = [function (r) { return cellText(r, 1, 1); }, function (r) { return cellText(r, 2, 2); }, function (r) { return r[1][3]; },
          function (r) { return r[1][4]; }, function (r) { return r[0][3]; }, function (r) { return r[1][5] ? "yes" : "no"; },
          function (r) { return r[1][7]; }, function (r) { return r[1][8]; }, function (r) { return r[1][9]; }];
        return fleet ? [function (r) { return cellText(r, 0, 0); }].concat(cols) : cols;
      }
    },
    findings: {
      render: function (r, fleet, data) {
        var c = r[1], rule = r[0][4];
        var sev = badgeCell("sev-" + c[0], c[0]);
        if (c[1]) { sev.appendChild(document.createTextNode(" ")); sev.appendChild(el("span", "badge", "suppressed")); }
        var tds = [sev, el("td", "nw", rule)];
        if (fleet) { tds.push(el("td", "nw", cellText(r, 2, 0))); }
        var msg = el("td", null, c[4]);
        if (c[5].length) {
          var det = el("details"), dl = el("dl");
          det.appendChild(el("summary", null, "Evidence"));
          c[5].forEach(function (e) {
            dl.appendChild(el("dt", null, e[0]));
            dl.appendChild(el("dd", "code", e[1]));
            if (e[2]) { dl.appendChild(el("dt", null, e[0] + " (decoded hidden text)")); dl.appendChild(el("dd", "code", e[2])); }
          });
          det.appendChild(dl);
          msg.appendChild(det);
        }
        var fixText = data.fixes && data.fixes[rule];
        if (fixText) {
          var fix = el("div", "fix");
          fix.appendChild(el("strong", null, "Fix:"));
          fix.appendChild(document.createTextNode(" " + fixText));
          msg.appendChild(fix);
        }
        tds.push(el("td", "name", c[3]), msg, el("td", "path", c[6]));
        return tds;
      },
      sort: function (fleet) {
        var cols = [function (r) { return r[1][0]; }, function (r) { return r[0][4]; }];
        if (fleet) { cols.push(function (r) { return cellText(r, 2, 0); }); }
        return cols.concat([function (r) { return r[1][3]; }, function (r) { return r[1][4]; }, function (r) { return r[1][6]; }]);
      }
    },
    hosts: {
      render: function (r) {
        var c = r[1];
        var state = el("td");
        state.appendChild(el("span", "badge " + (c[7] ? "ok" : "bad"), c[7] ? "compliant" : "out of compliance"));
        if (c[8]) { state.appendChild(document.createTextNode(" ")); state.appendChild(el("span", "badge warn", "stale")); }
        if (c[10]) { state.appendChild(document.createTextNode(" ")); state.appendChild(el("span", "badge warn", "policy behind: " + c[10])); }
        var why = el("td");
        var n = c[9].length > 4 ? 3 : c[9].length;
        c[9].slice(0, n).forEach(function (w) { why.appendChild(el("div", null, w)); });
        if (c[9].length > n) {
          var det = el("details");
          det.appendChild(el("summary", null, (c[9].length - n) + " more"));
          c[9].slice(n).forEach(function (w) { det.appendChild(el("div", null, w)); });
          why.appendChild(det);
        }
        return [el("td", null, cellText(r, 0, 0)), el("td", null, c[1]), el("td", "nw", c[2]), el("td", "num", c[3]), el("td", "num", c[4]),
          el("td", "num", c[5]), el("td", "num", c[6]), state, why];
      },
      sort: function () {
        var cols = [function (r) { return cellText(r, 0, 0); }];
        [1, 2, 3, 4, 5, 6].forEach(function (i) { cols.push(function (r) { return r[1][i]; }); });
        return cols.concat([function (r) { return r[1][7] ? "compliant" : "out of compliance"; }, function (r) { return r[1][9].join(" "); }]);
      }
    },
    distinct: {
      render: function (r) {
        var c = r[1];
        return [el("td", "num", c[0]), el("td", "num", c[1]), el("td", "num", c[2]), el("td", "num", c[3]), el("td", "name", c[4]), el("td", null, c[5]), el("td", "code", c[6])];
      },
      sort: function () { return [0, 1, 2, 3, 4, 5, 6].map(function (i) { return function (r) { return r[1][i]; }; }); }
    },
    "what-if-changes": {
      render: function (r) {
        var c = r[1];
        var cls = c[3] === "lose" ? "bad" : c[3] === "gain" ? "ok" : "";
        return [el("td", "nw", cellText(r, 0, 0)), el("td", "nw", cellText(r, 1, 2)), el("td", "name", c[2]), badgeCell(cls, c[3]), el("td", null, c[4]), el("td", null, c[5]), el("td", "code", c[6])];
      },
      sort: function () {
        var cols = [function (r) { return cellText(r, 0, 0); }, function (r) { return cellText(r, 1, 2); }];
        return cols.concat([2, 3, 4, 5, 6].map(function (i) { return function (r) { return r[1][i]; }; }));
      }
    }
  };

  // A pager shows a table's data rows a page at a time, after the filters
  // and in the chosen order.
  function Pager(table, data) {
    var self = this;
    this.kind = table.getAttribute("data-kind");
    this.table = table;
    this.fleet = data.fleet;
    this.rows = data.rows;
    this.view = this.rows;
    this.page = 0;
    this.data = data;
    this.cols = tables[this.kind].sort(this.fleet);
    var bar = el("div", "pager");
    this.prev = el("button", null, "\u2039 Previous");
    this.next = el("button", null, "Next \u203a");
    this.prev.type = this.next.type = "button";
    this.info = el("span", "meta");
    bar.appendChild(this.prev);
    bar.appendChild(this.info);
    bar.appendChild(this.next);
    table.parentNode.insertBefore(bar, table.nextSibling);
    this.prev.addEventListener("click", function () { self.page--; self.render(); });
    this.next.addEventListener("click", function () { self.page++; self.render(); });
    var cut = document.querySelector("p.cut[data-cut=\"" + this.kind + "\"]");
    if (cut) { cut.hidden = true; }
  }
  Pager.prototype.filter = function (want) {
    this.view = this.rows.filter(function (r) {
      for (var i = 0; i < KEYS.length; i++) {
        var w = want[KEYS[i]];
        if (w !== undefined && r[0][i] !== null && r[0][i] !== w) { return false; }
      }
      return true;
    });
    this.page = 0;
    this.render();
  };
  Pager.prototype.sort = function (col, dir, numeric) {
    var get = this.cols[col];
    var key = function (r) { var v = get(r); return typeof v === "string" ? v : String(v); };
    this.rows = this.rows.slice().sort(function (a, b) {
      if (numeric) { return dir * (parseFloat(key(a)) - parseFloat(key(b))); }
      return dir * key(a).localeCompare(key(b));
    });
    this.apply();
  };
  Pager.prototype.render = function () {
    var pages = Math.max(1, Math.ceil(this.view.length / PAGE));
    this.page = Math.min(Math.max(this.page, 0), pages - 1);
    var body = this.table.tBodies[0];
    var frag = document.createDocumentFragment();
    var fn = tables[this.kind].render, fleet = this.fleet, data = this.data;
    this.view.slice(this.page * PAGE, (this.page + 1) * PAGE).forEach(function (r) {
      var tr = el("tr");
      fn(r, fleet, data).forEach(function (td) { tr.appendChild(td); });
      frag.appendChild(tr);
    });
    body.textContent = "";
    body.appendChild(frag);
    var first = this.view.length ? this.page * PAGE + 1 : 0;
    this.info.textContent = " Rows " + first + "\u2013" + Math.min((this.page + 1) * PAGE, this.view.length) + " of " + this.view.length + " (page " + (this.page + 1) + " of " + pages + ") ";
    this.prev.disabled = this.page === 0;
    this.next.disabled = this.page >= pages - 1;
  };

  // A data block comes in parts, each listing once the strings that
  // repeat in its rows' filter values and in the cells data.dict names,
  // where the rows hold their index instead: put them back.
  function expand(data) {
    data.rows = [];
    data.parts.forEach(function (part) {
      var strs = part.strings;
      var str = function (v) { return typeof v === "number" ? strs[v] : v; };
      part.rows.forEach(function (r) {
        r[0] = r[0].map(str);
        data.dict.forEach(function (k) { r[1][k] = str(r[1][k]); });
        data.rows.push(r);
      });
    });
    delete data.parts;
    return data;
  }

  var pagers = {};
  Array.prototype.forEach.call(document.querySelectorAll("script[type=\"application/json\"][id^=rows-]"), function (s) {
    var kind = s.id.slice(5);
    var table = document.querySelector("table[data-kind=\"" + kind + "\"]");
    if (table) { pagers[kind] = new Pager(table, expand(JSON.parse(s.textContent))); }
  });
  var rows = Array.prototype.slice.call(document.querySelectorAll("table.filterable tbody tr, table[data-kind=hosts] tbody tr")).filter(function (tr) {
    return !pagers[tr.parentNode.parentNode.getAttribute("data-kind")];
  });
  function apply() {
    var want = {};
    selects.forEach(function (s) { if (s.value !== "") { want[s.getAttribute("data-filter")] = s.value; } });
    var counts = {};
    rows.forEach(function (tr) {
      var ok = true;
      Object.keys(want).forEach(function (k) {
        var v = tr.getAttribute("data-" + k);
        if (v !== null && v !== want[k]) { ok = false; }
      });
      tr.hidden = !ok;
      var kind = tr.parentNode.parentNode.getAttribute("data-kind");
      counts[kind] = counts[kind] || [0, 0];
      counts[kind][1]++;
      if (ok) { counts[kind][0]++; }
    });
    Object.keys(pagers).forEach(function (kind) {
      var p = pagers[kind];
      p.filter(want);
      counts[kind] = [p.view.length, p.rows.length];
    });
    var parts = [];
    ["servers", "findings"].forEach(function (k) {
      if (counts[k]) { parts.push(counts[k][0] + " of " + counts[k][1] + " " + k); }
    });
    shown.textContent = "Showing " + parts.join(", ");
  }
  Pager.prototype.apply = apply;
  selects.forEach(function (s) { s.addEventListener("change", apply); });
  document.getElementById("reset").addEventListener("click", function () {
    selects.forEach(function (s) { s.value = ""; });
    apply();
  });
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.addEventListener("click", function () {
        var numeric = th.classList.contains("num");
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var pager = pagers[table.getAttribute("data-kind")];
        if (pager) { pager.sort(col, dir, numeric); return; }
        var body = table.tBodies[0];
        var list = Array.prototype.slice.call(body.rows);
        list.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          if (numeric) { return dir * (parseFloat(x) - parseFloat(y)); }
          return dir * x.localeCompare(y);
        });
        list.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  apply();
})();`

// cspHash is a Content-Security-Policy source for an inline block.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// htmlAssets are the view's style, script and their CSP sources.
type htmlAssets struct {
	Style               template.CSS
	Script              template.JS
	CSPStyle, CSPScript string
}

func newHTMLAssets() htmlAssets {
	return htmlAssets{Style: template.CSS(htmlStyle), Script: template.JS(htmlScript), CSPStyle: cspHash(htmlStyle), CSPScript: cspHash(htmlScript)}
}
