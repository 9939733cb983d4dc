// The rules reference in the browser: rule ids linked to their title and status, numbers as a
// wargamer writes them (60¾, not 243/4), the odds panel as a table, the chart viewer and the
// glossary of result codes. Data from GET /api/games/{id}/reference.

export function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else if (k === "oninput") e.addEventListener("input", v);
    else if (k === "onchange") e.addEventListener("change", v);
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

const VULGAR = { "1/2": "½", "1/3": "⅓", "2/3": "⅔", "1/4": "¼", "3/4": "¾", "1/8": "⅛", "3/8": "⅜", "5/8": "⅝", "7/8": "⅞" };

// "243/4" -> "60¾", "-3/2" -> "-1½", "7/2" -> "3½"; a/b with a small denominator only, and never
// inside a longer token (hex pairs "0302/0402", dates, paths are left alone).
export function mixed(a, b) {
  const neg = a < 0;
  a = Math.abs(a);
  const whole = Math.floor(a / b);
  let rem = a % b;
  if (!rem) return `${neg ? "-" : ""}${whole}`;
  const g = gcd(rem, b);
  const key = `${rem / g}/${b / g}`;
  const frac = VULGAR[key] || key;
  return `${neg ? "-" : ""}${whole ? whole : ""}${VULGAR[key] ? frac : (whole ? " " : "") + frac}`;
}

function gcd(a, b) {
  return b ? gcd(b, a % b) : a;
}

const FRACTION = /(^|[^\w/.:-])(-?\d{1,5})\/(\d{1,2})(?![\w/.:])/g;

export function fmtNumbers(text) {
  if (typeof text !== "string") return text;
  return text.replace(FRACTION, (m, pre, a, b) => {
    const d = Number(b);
    if (d < 2 || d > 16) return m;
    return pre + mixed(Number(a), d);
  });
}

// A value as shown: {"$frac": "243/4"} or "243/4" as 60¾, numbers unchanged.
export function fmtValue(v) {
  if (v && typeof v === "object" && "$frac" in v) return fmtNumbers(String(v.$frac));
  if (typeof v === "string" && /^-?\d+\/\d+$/.test(v)) return fmtNumbers(v);
  return v === null || v === undefined ? "" : String(v);
}

// Rule ids: "OT 9F2", "LGG 16.5-B", "NM 27.3", "EF 12.0", "T 4".
const RULE_RE = /\b(OT|LGG|NM|EF|T) \d+(?:\.\d+)?[A-Za-z]?\d*(?:-[A-Z])?(?:-[ivx]+)?[a-z]?\b/g;

export function ruleIds(text) {
  return [...new Set(String(text || "").match(RULE_RE) || [])];
}

// The text without the rule ids shown beside it: "(OT 8C2)", "[OT 8C2]", " (OT 8C2, OT 9A)".
export function stripRules(text, rules) {
  let t = String(text || "");
  for (const r of rules) {
    const esc = r.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    t = t.replace(new RegExp(`\\s*[([]${esc}[)\\]]`, "g"), "");
  }
  return t.replace(/\s+\)/g, ")").replace(/\(\s*\)/g, "").trim();
}

export class Reference {
  constructor(data, onOpenRule) {
    this.data = data || { rules: {}, charts: [], codes: {}, actions: {} };
    this.onOpenRule = onOpenRule;
    this.byNorm = new Map();
    for (const [id, r] of Object.entries(this.data.rules || {})) this.byNorm.set(norm(id), { id, ...r });
  }

  rule(id) {
    return this.byNorm.get(norm(id)) || null;
  }

  // A chip for a rule id: its title and status on hover, the rules reference on click.
  chip(id) {
    const r = this.rule(id);
    const title = r ? `${r.id}: ${r.title || "(no title)"} - ${r.status}` : `${id} (not in the rule list)`;
    return h("a", { class: `rule${r ? " st-" + r.status : ""}`, href: "#", "data-rule": id, title,
      onclick: (e) => { e.preventDefault(); this.onOpenRule && this.onOpenRule(id); } }, id);
  }

  // Text with its rule ids taken out and shown once each, as chips after it.
  withRules(text, extra = []) {
    const rules = [...new Set([...extra.filter(Boolean), ...ruleIds(text)])];
    const span = h("span", { class: "ruled" }, fmtNumbers(stripRules(text, rules)));
    for (const r of rules) span.append(" ", this.chip(r));
    return span;
  }

  code(c) {
    const codes = this.data.codes || {};
    return codes[c] || null;
  }

