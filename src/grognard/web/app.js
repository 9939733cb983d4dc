// grognard browser client: lobby, game screen, WebSocket updates. Plain ES module, no build step.
//
// The browser never holds more than its own side's view: every state comes from the server,
// which filters it. Seat tokens live in localStorage and in the join link's #fragment (never sent
// in a URL to the server); after joining, the token is removed from the address bar.

import { MapView, counterValues, isReduced, sideColour } from "./map.js";

const $ = (id) => document.getElementById(id);
const G = (window.__grognard = { ready: false, events: [] });

function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}

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
  if (!id) return;
  const s = scenarios.find((x) => x.id === id);
  $("scenario-info").textContent = s ? `Sides: ${s.sides.join(", ")}. ${s.description || ""}` : "";
  try {
    const d = await api(`/api/scenarios/${encodeURIComponent(id)}`);
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
  let res;
  try {
    res = await api("/api/games", { method: "POST", body });
  } catch (e) {
    $("scenario-info").textContent = errorText(e);
    return;
  }
  if (res.hotseat) {
    for (const [side, s] of Object.entries(res.sides)) seats.add(res.game, side, s.token);
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

const END_TYPES = ["end-phase", "end-turn", "end-movement", "end-combat", "done"];
const TARGET_KEYS = ["target", "to", "hex", "defender"];

function isMapAction(a) {
  return (a.type === "move" && typeof a.to === "string") || /attack|assault|bombard/.test(a.type);
}

function targetOf(a) {
  for (const k of TARGET_KEYS) if (typeof a[k] === "string") return a[k];
  return null;
}

// The server's description, without the "type=..." the group heading already says.
function actionLabel(item) {
  const t = item.text || item.action.type;
  const prefix = `type=${item.action.type}`;
  if (t === prefix) return item.action.type;
  return t.startsWith(prefix + " ") ? t.slice(prefix.length + 1) : t;
}

function chooseOf(a) {
  const out = {};
  for (const [k, v] of Object.entries(a)) {
    if (k !== "side" && (v === null || ["string", "number", "boolean"].includes(typeof v))) out[k] = v;
  }
  return out;
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
    this.pendingAttack = null;
    this.ws = null;
    this.closed = false;
    this.handedTo = side;
  }

  get token() {
    return this.tokens[this.side];
  }

  async start() {
    showMessage("");
    const t0 = performance.now();
    this.board = await api(`/api/games/${this.id}/board`, { token: this.token });
    G.boardFetchMs = performance.now() - t0;
    $("title").textContent = `${this.board.scenario.title} - ${this.side}`;
    this.map = new MapView($("map"), this.board, {
      onHex: (hex) => this.clickHex(hex),
      onStack: (hex) => this.clickStack(hex),
    });
    G.map = this.map;
    G.renderMs = this.map.render();
    G.mapReadyAt = performance.now();
    document.body.dataset.mapReady = "1";
    this.wire();
    const st = await api(`/api/games/${this.id}/state`, { token: this.token });
    this.onState(st);
    this.connect();
  }

  wire() {
    $("undo").onclick = () => this.undo();
    $("end-phase").onclick = () => {
      const a = this.endAction();
      if (a) this.send(a);
    };
    $("handover-go").onclick = () => {
      $("handover").hidden = true;
      this.switchSide(this.handTarget);
    };
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
      if (msg.type === "state" && msg.side === this.side) this.onState(msg);
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
    this.clearSelection();
    this.log = [];
    history.replaceState(null, "", `#/game/${this.id}?side=${encodeURIComponent(side)}`);
    $("title").textContent = `${this.board.scenario.title} - ${side}`;
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    api(`/api/games/${this.id}/state`, { token: this.token }).then((st) => this.onState(st));
    this.connect();
  }

  onState(msg) {
    if (msg.log_from === 0) this.log = msg.log.slice();
    else this.log = this.log.slice(0, msg.log_from).concat(msg.log);
    this.state = msg;
    G.state = msg;
    G.log = this.log;
    G.events.push({ seq: msg.seq, at: performance.now() });
    if (this.sel && !this.pieceIds().size) this.clearSelection(false);
    this.render();
    if (this.sel) this.refreshSelection();
  }

  pieceIds() {
    const out = new Set();
    for (const p of this.state.view.pieces || []) out.add(p.id);
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
    $("undo").disabled = !st.can_undo;
    const end = this.endAction();
    $("end-phase").hidden = !end;
    if (end) $("end-phase").textContent = end.type === "end-phase" ? "End phase" : end.type;
    this.renderSideSwitch();
    this.map.setPieces(st.view, sides, this.sel ? this.sel.pieces : new Set());
    this.map.setControl(st.view.control, sides);
    this.renderActions();
    this.renderDecision();
    this.renderBoxes();
    this.renderOrders();
    this.renderLog();
    this.renderStack();
    this.checkHandover();
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

  renderActions() {
    const box = $("actions");
    const st = this.state;
    if (!st.legal.length) {
      box.replaceChildren(h("p", { class: "muted" }, st.over ? "The game is over." : `Waiting for ${st.acting.join(", ") || "-"}.`));
      return;
    }
    const out = [];
    for (const g of st.groups) {
      const buttons = g.actions.map((item) => this.actionButton({ ...item, action: st.legal[item.index] }));
      if (g.actions.length > 10) {
        out.push(h("details", { class: "actions-group", "data-group": g.type },
          h("summary", {}, `${g.type} (${g.actions.length})`), ...buttons));
      } else {
        out.push(h("div", { class: "actions-group", "data-group": g.type }, h("h4", {}, g.type), ...buttons));
      }
    }
    box.replaceChildren(...out);
  }

  actionButton(item, withAlways = true) {
    const a = item.action;
    const wrap = h("span", { class: "act" });
    wrap.append(h("button", { type: "button", "data-action": JSON.stringify(chooseOf(a)), "data-type": a.type,
      onclick: () => (/attack|assault|bombard/.test(a.type) ? this.previewAttack(a) : this.send(a)) }, actionLabel(item)));
    if (withAlways && !isMapAction(a)) {
      wrap.append(h("button", { type: "button", class: "always", title: "Always choose this when it is offered here",
        "data-always": a.type, onclick: () => this.addOrder(a) }, "always"));
    }
    return wrap;
  }

  renderDecision() {
    const st = this.state;
    const box = $("decision");
    const decisions = st.my_turn ? st.legal.filter((a) => !isMapAction(a) && !END_TYPES.includes(a.type)) : [];
    if (!decisions.length || st.legal.some(isMapAction)) {
      box.hidden = true;
      return;
    }
    const items = st.groups.flatMap((g) => g.actions).map((it) => ({ ...it, action: st.legal[it.index] }))
      .filter((it) => decisions.includes(it.action));
    box.replaceChildren(h("h3", {}, `Your decision: ${(st.phase || []).slice(-1)[0] || ""}`),
      ...items.map((it) => this.actionButton(it)));
    box.hidden = false;
  }

  renderBoxes() {
    const st = this.state;
    const groups = new Map();
    const where = (loc) => (loc[0] === "piece" ? `aboard ${loc[1]}` : `${loc[0]} ${loc[1]}`);
    for (const p of st.view.pieces || []) {
      if (p.loc[0] === "hex") continue;
      const key = where(p.loc);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(h("span", { class: "mini", "data-piece": p.id, title: p.id,
        style: null }, h("b", {}, counterValues(p) || "·"), p.id));
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
      ul.replaceChildren(h("li", { class: "muted" }, "None. Use 'always' next to an offered decision."));
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
      li.append(document.createTextNode(ev.text));
      if (ev.rule) li.append(h("span", { class: "rule", "data-rule": ev.rule }, ev.rule));
      return li;
    });
    ol.replaceChildren(...items);
    ol.scrollTop = ol.scrollHeight;
  }

  renderStack() {
    const box = $("stack");
    if (!this.sel) {
      box.hidden = true;
      return;
    }
    const st = this.state;
    const here = (st.view.pieces || []).filter((p) => p.loc[0] === "hex" && p.loc[1] === this.sel.hex);
    const anon = (st.view.stacks || []).filter((s) => s.loc[0] === "hex" && s.loc[1] === this.sel.hex);
    const rows = here.slice().reverse().map((p) => {
      const mini = h("span", { class: "mini" }, h("b", {}, counterValues(p) || "·"), p.type);
      mini.style.background = sideColour(p.side, st.game.sides);
      const info = h("span", {}, h("b", {}, p.id), ` ${p.name || ""} ${p.face}${isReduced(p) ? " (reduced)" : ""}`,
        p.status && p.status.length ? ` [${p.status.join(", ")}]` : "");
      const mine = p.side === this.side;
      return h("div", { class: `piece${this.sel.pieces.has(p.id) ? " sel" : ""}`, "data-piece": p.id,
        onclick: mine ? () => this.togglePiece(p.id) : null }, mini, info);
    });
    for (const s of anon) rows.push(h("div", { class: "piece" }, h("span", { class: "mini" }, h("b", {}, "?")), `${s.side}: unknown pieces`));
    box.replaceChildren(h("h3", {}, `Hex ${this.sel.hex}`), ...rows);
    box.hidden = false;
  }

  // ---------------------------------------------------------------- selection and map clicks
  clearSelection(render = true) {
    this.sel = null;
    this.reach = {};
    this.attacks = {};
    this.map && this.map.setHighlights({});
    if (render && this.state) this.render();
  }

  clickStack(hex) {
    if (this.reach[hex] || this.attacks[hex]) return this.clickHex(hex);
    const st = this.state;
    const mine = (st.view.pieces || []).filter((p) => p.loc[0] === "hex" && p.loc[1] === hex && p.side === this.side);
    const pieces = new Set(mine.length ? [mine[mine.length - 1].id] : []);
    this.sel = { hex, pieces };
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
    this.attacks = {};
    for (const a of st.legal) {
      if (!/attack|assault|bombard/.test(a.type)) continue;
      const pcs = [a.piece, ...(a.pieces || []), ...(a.attackers || [])].filter(Boolean);
      if (a.from === sel.hex || pcs.some((p) => sel.pieces.has(p))) {
        const t = targetOf(a);
        if (t) (this.attacks[t] ||= []).push(a);
      }
    }
    this.reach = {};
    if (sel.pieces.size && st.legal.some((a) => a.piece || a.pieces)) {
      try {
        const r = await api(`/api/games/${this.id}/reachable`, { method: "POST", token: this.token,
          body: { pieces: [...sel.pieces] } });
        if (this.sel === sel) this.reach = r.hexes;
      } catch (e) {
        this.reach = {};
      }
    }
    if (this.sel !== sel) return;
    const marks = { [sel.hex]: "select" };
    for (const hx of Object.keys(this.reach)) marks[hx] = "reach";
    for (const hx of Object.keys(this.attacks)) marks[hx] = "attack";
    this.map.setHighlights(marks);
    G.highlights = marks;
  }

  clickHex(hex) {
    if (this.reach[hex]) {
      const info = this.reach[hex];
      const pieces = [...this.sel.pieces];
      const a = info.action || (pieces.length === 1 ? { type: "move", piece: pieces[0], to: hex } : { type: "move", pieces, to: hex });
      this.clearSelection(false);
      this.send(a);
      return;
    }
    if (this.attacks[hex]) {
      this.previewAttack(this.attacks[hex][0]);
      return;
    }
    const st = this.state;
    const occupied = (st.view.pieces || []).some((p) => p.loc[0] === "hex" && p.loc[1] === hex) ||
      (st.view.stacks || []).some((s) => s.loc[0] === "hex" && s.loc[1] === hex);
    if (occupied) this.clickStack(hex);
    else this.clearSelection();
  }

  async previewAttack(a) {
    const box = $("preview");
    this.pendingAttack = a;
    box.replaceChildren(h("h3", {}, `Attack ${targetOf(a) || ""}`), h("p", { class: "muted" }, "computing odds…"));
    box.hidden = false;
    let pv;
    try {
      pv = await api(`/api/games/${this.id}/preview`, { method: "POST", token: this.token, body: { action: a } });
    } catch (e) {
      pv = { available: false, text: errorText(e) };
    }
    if (this.pendingAttack !== a) return;
    const rows = [h("h3", {}, `Attack ${targetOf(a) || ""}${a.from ? ` from ${a.from}` : ""}`)];
    if (pv.text) rows.push(h("p", {}, pv.text));
    if (pv.odds) rows.push(h("p", { "data-testid": "odds" }, h("b", {}, "Odds: "), String(pv.odds)));
    for (const [k, v] of Object.entries(pv)) {
      if (["available", "text", "odds", "distribution"].includes(k) || typeof v === "object") continue;
      rows.push(h("div", { class: "muted" }, `${k}: ${v}`));
    }
    if (pv.distribution) {
      const tbody = Object.entries(pv.distribution).map(([res, p]) =>
        h("tr", { "data-result": res }, h("th", {}, res), h("td", {}, `${(Number(p) * 100).toFixed(1)}%`)));
      rows.push(h("table", { "data-testid": "distribution" }, h("tr", {}, h("th", {}, "result"), h("th", {}, "chance")), ...tbody));
    } else if (!pv.available) {
      rows.push(h("p", { class: "muted" }, "This rule system offers no odds preview."));
    }
    rows.push(h("button", { type: "button", class: "primary", "data-testid": "commit-attack", onclick: () => {
      box.hidden = true;
      this.pendingAttack = null;
      this.clearSelection(false);
      this.send(a);
    } }, "Commit attack"), " ",
    h("button", { type: "button", onclick: () => { box.hidden = true; this.pendingAttack = null; } }, "Cancel"));
    box.replaceChildren(...rows);
  }

  // ---------------------------------------------------------------- sending
  async send(action) {
    const a = { ...action };
    delete a.side;
    const opts = { method: "POST", token: this.token, body: { action: a }, extraHeaders: { "Idempotency-Key": newKey() } };
    try {
      let res;
      try {
        res = await api(`/api/games/${this.id}/actions`, opts);
      } catch (e) {
        if (e instanceof ApiError) throw e;
        // no answer (the connection dropped): send it again with the same key, applied once
        res = await api(`/api/games/${this.id}/actions`, opts);
      }
      showMessage(res.standing_applied ? `${res.standing_applied} standing order(s) applied.` : "", "info");
    } catch (e) {
      showMessage(errorText(e));
    }
  }

  async undo() {
    try {
      await api(`/api/games/${this.id}/undo`, { method: "POST", token: this.token });
      showMessage("");
    } catch (e) {
      showMessage(errorText(e));
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
