// The hex map: SVG drawn from the server's board export, with counters, highlights, pan and zoom.
//
// Everything is in hex-size units (centre to corner = 1). The SVG shows a window of the map (the
// whole map when it fits, else the screen and half a screen around it) at the current zoom, in a
// composited layer moved by a CSS transform: panning repaints nothing (the browser moves the
// bitmap it has) until the screen leaves the window, which is then drawn again around it; a
// zoom is drawn again only once the wheel stops (meanwhile the bitmap is scaled). Terrain is one <path> per terrain type, hex
// outlines one <path>, and clicks are mapped back to a hex with the inverse of the layout
// formula, so a 2,000-hex map stays a few dozen DOM nodes plus labels.

const SVGNS = "http://www.w3.org/2000/svg";
const MARGIN = 1; // map units drawn around the board's bounds (box frames, names)
const PAD = 0.5; // the window drawn around the screen, in screens
const SQRT3 = Math.sqrt(3);

export function el(tag, attrs = {}, parent = null) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  }
  if (parent) parent.appendChild(e);
  return e;
}

const SIDE_COLOURS = {
  blue: "#2f5fa8", red: "#a83232", green: "#2f7d46", grey: "#6b6b6b", gray: "#6b6b6b",
  black: "#333333", white: "#d8d8d8", yellow: "#b8a22c", orange: "#c06a22", brown: "#7b5632",
  allies: "#2f5fa8", allied: "#2f5fa8", entente: "#2f5fa8", axis: "#5a5a5a",
  central: "#5a5a5a", "central powers": "#5a5a5a", germany: "#5a5a5a", german: "#5a5a5a",
  france: "#3b6fd0", french: "#3b6fd0", britain: "#a8643a", british: "#a8643a",
  russia: "#3e8a4c", russian: "#3e8a4c", austria: "#c8b040", usa: "#6b8e23",
};
const FALLBACK = ["#2f5fa8", "#a83232", "#2f7d46", "#b8862c", "#6a3fa0", "#2b8a8a"];

export function sideColour(side, sides) {
  const key = String(side || "").toLowerCase();
  if (SIDE_COLOURS[key]) return SIDE_COLOURS[key];
  const i = Math.max(0, (sides || []).indexOf(side));
  return FALLBACK[i % FALLBACK.length];
}

// The numbers printed on a counter: the values of the face that is up, changed attributes first.
export function counterValues(p) {
  const face = (p.faces && p.faces[p.face]) || {};
  const vals = [];
  for (const [k, v] of Object.entries(face)) {
    const cur = p.attrs && k in p.attrs ? p.attrs[k] : v;
    if (typeof cur === "number") vals.push(String(cur));
    else if (cur && typeof cur === "object" && "$frac" in cur) vals.push(cur.$frac);
  }
  return vals.join("-");
}

export function isReduced(p) {
  const names = Object.keys(p.faces || {});
  return names.length > 1 && p.face !== names[0];
}

// NATO unit-type symbol for a piece type (and its name): the kind of symbol drawn in the
// counter's frame. Rule systems name their types freely, so this reads keywords.
// (naval before artillery: a gunboat is a boat)
const SYMBOL_WORDS = [
  ["hq", /(^|[^a-z])(hq|hqs|headquarters|ghq)([^a-z]|$)|-hq$|^hq-/],
  ["armour", /armou?r|tank|panzer|char/],
  ["mech", /mech|motori[sz]ed|panzergren|c\/m/],
  ["cavalry", /cav|horse|camel|kavall|recon/],
  ["naval", /ship|naval|fleet|flotilla|gunboat|transport|cruiser|destroyer|battleship|monitor|\bsub/],
  ["artillery", /art|gun|battery|siege|mortar|howitz|coast|cd$|^cd-|rocket/],
  ["engineer", /engineer|pioneer|sapper/],
  ["air", /air|fighter|bomber|ju ?88|vvs|plane|aviation|kg |zeppelin/],
  ["supply", /supply|msu|res-?pt|resource|depot/],
  ["fort", /fort|garrison/],
  ["infantry", /inf|rifle|div|corps|regiment|brigade|jaeger|jäger|mountain|territorial|militia|guard/],
];

export function unitSymbol(p) {
  const t = `${p.type || ""} ${p.name || ""}`.toLowerCase();
  for (const [sym, re] of SYMBOL_WORDS) if (re.test(t)) return sym;
  return "unit";
}

// Draw the symbol in a frame centred at (0, cy), width w (map units), into group g.
export function drawSymbol(g, sym, cy, w = 0.46, stroke = "#fff") {
  const h = w * 0.62, x0 = -w / 2, y0 = cy - h / 2, sw = 0.03;
  const line = (d) => el("path", { d, stroke, "stroke-width": sw, fill: "none" }, g);
  if (sym === "air") {
    line(`M${x0} ${cy} Q${x0 + w / 4} ${y0} 0 ${cy} Q${x0 + 3 * w / 4} ${y0} ${x0 + w} ${cy}`);
    return;
  }
  if (sym === "naval") {
    line(`M${x0} ${cy} L${x0 + w} ${cy} L${x0 + 0.8 * w} ${y0 + h} L${x0 + 0.2 * w} ${y0 + h} Z M0 ${cy} V${y0}`);
    return;
  }
  el("rect", { x: x0, y: y0, width: w, height: h, stroke, "stroke-width": sw, fill: "none", class: "nato" }, g);
  if (sym === "infantry" || sym === "mech") line(`M${x0} ${y0}L${x0 + w} ${y0 + h}M${x0} ${y0 + h}L${x0 + w} ${y0}`);
  if (sym === "cavalry" || sym === "mech") line(`M${x0} ${y0 + h}L${x0 + w} ${y0}`);
  if (sym === "armour" || sym === "mech") el("ellipse", { cx: 0, cy, rx: w * 0.32, ry: h * 0.28, stroke, "stroke-width": sw, fill: "none" }, g);
  if (sym === "artillery") el("circle", { cx: 0, cy, r: h * 0.16, fill: stroke }, g);
  if (sym === "engineer") line(`M${x0 + w * 0.2} ${cy + h * 0.15}V${cy - h * 0.15}H${x0 + w * 0.8}V${cy + h * 0.15}M0 ${cy - h * 0.15}V${cy + h * 0.15}`);
  if (sym === "supply") line(`M${x0} ${y0 + h * 0.72}H${x0 + w}`);
  if (sym === "fort") line(`M${x0 + w * 0.15} ${cy}h${w * 0.14}v${-h * 0.2}h${w * 0.14}v${h * 0.2}h${w * 0.14}v${-h * 0.2}h${w * 0.14}v${h * 0.2}h${w * 0.14}`);
  if (sym === "hq") line(`M${x0} ${y0 + h * 0.5}H${x0 + w}M${x0} ${y0}V${y0 + h + h * 0.5}`);
}