  // A result code cell: the code, explained on hover.
  codeCell(tag, text) {
    const parts = String(text).replace(/!/g, "").split("/");
    const expl = [];
    for (const p of parts) {
      const c = this.code(p);
      if (c) expl.push(`${p}: ${c.text} (${c.rule})`);
    }
    if (String(text).includes("!") && this.code("!")) expl.push(`!: ${this.code("!").text}`);
    return h(tag, { "data-code": text, title: expl.join("\n") || null, class: expl.length ? "coded" : null }, text);
  }
}

function norm(id) {
  return String(id).split(/\s+/).join(" ").toUpperCase();
}

// ------------------------------------------------------------------ odds panel
// One attack line of the rule system's preview: "fr-65dr: 6 x½ attacking across river (OT 9H)
// x1 combat supply (OT 11F) = 3" -> unit, base, modifiers [{op, why, rule}], total.
export function parseLine(line) {
  const m = /^(.*?):\s*(\S+)\s*(.*?)\s*=\s*(\S+)\s*$/.exec(String(line));
  if (!m) return null;
  const mods = [];
  const re = /([x×*+\-÷/][^\s]+)\s+(.*?)\s*\(([^()]+)\)/g;
  let k;
  while ((k = re.exec(m[3]))) mods.push({ op: k[1], why: k[2], rule: k[3] });
  return { unit: m[1], base: m[2], mods, total: m[4] };
}

