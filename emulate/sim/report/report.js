// Draws the report's charts as inline SVG from REPORT (the Series): every
// <svg class="chart"> on the page, by its data-chart name (see CHARTS).
// Then marks <body data-status="drawn"> and every chart with data-marks,
// the number of data elements it drew, so a headless browser can check it.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  // A line chart's top band holds its legend.
  const W = 1100, PAD = { l: 64, r: 16, t: 34, b: 30 };
  // LINE are the strategies' colours and STROKE their line styles, by the
  // strategy's index: drawn in that order, the first (a wide, light solid
  // band) lies under the dashed and the dotted lines, which stay visible
  // on it, and it around and between them, where lines overlap.
  const LINE = ["#1b9e77", "#d95f02", "#5e57b0", "#e7298a", "#66a61e"];
  const STROKE = [
    { width: 6, dash: "", cap: "butt", opacity: 0.55 },
    { width: 2, dash: "9 5", cap: "butt", opacity: 1 },
    { width: 3.2, dash: "0.1 6", cap: "round", opacity: 1 },
  ];
  // HEALTH and BREAKER are the state strip's colours: each state its own,
  // the consumer's health apart from the breakers' states.
  const HEALTH = { healthy: "#a5d6a7", degraded: "#fdd835", down: "#616161" };
  const BREAKER = { CLOSED: "#1e88e5", HALF_OPEN: "#fb8c00", OPEN: "#d81b60", FORCED_OPEN: "#6d4c41", FORCED_CLOSED: "#80deea" };
  // SHADE is the line charts' shading of the consumer's unhealthy stretches.
  const SHADE = { down: "#e53935", degraded: "#ffb300" };
  // TIME_STEPS are the time axis's round steps, in minutes.
  const TIME_STEPS = [0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440];
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
  // round drops floating-point noise: 0.30000000000000004 is 0.3.
  function round(v) { return Number(v.toPrecision(12)); }
  // niceStep is the least round value (1, 2 or 5 x 10^n) at or above
  // span / parts.
  function niceStep(span, parts) {
    const raw = span / parts;
    if (!(raw > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (round(m * p) >= raw) return round(m * p);
    return round(10 * p);
  }
  // fmt formats a count or a rate: 0.5, 20, 1.5k, 20k, 2M.
  function fmt(v) {
    const a = Math.abs(v);
    if (a >= 1e6) return round(v / 1e6) + "M";
    if (a >= 1e3) return round(v / 1e3) + "k";
    return String(round(v));
  }
  // dollars formats the ticks of a dollar axis step apart: $0.005, $2.
  function dollars(step) {
    const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    return function (v) { return "$" + v.toFixed(decimals); };
  }
  // duration formats minutes as 0 min, 30 s, 5 min, 1 h, 1 h 30 min.
  function duration(m) {
    const s = Math.round(m * 60);
    if (s === 0) return "0 min";
    const parts = [];
    if (s >= 3600) parts.push(Math.floor(s / 3600) + " h");
    if (s % 3600 >= 60) parts.push(Math.floor((s % 3600) / 60) + " min");
    if (s % 60) parts.push((s % 60) + " s");
    return parts.join(" ");
  }

  // linear is a y scale from 0 to the round value at or above top, with a
  // tick every round step (about 4 of them).
  function linear(top) {
    const step = niceStep(top > 0 ? top : 1, 4);
    const ymax = round(Math.max(1, Math.ceil(round(top / step))) * step);
    const ticks = [];
    for (let i = 0; round(i * step) <= ymax; i++) ticks.push(round(i * step));
    return { ticks: ticks, step: step, frac: function (v) { return v / ymax; } };
  }
  // logScale is a y scale of log10(1 + v), so 0 stays on the axis and 11
  // shows beside 25,000, up to the round value at or above top; ticks at 0
  // and 1, 2, 5 x 10^n, or only the powers of ten when those would crowd.
  function logScale(top) {
    const ymax = niceStep(Math.max(top, 1), 1);
    let ticks = [{ v: 0, major: true }];
    for (let p = 1; p <= ymax; p *= 10) {
      for (const m of [1, 2, 5]) if (m * p <= ymax) ticks.push({ v: m * p, major: m === 1 || m * p === ymax });
    }
    if (ticks.length > 9) ticks = ticks.filter(function (t) { return t.major; });
    const log = Math.log10(1 + ymax);
    return {
      ticks: ticks.map(function (t) { return t.v; }),
      frac: function (v) { return Math.log10(1 + Math.max(0, v)) / log; },
    };
  }

  const xmax = REPORT.minutes.length ? REPORT.minutes[REPORT.minutes.length - 1] : 1;
  const xstep = TIME_STEPS.find(function (s) { return xmax / s <= 10; }) || TIME_STEPS[TIME_STEPS.length - 1];

  // timeAxis draws the time ticks of x (minutes to pixels) below y.
  function timeAxis(svg, x, y) {
    for (let i = 0; round(i * xstep) <= xmax; i++) {
      const m = round(i * xstep);
      el("line", { x1: x(m), x2: x(m), y1: y, y2: y + 4, stroke: "#889" }, svg);
      text(svg, x(m), y + 17, duration(m), "middle");
    }
  }

  // frame draws the axes, grid and outage shading of a chart h high on
  // the y scale sc, its ticks labelled by label, and returns its x and y.
  function frame(svg, h, sc, label) {
    svg.setAttribute("viewBox", "0 0 " + W + " " + h);
    const iw = W - PAD.l - PAD.r, ih = h - PAD.t - PAD.b;
    const x = function (m) { return PAD.l + (m / xmax) * iw; };
    const y = function (v) { return PAD.t + ih - sc.frac(v) * ih; };
    for (const b of REPORT.health) {
      if (b.state === "healthy") continue;
      el("rect", { x: x(b.from), y: PAD.t, width: Math.max(0, x(b.to) - x(b.from)), height: ih, fill: SHADE[b.state], "fill-opacity": 0.08 }, svg);
    }
    for (const v of sc.ticks) {
      el("line", { x1: PAD.l, x2: W - PAD.r, y1: y(v), y2: y(v), stroke: "#e3e8ee" }, svg);
      text(svg, PAD.l - 6, y(v) + 4, label(v), "end");
    }
    timeAxis(svg, x, PAD.t + ih);
    el("line", { x1: PAD.l, x2: W - PAD.r, y1: PAD.t + ih, y2: PAD.t + ih, stroke: "#889" }, svg);
    return { x: x, y: y };
  }

  // stroke is the line style of the strategy at index i.
  function stroke(i) {
    const st = STROKE[i % STROKE.length];
    const attrs = { stroke: LINE[i % LINE.length], "stroke-width": st.width, "stroke-linecap": st.cap, "stroke-opacity": st.opacity, fill: "none" };
    if (st.dash) attrs["stroke-dasharray"] = st.dash;
    return attrs;
  }

  // legend draws a chart's key in a row from (x, y): each entry a line
  // (entry.line, its attributes) or a swatch (entry.fill, entry.opacity)
  // and its name. Its group carries data-entries, the entries' count.
  function legend(svg, x, y, entries) {
    const g = el("g", { class: "legend", "data-entries": entries.length }, svg);
    for (const e of entries) {
      const item = el("g", { class: "entry" }, g);
      if (e.line) {
        el("line", Object.assign({ x1: x, x2: x + 28, y1: y - 4, y2: y - 4 }, e.line), item);
      } else {
        el("rect", { x: x + 4, y: y - 10, width: 20, height: 11, fill: e.fill, "fill-opacity": e.opacity || 1, stroke: "#889", "stroke-width": 0.5 }, item);
      }
      const t = el("text", { class: "key", x: x + 34, y: y }, item);
      t.textContent = e.name;
      x += 34 + t.getComputedTextLength() + 22;
    }
  }

  // shadeEntries are the legend's entries of the outage shading.
  function shadeEntries() {
    const seen = {};
    for (const b of REPORT.health) if (SHADE[b.state]) seen[b.state] = true;
    return Object.keys(seen).map(function (s) { return { fill: SHADE[s], opacity: 0.15, name: "consumer " + s }; });
  }

  // lineChart draws each strategy's series field (strategies without it
  // are left out), on a log scale if opts.log, with the consumer's
  // capacity if opts.capacity, ticks in dollars if opts.dollars or else
  // followed by opts.unit, and a legend of what it drew.
  function lineChart(svg, field, opts) {
    opts = opts || {};
    const lines = REPORT.strategies.filter(function (s) { return s[field]; });
    let top = opts.capacity || 0;
    for (const s of lines) for (const v of s[field]) top = Math.max(top, v);
    const sc = opts.log ? logScale(top) : linear(top);
    const label = opts.dollars ? dollars(sc.step) : function (v) { return fmt(v) + (opts.unit || ""); };
    const f = frame(svg, 264, sc, label);
    const entries = [];
    const capacity = { stroke: "#222", "stroke-width": 1, "stroke-dasharray": "6 4" };
    if (opts.capacity) {
      el("line", Object.assign({ class: "mark", x1: PAD.l, x2: W - PAD.r, y1: f.y(opts.capacity), y2: f.y(opts.capacity) }, capacity), svg);
      text(svg, W - PAD.r - 4, f.y(opts.capacity) - 4, "capacity " + opts.capacity + "/s", "end");
    }
    for (const s of lines) {
      let d = "M" + f.x(0) + " " + f.y(s[field][0] || 0);
      s[field].forEach(function (v, j) { d += " L" + f.x(REPORT.minutes[j]).toFixed(1) + " " + f.y(v).toFixed(1); });
      const attrs = stroke(REPORT.strategies.indexOf(s));
      el("path", Object.assign({ class: "mark", d: d, "data-strategy": s.name }, attrs), svg);
      entries.push({ line: attrs, name: s.name });
    }
    if (opts.capacity) entries.push({ line: capacity, name: "the consumer's capacity" });
    legend(svg, PAD.l, 18, entries.concat(shadeEntries()));
  }

  // statesChart draws the consumer's health and each breaker's states in
  // strips, with a legend of each.
  function statesChart(svg) {
    const rows = [{ label: "consumer", bands: REPORT.health, colors: HEALTH }];
    for (const k of REPORT.breakers) rows.push({ label: "breaker " + k.key, bands: k.bands, colors: BREAKER });
    const keys = [{ name: "consumer:", colors: HEALTH }];
    if (REPORT.breakers.length) keys.push({ name: "breaker:", colors: BREAKER });
    const rh = 22, top = 8 + keys.length * 20, h = top + PAD.b + rows.length * rh;
    svg.setAttribute("viewBox", "0 0 " + W + " " + h);
    const iw = W - PAD.l - PAD.r - 80;
    const left = PAD.l + 80;
    const x = function (m) { return left + (m / xmax) * iw; };
    keys.forEach(function (k, i) {
      const y = 18 + i * 20;
      el("text", { class: "key", x: left - 6, y: y, "text-anchor": "end" }, svg).textContent = k.name;
      legend(svg, left - 4, y, Object.keys(k.colors).map(function (s) { return { fill: k.colors[s], name: s }; }));
    });
    rows.forEach(function (r, i) {
      const y = top + i * rh;
      text(svg, left - 6, y + 15, r.label, "end");
      for (const b of r.bands) {
        const w = Math.max(0.5, x(b.to) - x(b.from));
        const rect = el("rect", { class: "mark", x: x(b.from), y: y + 2, width: w, height: rh - 6, fill: r.colors[b.state] || "#999", "data-state": b.state }, svg);
        el("title", {}, rect).textContent = r.label + ": " + b.state + " from " + duration(b.from) + " to " + duration(b.to);
      }
    });
    timeAxis(svg, x, top + rows.length * rh);
  }

  // CHARTS draw a chart by its data-chart name.
  const CHARTS = {
    states: statesChart,
    calls: function (svg) { lineChart(svg, "peakPerSecond", { log: true, capacity: REPORT.capacity, unit: "/s" }); },
    backlog: function (svg) { lineChart(svg, "backlog"); },
    delivered: function (svg) { lineChart(svg, "delivered"); },
    parked: function (svg) { lineChart(svg, "parked", { log: true }); },
    cost: function (svg) { lineChart(svg, "cost", { dollars: true }); },
    room: function (svg) { lineChart(svg, "roomDepth"); },
    releases: function (svg) { lineChart(svg, "releaseRate", { capacity: REPORT.capacity, unit: "/s" }); },
  };

  try {
    for (const svg of document.querySelectorAll("svg.chart")) {
      const draw = CHARTS[svg.dataset.chart];
      if (!draw) throw new Error("no chart named " + svg.dataset.chart);
      draw(svg);
      svg.dataset.marks = String(svg.querySelectorAll(".mark").length);
    }
    if (!body.dataset.status.startsWith("error")) body.dataset.status = "drawn";
  } catch (e) {
    body.dataset.status = "error: " + (e && e.message ? e.message : e);
  }
})();