// A short name for a counter: well-known words abbreviated, parentheses dropped, at most n chars.
const ABBREV = [
  [/\bInfantry\b/g, "Inf"], [/\bDivision\b/g, "Div"], [/\bReserve\b/g, "Res"], [/\bCavalry\b/g, "Cav"],
  [/\bArtillery\b/g, "Art"], [/\bHeavy\b/g, "Hvy"], [/\bCorps HQs?\b/g, "Corps"], [/\bArmy HQs?\b/g, "Army"],
  [/\bHeadquarters\b/g, "HQ"], [/\bBrigade\b/g, "Bde"], [/\bRegiment\b/g, "Rgt"], [/\bTerritorial\b/g, "Terr"],
  [/\bMountain\b/g, "Mtn"], [/\bGuards?\b/g, "Gd"], [/\bFoot\b/g, "Ft"], [/\bRifle\b/g, "Rif"],
  [/\bGarrison\b/g, "Garr"], [/\bFlotilla\b/g, "Flot"], [/\bFighters?\b/g, "Ftr"], [/\bArmy\b/g, "Army"],
];
export function shortName(p, n = 11) {
  let t = String(p.name || p.id || "").replace(/\s*\(.*?\)\s*/g, " ").trim();
  for (const [re, to] of ABBREV) t = t.replace(re, to);
  t = t.replace(/\s+/g, " ").trim();
  if (t.length <= n) return t;
  const words = t.split(" ");
  let out = "";
  for (const w of words) {
    if ((out ? out.length + 1 : 0) + w.length > n) break;
    out = out ? `${out} ${w}` : w;
  }
  return out || t.slice(0, n);
}

// The piece drawn on top of a stack: a combat unit rather than an HQ or a marker (an HQ's 0-0-8
// must not hide the divisions under it); the inspector lists every counter.
export function stackTop(pieces) {
  const strength = (p) => {
    const f = (p.faces && p.faces[p.face]) || {};
    return Number(f.attack || 0) + Number(f.defense || 0) + Number(f.strength || 0);
  };
  let best = null;
  for (const p of pieces) {
    const hq = unitSymbol(p) === "hq";
    const key = [hq ? 0 : 1, strength(p)];
    if (!best || key[0] > best.key[0] || (key[0] === best.key[0] && key[1] >= best.key[1])) best = { p, key };
  }
  return best ? best.p : null;
}

function addPatterns(defs) {
  const mk = (id, w, draw) => {
    const pat = el("pattern", { id, patternUnits: "userSpaceOnUse", width: w, height: w }, defs);
    draw(pat);
  };
  mk("pat-trees", 0.5, (p) => {
    el("circle", { cx: 0.12, cy: 0.12, r: 0.07, fill: "#4f8a3c", "fill-opacity": 0.55 }, p);
    el("circle", { cx: 0.37, cy: 0.37, r: 0.07, fill: "#4f8a3c", "fill-opacity": 0.55 }, p);
  });
  mk("pat-dots", 0.34, (p) => el("circle", { cx: 0.17, cy: 0.17, r: 0.025, fill: "#7a6440" }, p));
  mk("pat-hills", 0.6, (p) =>
    el("path", { d: "M0.05 0.4 Q0.3 0.1 0.55 0.4", fill: "none", stroke: "#8a6a3a", "stroke-width": 0.035 }, p));
  mk("pat-peaks", 0.7, (p) =>
    el("path", { d: "M0.1 0.55 L0.35 0.15 L0.6 0.55", fill: "none", stroke: "#5e4630", "stroke-width": 0.04 }, p));
  mk("pat-marsh", 0.45, (p) => {
    el("path", { d: "M0.05 0.2 H0.4 M0.12 0.32 H0.33", stroke: "#4d7d6a", "stroke-width": 0.03 }, p);
  });
  mk("pat-grid", 0.3, (p) =>
    el("path", { d: "M0 0 H0.3 M0 0 V0.3", stroke: "#7d7068", "stroke-width": 0.03, fill: "none" }, p));
  mk("pat-waves", 0.6, (p) =>
    el("path", { d: "M0.05 0.3 q0.125 -0.1 0.25 0 t0.25 0", fill: "none", stroke: "#5d8fbf", "stroke-width": 0.03 }, p));
}

