// grognard browser client: lobby, game screen, WebSocket updates. Plain ES module, no build step.
//
// The browser never holds more than its own side's view: every state comes from the server,
// which filters it. Seat tokens live in localStorage and in the join link's #fragment (never sent
// in a URL to the server); after joining, the token is removed from the address bar.

import { MapView, counterValues, isReduced, shortName, sideColour, stackTop } from "./map.js";
import { Reference, chartViewer, fmtNumbers, h, oddsTable, rulePanel } from "./reference.js";

const $ = (id) => document.getElementById(id);
const G = (window.__grognard = { ready: false, events: [] });

// ------------------------------------------------------------------ seats kept in this browser
const seats = {
  all() {
    try {
      const v = JSON.parse(localStorage.getItem("grognard.seats") || "[]");
      return Array.isArray(v) ? v : [];
    } catch {
      return [];
    }
  },
  add(game, side, token) {
    const all = seats.all().filter((s) => !(s.game === game && s.side === side));
    all.push({ game, side, token });
    localStorage.setItem("grognard.seats", JSON.stringify(all));
  },
  forGame(game) {
    const out = {};
    for (const s of seats.all()) if (s.game === game) out[s.side] = s.token;
    return out;
  },
};

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

async function api(path, { method = "GET", body, token, extraHeaders = {} } = {}) {
  const headers = { ...extraHeaders };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try {
    data = await r.json();
  } catch {
    data = null;
  }
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

// The HTTP status an error answered over the page's socket stands for (its body is the same).
const WS_ERROR_STATUS = { illegal: 409, conflict: 409, forbidden: 403, "not-found": 404, "bad-request": 422, "too-large": 413 };

// A fresh idempotency key: an action retried with it is applied once by the server.
function newKey() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function errorText(e) {
  if (e instanceof ApiError && e.body.rule) return `Illegal: ${e.body.message} [${e.body.rule}]`;
  return e.message || String(e);
}

// ------------------------------------------------------------------ routing
function parseHash() {
  const raw = location.hash.replace(/^#/, "");
  const [path, query] = raw.split("?");
  const params = new URLSearchParams(query || "");
  const parts = (path || "/").split("/").filter(Boolean);
  return { parts, params };
}

let current = null;

async function route() {
  const { parts, params } = parseHash();
  if (current) {
    current.close();
    current = null;
  }
  if (parts[0] === "game" && parts[1]) {
    $("lobby").hidden = true;
    $("game").hidden = false;
    await openGame(parts[1], params);
  } else {
    $("game").hidden = true;
    $("lobby").hidden = false;
    $("title").textContent = "";
    await showLobby();
  }
}

// ------------------------------------------------------------------ lobby
let scenarios = [];

async function showLobby() {
  try {
    scenarios = (await api("/api/scenarios")).scenarios;
  } catch (e) {
    scenarios = [];
    $("scenario-info").textContent = errorText(e);
  }
  const sel = $("scenario");
  sel.replaceChildren(...scenarios.map((s) =>
    h("option", { value: s.id }, `${s.title || s.id} (${s.ruleset})${s.tutorial ? " - tutorial" : ""}`)));
  await scenarioChanged();
  await listMyGames();
  G.ready = true;
}

async function scenarioChanged() {
  const id = $("scenario").value;
  const box = $("options");
  box.replaceChildren();
  G.optionsShown = null;
  if (!id) return;
  const s = scenarios.find((x) => x.id === id);
  $("scenario-info").textContent = s ? `Sides: ${s.sides.join(", ")}. ${s.description || ""}` : "";
  // the computer may play any one side; the person then plays the others in this browser
  $("ai-side").replaceChildren(h("option", { value: "" }, "no: people play every side"),
    ...((s && s.sides) || []).map((side) => h("option", { value: side }, `the computer plays ${side}`)));
  let d = null, err = null;
  try {
    d = await api(`/api/scenarios/${encodeURIComponent(id)}`);
  } catch (e) {
    err = e;
  }
  // another scenario was chosen while this one's options were asked for: its own call shows them
  if ($("scenario").value !== id) return;
  box.replaceChildren();
  try {
    if (err) throw err;
    for (const o of d.options) {
      if (o.choices && o.choices.length) {
        const sel = h("select", { name: `opt-${o.id}`, "data-option": o.id },
          ...o.choices.map((c) => h("option", { value: JSON.stringify(c), selected: c === o.default }, String(c))));
        box.append(h("label", { title: o.help || "" }, `${o.title} `, sel));
      } else {
        const cb = h("input", { type: "checkbox", "data-option": o.id, checked: o.default === true });
        box.append(h("label", { class: "check", title: o.help || "" }, cb,
          ` ${o.title}${o.rule ? ` (${o.rule})` : ""} [${o.kind}]`));
      }
    }
  } catch (e) {
    box.append(h("p", { class: "muted" }, errorText(e)));
  }
  G.optionsShown = id; // the form is laid out for this scenario (tests wait for it)
}

async function createGame(ev) {
  ev.preventDefault();
  const options = {};
  for (const inp of $("options").querySelectorAll("[data-option]")) {
    options[inp.dataset.option] = inp.type === "checkbox" ? inp.checked : JSON.parse(inp.value);
  }
  const body = { scenario: $("scenario").value, options, hotseat: $("hotseat").checked };
  const seed = $("seed").value.trim();
  if (seed) body.seed = Number(seed);
  const aiSide = $("ai-side").value;
  if (aiSide) body.ai = { [aiSide]: $("ai-level").value };
  let res;
  try {
    res = await api("/api/games", { method: "POST", body });
  } catch (e) {
    $("scenario-info").textContent = errorText(e);
    return;
  }
  if (res.hotseat || aiSide) {
    // against the computer, this browser holds every side the computer does not play
    for (const [side, s] of Object.entries(res.sides)) if (side !== aiSide) seats.add(res.game, side, s.token);
    location.hash = `#/game/${res.game}`;
    return;
  }
  const ul = $("links");
  ul.replaceChildren();
  for (const [side, s] of Object.entries(res.sides)) {
    const play = h("button", { type: "button", "data-play": side, onclick: () => { location.hash = `#/game/${res.game}?t=${s.token}`; } },
      `Play as ${side}`);
    const copy = h("button", { type: "button", onclick: () => navigator.clipboard && navigator.clipboard.writeText(s.link) }, "Copy");
    ul.append(h("li", { "data-side": side }, h("b", {}, side), " ", copy, " ", play,
      h("div", { class: "link", "data-link": side }, s.link)));
  }
  $("created").hidden = false;
}

async function listMyGames() {
  const ul = $("my-games");
  const all = seats.all();
  if (!all.length) {
    ul.replaceChildren(h("li", { class: "muted" }, "No games in this browser yet."));
    return;
  }
  try {
    const res = await api("/api/my-games", { method: "POST", body: { tokens: all.map((s) => s.token) } });
    const byGame = new Map();
    for (const g of res.games) {
      if (!byGame.has(g.game)) byGame.set(g.game, { ...g, mine: [] });
      byGame.get(g.game).mine.push(g.side);
    }
    ul.replaceChildren(...[...byGame.values()].map((g) =>
      h("li", {}, h("a", { href: `#/game/${g.game}` }, g.title || g.scenario), ` - ${g.mine.join(" & ")} - ${g.status}`)));
    if (!byGame.size) ul.replaceChildren(h("li", { class: "muted" }, "No games found for the seats in this browser."));
  } catch (e) {
    ul.replaceChildren(h("li", {}, errorText(e)));
  }
}

// ------------------------------------------------------------------ game screen
async function openGame(gameId, params) {
  const t = params.get("t");
  let side = params.get("side");
  if (t) {
    try {
      const res = await api(`/api/games/${gameId}/join`, { method: "POST", token: t, body: {} });
      seats.add(gameId, res.side, t);
      side = res.side;
      history.replaceState(null, "", `#/game/${gameId}?side=${encodeURIComponent(side)}`);
    } catch (e) {
      showMessage(errorText(e));
      return;
    }
  }
  const tokens = seats.forGame(gameId);
  if (!Object.keys(tokens).length) {
    showMessage("This browser holds no seat in this game: open your join link.");
    return;
  }
  if (!side || !tokens[side]) side = Object.keys(tokens)[0];
  current = new GameScreen(gameId, tokens, side);
  G.ui = current;
  await current.start();
}

function showMessage(text, kind = "") {
  const m = $("message");
  m.className = `message ${kind}`;
  m.textContent = text;
  m.hidden = !text;
}

const END_TYPES = ["end-phase", "end-turn", "end-movement", "end-combat", "end-reinforcement", "done"];
const ATTACK_RE = /attack|assault|bombard|battle|offensive/;
const PLACE_RE = /^(place|replace|deploy|rebuild|enter|arrive)/;
const LOSS_RE = /^(eliminate|assign-hit|take-loss|lose|loss|reduce|step-loss)/;
const RETREAT_RE = /^(retreat|displace)$/;
// a declared attack being built up (NM: declare, then add attackers and supports, then resolve)
const ADD_RE = /^add-(attacker|support|defender)s?$/;
const DECLARED_RE = /^(add-(attacker|support|defender)s?|set-order|resolve(-attack|-combat)?)$/;

function chooseOf(a) {
  const out = {};
  for (const [k, v] of Object.entries(a)) {
    if (k !== "side" && (v === null || ["string", "number", "boolean"].includes(typeof v))) out[k] = v;
  }
  return out;
}

function sameAction(a, b) {
  const strip = (x) => { const y = { ...x }; delete y.side; return JSON.stringify(Object.keys(y).sort().map((k) => [k, y[k]])); };
  return strip(a) === strip(b);
}

class GameScreen {
  constructor(gameId, tokens, side) {
    this.id = gameId;
    this.tokens = tokens;
    this.side = side;
    this.state = null;
    this.log = [];
    this.sel = null; // {hex, pieces: Set}
    this.reach = {};
    this.attacks = {};
    this.builder = null; // the attack being built
    this.placing = null; // the piece picked in a placement form
    this.ws = null;
    this.closed = false;
    this.handedTo = side;
    this.busy = false;
    this.waiters = [];
    this.phaseKey = null;
    this.phaseStart = new Map();
    this.ref = new Reference(null, (id) => this.openRule(id));
    this.filter = "";
    this.legalGen = 0;
    this.asked = new Map(); // questions sent over the socket, by id
    this.askId = 0;
  }

  get token() {
    return this.tokens[this.side];
  }

  // The map (static, fetched once per scenario and cached by the browser) and the first state
  // (pushed by the socket as soon as it connects) are asked for together; the rules reference
  // waits until the first state is drawn.
  async start() {
    showMessage("");
    const t0 = performance.now();
    performance.mark("grognard:start");
    this.early = [];
    this.connect();
    this.board = await api(`/api/games/${this.id}/map`, { token: this.token });
    G.boardFetchMs = performance.now() - t0;
    performance.mark("grognard:map-fetched");
    $("title").textContent = `${this.board.scenario.title} - ${this.side}`;
    this.hexIds = new Set(this.board.hexes.map((x) => x[0]));
    this.map = new MapView($("map"), this.board, {
      onHex: (hex, shift) => this.clickHex(hex, shift),
      onStack: (hex, shift) => this.clickStack(hex, shift),
      onLoc: (loc, shift) => this.clickLoc(loc, shift),
      hoverText: (hex) => this.hoverText(hex),
      viewKey: `grognard.view.${this.id}`,
    });
    G.map = this.map;
    G.renderMs = this.map.render();
    G.mapReadyAt = performance.now();
    performance.mark("grognard:map-drawn");
    document.body.dataset.mapReady = "1";
    this.wire();
    const early = this.early;
    this.early = null;
    for (const msg of early) this.onState(msg);
    if (!this.state) await new Promise((r) => { this.firstWaiter = r; setTimeout(r, 1500); });
    if (!this.state && !this.closed) {
      // no socket (or a slow one): ask for the state once
      const st = await api(`/api/games/${this.id}/state`, { token: this.token });
      if (!this.state) this.onState(st);
    }
  }

  loadReference() {
    if (this.refAsked) return;
    this.refAsked = true;
    api(`/api/games/${this.id}/reference`, { token: this.token }).then((r) => {
      this.ref = new Reference(r, (id) => this.openRule(id));
      G.reference = r;
      if (this.state && !this.closed) this.render();
    }).catch(() => {});
  }

  wire() {
    $("undo").onclick = () => this.undo();
    $("end-phase").onclick = () => this.endPhase();
    $("charts-btn").onclick = () => this.openCharts();
    $("handover-go").onclick = () => {
      $("handover").hidden = true;
      this.switchSide(this.handTarget);
    };
    const legend = $("legend");
    legend.replaceChildren(...this.map.legend(this.board.scenario.sides).map(([, li]) => li));
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
    if (this.pingTimer) clearInterval(this.pingTimer);
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/api/games/${this.id}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ token: this.token }));
      $("conn").textContent = "live";
      $("conn").classList.add("on");
    };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.type === "state" && msg.side === this.side) {
        if (this.early) this.early.push(msg); // the map is not drawn yet
        else this.onState(msg);
      }
      else if (msg.id != null && this.asked.has(msg.id)) {
        const w = this.asked.get(msg.id);
        this.asked.delete(msg.id);
        if (msg.type === "error") w.reject(new ApiError(WS_ERROR_STATUS[msg.error] || 400, msg)); else w.resolve(msg);
      }
      else if (msg.type === "error") showMessage(msg.message);
    };
    ws.onclose = () => {
      $("conn").textContent = "offline - reconnecting";
      $("conn").classList.remove("on");
      if (this.ws === ws && !this.closed) setTimeout(() => this.connect(), 1500);
    };
    if (!this.pingTimer) {
      this.pingTimer = setInterval(() => {
        if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify({ type: "ping" }));
      }, 25000);
    }
  }

  switchSide(side) {
    if (!this.tokens[side] || side === this.side) return;
    this.side = side;
    this.handedTo = side;
    this.clearSelection(false);
    this.closeBuilder(false);
    this.log = [];
    history.replaceState(null, "", `#/game/${this.id}?side=${encodeURIComponent(side)}`);
    $("title").textContent = `${this.board.scenario.title} - ${side}`;
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    api(`/api/games/${this.id}/state`, { token: this.token }).then((st) => this.onState(st));
    this.connect();
  }

  // A push carries the side's legal actions as families (type, actors) only: on the side's turn
  // the flat list with its labels is asked for once (the server builds it once per position),
  // and the state is drawn when it has come. A newer state makes an older list not wanted.
  onState(msg) {
    const gen = ++this.legalGen;
    // the log comes as a delta from the last push: kept at once, even if this state is not drawn
    if (msg.log_from === 0) this.log = msg.log.slice();
    else this.log = this.log.slice(0, msg.log_from).concat(msg.log);
    if (msg.legal !== undefined) return this.applyState(msg);
    if (!msg.my_turn || !(msg.families || []).length) return this.applyState({ ...msg, legal: [], groups: [] });
    this.askLegal().then((r) => {
      if (gen !== this.legalGen || this.closed || r.seq !== msg.seq) return; // a newer push follows
      this.applyState({ ...msg, legal: r.legal, groups: r.groups });
    }).catch((e) => {
      if (gen === this.legalGen && !this.closed) { showMessage(errorText(e)); this.applyState({ ...msg, legal: [], groups: [] }); }
    });
  }

  // An action sent over the socket with its idempotency key; rejects with an ApiError for a
  // refusal, with a plain Error when no answer comes (the caller then posts it, same key).
  askAct(action, key) {
    const ws = this.ws;
    const id = ++this.askId;
    return new Promise((resolve, reject) => {
      this.asked.set(id, { resolve, reject });
      ws.send(JSON.stringify({ type: "act", id, action, key }));
      setTimeout(() => {
        if (this.asked.delete(id)) reject(new Error("no answer over the socket"));
      }, 10000);
    });
  }

  // The flat list of legal actions: asked over the socket (whose server process built the
  // position's state for its push already), else over HTTP.
  askLegal() {
    const ws = this.ws;
    if (!ws || ws.readyState !== 1) return api(`/api/games/${this.id}/legal`, { token: this.token });
    const id = ++this.askId;
    const side = this.side;
    return new Promise((resolve, reject) => {
      this.asked.set(id, { resolve, reject });
      ws.send(JSON.stringify({ type: "legal", id }));
      setTimeout(() => {
        if (!this.asked.delete(id)) return;
        if (side !== this.side) return reject(new Error("side switched"));
        api(`/api/games/${this.id}/legal`, { token: this.token }).then(resolve, reject);
      }, 10000);
    });
  }

  applyState(msg) {
    this.state = msg;
    G.state = msg;
    G.log = this.log;
    G.events.push({ seq: msg.seq, at: performance.now() });
    this.pieceById = new Map((msg.view.pieces || []).map((p) => [p.id, p]));
    const key = `${msg.turn}|${(msg.phase || []).join("/")}|${msg.side}`;
    if (key !== this.phaseKey) {
      // a new phase: remember where the side's pieces started, to tell which have moved
      this.phaseKey = key;
      this.phaseStart = new Map((msg.view.pieces || []).filter((p) => p.side === this.side).map((p) => [p.id, JSON.stringify(p.loc)]));
      if (this.placing) this.setMarks({});
      this.placing = null;
      if (this.builder) this.closeBuilder(false);
    }
    if (this.sel && !this.pieceIds().size) this.clearSelection(false);
    for (const w of this.waiters.splice(0)) {
      if (msg.seq >= w.seq) w.resolve(); else this.waiters.push(w);
    }
    this.render();
    if (this.builder) this.refreshBuilder();
    else if (this.sel) this.refreshSelection();
    if (!this.refAsked) {
      G.firstStateAt = performance.now();
      performance.mark("grognard:first-state-drawn");
      setTimeout(() => this.loadReference(), 0);
    }
    if (this.firstWaiter) {
      this.firstWaiter();
      this.firstWaiter = null;
    }
  }

  waitSeq(seq) {
    if (this.state && this.state.seq >= seq) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  pieceIds() {
    const out = new Set();
    for (const p of this.state.view.pieces || []) out.add(p.id);
    return out;
  }

  // ---------------------------------------------------------------- reading actions
  isPiece(v) {
    return typeof v === "string" && this.pieceById && this.pieceById.has(v);
  }

  // The fields of an action naming pieces (a piece or a list of them) and hexes.
  pieceKeys(a) {
    return Object.keys(a).filter((k) => k !== "side" && k !== "type" &&
      (this.isPiece(a[k]) || (Array.isArray(a[k]) && a[k].length && a[k].every((x) => this.isPiece(x)))));
  }

  hexKey(a) {
    for (const k of ["target", "to", "hex", "at", "dest", "destination"]) if (typeof a[k] === "string" && this.hexIds.has(a[k])) return k;
    for (const [k, v] of Object.entries(a)) if (k !== "side" && typeof v === "string" && this.hexIds.has(v) && !this.isPiece(v)) return k;
    return null;
  }

  actorOf(a) {
    const k = this.pieceKeys(a)[0];
    if (!k) return null;
    return Array.isArray(a[k]) ? a[k].join(",") : a[k];
  }

  nameOf(id) {
    const p = this.pieceById && this.pieceById.get(id);
    return p ? p.name || p.id : id;
  }

  isAttack(a) {
    return ATTACK_RE.test(a.type) && !!this.hexKey(a);
  }

  // Where an attack option comes from: its other hex field ("from"), else its pieces' hex.
  sourceOf(a) {
    const hk = this.hexKey(a);
    for (const [k, v] of Object.entries(a)) if (k !== hk && k !== "side" && typeof v === "string" && this.hexIds.has(v)) return v;
    for (const k of this.pieceKeys(a)) {
      const p = this.pieceById.get([].concat(a[k])[0]);
      if (p && p.loc[0] === "hex") return p.loc[1];
    }
    return null;
  }

  isMove(a) {
    return /move|rail|march/.test(a.type) && (typeof a.to === "string" || Array.isArray(a.path)) && this.pieceKeys(a).length > 0;
  }

  // The declared label (the server's description), with raw "type k=v" fallbacks made readable.
  labelOf(a, text) {
    let t = text || a.type;
    if (/^[\w-]+( \w+=\S+)*$/.test(t) && t.includes("=") || t === a.type) {
      const title = (this.ref.data.actions[a.type] || {}).title || a.type.replace(/-/g, " ");
      const parts = [];
      for (const [k, v] of Object.entries(a)) {
        if (k === "side" || k === "type") continue;
        const show = Array.isArray(v) ? v.map((x) => this.nameOf(x)).join(", ") : this.isPiece(v) ? this.nameOf(v) : String(v);
        parts.push(show);
      }
      t = parts.length ? `${title}: ${parts.join(", ")}` : title;
    }
    return fmtNumbers(t);
  }

  items() {
    const st = this.state;
    const out = [];
    for (const g of st.groups) for (const it of g.actions) out.push({ action: st.legal[it.index], text: it.text, index: it.index });
    return out;
  }

  // ---------------------------------------------------------------- rendering
  render() {
    const st = this.state;
    const sides = st.game.sides;
    $("turn").textContent = st.turn ? `Turn ${st.turn}` : "";
    $("phase").textContent = (st.phase || []).slice(1).join(" › ");
    const acting = $("acting");
    acting.textContent = st.over ? `Game over: ${st.result && st.result.winner ? st.result.winner + " wins" : "draw"}`
      : st.acting.length ? `To act: ${st.acting.join(", ")}${st.my_turn ? " (you)" : ""}` : "";
    acting.classList.toggle("mine", !!st.my_turn);
    this.renderControls();
    this.renderSideSwitch();
    this.map.setPieces(st.view, sides, this.sel ? this.sel.pieces : new Set());
    this.map.setControl(st.view.control, sides);
    this.renderDecision();
    this.renderActions();
    this.renderBoxes();
    this.renderOrders();
    this.renderLog();
    this.renderStack();
    this.checkHandover();
    this.checkGameOver();
  }

  renderControls() {
    const st = this.state;
    $("undo").disabled = !st.can_undo || this.busy;
    const end = this.endAction();
    $("end-phase").hidden = !end;
    $("end-phase").disabled = this.busy;
    if (end) $("end-phase").textContent = this.labelOf(end, end.type === "end-phase" ? "End phase" : null);
    $("busy").hidden = !this.busy;
    $("game").classList.toggle("busy", this.busy);
  }

  renderSideSwitch() {
    const box = $("side-switch");
    const held = Object.keys(this.tokens);
    if (held.length < 2) {
      box.replaceChildren(h("span", { class: "muted" }, `You play ${this.side}`));
      return;
    }
    box.replaceChildren(...held.map((s) => h("button", { type: "button", class: s === this.side ? "current" : "",
      "data-switch": s, onclick: () => this.switchSide(s) }, s)));
  }

  checkHandover() {
    const st = this.state;
    const held = Object.keys(this.tokens);
    if (held.length < 2 || st.over || st.acting.includes(this.side)) {
      $("handover").hidden = true;
      return;
    }
    const next = st.acting.find((s) => this.tokens[s]);
    if (!next) return;
    this.handTarget = next;
    $("handover-text").textContent = `${next} to act: hand the device over to ${next}.`;
    $("handover").hidden = false;
  }

  endAction() {
    if (!this.state) return null;
    return this.state.legal.find((a) => END_TYPES.includes(a.type)) || null;
  }

  // The actions panel: one collapsed group per kind of action, then per piece, with a filter; the
  // buttons of a group are made only when it is opened (a movement phase offers thousands).
  renderActions() {
    const box = $("actions");
    const st = this.state;
    if (!st.legal.length) {
      box.replaceChildren(h("p", { class: "muted" }, st.over ? "The game is over." : `Waiting for ${st.acting.join(", ") || "-"}.`));
      return;
    }
    const open = new Set([...box.querySelectorAll("details[open]")].map((d) => d.dataset.group || d.dataset.actor));
    const filterBox = h("input", { type: "search", placeholder: "filter actions (unit, place, kind)", value: this.filter,
      "data-testid": "action-filter", class: "filter",
      oninput: (e) => { this.filter = e.target.value; this.renderActionList(list); } });
    const list = h("div", { class: "action-list" });
    this.openGroups = open;
    box.replaceChildren(filterBox, list);
    this.renderActionList(list);
  }

  renderActionList(list) {
    const st = this.state;
    const q = this.filter.trim().toLowerCase();
    const byType = new Map();
    for (const it of this.items()) {
      if (END_TYPES.includes(it.action.type)) continue;
      if (!byType.has(it.action.type)) byType.set(it.action.type, []);
      byType.get(it.action.type).push(it);
    }
    const out = [];
    for (const [type, items] of byType) {
      const title = (this.ref.data.actions[type] || {}).title || type.replace(/-/g, " ");
      if (q) {
        const hits = items.filter((it) => `${this.labelOf(it.action, it.text)} ${type}`.toLowerCase().includes(q));
        if (!hits.length) continue;
        out.push(h("div", { class: "actions-group", "data-group": type }, h("h4", {}, `${title} (${hits.length})`),
          ...hits.slice(0, 200).map((it) => this.actionButton(it)), hits.length > 200 ? h("p", { class: "muted" }, `${hits.length - 200} more: refine the filter`) : null));
        continue;
      }
      const det = h("details", { class: "actions-group", "data-group": type }, h("summary", {}, `${title} (${items.length})`));
      const fill = () => {
        if (det.dataset.filled) return;
        det.dataset.filled = "1";
        const byActor = new Map();
        for (const it of items) {
          const a = this.actorOf(it.action) || "";
          if (!byActor.has(a)) byActor.set(a, []);
          byActor.get(a).push(it);
        }
        if (byActor.size <= 1 || items.length <= 8) {
          det.append(...items.map((it) => this.actionButton(it)));
          return;
        }
        for (const [actor, acts] of byActor) {
          const name = actor ? actor.split(",").map((x) => this.nameOf(x)).join(", ") : "other";
          const sub = h("details", { class: "actor", "data-actor": actor }, h("summary", {}, `${fmtNumbers(name)} (${acts.length})`));
          const fillSub = () => {
            if (sub.open && !sub.dataset.filled) { sub.dataset.filled = "1"; sub.append(...acts.map((it) => this.actionButton(it))); }
          };
          sub.addEventListener("toggle", fillSub);
          det.append(sub);
          if (this.openGroups && this.openGroups.has(actor)) { sub.open = true; fillSub(); }
        }
      };
      det.addEventListener("toggle", () => det.open && fill());
      if (this.openGroups && this.openGroups.has(type)) { det.open = true; fill(); }
      out.push(det);
    }
    list.replaceChildren(...out);
    if (!out.length) list.append(h("p", { class: "muted" }, q ? "No action matches the filter." : "Only the end of the phase is offered."));
  }

  // Standing orders make sense for a routine decision: one that names no piece and no hex, among
  // a few choices (pass on reserves, always decline ...), never for placements, moves or attacks.
  orderable(a) {
    if (END_TYPES.includes(a.type) || this.isAttack(a) || this.isMove(a)) return false;
    if (this.pieceKeys(a).length || this.hexKey(a)) return false;
    return this.state.legal.length <= 8;
  }

  actionButton(item, withAlways = false) {
    const a = item.action;
    const wrap = h("span", { class: "act" });
    wrap.append(h("button", { type: "button", "data-action": JSON.stringify(chooseOf(a)), "data-type": a.type,
      onclick: () => (this.isAttack(a) ? this.openBuilder(a[this.hexKey(a)], a) : this.send(a)) }, this.labelOf(a, item.text)));
    if (withAlways && this.orderable(a)) {
      wrap.append(h("button", { type: "button", class: "always", title: "Always choose this when it is offered here",
        "data-always": a.type, onclick: () => this.addOrder(a) }, "always"));
    }
    return wrap;
  }

  // ---------------------------------------------------------------- decisions as forms
  renderDecision() {
    const st = this.state;
    const box = $("decision");
    if (!st.my_turn || !st.legal.length) {
      box.hidden = true;
      return;
    }
    const items = this.items();
    const nonEnd = items.filter((it) => !END_TYPES.includes(it.action.type));
    const place = nonEnd.filter((it) => PLACE_RE.test(it.action.type) && this.hexKey(it.action));
    const loss = nonEnd.filter((it) => LOSS_RE.test(it.action.type) && this.pieceKeys(it.action).length && !this.hexKey(it.action));
    const retreat = nonEnd.filter((it) => RETREAT_RE.test(it.action.type) && this.pieceKeys(it.action).length && this.hexKey(it.action));
    const step = (st.phase || []).slice(-1)[0] || "";
    if (place.length && place.length === nonEnd.length) return this.placementForm(box, place, step);
    if (loss.length && loss.length === nonEnd.length) return this.lossForm(box, loss, step);
    if (retreat.length && retreat.length === nonEnd.length) return this.retreatForm(box, retreat, step);
    if (nonEnd.some((it) => ADD_RE.test(it.action.type)) && nonEnd.every((it) => DECLARED_RE.test(it.action.type))) {
      return this.declaredForm(box, nonEnd, step);
    }
    this.declared = null;
    const mapish = nonEnd.some((it) => this.isAttack(it.action) || this.isMove(it.action));
    if (!nonEnd.length || mapish || nonEnd.length > 40) {
      box.hidden = true;
      return;
    }
    box.replaceChildren(h("h3", {}, "Your decision: ", this.ref.withRules(step)), ...nonEnd.map((it) => this.actionButton(it, true)),
      ...items.filter((it) => END_TYPES.includes(it.action.type)).map((it) => this.actionButton(it, true)));
    box.hidden = false;
  }

  // Placements: pick a piece, then click a highlighted hex; or place the rest as listed.
  placementForm(box, items, step) {
    const byActor = new Map();
    for (const it of items) {
      const a = it.action;
      const key = this.actorOf(a) || `${a.type}:${Object.entries(chooseOf(a)).filter(([k]) => k !== this.hexKey(a) && k !== "type").map(([, v]) => v).join(",")}`;
      if (!byActor.has(key)) byActor.set(key, []);
      byActor.get(key).push(it);
    }
    if (this.placing && !byActor.has(this.placing)) this.placing = null;
    const rows = [...byActor.entries()].map(([key, its]) => {
      const a0 = its[0].action;
      const name = this.isPiece(key) ? this.nameOf(key) : this.labelOf(a0, its[0].text).replace(/ in .*$/, "");
      const p = this.pieceById.get(key);
      return h("li", { class: `placeable${this.placing === key ? " sel" : ""}`, "data-place-piece": key,
        onclick: () => this.pickPlacement(key, its) },
      h("b", {}, fmtNumbers(name)), p ? ` ${counterValues(p)}` : "", h("span", { class: "muted" }, ` - ${its.length} hex${its.length > 1 ? "es" : ""}, first ${its[0].action[this.hexKey(its[0].action)]}`));
    });
    const end = this.endAction();
    box.replaceChildren(h("h3", {}, "Place: ", this.ref.withRules(step)),
      h("p", { class: "muted" }, "Click a piece, then one of its highlighted hexes on the map."),
      h("ul", { class: "placements", "data-testid": "placements" }, ...rows),
      h("button", { type: "button", "data-testid": "place-rest", onclick: () => this.placeRest() }, "Place the rest as listed"), " ",
      ...(end ? [h("button", { type: "button", "data-testid": "placements-done", onclick: () => this.send(end) }, "Done")] : []));
    box.hidden = false;
    this.placeGroups = byActor;
    if (this.placing) this.highlightPlacement();
  }

  pickPlacement(key, its) {
    this.placing = key;
    this.clearSelection(false);
    this.render();
    this.highlightPlacement();
    const first = its[0].action[this.hexKey(its[0].action)];
    if (first) this.map.centreOn(first);
  }

  highlightPlacement() {
    const its = (this.placeGroups && this.placeGroups.get(this.placing)) || [];
    const marks = {};
    for (const it of its) marks[it.action[this.hexKey(it.action)]] = "reach";
    this.setMarks(marks);
  }

  async placeRest() {
    // the first listed placement of each piece still to place, one after another
    for (let guard = 0; guard < 200; guard++) {
      const place = this.items().filter((it) => PLACE_RE.test(it.action.type) && this.hexKey(it.action));
      if (!place.length) break;
      const ok = await this.send(place[0].action);
      if (!ok) break;
    }
    this.placing = null;
  }

  // Losses: what must be taken (the step says it) and the units chosen so far, applied together.
  lossForm(box, items, step) {
    const chosen = (this.lossChosen ||= new Set());
    for (const id of [...chosen]) if (!items.some((it) => this.actorOf(it.action) === id)) chosen.delete(id);
    const sum = () => {
      let att = 0, def = 0;
      for (const id of chosen) {
        const p = this.pieceById.get(id);
        att += unitValue(p, "attack");
        def += unitValue(p, "defense");
      }
      return `${chosen.size} unit(s) chosen: attack ${att}, defense ${def}`;
    };
    const total = h("p", { "data-testid": "loss-chosen" }, sum());
    const rows = items.map((it) => {
      const id = this.actorOf(it.action);
      const p = this.pieceById.get(id);
      const cb = h("input", { type: "checkbox", "data-loss": id, checked: chosen.has(id),
        onchange: (e) => { if (e.target.checked) chosen.add(id); else chosen.delete(id); total.textContent = sum(); } });
      return h("li", {}, h("label", { class: "check" }, cb, ` ${this.labelOf(it.action, it.text)}`, p ? h("span", { class: "muted" }, ` ${counterValues(p)}`) : ""));
    });
    box.replaceChildren(h("h3", { "data-testid": "loss-required" }, this.ref.withRules(step)),
      h("ul", { class: "losses", "data-testid": "loss-form" }, ...rows), total,
      h("button", { type: "button", class: "primary", "data-testid": "loss-apply", onclick: async () => {
        for (const id of [...chosen]) {
          const it = this.items().find((x) => LOSS_RE.test(x.action.type) && this.actorOf(x.action) === id);
          if (!it) continue;
          chosen.delete(id);
          if (!(await this.send(it.action))) break;
        }
        G.formsApplied = (G.formsApplied || 0) + 1;
      } }, "Take these losses"));
    box.hidden = false;
  }

  // A stack's retreat planned at once: a destination per unit, then all moves sent in order.
  retreatForm(box, items, step) {
    const byPiece = new Map();
    for (const it of items) {
      const id = this.actorOf(it.action);
      if (!byPiece.has(id)) byPiece.set(id, []);
      byPiece.get(id).push(it);
    }
    const plan = (this.retreatPlan ||= new Map());
    const rows = [...byPiece.entries()].map(([id, its]) => {
      const hk = this.hexKey(its[0].action);
      const sel = h("select", { "data-retreat": id, onchange: (e) => plan.set(id, e.target.value) },
        ...its.map((it) => h("option", { value: it.action[hk], selected: plan.get(id) === it.action[hk] }, this.placeName(it.action[hk]))));
      if (!plan.has(id)) plan.set(id, its[0].action[hk]);
      return h("li", {}, h("b", {}, fmtNumbers(id.split(",").map((x) => this.nameOf(x)).join(", "))), " to ", sel);
    });
    const one = h("button", { type: "button", "data-testid": "retreat-same", onclick: () => {
      const first = box.querySelector("select[data-retreat]");
      for (const s of box.querySelectorAll("select[data-retreat]")) {
        if ([...s.options].some((o) => o.value === first.value)) { s.value = first.value; plan.set(s.dataset.retreat, first.value); }
      }
    } }, "All to the first unit's hex");
    box.replaceChildren(h("h3", {}, "Retreat: ", this.ref.withRules(step)), h("ul", { class: "retreats", "data-testid": "retreat-form" }, ...rows), one, " ",
      h("button", { type: "button", class: "primary", "data-testid": "retreat-apply", onclick: async () => {
        for (const id of [...byPiece.keys()]) {
          const to = plan.get(id);
          const it = this.items().find((x) => RETREAT_RE.test(x.action.type) && this.actorOf(x.action) === id && x.action[this.hexKey(x.action)] === to);
          if (!it) continue;
          if (!(await this.send(it.action))) break;
        }
        plan.clear();
        G.formsApplied = (G.formsApplied || 0) + 1;
      } }, "Retreat as planned"));
    box.hidden = false;
  }

  // A declared attack (declared on its target first): the units that may join it as attackers or
  // supports, ticked here or by clicking their stacks on the map, the order of resolution when the
  // rules offer a choice, then everything sent in order and the attack resolved.
  declaredForm(box, items, step) {
    const d = (this.declared ||= { chosen: new Set(), order: "" });
    const byKind = new Map();
    const offered = new Set();
    for (const it of items) {
      const m = ADD_RE.exec(it.action.type);
      if (!m) continue;
      const id = this.actorOf(it.action);
      offered.add(id);
      if (!byKind.has(m[1])) byKind.set(m[1], []);
      byKind.get(m[1]).push({ id, it });
    }
    for (const id of [...d.chosen]) if (!offered.has(id)) d.chosen.delete(id);
    const orders = items.filter((it) => it.action.type === "set-order");
    const resolve = items.find((it) => /^resolve/.test(it.action.type));
    d.items = items;
    const lists = [...byKind.entries()].map(([kind, rows]) => h("div", { class: "declared-kind", "data-kind": kind },
      h("h4", {}, kind === "attacker" ? "Attackers" : kind === "support" ? "Supports" : `${kind}s`),
      ...rows.map(({ id }) => {
        const p = this.pieceById.get(id);
        const where = p && p.loc[0] === "hex" ? ` (${this.placeName(p.loc[1])})` : "";
        const cb = h("input", { type: "checkbox", "data-add": id, "data-kind": kind, checked: d.chosen.has(id),
          onchange: (e) => { if (e.target.checked) d.chosen.add(id); else d.chosen.delete(id); this.highlightDeclared(); sel.textContent = summary(); } });
        return h("label", { class: "check" }, cb, ` ${fmtNumbers(this.nameOf(id))}`, p ? h("span", { class: "muted" }, ` ${counterValues(p)}${where}`) : "");
      })));
    const summary = () => `${d.chosen.size} unit(s) chosen: ${[...d.chosen].map((x) => this.nameOf(x)).join(", ") || "none"}`;
    const sel = h("p", { "data-testid": "declared-selection" }, summary());
    const orderSel = orders.length ? h("label", {}, "Order: ", h("select", { "data-testid": "declared-order", onchange: (e) => { d.order = e.target.value; } },
      h("option", { value: "" }, "as the rules have it"),
      ...orders.map((it) => h("option", { value: it.action.order, selected: d.order === it.action.order }, this.labelOf(it.action, it.text))))) : null;
    box.replaceChildren(h("h3", {}, this.ref.withRules(step)),
      h("p", { class: "muted" }, "Tick the units that join the attack, or click their stacks on the map."),
      h("div", { class: "declared", "data-testid": "declared-form" }, ...lists), sel, ...(orderSel ? [orderSel, " "] : []),
      h("button", { type: "button", class: "primary", "data-testid": "declared-resolve", onclick: () => this.resolveDeclared() },
        resolve ? this.labelOf(resolve.action, resolve.text) : "Add them and resolve the attack"));
    box.hidden = false;
    this.highlightDeclared();
  }

  declaredHexes() {
    const out = new Map();
    for (const it of (this.declared && this.declared.items) || []) {
      if (!ADD_RE.test(it.action.type)) continue;
      const id = this.actorOf(it.action);
      const p = this.pieceById.get(id);
      if (p && p.loc[0] === "hex") out.set(p.loc[1], [...(out.get(p.loc[1]) || []), id]);
    }
    return out;
  }

  highlightDeclared() {
    const d = this.declared;
    if (!d || this.builder || this.sel) return;
    const marks = {};
    if (d.target) marks[d.target] = "attack";
    for (const [hx, ids] of this.declaredHexes()) marks[hx] = ids.some((id) => d.chosen.has(id)) ? "chosen" : "candidate";
    this.setMarks(marks);
  }

  async resolveDeclared() {
    const d = this.declared;
    if (!d) return;
    const chosen = [...d.chosen];
    const order = d.order;
    for (const id of chosen) {
      const it = this.items().find((x) => ADD_RE.test(x.action.type) && this.actorOf(x.action) === id);
      if (!it) continue;
      d.chosen.delete(id);
      if (!(await this.send(it.action))) return;
    }
    if (order) {
      const it = this.items().find((x) => x.action.type === "set-order" && x.action.order === order);
      if (it && !(await this.send(it.action))) return;
    }
    const res = this.items().find((x) => /^resolve/.test(x.action.type));
    if (res) await this.send(res.action);
    this.declared = null;
    G.formsApplied = (G.formsApplied || 0) + 1;
  }

  placeName(hex) {
    const pl = this.board.places.find((p) => p.hex === hex && p.name);
    return pl ? `${hex} ${pl.name}` : hex;
  }

  renderBoxes() {
    const st = this.state;
    const groups = new Map();
    const where = (loc) => (loc[0] === "piece" ? `aboard ${this.nameOf(loc[1])}` : `${loc[0]} ${loc[1]}`);
    for (const p of st.view.pieces || []) {
      if (p.loc[0] === "hex") continue;
      const key = where(p.loc);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(h("span", { class: "mini", "data-piece": p.id, title: `${p.name || p.id} ${counterValues(p)}` },
        h("b", {}, counterValues(p) || "·"), shortName(p, 9)));
    }
    for (const s of st.view.stacks || []) {
      if (s.loc[0] === "hex") continue;
      const key = where(s.loc);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(h("span", { class: "mini", title: `${s.side}: pieces you cannot see` }, h("b", {}, "?"), s.side));
    }
    const box = $("boxes");
    box.replaceChildren(...[...groups.entries()].map(([k, els]) => h("div", { class: "boxgroup" }, h("h4", {}, k), ...els)));
    for (const m of box.querySelectorAll(".mini")) {
      const p = (st.view.pieces || []).find((x) => x.id === m.dataset.piece);
      const side = p ? p.side : m.lastChild.textContent;
      m.style.background = sideColour(side, st.game.sides);
    }
    if (!groups.size) box.replaceChildren(h("p", { class: "muted" }, "Nothing off the map."));
  }

  renderOrders() {
    const ul = $("orders");
    const orders = this.state.standing_orders || [];
    if (!orders.length) {
      ul.replaceChildren(h("li", { class: "muted" }, "None. Use 'always' next to a routine decision."));
      return;
    }
    ul.replaceChildren(...orders.map((o, i) => h("li", { "data-order": i },
      `${o.step ? `in ${o.step}: ` : ""}${Object.entries(o.choose).map(([k, v]) => `${k}=${v}`).join(" ")} `,
      h("button", { type: "button", onclick: () => this.removeOrder(i) }, "remove"))));
  }

  renderLog() {
    const ol = $("log");
    const items = this.log.map((ev) => {
      const li = h("li", { class: ev.type, "data-type": ev.type });
      if (ev.type === "roll" && ev.data) {
        li.append(h("span", { class: "dice", title: ev.data.die || "" }, (ev.data.faces || [ev.data.natural]).join("+")));
      }
      if (ev.agent) {
        // an event of a move the computer chose (the server marks the computer's actions)
        li.classList.add("by-computer");
        li.append(h("span", { class: "agent", title: `chosen by the computer (${ev.agent})` }, "computer"));
      }
      li.append(this.ref.withRules(ev.text, [ev.rule]));
      return li;
    });
    ol.replaceChildren(...items);
    ol.scrollTop = ol.scrollHeight;
  }

  // The stack inspector: every counter at the selected place, with per-unit toggles.
  renderStack() {
    const box = $("stack");
    if (!this.sel) {
      box.hidden = true;
      return;
    }
    const st = this.state;
    const at = (loc) => JSON.stringify(loc) === JSON.stringify(this.sel.loc);
    const here = (st.view.pieces || []).filter((p) => at(p.loc));
    const anon = (st.view.stacks || []).filter((s) => at(s.loc));
    const rows = here.map((p) => {
      const mini = h("span", { class: "mini" }, h("b", {}, counterValues(p) || "·"), p.type);
      mini.style.background = sideColour(p.side, st.game.sides);
      const inside = (st.view.pieces || []).filter((q) => q.loc[0] === "piece" && q.loc[1] === p.id);
      const info = h("span", {}, h("b", {}, p.name || p.id), ` ${p.face}${isReduced(p) ? " (reduced)" : ""}`,
        p.status && p.status.length ? ` [${p.status.join(", ")}]` : "", moved(this, p) ? h("span", { class: "moved" }, " moved") : "",
        inside.length ? h("div", { class: "muted" }, `carries ${inside.map((q) => q.name || q.id).join(", ")}`) : "");
      const mine = p.side === this.side;
      return h("div", { class: `piece${this.sel.pieces.has(p.id) ? " sel" : ""}`, "data-piece": p.id,
        onclick: mine ? () => this.togglePiece(p.id) : null }, mini, info);
    });
    for (const s of anon) rows.push(h("div", { class: "piece" }, h("span", { class: "mini" }, h("b", {}, "?")), `${s.side}: unknown pieces`));
    const title = this.sel.loc[0] === "hex" ? `Hex ${this.placeName(this.sel.hex)}` : `${this.sel.loc[0]} ${this.sel.loc[1]}`;
    box.replaceChildren(h("h3", {}, title, h("span", { class: "muted" }, ` - ${here.length + anon.length} counter(s)`)), ...rows);
    box.hidden = false;
  }

  hoverText(hex) {
    const st = this.state;
    if (!st) return "";
    const n = (st.view.pieces || []).filter((p) => p.loc[0] === "hex" && p.loc[1] === hex).length;
    return n ? `${n} counter(s)` : "";
  }

  // ---------------------------------------------------------------- selection and map clicks
  // The map's highlights, mirrored on the page's handle for tests and tools.
  setMarks(marks) {
    if (this.map) this.map.setHighlights(marks);
    G.highlights = marks;
  }

  clearSelection(render = true) {
    this.sel = null;
    this.reach = {};
    this.attacks = {};
    this.setMarks({});
    if (render && this.state) this.render();
  }

  clickLoc(loc, shift) {
    if (this.busy) return;
    if (loc[0] === "hex") return this.clickStack(loc[1], shift);
    if (this.reach[loc[1]]) return this.clickHex(loc[1], shift);
    const st = this.state;
    const mine = (st.view.pieces || []).filter((p) => JSON.stringify(p.loc) === JSON.stringify(loc) && p.side === this.side);
    this.sel = { hex: null, loc, pieces: new Set(mine.map((p) => p.id)) };
    this.refreshSelection();
    this.render();
  }

  clickStack(hex, shift) {
    if (this.busy) return;
    const target = this.state.legal.some((a) => this.isAttack(a) && a[this.hexKey(a)] === hex);
    const joining = this.declared && this.declaredHexes().has(hex);
    if (this.builder || this.placing || this.reach[hex] || this.attacks[hex] || target || joining) return this.clickHex(hex, shift);
    this.selectStack(hex, shift);
  }

  selectStack(hex, shift) {
    const st = this.state;
    const mine = (st.view.pieces || []).filter((p) => p.loc[0] === "hex" && p.loc[1] === hex && p.side === this.side);
    // a click selects the stack's combat units (not the HQ drawn with them); toggle units in the inspector
    const top = stackTop(mine);
    const pieces = new Set(mine.length ? [top.id] : []);
    if (shift && this.sel && this.sel.hex === hex) for (const p of mine) pieces.add(p.id);
    this.sel = { hex, loc: ["hex", hex], pieces };
    this.refreshSelection();
    this.render();
  }

  togglePiece(id) {
    if (!this.sel) return;
    if (this.sel.pieces.has(id)) this.sel.pieces.delete(id);
    else this.sel.pieces.add(id);
    this.refreshSelection();
    this.render();
  }

  async refreshSelection() {
    const st = this.state;
    const sel = this.sel;
    if (!sel) return;
    this.attacks = {};
    for (const a of st.legal) {
      if (!this.isAttack(a)) continue;
      const pcs = this.pieceKeys(a).flatMap((k) => (Array.isArray(a[k]) ? a[k] : [a[k]]));
      if (pcs.some((p) => sel.pieces.has(p)) || (!pcs.length && sel.hex && this.sourceOf(a) === sel.hex)) (this.attacks[a[this.hexKey(a)]] ||= []).push(a);
    }
    this.reach = {};
    // until the reach comes back, the map shows the selection and its attacks only (never the
    // marks of an earlier selection or placement)
    if (!this.builder) {
      const now = sel.hex ? { [sel.hex]: "select" } : {};
      for (const hx of Object.keys(this.attacks)) now[hx] = "attack";
      this.setMarks(now);
    }
    if (sel.pieces.size && st.legal.some((a) => this.isMove(a))) {
      try {
        const r = await api(`/api/games/${this.id}/reachable`, { method: "POST", token: this.token,
          body: { pieces: [...sel.pieces] } });
        if (this.sel === sel) this.reach = r.hexes;
      } catch (e) {
        this.reach = {};
      }
      if (!Object.keys(this.reach).length) {
        // no reach preview from the rule system: the destinations of its one-step moves of
        // exactly the selected units (the first listed way of moving to each)
        for (const a of st.legal) {
          if (!this.isMove(a) || typeof a.to !== "string" || this.reach[a.to]) continue;
          const ids = this.pieceKeys(a).flatMap((k) => [].concat(a[k]));
          if (ids.length === sel.pieces.size && ids.every((id) => sel.pieces.has(id))) this.reach[a.to] = { action: a };
        }
      }
    }
    if (this.sel !== sel || this.builder) return;
    const marks = sel.hex ? { [sel.hex]: "select" } : {};
    for (const hx of Object.keys(this.reach)) marks[hx] = "reach";
    for (const hx of Object.keys(this.attacks)) marks[hx] = "attack";
    this.setMarks(marks);
  }

  clickHex(hex, shift) {
    if (this.busy) return;
    if (this.builder) return this.builderClick(hex, shift);
    if (this.declared && !this.sel) {
      const ids = this.declaredHexes().get(hex);
      if (ids) {
        const d = this.declared;
        const all = ids.every((id) => d.chosen.has(id));
        for (const id of ids) if (all) d.chosen.delete(id); else d.chosen.add(id);
        this.renderDecision();
        return;
      }
    }
    if (this.placing) {
      const its = (this.placeGroups && this.placeGroups.get(this.placing)) || [];
      const it = its.find((x) => x.action[this.hexKey(x.action)] === hex);
      if (it) {
        this.placing = null;
        this.setMarks({});
        this.send(it.action);
        return;
      }
    }
    if (this.reach[hex]) {
      const info = this.reach[hex];
      const pieces = [...this.sel.pieces];
      const a = info.action || (pieces.length === 1 ? { type: "move", piece: pieces[0], to: hex } : { type: "move", pieces, to: hex });
      this.clearSelection(false);
      // a move into an enemy-held hex is an attack (LGG 16): its odds first, then confirmed
      if (this.enemyAt(hex)) return this.openMoveAttack(hex, a, pieces);
      this.send(a);
      return;
    }
    if (this.attacks[hex]) {
      this.openBuilder(hex, null);
      return;
    }
    const st = this.state;
    const targets = st.legal.filter((a) => this.isAttack(a) && a[this.hexKey(a)] === hex);
    if (targets.length && !(this.sel && this.sel.pieces.size)) {
      this.openBuilder(hex, null);
      return;
    }
    const occupied = (st.view.pieces || []).some((p) => p.loc[0] === "hex" && p.loc[1] === hex) ||
      (st.view.stacks || []).some((s) => s.loc[0] === "hex" && s.loc[1] === hex);
    if (occupied) this.selectStack(hex, shift);
    else this.clearSelection();
  }

  enemyAt(hex) {
    const st = this.state;
    const at = (loc) => loc[0] === "hex" && loc[1] === hex;
    return (st.view.pieces || []).some((p) => at(p.loc) && p.side !== this.side) ||
      (st.view.stacks || []).some((x) => at(x.loc) && x.side !== this.side);
  }

  // A move into the enemy (the attack of rule systems where moving in attacks): the moving units,
  // the odds the rules preview, then "Attack" sends exactly that move.
  async openMoveAttack(hex, action, pieces) {
    const box = $("preview");
    const m = (this.moveAttack = { hex, action, pv: null });
    G.moveAttack = m;
    const draw = () => {
      if (this.moveAttack !== m) return;
      const rows = [h("h3", {}, `Attack ${this.placeName(hex)}`),
        h("p", { "data-testid": "move-attack-units" }, `moving in: ${pieces.map((id) => this.nameOf(id)).join(", ")}`)];
      if (!m.pv) rows.push(h("p", { class: "muted", "data-testid": "odds-pending" }, "computing odds…"));
      else if (m.refused) rows.push(h("div", { class: "refused", "data-testid": "attack-refused" }, "Refused: ", this.ref.withRules(m.refused.message, [m.refused.rule])));
      else {
        rows.push(oddsTable(m.pv, this.ref, (id) => this.nameOf(id)));
        if (!m.pv.available) rows.push(h("p", { class: "muted" }, "This rule system offers no odds preview for it."));
      }
      rows.push(h("button", { type: "button", class: "primary", "data-testid": "commit-move-attack", disabled: !m.pv || !!m.refused || this.busy,
        onclick: () => { this.closeMoveAttack(); this.send(action); } }, "Attack"), " ",
      h("button", { type: "button", "data-testid": "cancel-attack", onclick: () => this.closeMoveAttack() }, "Cancel"));
      box.replaceChildren(...rows);
      box.hidden = false;
    };
    this.setMarks({ [hex]: "attack" });
    draw();
    try {
      m.pv = await api(`/api/games/${this.id}/preview`, { method: "POST", token: this.token, body: { action } });
    } catch (e) {
      m.pv = {};
      m.refused = { message: e.body && e.body.message ? e.body.message : errorText(e), rule: e.body ? e.body.rule : null };
    }
    draw();
  }

  closeMoveAttack() {
    this.moveAttack = null;
    G.moveAttack = null;
    $("preview").hidden = true;
    this.setMarks({});
  }

  // ---------------------------------------------------------------- the attack builder
  // Pick the target, then the attackers on the map (click a stack: its units; shift-click: add or
  // take away a stack) or unit by unit in the list. The odds follow every change; the attack sent
  // is exactly the selection, and a selection the rules refuse is shown refused with its rule id.
  openBuilder(target, template) {
    const legal = this.state.legal.filter((a) => this.isAttack(a) && a[this.hexKey(a)] === target);
    if (!legal.length) return;
    const tpl = template || legal[0];
    const listKey = this.pieceKeys(tpl).find((k) => Array.isArray(tpl[k]));
    if (!listKey) {
      // the rules offer whole attacks (one per attacking hex): choose one of them on the map
      const options = legal.filter((a) => a.type === tpl.type);
      let pick = template ? options.indexOf(template) : -1;
      if (pick < 0 && this.sel) pick = options.findIndex((a) => this.sourceOf(a) === this.sel.hex);
      // an attack declared on its target alone (its units are added afterwards)
      if (pick < 0 && options.length === 1 && !this.sourceOf(options[0])) pick = 0;
      this.builder = { target, tpl, options, pick, hexKey: this.hexKey(tpl), candidates: [], chosen: new Set(), pv: null, refused: null, n: 0 };
      G.builder = this.builder;
      this.sel = null;
      this.refreshBuilder();
      return;
    }
    const candidates = [];
    for (const a of legal) {
      if (a.type !== tpl.type) continue;
      for (const id of a[listKey] || []) if (!candidates.includes(id)) candidates.push(id);
    }
    const chosen = new Set();
    if (template) for (const id of template[listKey]) chosen.add(id);
    else if (this.sel) for (const id of this.sel.pieces) if (candidates.includes(id)) chosen.add(id);
    this.builder = { target, tpl, listKey, hexKey: this.hexKey(tpl), candidates, chosen, pv: null, refused: null, n: 0 };
    G.builder = this.builder;
    this.sel = null;
    this.refreshBuilder();
  }

  closeBuilder(render = true) {
    this.builder = null;
    G.builder = null;
    $("preview").hidden = true;
    this.setMarks({});
    if (render && this.state) this.render();
  }

  builderAction() {
    const b = this.builder;
    if (b.options) {
      const a = b.pick >= 0 ? { ...b.options[b.pick] } : { ...b.tpl };
      delete a.side;
      return a;
    }
    const a = { ...b.tpl };
    delete a.side;
    a[b.listKey] = b.candidates.filter((id) => b.chosen.has(id));
    return a;
  }

  candidateHexes() {
    const b = this.builder;
    const out = new Map();
    if (b.options) {
      b.options.forEach((a, i) => {
        const src = this.sourceOf(a);
        if (src) out.set(src, [...(out.get(src) || []), i]);
      });
      return out;
    }
    for (const id of b.candidates) {
      const p = this.pieceById.get(id);
      if (!p || p.loc[0] !== "hex") continue;
      if (!out.has(p.loc[1])) out.set(p.loc[1], []);
      out.get(p.loc[1]).push(id);
    }
    return out;
  }

  builderClick(hex, shift) {
    const b = this.builder;
    const byHex = this.candidateHexes();
    const here = byHex.get(hex);
    if (!here) {
      if (hex !== b.target) this.closeBuilder();
      return;
    }
    if (b.options) {
      b.pick = b.pick === here[0] ? -1 : here[0];
      this.refreshBuilder();
      return;
    }
    if (shift) {
      const all = here.every((id) => b.chosen.has(id));
      for (const id of here) if (all) b.chosen.delete(id); else b.chosen.add(id);
    } else {
      const only = here.every((id) => b.chosen.has(id)) && [...b.chosen].every((id) => here.includes(id));
      b.chosen.clear();
      if (!only) for (const id of here) b.chosen.add(id);
    }
    this.refreshBuilder();
  }

  async refreshBuilder() {
    const b = this.builder;
    if (!b) return;
    if (!this.state.legal.some((a) => this.isAttack(a) && a[this.hexKey(a)] === b.target)) return this.closeBuilder(false);
    const byHex = this.candidateHexes();
    const marks = { [b.target]: "attack" };
    for (const [hx, ids] of byHex) marks[hx] = ids.some((id) => (b.options ? id === b.pick : b.chosen.has(id))) ? "chosen" : "candidate";
    this.setMarks(marks);
    this.renderBuilder();
    const a = this.builderAction();
    const n = ++b.n;
    b.pending = true;
    b.pv = null;
    b.refused = null;
    this.renderBuilder();
    if (b.options ? b.pick < 0 : !a[b.listKey].length) {
      b.pending = false;
      b.refused = { message: "choose the attacking units on the map or in the list", rule: null };
      this.renderBuilder();
      return;
    }
    try {
      const pv = await api(`/api/games/${this.id}/preview`, { method: "POST", token: this.token, body: { action: a } });
      if (this.builder !== b || b.n !== n) return;
      b.pv = pv;
      if (typeof pv.text === "string" && /^illegal: /.test(pv.text)) {
        const m = /^illegal: (.*) \(([^()]+)\)$/.exec(pv.text);
        b.refused = { message: m ? m[1] : pv.text, rule: m ? m[2] : null };
      }
    } catch (e) {
      if (this.builder !== b || b.n !== n) return;
      b.refused = { message: e.body && e.body.message ? e.body.message : errorText(e), rule: e.body ? e.body.rule : null };
    }
    b.pending = false;
    G.builderSeq = n;
    this.renderBuilder();
  }

  renderBuilder() {
    const b = this.builder;
    const box = $("preview");
    if (!b) { box.hidden = true; return; }
    const byHex = this.candidateHexes();
    const groups = b.options ? [...byHex.entries()].map(([hx, idx]) => h("label", { class: "check cand-hex", "data-cand-hex": hx },
      h("input", { type: "radio", name: "attack-from", "data-option": hx, checked: idx.includes(b.pick),
        onchange: () => { b.pick = idx[0]; this.refreshBuilder(); } }), ` from ${this.placeName(hx)}`))
      : [...byHex.entries()].map(([hx, ids]) => h("div", { class: "cand-hex", "data-cand-hex": hx },
      h("div", { class: "muted" }, this.placeName(hx)),
      ...ids.map((id) => {
        const p = this.pieceById.get(id);
        const cb = h("input", { type: "checkbox", "data-candidate": id, checked: b.chosen.has(id),
          onchange: (e) => { if (e.target.checked) b.chosen.add(id); else b.chosen.delete(id); this.refreshBuilder(); } });
        return h("label", { class: "check" }, cb, ` ${p ? p.name || p.id : id}`, p ? h("span", { class: "muted" }, ` ${counterValues(p)}`) : "");
      })));
    const rows = [h("h3", {}, `${(this.ref.data.actions[b.tpl.type] || {}).title || b.tpl.type} on ${this.placeName(b.target)}`),
      h("p", { class: "muted" }, "Click a stack to attack with it, shift-click to add or remove a stack, or tick units below."),
      h("div", { class: "candidates", "data-testid": "candidates" }, ...groups)];
    const src = b.options && b.pick >= 0 ? this.sourceOf(b.options[b.pick]) : null;
    const chosen = b.options ? (b.pick >= 0 ? [src ? `the stack in ${this.placeName(src)}` : `declare it on ${this.placeName(b.target)}, then add its units`] : [])
      : this.builderAction()[b.listKey];
    rows.push(h("p", { "data-testid": "attack-selection" }, b.options ? (chosen[0] || "choose the attacking stack")
      : `${chosen.length} unit(s): ${chosen.map((id) => this.nameOf(id)).join(", ") || "none"}`));
    if (b.pending) rows.push(h("p", { class: "muted", "data-testid": "odds-pending" }, "computing odds…"));
    else if (b.refused) {
      rows.push(h("div", { class: "refused", "data-testid": "attack-refused" }, "Refused: ", this.ref.withRules(b.refused.message, [b.refused.rule])));
    } else if (b.pv) {
      rows.push(oddsTable(b.pv, this.ref, (id) => this.nameOf(id)));
      if (!b.pv.available) rows.push(h("p", { class: "muted" }, "This rule system offers no odds preview for it."));
      const notes = String(b.pv.text || "").split("\n").filter((l) => /^\s*\(.*\)\s*$/.test(l));
      for (const nline of notes) rows.push(h("p", { class: "muted" }, this.ref.withRules(nline.trim().replace(/^\(|\)$/g, ""))));
    }
    rows.push(h("button", { type: "button", class: "primary", "data-testid": "commit-attack", disabled: b.pending || !!b.refused || !chosen.length || this.busy,
      onclick: () => {
        const a = this.builderAction();
        const target = b.target;
        this.closeBuilder(false);
        this.declared = { chosen: new Set(), order: "", target };
        this.send(a);
      } }, "Commit attack"), " ",
    h("button", { type: "button", "data-testid": "cancel-attack", onclick: () => this.closeBuilder() }, "Cancel"));
    box.replaceChildren(...rows);
    box.hidden = false;
  }

  // ---------------------------------------------------------------- end of phase, game over
  unmoved() {
    const st = this.state;
    const movers = new Set();
    for (const a of st.legal) if (this.isMove(a)) for (const k of this.pieceKeys(a)) for (const id of [].concat(a[k])) movers.add(id);
    const out = [];
    for (const id of movers) {
      const p = this.pieceById.get(id);
      if (p && p.side === this.side && p.loc[0] === "hex" && !moved(this, p)) out.push(p);
    }
    return out;
  }

  endPhase() {
    const a = this.endAction();
    if (!a || this.busy) return;
    const left = this.unmoved();
    if (!left.length) return this.send(a);
    const box = h("div", { class: "modal", "data-testid": "confirm-end" },
      h("div", { class: "modal-card" }, h("h2", {}, "End the phase?"),
        h("p", {}, `${left.length} unit(s) that may move have not moved this phase`, left.length <= 8 ? `: ${left.map((p) => p.name || p.id).join(", ")}.` : "."),
        h("button", { type: "button", class: "primary", "data-testid": "confirm-end-yes", onclick: () => { box.remove(); this.send(a); } }, "End phase anyway"), " ",
        h("button", { type: "button", "data-testid": "confirm-end-no", onclick: () => box.remove() }, "Keep moving")));
    document.body.append(box);
  }

  async checkGameOver() {
    const st = this.state;
    if (!st.over || this.summaryShown === st.seq) return;
    this.summaryShown = st.seq;
    let sm;
    try {
      sm = await api(`/api/games/${this.id}/summary`, { token: this.token });
    } catch (e) {
      sm = { winner: st.result && st.result.winner, reason: st.result && st.result.reason, by_turn: [] };
    }
    G.summary = sm;
    const sides = st.game.sides;
    const max = Math.max(1, ...sm.by_turn.flatMap((t) => Object.values(t.points)));
    const table = sm.by_turn.length ? h("table", { class: "vp", "data-testid": "vp-by-turn" },
      h("tr", {}, h("th", {}, "turn"), ...sides.map((s) => h("th", {}, s))),
      ...sm.by_turn.map((t) => h("tr", { "data-turn": t.turn }, h("th", {}, t.turn), ...sides.map((s) => {
        const bar = h("span", { class: "bar" });
        bar.style.width = `${(100 * (t.points[s] || 0)) / max}%`;
        bar.style.background = sideColour(s, sides);
        return h("td", {}, h("span", { class: "num" }, String(t.points[s] || 0)), bar);
      })))) : h("p", { class: "muted" }, "This scenario scores no objectives.");
    const margin = sm.margin !== null && sm.margin !== undefined ? ` by ${sm.margin} point${sm.margin === 1 ? "" : "s"}` : "";
    const box = h("div", { class: "modal", id: "game-over", "data-testid": "game-over" },
      h("div", { class: "modal-card wide" },
        h("div", { class: "modal-head" }, h("h2", { "data-testid": "winner" }, sm.winner ? `${sm.winner} wins${margin}` : `Draw${margin ? ` (margin ${sm.margin})` : ""}`),
          h("button", { type: "button", onclick: () => box.remove() }, "Close")),
        h("p", { "data-testid": "why" }, this.ref.withRules(fmtNumbers(sm.reason || ""), [sm.rule && /\d/.test(sm.rule) ? sm.rule : null])),
        sm.conditions ? h("p", { class: "muted" }, sm.conditions) : null,
        h("h3", {}, "Victory points by turn"), table,
        h("p", {}, h("button", { type: "button", "data-testid": "record-link", onclick: () => this.downloadRecord() }, "Download the game record"),
          " (signed, replayable)")));
    const old = $("game-over");
    if (old) old.remove();
    document.body.append(box);
  }

  async downloadRecord() {
    try {
      const rec = await api(`/api/games/${this.id}/record`, { token: this.token });
      const url = URL.createObjectURL(new Blob([JSON.stringify(rec)], { type: "application/json" }));
      const a = h("a", { href: url, download: `grognard-${this.id}.json` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 5000);
    } catch (e) {
      showMessage(errorText(e));
    }
  }

  openCharts() {
    const box = chartViewer(this.ref, () => box.remove());
    document.body.append(box);
  }

  async openRule(id) {
    if (this.docText === undefined && this.ref.data.doc) {
      try {
        const r = await fetch(this.ref.data.doc);
        this.docText = r.ok ? await r.text() : "";
      } catch {
        this.docText = "";
      }
    }
    const old = document.querySelector("[data-testid=rule-panel]");
    if (old) old.remove();
    const box = rulePanel(this.ref, id, this.docText, () => box.remove());
    document.body.append(box);
  }

  // ---------------------------------------------------------------- sending
  // One action at a time: the controls are disabled until the answer and its new state arrive,
  // so a double click never applies twice. Resolves to true when the action was applied.
  async send(action) {
    if (this.busy) return false;
    const a = { ...action };
    delete a.side;
    const key = newKey();
    const opts = { method: "POST", token: this.token, body: { action: a }, extraHeaders: { "Idempotency-Key": key } };
    this.setBusy(true);
    try {
      let res;
      try {
        // over the page's socket when it is open (its server process keeps the game's work),
        // else as a POST
        res = this.ws && this.ws.readyState === 1 ? await this.askAct(a, key) : await api(`/api/games/${this.id}/actions`, opts);
      } catch (e) {
        if (e instanceof ApiError) throw e;
        // no answer (the connection dropped): send it again with the same key, applied once
        res = await api(`/api/games/${this.id}/actions`, opts);
      }
      await Promise.race([this.waitSeq(res.seq), new Promise((r) => setTimeout(r, 5000))]);
      showMessage(res.standing_applied ? `${res.standing_applied} standing order(s) applied.` : "", "info");
      return true;
    } catch (e) {
      this.showRefusal(e);
      return false;
    } finally {
      this.setBusy(false);
    }
  }

  showRefusal(e) {
    const m = $("message");
    m.className = "message";
    if (e instanceof ApiError && e.body.rule) m.replaceChildren("Illegal: ", this.ref.withRules(e.body.message, [e.body.rule]));
    else m.textContent = errorText(e);
    m.hidden = false;
  }

  setBusy(on) {
    this.busy = on;
    G.busy = on;
    if (this.state) this.renderControls();
    for (const b of document.querySelectorAll("#game .panel button, #game .phasebar button")) {
      if (on) { b.dataset.wasDisabled = b.disabled ? "1" : ""; b.disabled = true; }
      else if (b.dataset.wasDisabled !== undefined) { b.disabled = b.dataset.wasDisabled === "1"; delete b.dataset.wasDisabled; }
    }
    if (!on && this.state) this.renderControls();
  }

  async undo() {
    if (this.busy) return;
    this.setBusy(true);
    try {
      await api(`/api/games/${this.id}/undo`, { method: "POST", token: this.token });
      showMessage("");
    } catch (e) {
      showMessage(errorText(e));
    } finally {
      this.setBusy(false);
    }
  }

  async putOrders(orders) {
    try {
      await api(`/api/games/${this.id}/standing-orders`, { method: "PUT", token: this.token, body: { orders } });
    } catch (e) {
      showMessage(errorText(e));
    }
  }

  addOrder(a) {
    const orders = (this.state.standing_orders || []).slice();
    orders.push({ step: this.state.step, choose: chooseOf(a) });
    $("orders-box").open = true;
    return this.putOrders(orders);
  }

  removeOrder(i) {
    const orders = (this.state.standing_orders || []).slice();
    orders.splice(i, 1);
    return this.putOrders(orders);
  }
}

// Has the piece left the place it held when the phase began?
function moved(ui, p) {
  const start = ui.phaseStart.get(p.id);
  return start !== undefined && start !== JSON.stringify(p.loc);
}

// ------------------------------------------------------------------ start
window.addEventListener("hashchange", route);
document.addEventListener("DOMContentLoaded", () => {
  $("new-game").addEventListener("submit", createGame);
  $("scenario").addEventListener("change", scenarioChanged);
  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const link = $("join-link").value.trim();
    const i = link.indexOf("#");
    if (i >= 0) location.hash = link.slice(i);
  });
  route();
});

// A unit's current value of a printed factor (its attributes override the face; fractions as
// {"$frac": "a/b"} or mixed text), or its strength where it prints one number.
function unitValue(p, key) {
  if (!p) return 0;
  const face = (p.faces && p.faces[p.face]) || {};
  const pick = (k) => (p.attrs && k in p.attrs ? p.attrs[k] : face[k]);
  let v = pick(key);
  if (v === undefined || v === null) v = pick("strength");
  if (v && typeof v === "object" && "$frac" in v) {
    const [a, b] = String(v.$frac).split("/").map(Number);
    v = b ? a / b : a;
  }
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}
