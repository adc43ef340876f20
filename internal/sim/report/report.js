// Draws the report's charts as inline SVG from REPORT (the Series), then
// marks <body data-status="drawn"> and every chart with data-marks, the
// number of data elements it drew, so a headless browser can check it.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const W = 1100, PAD = { l: 64, r: 16, t: 12, b: 30 };
  const LINE = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"];
  const STATE = {
    CLOSED: "#4caf50", OPEN: "#e53935", HALF_OPEN: "#ffb300", FORCED_OPEN: "#6d4c41", FORCED_CLOSED: "#90a4ae",
    healthy: "#4caf50", down: "#e53935", degraded: "#ffb300",
  };
  const body = document.body;
  window.addEventListener("error", function (e) { body.dataset.status = "error: " + e.message; });

  function el(tag, attrs, parent) {
    const n = document.createElementNS(NS, tag);
    for (const k in attrs) n.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(n);
    return n;
  }
  function text(parent, x, y, s, anchor) {
    const t = el("text", { x: x, y: y, "text-anchor": anchor || "start" }, parent);
    t.textContent = s;
    return t;
  }
  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }
  function fmt(v) {
    if (Math.abs(v) >= 1000) return (v / 1000).toFixed(v >= 10000 ? 0 : 1) + "k";
    if (Math.abs(v) < 1 && v !== 0) return v.toFixed(3);
    return String(Math.round(v * 100) / 100);
  }
  const xmax = REPORT.minutes.length ? REPORT.minutes[REPORT.minutes.length - 1] : 1;

  // frame draws the axes, grid and outage shading of a chart h high whose
  // values go up to ymax, and returns its scales.
  function frame(svg, h, ymax, unit) {
    svg.setAttribute("viewBox", "0 0 " + W + " " + h);
    const iw = W - PAD.l - PAD.r, ih = h - PAD.t - PAD.b;
    const x = function (m) { return PAD.l + (m / xmax) * iw; };
    const y = function (v) { return PAD.t + ih - (v / ymax) * ih; };
    for (const b of REPORT.health) {
      if (b.state === "healthy") continue;
      el("rect", { x: x(b.from), y: PAD.t, width: Math.max(0, x(b.to) - x(b.from)), height: ih, fill: STATE[b.state], "fill-opacity": 0.08 }, svg);
    }
    for (let i = 0; i <= 4; i++) {
      const v = (ymax * i) / 4;
      el("line", { x1: PAD.l, x2: W - PAD.r, y1: y(v), y2: y(v), stroke: "#e3e8ee" }, svg);
      text(svg, PAD.l - 6, y(v) + 4, fmt(v) + (unit || ""), "end");
    }
    const step = niceMax(xmax / 10);
    for (let m = 0; m <= xmax + 1e-9; m += step) {
      el("line", { x1: x(m), x2: x(m), y1: PAD.t + ih, y2: PAD.t + ih + 4, stroke: "#889" }, svg);
      text(svg, x(m), PAD.t + ih + 17, fmt(m) + "m", "middle");
    }
    el("line", { x1: PAD.l, x2: W - PAD.r, y1: PAD.t + ih, y2: PAD.t + ih, stroke: "#889" }, svg);
    return { x: x, y: y };
  }

  function lineChart(id, field, opts) {
    const svg = document.getElementById(id);
    let top = opts && opts.capacity ? opts.capacity : 0;
    for (const s of REPORT.strategies) for (const v of s[field]) top = Math.max(top, v);
    const ymax = niceMax(top * 1.05);
    const sc = frame(svg, 240, ymax, opts && opts.unit);
    if (opts && opts.capacity) {
      el("line", { class: "mark", x1: PAD.l, x2: W - PAD.r, y1: sc.y(opts.capacity), y2: sc.y(opts.capacity), stroke: "#222", "stroke-dasharray": "6 4" }, svg);
      text(svg, W - PAD.r - 4, sc.y(opts.capacity) - 4, "capacity " + opts.capacity + "/s", "end");
    }
    REPORT.strategies.forEach(function (s, i) {
      let d = "M" + sc.x(0) + " " + sc.y(s[field][0] || 0);
      s[field].forEach(function (v, j) { d += " L" + sc.x(REPORT.minutes[j]).toFixed(1) + " " + sc.y(v).toFixed(1); });
      el("path", { class: "mark", d: d, fill: "none", stroke: LINE[i % LINE.length], "stroke-width": 1.8, "data-strategy": s.name }, svg);
    });
  }

  function statesChart(id) {
    const svg = document.getElementById(id);
    const rows = [{ label: "consumer", bands: REPORT.health }];
    for (const k of REPORT.breakers) rows.push({ label: "breaker " + k.key, bands: k.bands });
    const rh = 22, h = PAD.t + PAD.b + rows.length * rh + 18;
    svg.setAttribute("viewBox", "0 0 " + W + " " + h);
    const iw = W - PAD.l - PAD.r - 80;
    const left = PAD.l + 80;
    const x = function (m) { return left + (m / xmax) * iw; };
    rows.forEach(function (r, i) {
      const y = PAD.t + i * rh;
      text(svg, left - 6, y + 15, r.label, "end");
      for (const b of r.bands) {
        const w = Math.max(0.5, x(b.to) - x(b.from));
        const rect = el("rect", { class: "mark", x: x(b.from), y: y + 2, width: w, height: rh - 6, fill: STATE[b.state] || "#999" }, svg);
        el("title", {}, rect).textContent = r.label + ": " + b.state + " " + fmt(b.from) + "m to " + fmt(b.to) + "m";
      }
    });
    const ih = rows.length * rh;
    const step = niceMax(xmax / 10);
    for (let m = 0; m <= xmax + 1e-9; m += step) text(svg, x(m), PAD.t + ih + 17, fmt(m) + "m", "middle");
    let lx = left;
    for (const s of ["healthy", "down", "degraded", "CLOSED", "OPEN", "HALF_OPEN"]) {
      el("rect", { x: lx, y: h - 10, width: 10, height: 8, fill: STATE[s] }, svg);
      text(svg, lx + 14, h - 2, s);
      lx += 110;
    }
  }

  function legend() {
    const box = document.getElementById("legend");
    REPORT.strategies.forEach(function (s, i) {
      const span = document.createElement("span");
      const swatch = document.createElement("i");
      swatch.style.background = LINE[i % LINE.length];
      span.appendChild(swatch);
      span.appendChild(document.createTextNode(s.name));
      box.appendChild(span);
    });
  }

  try {
    legend();
    statesChart("chart-states");
    lineChart("chart-calls", "peakPerSecond", { capacity: REPORT.capacity, unit: "/s" });
    lineChart("chart-backlog", "backlog");
    lineChart("chart-delivered", "delivered");
    lineChart("chart-cost", "cost", { unit: "" });
    for (const svg of document.querySelectorAll("svg.chart")) {
      svg.dataset.marks = String(svg.querySelectorAll(".mark").length);
    }
    if (!body.dataset.status.startsWith("error")) body.dataset.status = "drawn";
  } catch (e) {
    body.dataset.status = "error: " + (e && e.message ? e.message : e);
  }
})();