export class MapView {
  constructor(container, board, handlers = {}) {
    this.container = container;
    this.board = board;
    this.handlers = handlers;
    this.pointy = board.orientation === "pointy";
    this.k = 40;
    this.tx = 0;
    this.ty = 0;
    this.pending = false;
    this.kr = 0; // the zoom the SVG is drawn at
    this.viewKey = handlers.viewKey || null; // localStorage key where zoom and position are kept
    this.hexIndex = new Map(); // "q,r" -> hex row
    this.byId = new Map(); // printed id -> hex row
    for (const h of board.hexes) {
      this.hexIndex.set(`${h[4]},${h[5]}`, h);
      this.byId.set(h[0], h);
    }
    // where pieces in an area (a sea zone) or an anchored box (a port box) are drawn
    this.areaAt = new Map((board.areas || []).filter((a) => a.centre).map((a) => [a.name, a.centre]));
    this.boxAt = new Map((board.boxes || []).filter((b) => b.anchor).map((b) => [b.name, b.anchor]));
  }

  // Map position of a piece location ["hex", id] / ["area", name] / ["box", name] (null: off the map).
  locPoint(loc) {
    if (loc[0] === "hex") return this.centre(loc[1]);
    if (loc[0] === "area") return this.areaAt.get(loc[1]) || null;
    if (loc[0] === "box") return this.boxAt.get(loc[1]) || null;
    if (loc[0] === "hexside") {
      // "0302/0402": the midpoint of the two hex centres (a piece on a hexside, e.g. a gunboat)
      const [a, b] = String(loc[1]).split("/").map((x) => this.centre(x));
      if (a && b) return [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      return a || b || null;
    }
    return null;
  }

  centre(id) {
    const h = this.byId.get(id);
    return h ? [h[1], h[2]] : null;
  }

  hexPath(x, y, scale = 1) {
    const c = this.board.corners;
    let d = `M${(x + c[0][0] * scale).toFixed(3)} ${(y + c[0][1] * scale).toFixed(3)}`;
    for (let i = 1; i < 6; i++) d += `L${(x + c[i][0] * scale).toFixed(3)} ${(y + c[i][1] * scale).toFixed(3)}`;
    return d + "Z";
  }

  render() {
    const t0 = performance.now();
    const b = this.board;
    const [bx, by, bw, bh] = b.bounds;
    const m = MARGIN;
    this.origin = [bx - m, by - m];
    this.extent = [bw + 2 * m, bh + 2 * m];
    const svg = el("svg", { class: "map", xmlns: SVGNS, "data-testid": "map", preserveAspectRatio: "none" });
    this.svg = svg;
    const pan = document.createElement("div");
    pan.className = "map-pan";
    pan.append(svg);
    this.pan = pan;
    const defs = el("defs", {}, svg);
    addPatterns(defs);
    const vp = el("g", { class: "viewport" }, svg);
    this.vp = vp;
    // terrain: one filled path per terrain type, plus its pattern overlay
    const byTerrain = b.terrain.map(() => []);
    for (const h of b.hexes) byTerrain[h[3]].push(this.hexPath(h[1], h[2]));
    const gTerrain = el("g", { class: "terrain" }, vp);
    b.terrain.forEach((t, i) => {
      if (!byTerrain[i].length) return;
      const d = byTerrain[i].join("");
      el("path", { d, fill: t.fill, "data-terrain": t.name }, gTerrain);
      if (t.pattern) el("path", { d, fill: `url(#pat-${t.pattern})`, "pointer-events": "none" }, gTerrain);
    });
    el("path", { class: "grid", d: b.hexes.map((h) => this.hexPath(h[1], h[2])).join(""), fill: "none" }, vp);
    // line networks (rail, road) from centre to centre
    const gNet = el("g", { class: "networks" }, vp);
    for (const n of b.networks) {
      const d = n.segments.map((s) => `M${s[0]} ${s[1]}L${s[2]} ${s[3]}`).join("");
      el("path", { d, stroke: n.stroke, "stroke-width": n.width, "stroke-dasharray": n.dash, fill: "none",
        "stroke-linecap": "round", "data-network": n.name }, gNet);
    }
    // hexside features (rivers, walls, borders)
    const gSides = el("g", { class: "sides" }, vp);
    const byFeature = {};
    for (const s of b.sides) {
      for (const f of s.features) (byFeature[f] ||= []).push(`M${s.seg[0]} ${s.seg[1]}L${s.seg[2]} ${s.seg[3]}`);
    }
    for (const [f, segs] of Object.entries(byFeature)) {
      const st = b.features[f] || { stroke: "#555", width: 0.08 };
      el("path", { d: segs.join(""), stroke: st.stroke, "stroke-width": st.width, "stroke-dasharray": st.dash,
        "stroke-linecap": "round", fill: "none", "data-feature": f }, gSides);
    }
    // areas (sea zones, weather zones...): dashed outline and name
    const gAreas = el("g", { class: "areas" }, vp);
    for (const a of b.areas || []) {
      if (!a.outline || !a.outline.length) continue;
      const d = a.outline.map((q) => `M${q[0]} ${q[1]}L${q[2]} ${q[3]}`).join("");
      el("path", { d, class: "area-outline", fill: "none", "data-area": a.name }, gAreas);
      if (a.centre) {
        const t = el("text", { class: "area-name", x: a.centre[0], y: a.centre[1] + 0.75, "text-anchor": "middle",
          "data-select": `area:${a.name}` }, gAreas);
        t.textContent = a.name;
      }
    }
    // boxes anchored next to a hex (port boxes): a labelled frame; the others are listed beside the map
    const gBoxes = el("g", { class: "map-boxes" }, vp);
    for (const bx of b.boxes || []) {
      if (!bx.anchor) continue;
      const g = el("g", { transform: `translate(${bx.anchor[0]} ${bx.anchor[1]})`, "data-box": bx.name,
        "data-select": `box:${bx.name}` }, gBoxes);
      el("rect", { class: "box-frame", x: -0.3, y: -0.3, width: 0.6, height: 0.6, rx: 0.05 }, g);
      const t = el("text", { class: "box-name", x: 0, y: 0.45, "text-anchor": "middle" }, g);
      t.textContent = bx.name;
    }
    this.gControl = el("g", { class: "control" }, vp);
    // places
    const gPlaces = el("g", { class: "places" }, vp);
    for (const p of b.places) {
      const c = this.centre(p.hex);
      if (!c) continue;
      const g = el("g", { transform: `translate(${c[0]} ${c[1]})`, "data-place": p.kind }, gPlaces);
      const kind = p.kind.toLowerCase();
      if (kind.includes("port")) {
        el("circle", { cx: 0.45, cy: -0.45, r: 0.14, fill: "#fff", stroke: "#1f4f8a", "stroke-width": 0.04 }, g);
        el("path", { d: "M0.45 -0.55 V-0.35 M0.38 -0.4 Q0.45 -0.33 0.52 -0.4", stroke: "#1f4f8a",
          "stroke-width": 0.035, fill: "none" }, g);
      } else if (kind.includes("objective") || kind.includes("victory")) {
        el("path", { d: starPath(0, -0.5, 0.2, 0.09), fill: "#c8102e", stroke: "#5a0010", "stroke-width": 0.02 }, g);
      } else if (kind.includes("fort")) {
        el("rect", { x: -0.16, y: -0.66, width: 0.32, height: 0.24, fill: "#555", stroke: "#111", "stroke-width": 0.02 }, g);
      } else {
        el("rect", { x: -0.13, y: -0.63, width: 0.26, height: 0.26, fill: kind.includes("capital") ? "#c8102e" : "#333",
          stroke: "#fff", "stroke-width": 0.03 }, g);
      }
      if (p.name) {
        const t = el("text", { class: "place-name", x: 0, y: 0.78, "text-anchor": "middle" }, g);
        t.textContent = p.name;
      }
    }
    // printed hex ids (shown only when zoomed in)
    const gLabels = el("g", { class: "labels" }, vp);
    const dy = this.pointy ? -0.55 : -0.62;
    for (const h of b.hexes) {
      const t = el("text", { x: h[1], y: (h[2] + dy).toFixed(3), "text-anchor": "middle" }, gLabels);
      t.textContent = h[0];
    }
    this.gHi = el("g", { class: "highlights" }, vp);
    this.gCounters = el("g", { class: "counters" }, vp);
    this.container.replaceChildren(pan);
    this.measure();
    this.addControls();
    if (!this.restoreView()) this.fit();
    this.attach();
    this.watchSize();
    this.renderMs = performance.now() - t0;
    return this.renderMs;
  }

  // The container's size, read once and then kept by a ResizeObserver (never read per frame).
  measure() {
    this.W = this.container.clientWidth || 800;
    this.H = this.container.clientHeight || 600;
  }

  // When the map box changes size (the phase bar or the panel filling in), the map point at the
  // centre stays at the centre: a remembered view does not drift when the page settles.
  watchSize() {
    if (typeof ResizeObserver === "undefined") return;
    this.resizer = new ResizeObserver(() => {
      const W = this.container.clientWidth, H = this.container.clientHeight;
      if (!W || !H || (W === this.W && H === this.H)) return;
      this.tx += (W - this.W) / 2;
      this.ty += (H - this.H) / 2;
      this.W = W;
      this.H = H;
      this.apply();
    });
    this.resizer.observe(this.container);
  }

  fit() {
    const [x, y, w, h] = this.board.bounds;
    const W = this.W, H = this.H;
    this.k = Math.max(4, Math.min(80, Math.min(W / w, H / h)));
    this.tx = (W - w * this.k) / 2 - x * this.k;
    this.ty = (H - h * this.k) / 2 - y * this.k;
    this.apply();
  }

  // Pan and zoom. The SVG is drawn at the zoom kr ("settled"); a pan only moves its layer, a zoom
  // not yet settled scales the layer by k / kr until settle() draws it again at k.
  apply(settle = true) {
    if (settle) this.settle();
    if (this.k === this.kr && this.leftWindow()) this.layout();
    const [ox, oy] = this.win;
    const X = Math.round(this.tx + ox * this.k), Y = Math.round(this.ty + oy * this.k);
    const f = this.k / this.kr;
    this.pan.style.transform = Math.abs(f - 1) < 1e-9 ? `translate(${X}px, ${Y}px)` : `translate(${X}px, ${Y}px) scale(${f.toFixed(5)})`;
    this.updateMini();
    this.saveView();
  }

  settle() {
    if (this.k === this.kr) return;
    clearTimeout(this.settleTimer);
    this.kr = this.k;
    this.layout();
    // level of detail: hex ids and counter names only when near enough to read them
    this.svg.classList.toggle("zoomed", this.k >= 30);
    this.svg.classList.toggle("near", this.k >= 18);
    this.svg.classList.toggle("far", this.k < 12);
    // a layer of its own (moved without repainting) unless the 2,000 hex ids show: a layer with
    // that much text is redrawn at every move, slower than painting the screen's part of the map
    this.pan.classList.toggle("layer", this.k < 30);
    // text that keeps its screen size at every zoom (place names, area names)
    this.svg.style.setProperty("--inv", (1 / this.k).toFixed(5));
  }

  // The window of the map the SVG draws, in map units: per axis the whole map if it fits in the
  // screen and its pads, else the screen and a pad either side.
  layout() {
    const k = this.k;
    const axis = (o, e, t, S) => {
      const span = (S * (1 + 2 * PAD)) / k;
      return span >= e ? [o, e] : [-t / k - (S * PAD) / k, span];
    };
    const [x0, ww] = axis(this.origin[0], this.extent[0], this.tx, this.W);
    const [y0, wh] = axis(this.origin[1], this.extent[1], this.ty, this.H);
    this.win = [x0, y0, ww, wh];
    this.layouts = (this.layouts || 0) + 1;
    this.svg.setAttribute("viewBox", `${x0.toFixed(3)} ${y0.toFixed(3)} ${ww.toFixed(3)} ${wh.toFixed(3)}`);
    this.svg.setAttribute("width", (ww * k).toFixed(1));
    this.svg.setAttribute("height", (wh * k).toFixed(1));
  }

  // Does the part of the map on screen reach outside the window drawn?
  leftWindow() {
    if (!this.win) return true;
    const k = this.k, [x0, y0, ww, wh] = this.win;
    const out = (t, S, o, e, w0, ws) => {
      const a = Math.max(-t / k, o), b = Math.min((S - t) / k, o + e);
      return a < b && (a < w0 - 1e-6 || b > w0 + ws + 1e-6);
    };
    return out(this.tx, this.W, this.origin[0], this.extent[0], x0, ww) ||
      out(this.ty, this.H, this.origin[1], this.extent[1], y0, wh);
  }

  // ---------------------------------------------------------------- zoom controls, mini-map, view memory
  addControls() {
    const box = document.createElement("div");
    box.className = "map-controls";
    const btn = (label, title, testid, fn) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = title;
      b.dataset.testid = testid;
      b.addEventListener("click", (e) => { e.stopPropagation(); fn(); });
      box.append(b);
    };
    const mid = () => [this.container.clientWidth / 2, this.container.clientHeight / 2];
    btn("+", "Zoom in", "zoom-in", () => { const [x, y] = mid(); this.zoomAt(x, y, 1.5); });
    btn("\u2212", "Zoom out", "zoom-out", () => { const [x, y] = mid(); this.zoomAt(x, y, 1 / 1.5); });
    btn("Fit", "Fit the whole map", "zoom-fit", () => this.fit());
    this.container.append(box);
    // overview mini-map: the terrain drawn again, small, with the visible part outlined
    // (its terrain in flat colours, drawn once; the visible part is a frame moved over it, so
    // panning never repaints the mini-map either)
    const [bx, by, bw, bh] = this.board.bounds;
    const mini = document.createElement("div");
    mini.className = "minimap";
    mini.dataset.testid = "minimap";
    const msvg = el("svg", { viewBox: `${bx} ${by} ${bw} ${bh}`, preserveAspectRatio: "xMidYMid meet" });
    const terr = this.svg.querySelector(".terrain");
    if (terr) {
      const flat = terr.cloneNode(true);
      for (const pth of flat.querySelectorAll("[pointer-events=none]")) pth.remove();
      msvg.append(flat);
    }
    mini.append(msvg);
    const frame = document.createElement("div");
    frame.className = "mini-view";
    mini.append(frame);
    this.miniRect = frame;
    this.container.append(mini);
    const mw = mini.clientWidth || 180, mh = mini.clientHeight || 130;
    const s = Math.min(mw / bw, mh / bh);
    this.miniFit = { s, ox: (mw - bw * s) / 2, oy: (mh - bh * s) / 2, bx, by };
    mini.addEventListener("pointerdown", (e) => {
      e.stopPropagation();
      const r = mini.getBoundingClientRect();
      const q = this.miniFit;
      this.centreOnPoint(q.bx + (e.clientX - r.left - q.ox) / q.s, q.by + (e.clientY - r.top - q.oy) / q.s);
    });
    this.mini = mini;
    const tip = document.createElement("div");
    tip.className = "hex-tip";
    tip.dataset.testid = "hex-tip";
    tip.hidden = true;
    this.tip = tip;
    this.container.append(tip);
  }