export function oddsTable(pv, ref, names) {
  const out = h("div", { class: "odds", "data-testid": "odds-table" });
  const lines = [];
  const side = (role, list, adjust) => {
    for (const ln of list || []) {
      const p = parseLine(ln);
      if (!p) { lines.push(h("tr", {}, h("td", { colspan: 4 }, ref.withRules(ln)))); continue; }
      const mods = h("td", { class: "mods" });
      for (const m of p.mods) mods.append(h("span", { class: "mod" }, `${fmtNumbers(m.op)} ${m.why} `, ref.chip(m.rule)), " ");
      lines.push(h("tr", { "data-role": role, "data-unit": p.unit }, h("td", {}, role), h("td", { title: p.unit }, names(p.unit)),
        h("td", { class: "num" }, fmtNumbers(p.base)), mods, h("td", { class: "num" }, fmtNumbers(p.total))));
    }
    for (const a of adjust || []) {
      const [v, rule, why] = Array.isArray(a) ? a : [a.value, a.rule, a.reason];
      lines.push(h("tr", { "data-role": role }, h("td", {}, role), h("td", {}, why || ""), h("td", {}), h("td", { class: "mods" }, rule ? ref.chip(rule) : ""),
        h("td", { class: "num" }, fmtValue(v))));
    }
  };
  side("attack", pv.attack_lines, pv.attack_adjust);
  side("defense", pv.defense_lines, pv.defense_adjust);
  if (lines.length) {
    out.append(h("table", { class: "units" },
      h("tr", {}, h("th", {}, ""), h("th", {}, "unit"), h("th", {}, "base"), h("th", {}, "modifiers"), h("th", {}, "=")), ...lines));
  }
  const facts = [];
  if (pv.attack !== undefined) facts.push(["totals", `${fmtValue(pv.attack)} : ${fmtValue(pv.defense)}`]);
  if (pv.odds) facts.push(["odds", String(pv.odds)]);
  for (const s of pv.shifts || []) {
    const [v, rule, why] = Array.isArray(s) ? s : [s.value ?? s.shift, s.rule, s.reason ?? s.why];
    facts.push(["shift", h("span", {}, `${v > 0 ? "+" : ""}${v} ${why || ""} `, rule ? ref.chip(rule) : "")]);
  }
  if (pv.column || pv.automatic) facts.push(["column", String(pv.column || `automatic ${pv.automatic}`)]);
  for (const d of pv.drms || []) facts.push(["die roll", h("span", {}, `${d.value > 0 ? "+" : ""}${d.value} ${d.reason || ""} `, d.rule ? ref.chip(d.rule) : "")]);
  if (pv.drm !== undefined && (pv.drms || []).length) facts.push(["net modifier", `${pv.drm > 0 ? "+" : ""}${pv.drm}`]);
  // other scalar facts a rule system's preview gives
  const known = new Set(["available", "text", "odds", "distribution", "attack", "defense", "attack_lines", "defense_lines", "attack_adjust",
    "defense_adjust", "shifts", "column", "automatic", "drms", "drm", "crt", "table"]);
  if (pv.table) facts.push(["table", String(pv.table)]);
  // lists of modifiers ({value, rule, reason}) a preview names *_modifiers
  for (const [k, v] of Object.entries(pv)) {
    if (!/_modifiers$/.test(k) || !Array.isArray(v) || !v.length) continue;
    facts.push([k.replace(/_modifiers$/, "").replace(/_/g, " ") + " modifiers", h("span", {}, ...v.map((m) =>
      h("span", { class: "mod" }, `${m.value > 0 ? "+" : ""}${fmtValue(m.value)} ${m.reason || ""} `, m.rule ? ref.chip(m.rule) : "")))]);
  }
  for (const [k, v] of Object.entries(pv)) {
    if (known.has(k) || (v !== null && typeof v === "object" && !("$frac" in v))) continue;
    facts.push([k.replace(/_/g, " "), fmtValue(v)]);
  }
  if (pv.crt) facts.unshift(["table", String(pv.crt)]);
  if (facts.length) {
    out.append(h("table", { class: "facts" }, ...facts.map(([k, v]) => h("tr", { "data-fact": k }, h("th", {}, k),
      h("td", { "data-testid": k === "odds" ? "odds" : null }, v)))));
  }
  if (pv.distribution) {
    const rows = Object.entries(pv.distribution).sort((a, b) => Number(b[1]) - Number(a[1]));
    out.append(h("table", { class: "dist", "data-testid": "distribution" },
      h("tr", {}, h("th", {}, "result"), h("th", {}, "chance"), h("th", {}, "")),
      ...rows.map(([res, p]) => {
        const pct = Number(p) * 100;
        const bar = h("span", { class: "bar" });
        bar.style.width = `${Math.max(1, pct).toFixed(1)}%`;
        return h("tr", { "data-result": res }, ref.codeCell("th", res), h("td", { class: "num" }, `${pct.toFixed(1)}%`),
          h("td", { class: "barcell" }, bar));
      })));
  }
  if (pv.distribution_by_column) {
    // the defender's strength unknown: the result distribution of every column it may fall in
    const num = (c) => (Number.isFinite(Number(c)) ? Number(c) : Infinity);
    const cols = Object.entries(pv.distribution_by_column).sort((a, b) => num(a[0]) - num(b[0]));
    out.append(h("table", { class: "dist dist-cols", "data-testid": "distribution-by-column" },
      h("tr", {}, h("th", {}, "column"), h("th", {}, "results (chance)")),
      ...cols.map(([col, dist]) => h("tr", { "data-column": col }, h("th", {}, col), h("td", {},
        ...Object.entries(dist).sort((a, b) => Number(b[1]) - Number(a[1])).map(([res, p]) => {
          const bar = h("span", { class: "bar" });
          bar.style.width = `${Math.max(2, Number(p) * 60).toFixed(0)}px`;
          return h("span", { class: "res", "data-result": res }, ref.codeCell("span", res), ` ${(Number(p) * 100).toFixed(0)}% `, bar, " ");
        }))))));
  }
  return out;
}

// ------------------------------------------------------------------ chart viewer
export function chartViewer(ref, onClose) {
  const charts = ref.data.charts || [];
  const list = h("ul", { class: "chart-list" });
  const body = h("div", { class: "chart-body", "data-testid": "chart-body" });
  const show = (c) => {
    body.replaceChildren(renderChart(c, ref));
    for (const li of list.children) li.classList.toggle("current", li.dataset.chart === c.id);
  };
  for (const c of charts) {
    list.append(h("li", { "data-chart": c.id, onclick: () => show(c) }, c.title,
      c.provisional ? h("span", { class: "prov", title: "provisional: invented values, see the notes" }, "provisional") : null));
  }
  const codes = Object.entries(ref.data.codes || {});
  const gloss = h("li", { "data-chart": "glossary", onclick: () => {
    body.replaceChildren(h("h3", {}, "Result codes"), h("table", { class: "glossary", "data-testid": "glossary" },
      ...codes.map(([c, v]) => h("tr", { "data-code": c }, h("th", {}, c), h("td", {}, v.text), h("td", {}, ref.chip(v.rule))))));
    for (const li of list.children) li.classList.toggle("current", li.dataset.chart === "glossary");
  } }, "Glossary of result codes");
  list.append(gloss);
  const box = h("div", { class: "modal", "data-testid": "charts" },
    h("div", { class: "modal-card wide" },
      h("div", { class: "modal-head" }, h("h2", {}, `Charts and tables - ${ref.data.title || ref.data.ruleset || ""}`),
        h("button", { type: "button", "data-testid": "charts-close", onclick: onClose }, "Close")),
      h("div", { class: "chart-split" }, list, body)));
  if (charts.length) show(charts[0]);
  return box;
}

