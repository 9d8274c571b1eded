// kcmtrace HTML report: zoom and pan for the swimlane charts. The page is
// complete without this script (every position is drawn by kcmtrace); it
// only moves the elements that carry their times in data-a / data-b (ms
// since the epoch) and redraws the time axis, in the report's display zone
// (KC.tz: its name; a chart's data-off: its offset in minutes where the
// chart starts). KC (above) is the report's data: tick steps, the logs'
// zones, the display zone, chart labels.
(function () {
  var NS = "http://www.w3.org/2000/svg", X0 = 196, X1 = 988, MIN = 50;
  var MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  var TZ = KC.tz ? KC.tz.name : "UTC";
  function iso(ms) { return new Date(ms).toISOString(); }
  function day(ms) { var d = new Date(ms); return MON[d.getUTCMonth()] + " " + d.getUTCDate(); }
  function label(ms, step, days) {
    if (step >= 864e5) return day(ms);
    var t = step < 1e3 ? iso(ms).slice(11, 23) : step < 6e4 ? iso(ms).slice(11, 19) : iso(ms).slice(11, 16);
    return days ? day(ms) + " " + t : t;
  }
  function title(ms) {
    var s = iso(ms).slice(0, 10) + " " + iso(ms).slice(11, 23) + " UTC";
    KC.zones.forEach(function (z) { s += " · " + iso(ms + z.off * 6e4).slice(11, 19) + " " + z.name; });
    return s + " · your time: " + new Date(ms).toLocaleString();
  }
  function el(name, attrs, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  document.querySelectorAll("figure.chart").forEach(function (fig) {
    var svg = fig.querySelector("svg.lanes"), d = svg.dataset, axis = svg.querySelector("g.axis");
    var home = [+d.t0, +d.t1], lim = [+d.f0, +d.f1], v = home.slice(), H = +d.h;
    var off = (+d.off || 0) * 6e4; // the display zone's offset: labels are its wall clock
    var race = d.race ? d.race.split(" ").map(Number) : null, status = fig.querySelector(".zoom-status");
    var x = function (t) { return X0 + (t - v[0]) / (v[1] - v[0]) * (X1 - X0); };
    function draw() {
      svg.querySelectorAll(".plot [data-a]").forEach(function (e) {
        var a = x(+e.dataset.a);
        if (e.dataset.b) {
          e.setAttribute("x", a.toFixed(1));
          e.setAttribute("width", Math.max(x(+e.dataset.b) - a, 2).toFixed(1));
        } else e.setAttribute("transform", "translate(" + a.toFixed(1) + ",0)");
      });
      var span = v[1] - v[0], step = KC.steps[KC.steps.length - 1];
      for (var i = 0; i < KC.steps.length; i++) if (Math.floor(span / KC.steps[i]) <= 7) { step = KC.steps[i]; break; }
      var days = iso(v[0] + off).slice(0, 10) !== iso(v[1] + off).slice(0, 10);
      axis.replaceChildren();
      for (var t = (Math.floor((v[0] + off) / step) + 1) * step - off; t < v[1]; t += step) {
        var g = el("g", { "class": "tick", transform: "translate(" + x(t).toFixed(1) + ",0)" });
        g.append(el("line", { y1: 30, y2: H }), el("text", { y: 24 }, label(t + off, step, days)), el("title", {}, title(t)));
        axis.append(g);
      }
      var zoomed = v[0] !== home[0] || v[1] !== home[1];
      status.textContent = zoomed ? (KC.labels[fig.id] || "") + " " + label(v[0] + off, step, days) + " – " + label(v[1] + off, step, days) + " " + TZ : "";
    }
    function set(a, b) {
      var span = Math.min(Math.max(b - a, MIN), lim[1] - lim[0]);
      a = Math.min(Math.max(a, lim[0]), lim[1] - span);
      v = [a, a + span];
      draw();
    }
    function zoom(f, at) { set(at - (at - v[0]) * f, at + (v[1] - at) * f); }
    function timeAt(clientX) {
      var r = svg.getBoundingClientRect(), u = (clientX - r.left) / r.width * 1000;
      return v[0] + (Math.min(Math.max(u, X0), X1) - X0) / (X1 - X0) * (v[1] - v[0]);
    }
    svg.addEventListener("wheel", function (e) {
      if (!e.ctrlKey && !e.metaKey && !e.altKey) return; // plain wheel scrolls the page
      e.preventDefault();
      zoom(e.deltaY < 0 ? 0.8 : 1.25, timeAt(e.clientX));
    }, { passive: false });
    var drag = null;
    svg.addEventListener("pointerdown", function (e) {
      if (e.button !== 0 || e.target.closest("a")) return;
      drag = { x: e.clientX, v: v.slice(), w: svg.getBoundingClientRect().width };
      svg.setPointerCapture(e.pointerId);
      svg.classList.add("dragging");
    });
    svg.addEventListener("pointermove", function (e) {
      if (!drag) return;
      var dt = (e.clientX - drag.x) / drag.w * 1000 / (X1 - X0) * (drag.v[1] - drag.v[0]);
      set(drag.v[0] - dt, drag.v[1] - dt);
    });
    ["pointerup", "pointercancel"].forEach(function (n) {
      svg.addEventListener(n, function () { drag = null; svg.classList.remove("dragging"); });
    });
    fig.querySelectorAll("button[data-zoom]").forEach(function (b) {
      b.addEventListener("click", function () {
        var mid = (v[0] + v[1]) / 2, z = b.dataset.zoom;
        if (z === "in") zoom(0.5, mid);
        else if (z === "out") zoom(2, mid);
        else if (z === "race" && race) { var p = Math.max((race[1] - race[0]) * 0.6, 3000); set(race[0] - p, race[1] + p); }
        else set(home[0], home[1]);
      });
    });
    fig.querySelector(".zoom").hidden = false;
    draw();
    svg.dataset.zoom = "ready";
  });
  document.documentElement.dataset.zoom = "ready";
})();