  updateMini() {
    if (!this.miniRect) return;
    const q = this.miniFit;
    const x = q.ox + (-this.tx / this.k - q.bx) * q.s, y = q.oy + (-this.ty / this.k - q.by) * q.s;
    const w = Math.round((this.W / this.k) * q.s), hh = Math.round((this.H / this.k) * q.s);
    const st = this.miniRect.style;
    st.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
    if (w !== this.miniW || hh !== this.miniH) {
      this.miniW = w;
      this.miniH = hh;
      st.width = `${w}px`;
      st.height = `${hh}px`;
    }
  }

  centreOnPoint(x, y) {
    const W = this.W, H = this.H;
    this.tx = W / 2 - x * this.k;
    this.ty = H / 2 - y * this.k;
    this.apply();
  }

  // The view is kept as zoom and the map point at the centre of the screen, per game.
  saveView() {
    if (!this.viewKey || this.restoring) return;
    const W = this.W, H = this.H;
    const v = { k: this.k, cx: (W / 2 - this.tx) / this.k, cy: (H / 2 - this.ty) / this.k };
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      try { localStorage.setItem(this.viewKey, JSON.stringify(v)); } catch { /* storage full or off */ }
    }, 150);
  }

  restoreView() {
    if (!this.viewKey) return false;
    let v = null;
    try { v = JSON.parse(localStorage.getItem(this.viewKey) || "null"); } catch { v = null; }
    if (!v || !Number.isFinite(v.k) || !Number.isFinite(v.cx) || !Number.isFinite(v.cy)) return false;
    this.k = Math.max(3, Math.min(160, v.k));
    this.restoring = true;
    this.centreOnPoint(v.cx, v.cy);
    this.restoring = false;
    return true;
  }

  // Hex id, terrain and place under the pointer.
  hover(e) {
    if (!this.tip) return;
    const [x, y] = this.toMap(e.clientX, e.clientY);
    const id = this.hexAt(x, y);
    if (!id) { this.tip.hidden = true; this.hoverHex = null; return; }
    const r = this.container.getBoundingClientRect();
    this.tip.style.left = `${e.clientX - r.left + 14}px`;
    this.tip.style.top = `${e.clientY - r.top + 14}px`;
    if (id !== this.hoverHex) {
      this.hoverHex = id;
      const h = this.byId.get(id);
      const terrain = this.board.terrain[h[3]] ? this.board.terrain[h[3]].name : "";
      const places = this.board.places.filter((p) => p.hex === id).map((p) => p.name || p.kind);
      const owner = this.control && this.control[id] ? ` · control: ${this.control[id]}` : "";
      const extra = this.handlers.hoverText ? this.handlers.hoverText(id) : "";
      this.tip.textContent = `${id} · ${terrain}${places.length ? " · " + places.join(", ") : ""}${owner}${extra ? " · " + extra : ""}`;
    }
    this.tip.hidden = false;
  }

  schedule(settle = true) {
    this.settleNext = this.settleNext || settle;
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      const s = this.settleNext;
      this.settleNext = false;
      this.apply(s);
    });
  }

  // Zoom by factor about the screen point (sx, sy) of the map box. A wheel zoom (settle false)
  // scales the drawn map at once and draws it again at the new zoom when the wheel stops.
  zoomAt(sx, sy, factor, settle = true) {
    const k2 = Math.max(3, Math.min(160, this.k * factor));
    const f = k2 / this.k;
    this.tx = sx - (sx - this.tx) * f;
    this.ty = sy - (sy - this.ty) * f;
    this.k = k2;
    if (settle) {
      this.apply();
      return;
    }
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.apply(), 160);
    this.schedule(false);
  }

  panBy(dx, dy) {
    this.tx += dx;
    this.ty += dy;
    this.schedule();
  }

  toMap(clientX, clientY) {
    const r = this.container.getBoundingClientRect();
    return [(clientX - r.left - this.tx) / this.k, (clientY - r.top - this.ty) / this.k];
  }

  // Inverse of the layout formula, with cube rounding.
  hexAt(x, y) {
    let q, r;
    if (this.pointy) {
      q = (SQRT3 / 3) * x - y / 3;
      r = (2 / 3) * y;
    } else {
      q = (2 / 3) * x;
      r = -x / 3 + (SQRT3 / 3) * y;
    }
    const s = -q - r;
    let rq = Math.round(q), rr = Math.round(r);
    const rs = Math.round(s);
    const dq = Math.abs(rq - q), dr = Math.abs(rr - r), ds = Math.abs(rs - s);
    if (dq > dr && dq > ds) rq = -rr - rs;
    else if (dr > ds) rr = -rq - rs;
    const h = this.hexIndex.get(`${rq + 0},${rr + 0}`);
    return h ? h[0] : null;
  }

  attach() {
    // pointer events on the whole map box (the map may not cover it), not on its controls
    const svg = this.container;
    let drag = null;
    svg.addEventListener("pointerdown", (e) => {
      if (e.button !== 0 || !(e.target === svg || this.pan.contains(e.target))) return;
      drag = { x: e.clientX, y: e.clientY, moved: 0, id: e.pointerId };
    });
    svg.addEventListener("pointerleave", () => { if (this.tip) this.tip.hidden = true; });
    svg.addEventListener("pointermove", (e) => {
      if (!drag) this.hover(e);
      if (!drag || e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.moved += Math.abs(dx) + Math.abs(dy);
      if (drag.moved > 4) {
        if (!svg.hasPointerCapture(e.pointerId)) svg.setPointerCapture(e.pointerId);
        this.svg.classList.add("dragging");
        this.panBy(dx, dy);
      }
      drag.x = e.clientX;
      drag.y = e.clientY;
    });
    const end = (e) => {
      if (!drag) return;
      const wasClick = drag.moved <= 4;
      drag = null;
      this.svg.classList.remove("dragging");
      if (wasClick && e.type === "pointerup") this.click(e);
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("wheel", (e) => {
      if (!(e.target === svg || this.pan.contains(e.target))) return;
      e.preventDefault();
      const r = svg.getBoundingClientRect();
      this.zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.0015), false);
    }, { passive: false });
  }

  click(e) {
    const stackEl = e.target.closest && e.target.closest("[data-stack]");
    if (stackEl) {
      this.handlers.onStack && this.handlers.onStack(stackEl.getAttribute("data-stack"), e.shiftKey);
      return;
    }
    const locEl = e.target.closest && e.target.closest("[data-loc], [data-select]");
    if (locEl && this.handlers.onLoc) {
      const ref = locEl.getAttribute("data-loc") || locEl.getAttribute("data-select");
      const i = ref.indexOf(":");
      this.handlers.onLoc([ref.slice(0, i), ref.slice(i + 1)], e.shiftKey);
      return;
    }
    const [x, y] = this.toMap(e.clientX, e.clientY);
    const id = this.hexAt(x, y);
    if (id && this.handlers.onHex) this.handlers.onHex(id, e.shiftKey);
  }

  // Counters: one per location (a hex, an area, an anchored box), the top piece drawn with a count
  // badge; anonymous stacks as "?". Only hex stacks are clickable (data-stack is a hex id).
  setPieces(view, sides, selected = new Set()) {
    const g = this.gCounters;
    g.replaceChildren();
    const at = new Map();
    const add = (loc, what, item) => {
      if (!this.locPoint(loc)) return;
      const key = `${loc[0]}\u0000${loc[1]}`;
      if (!at.has(key)) at.set(key, { loc, pieces: [], anon: [] });
      at.get(key)[what].push(item);
    };
    for (const p of view.pieces || []) add(p.loc, "pieces", p);
    for (const s of view.stacks || []) add(s.loc, "anon", s);
    for (const st of at.values()) {
      const c = this.locPoint(st.loc);
      // pieces in a box drawn on the map are shown at half size, beside the hex's own stack
      const scale = st.loc[0] === "box" ? " scale(0.6)" : "";
      const attrs = { class: "stack", transform: `translate(${c[0]} ${c[1]})${scale}` };
      if (st.loc[0] === "hex") attrs["data-stack"] = st.loc[1];
      else attrs["data-loc"] = `${st.loc[0]}:${st.loc[1]}`;
      const cg = el("g", attrs, g);
      const n = st.pieces.length + st.anon.length;
      const depth = Math.min(n - 1, 3);
      for (let i = depth; i > 0; i--) {
        const under = st.pieces.filter((p) => p !== stackTop(st.pieces))[i - 1] || st.anon[0] || st.pieces[0];
        el("rect", { x: -0.42 + i * 0.07, y: -0.42 - i * 0.07, width: 0.84, height: 0.84, rx: 0.06,
          fill: sideColour(under.side, sides), stroke: "#111", "stroke-width": 0.02, opacity: 0.85 }, cg);
      }
      const top = st.pieces.length ? stackTop(st.pieces) : null;
      const side = top ? top.side : st.anon[0].side;
      const isSel = st.pieces.some((p) => selected.has(p.id));
      el("rect", { class: "counter" + (isSel ? " selected" : ""), x: -0.42, y: -0.42, width: 0.84, height: 0.84, rx: 0.06,
        fill: sideColour(side, sides), stroke: isSel ? "#ffd400" : "#111", "stroke-width": isSel ? 0.08 : 0.03 }, cg);
      if (top) {
        if (isReduced(top)) el("rect", { x: -0.42, y: 0.18, width: 0.84, height: 0.08, fill: "#fff", opacity: 0.75 }, cg);
        const sym = unitSymbol(top);
        const gs = el("g", { class: "c-sym", "data-symbol": sym }, cg);
        drawSymbol(gs, sym, -0.2);
        const tv = el("text", { class: "c-vals", x: 0, y: 0.17, "text-anchor": "middle" }, cg);
        tv.textContent = counterValues(top);
        const ti = el("text", { class: "c-name", x: 0, y: 0.35, "text-anchor": "middle" }, cg);
        ti.textContent = shortName(top);
        const full = el("title", {}, cg);
        full.textContent = st.pieces.map((p) => `${p.name || p.id} ${counterValues(p)}`).join("\n");
      } else {
        const tq = el("text", { class: "c-vals", x: 0, y: 0.12, "text-anchor": "middle" }, cg);
        tq.textContent = "?";
      }
      if (n > 1) {
        el("circle", { cx: 0.4, cy: -0.4, r: 0.17, fill: "#fff", stroke: "#111", "stroke-width": 0.02 }, cg);
        const tn = el("text", { class: "c-count", x: 0.4, y: -0.34, "text-anchor": "middle" }, cg);
        tn.textContent = String(n);
      }
    }
  }

  // Control: a hatching in the side's colour over the hex (never a line, so it is not read as a
  // river or a border, never a flat fill, so it is not read as water or terrain).
  setControl(control, sides) {
    const g = this.gControl;
    g.replaceChildren();
    this.control = control || {};
    const bySide = {};
    for (const [hex, side] of Object.entries(this.control)) {
      const c = this.centre(hex);
      if (c) (bySide[side] ||= []).push(this.hexPath(c[0], c[1], 0.96));
    }
    const defs = this.svg.querySelector("defs");
    for (const [side, paths] of Object.entries(bySide)) {
      const i = Math.max(0, (sides || []).indexOf(side));
      const id = `ctl-${i}`;
      if (!defs.querySelector(`#${id}`)) {
        const pat = el("pattern", { id, patternUnits: "userSpaceOnUse", width: 0.28, height: 0.28,
          patternTransform: i % 2 ? "rotate(-45)" : "rotate(45)" }, defs);
        el("rect", { x: 0, y: 0, width: 0.07, height: 0.28, fill: sideColour(side, sides), "fill-opacity": 0.55 }, pat);
      }
      el("path", { d: paths.join(""), fill: `url(#${id})`, stroke: "none", "data-control": side }, g);
    }
  }

  // The legend: every terrain, hexside feature, line network and place kind this map uses, how
  // control and highlights are drawn, and the unit symbols.
  legend(sides) {
    const b = this.board;
    const used = new Set(b.hexes.map((h) => h[3]));
    const sw = (draw) => {
      const s = el("svg", { class: "swatch", viewBox: "-1 -1 2 2", width: 28, height: 28 });
      draw(s);
      return s;
    };
    const hexD = this.hexPath(0, 0, 0.92);
    const rows = [];
    const row = (kind, name, svg) => {
      const li = document.createElement("li");
      li.dataset.legend = kind;
      li.dataset.name = name;
      li.append(svg, document.createTextNode(" " + name));
      rows.push([kind, li]);
    };
    b.terrain.forEach((t, i) => {
      if (!used.has(i)) return;
      row("terrain", t.name, sw((s) => {
        el("path", { d: hexD, fill: t.fill, stroke: "#5d574c", "stroke-width": 0.05 }, s);
        if (t.pattern) el("path", { d: hexD, fill: `url(#pat-${t.pattern})` }, s);
      }));
    });
    const feats = new Set(b.sides.flatMap((x) => x.features));
    for (const f of feats) {
      const st = b.features[f] || { stroke: "#555", width: 0.08 };
      row("hexside", f, sw((s) => el("path", { d: "M-0.9 0.3 L0.9 -0.3", stroke: st.stroke, "stroke-width": st.width * 1.6,
        "stroke-dasharray": st.dash, fill: "none", "stroke-linecap": "round" }, s)));
    }
    for (const n of b.networks) {
      row("network", n.name, sw((s) => el("path", { d: "M-0.9 0 L0.9 0", stroke: n.stroke, "stroke-width": n.width * 1.6,
        "stroke-dasharray": n.dash, fill: "none" }, s)));
    }
    const kinds = [...new Set(b.places.map((p) => p.kind))];
    for (const k of kinds) {
      row("place", k, sw((s) => {
        const g = el("g", { transform: "translate(0 0.5)" }, s);
        const kind = k.toLowerCase();
        if (kind.includes("objective") || kind.includes("victory")) el("path", { d: starPath(0, -0.5, 0.4, 0.18), fill: "#c8102e" }, g);
        else if (kind.includes("port")) el("circle", { cx: 0, cy: -0.5, r: 0.3, fill: "#fff", stroke: "#1f4f8a", "stroke-width": 0.08 }, g);
        else if (kind.includes("fort")) el("rect", { x: -0.32, y: -0.75, width: 0.64, height: 0.48, fill: "#555" }, g);
        else el("rect", { x: -0.26, y: -0.76, width: 0.52, height: 0.52, fill: kind.includes("capital") ? "#c8102e" : "#333" }, g);
      }));
    }
    if ((b.areas || []).length) row("area", "area (sea zone...)", sw((s) => el("path", { d: "M-0.9 0.3 L0.9 -0.3", class: "area-outline",
      stroke: "#1f4f8a", "stroke-width": 0.12, "stroke-dasharray": "0.3 0.15", fill: "none" }, s)));
    (sides || []).forEach((side, i) => {
      row("control", `controlled by ${side}`, sw((s) => {
        const pat = el("pattern", { id: `lg-ctl-${i}`, patternUnits: "userSpaceOnUse", width: 0.28, height: 0.28,
          patternTransform: i % 2 ? "rotate(-45)" : "rotate(45)" }, s);
        el("rect", { x: 0, y: 0, width: 0.07, height: 0.28, fill: sideColour(side, sides), "fill-opacity": 0.55 }, pat);
        el("path", { d: hexD, fill: "#e8e4c4", stroke: "#5d574c", "stroke-width": 0.05 }, s);
        el("path", { d: hexD, fill: `url(#lg-ctl-${i})` }, s);
      }));
      row("side", `${side} unit`, sw((s) => el("rect", { x: -0.7, y: -0.7, width: 1.4, height: 1.4, rx: 0.1, fill: sideColour(side, sides) }, s)));
    });
    for (const [kind, name] of [["reach", "may move there"], ["attack", "may be attacked"], ["candidate", "may join the attack"],
      ["chosen", "chosen for the attack"]]) {
      row("highlight", name, sw((s) => el("path", { d: hexD, class: `hi hi-${kind}` }, s)));
    }
    for (const sym of ["infantry", "cavalry", "armour", "mech", "artillery", "engineer", "hq", "supply", "naval", "air"]) {
      row("symbol", sym, sw((s) => {
        el("rect", { x: -0.8, y: -0.8, width: 1.6, height: 1.6, rx: 0.1, fill: "#555" }, s);
        const g = el("g", { transform: "scale(2.4)" }, s);
        drawSymbol(g, sym, 0);
      }));
    }
    return rows;
  }

  // Highlights: {hexId: kind} with kind "reach" | "attack" | "select"
  setHighlights(marks) {
    const g = this.gHi;
    g.replaceChildren();
    const groups = {};
    for (const [hex, kind] of Object.entries(marks)) {
      const c = this.centre(hex);
      if (c) (groups[kind] ||= []).push(this.hexPath(c[0], c[1], 0.93));
    }
    for (const [kind, paths] of Object.entries(groups)) {
      el("path", { class: `hi hi-${kind}`, d: paths.join(""), "data-hi": kind }, g);
    }
    this.marks = { ...marks };
  }

  centreOn(hex) {
    const c = this.centre(hex);
    if (!c) return;
    const W = this.W, H = this.H;
    this.tx = W / 2 - c[0] * this.k;
    this.ty = H / 2 - c[1] * this.k;
    this.apply();
  }

  // Screen position (client coordinates) of a hex centre: used by tests and tooltips.
  screenOf(hex) {
    const c = this.centre(hex);
    const r = this.container.getBoundingClientRect();
    return c ? [r.left + this.tx + c[0] * this.k, r.top + this.ty + c[1] * this.k] : null;
  }

  // Pan the map one step per animation frame and report frame intervals (a lag probe).
  benchPan(frames = 60, step = 7) {
    return new Promise((resolve) => {
      const times = [];
      const layouts0 = this.layouts || 0;
      let last = performance.now();
      let i = 0;
      const tick = () => {
        const now = performance.now();
        times.push(now - last);
        last = now;
        this.tx += step;
        this.ty += step / 2;
        this.apply();
        if (++i < frames) requestAnimationFrame(tick);
        else {
          times.shift();
          const sorted = [...times].sort((a, b) => a - b);
          resolve({ frames: times.length, mean: times.reduce((a, b) => a + b, 0) / times.length,
            p95: sorted[Math.floor(sorted.length * 0.95)], max: sorted[sorted.length - 1],
            redrawn: (this.layouts || 0) - layouts0 });
        }
      };
      requestAnimationFrame(tick);
    });
  }
}

function starPath(cx, cy, R, r) {
  let d = "";
  for (let i = 0; i < 10; i++) {
    const a = (Math.PI / 5) * i - Math.PI / 2;
    const rad = i % 2 ? r : R;
    d += (i ? "L" : "M") + (cx + rad * Math.cos(a)).toFixed(3) + " " + (cy + rad * Math.sin(a)).toFixed(3);
  }
  return d + "Z";
}