function renderChart(c, ref) {
  const out = h("div", { "data-chart-shown": c.id });
  out.append(h("h3", {}, c.title, " ", c.provisional ? h("span", { class: "prov", "data-testid": "provisional" }, "provisional") : null));
  if (c.derived_from && c.derived_from.length) {
    const p = h("p", { class: "muted" }, "From ");
    c.derived_from.forEach((r, i) => p.append(i ? ", " : "", ref.chip(r)));
    out.append(p);
  }
  if (c.kind === "results") {
    out.append(h("p", { class: "muted" }, `die: ${c.die}`));
    out.append(h("table", { class: "crt" }, h("tr", {}, h("th", {}, "roll"), ...c.columns.map((x) => h("th", {}, x))),
      ...c.rows.map(([roll, ...cells]) => h("tr", {}, h("th", {}, String(roll)), ...cells.map((x) => ref.codeCell("td", x))))));
  } else {
    out.append(renderData(c.data, 0));
  }
  if (c.notes) out.append(h("p", { class: "notes" }, c.notes));
  return out;
}

function renderData(d, depth) {
  if (Array.isArray(d)) {
    if (d.length && d.every((x) => x && typeof x === "object" && !Array.isArray(x))) {
      const keys = [...new Set(d.flatMap((x) => Object.keys(x)))];
      return h("table", { class: "chart" }, h("tr", {}, ...keys.map((k) => h("th", {}, k))),
        ...d.map((x) => h("tr", {}, ...keys.map((k) => h("td", {}, cell(x[k]))))));
    }
    return document.createTextNode(d.map(cell).join(", "));
  }
  if (d && typeof d === "object") {
    const vals = Object.values(d);
    if (vals.length && vals.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
      const keys = [...new Set(vals.flatMap((x) => Object.keys(x)))];
      if (keys.length <= 12 && vals.every((v) => Object.values(v).every((y) => y === null || typeof y !== "object" || Array.isArray(y)))) {
        return h("table", { class: "chart" }, h("tr", {}, h("th", {}, ""), ...keys.map((k) => h("th", {}, k))),
          ...Object.entries(d).map(([name, x]) => h("tr", {}, h("th", {}, name), ...keys.map((k) => h("td", {}, cell(x[k]))))));
      }
    }
    const dl = h("dl", { class: depth ? "nested" : "" });
    for (const [k, v] of Object.entries(d)) dl.append(h("dt", {}, k), h("dd", {}, v && typeof v === "object" ? renderData(v, depth + 1) : cell(v)));
    return dl;
  }
  return document.createTextNode(cell(d));
}

function cell(v) {
  if (v === undefined || v === null) return "";
  if (Array.isArray(v)) return v.map(cell).join(", ");
  if (typeof v === "object") return JSON.stringify(v);
  return fmtValue(v);
}

// ------------------------------------------------------------------ rules reference panel
export function rulePanel(ref, id, docText, onClose) {
  const r = ref.rule(id);
  const body = h("div", { class: "rule-doc" });
  if (docText) {
    // the documentation paragraphs that cite the rule id
    const paras = docText.split(/\n\s*\n/).filter((p) => p.includes(id)).slice(0, 6);
    if (paras.length) body.append(h("h4", {}, "In the rule system's documentation"), ...paras.map((p) => h("p", { class: "doc-para" }, p.replace(/`/g, ""))));
    else body.append(h("p", { class: "muted" }, "The documentation page does not cite this rule id."));
  }
  return h("div", { class: "modal", "data-testid": "rule-panel" },
    h("div", { class: "modal-card" },
      h("div", { class: "modal-head" }, h("h2", {}, id), h("button", { type: "button", onclick: onClose }, "Close")),
      r ? h("p", {}, h("b", {}, r.title || "(no title)"), " ", h("span", { class: `status st-${r.status}`, "data-testid": "rule-status" }, r.status))
        : h("p", { class: "muted" }, "This id is not in the rule system's rule list."),
      h("p", {}, h("a", { href: ref.data.doc, "data-testid": "rule-doc-link", target: "_blank", rel: "noopener" },
        `Documentation page of ${ref.data.ruleset}`)),
      body));
}
