// What the page shows, built from the review routes' JSON. Nothing here talks to the API.
import { badge, el, empty, section, when } from "./dom.js";

export function scopeList(tenant, scopes, open) {
  if (!scopes.length) return section(`Scopes of ${tenant}`, empty("No scope of this tenant holds a generation yet."));
  const rows = scopes.map((s) =>
    el(
      "tr",
      { test: "scope-row", class: s.awaiting_review.length ? "waiting" : "" },
      el("td", {}, el("a", { href: open(s.scope), test: "scope-link" }, s.scope)),
      el("td", { class: "num" }, s.active_generation || "–"),
      el("td", { class: "num" }, s.memories_active),
      el("td", {}, s.awaiting_review.length ? badge(`review ${s.awaiting_review.join(", ")}`, "quarantined") : "–"),
      el("td", {}, s.last_pass ? [badge(s.last_pass.status), " ", s.last_pass.trigger, " · ", when(s.last_pass.written_at)] : "–"),
    ),
  );
  return section(
    `Scopes of ${tenant}`,
    el(
      "table",
      { class: "grid", test: "scopes" },
      el("thead", {}, el("tr", {}, ["scope", "active", "memories", "waiting for review", "last pass"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows),
    ),
  );
}

function decisionsOf(decisions) {
  return decisions.map((d) =>
    el("li", { test: "decision" }, badge(d.action), " by ", el("strong", {}, d.by), " · ", when(d.at), d.reason ? ` — ${d.reason}` : ""),
  );
}

export function timelineView(data) {
  const items = data.entries.map((e) =>
    el(
      "li",
      { class: `event event-${e.trigger === "operator" ? "operator" : "pass"}`, test: "timeline-entry" },
      el(
        "div",
        { class: "event-head" },
        el("time", {}, when(e.written_at)),
        badge(e.status),
        el("span", { class: "trigger" }, e.trigger),
        e.generation ? el("span", { class: "gen" }, `generation ${e.generation}`, e.generation_status ? [" · now ", badge(e.generation_status)] : "") : "",
      ),
      Object.keys(e.changes).length
        ? el("div", { class: "counts" }, Object.entries(e.changes).map(([k, n]) => el("span", { class: "count" }, `${n} ${k}`)))
        : "",
      e.motives.length ? el("div", { class: "motives" }, "motives: ", e.motives.join(", ")) : "",
      e.reason ? el("p", { class: "reason" }, e.reason) : "",
      e.decisions.length && e.trigger !== "operator" ? el("ul", { class: "decisions" }, decisionsOf(e.decisions)) : "",
    ),
  );
  return section("Timeline", data.entries.length ? el("ol", { class: "timeline", test: "timeline" }, items) : empty("No pass yet."));
}

export function generationsView(data) {
  const rows = data.generations.map((g) =>
    el(
      "tr",
      { test: "generation-row" },
      el("td", { class: "num" }, g.generation),
      el("td", {}, badge(g.active ? "active" : g.status, g.status)),
      el("td", {}, when(g.created_at)),
      el("td", { class: "num" }, g.memories_active),
      el("td", {}, g.job_id),
      el("td", {}, el("ul", { class: "decisions" }, decisionsOf(g.decisions))),
    ),
  );
  return section(
    "Kept generations",
    el(
      "table",
      { class: "grid" },
      el("thead", {}, el("tr", {}, ["#", "status", "written", "memories", "job", "decisions"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows),
    ),
  );
}

function memoryLine(m, extra = "") {
  return el(
    "div",
    { class: `memory status-${m.status}` },
    el("div", { class: "memory-text" }, m.text),
    el(
      "div",
      { class: "memory-meta" },
      badge(m.tier || "core", "tier"),
      " ",
      m.status !== "active" ? [badge(m.status), " "] : "",
      m.protected ? [badge("protected"), " "] : "",
      el("code", {}, m.memory_id),
      validity(m),
      extra,
    ),
  );
}

function validity(m) {
  const from = m.valid_from ? when(m.valid_from) : when(m.created_at);
  return el("span", { class: "validity" }, ` · valid ${from} → ${m.valid_to ? when(m.valid_to) : "now"}`);
}

export function diffView(data) {
  const part = (title, test, records) =>
    el("div", { class: `diff-part ${test}`, test }, el("h3", {}, `${title} (${records.length})`), records.length ? records : empty("none"));
  const changed = data.changed.map((c) =>
    el(
      "div",
      { class: "change", test: "diff-changed-item" },
      el("div", { class: "fields" }, "changed: ", c.fields.join(", ")),
      el("div", { class: "before" }, memoryLine(c.before)),
      el("div", { class: "after" }, memoryLine(c.after)),
    ),
  );
  const replaced = data.replaced.map((r) =>
    el(
      "div",
      { class: "replaced", test: "diff-replaced-item" },
      el("span", { class: "old" }, r.text),
      " → ",
      badge(r.status),
      " by ",
      el("span", { class: "new" }, r.by.text ?? r.by.memory_id),
      r.reason ? el("div", { class: "reason" }, r.reason) : "",
    ),
  );
  return section(
    `Generation ${data.from} → ${data.to}`,
    el(
      "div",
      { class: "diff", test: "diff" },
      part("added", "diff-added", data.added.map((m) => memoryLine(m))),
      part("removed", "diff-removed", data.removed.map((m) => memoryLine(m))),
      part("changed", "diff-changed", changed),
      part("superseded or merged, and by what", "diff-replaced", replaced),
    ),
  );
}

function message(m) {
  if (!m.found) return el("li", { class: "message missing" }, el("code", {}, m.message_id), " (not in the transcript index)");
  return el(
    "li",
    { class: "message", test: "evidence" },
    el("div", { class: "message-head" }, el("code", {}, m.message_id), " · ", m.role, " · ", el("time", {}, when(m.ts))),
    el("blockquote", {}, m.text),
  );
}

export function quarantineView(data) {
  const g = data.generation;
  const findings = data.findings.map((f) =>
    el(
      "li",
      { class: "finding", test: "finding" },
      badge(f.rule || "gate", "rule"),
      " ",
      el("span", {}, f.text),
      f.memory_ids.length ? el("div", { class: "judged" }, "judged: ", f.memory_ids.map((i) => el("code", {}, i))) : "",
    ),
  );
  const changes = data.changes.map((c) =>
    el(
      "li",
      { class: `judged-change${c.flagged ? " flagged" : ""}`, test: "candidate-change" },
      el("div", { class: "event-head" }, badge(c.change), " ", el("code", {}, c.memory_id), c.flagged ? [" ", badge("held by the gate", "quarantined")] : ""),
      c.before && c.change !== "created" ? el("div", { class: "before" }, memoryLine(c.before)) : "",
      c.after ? el("div", { class: "after" }, memoryLine(c.after)) : "",
      el("p", { class: "reason" }, c.reason, c.by ? ` (correction by ${c.by})` : ""),
      c.evidence.length ? el("ul", { class: "messages" }, c.evidence.map(message)) : el("p", { class: "empty" }, "no transcript evidence"),
    ),
  );
  const column = (title, test, records) =>
    el("div", { class: "column", test }, el("h3", {}, title), records.length ? records.map((m) => memoryLine(m)) : empty("no memories"));
  return el(
    "div",
    { class: "quarantine", test: "quarantine" },
    section(
      `Candidate generation ${g.generation}`,
      el("p", { class: "meta" }, badge(g.status), ` written ${when(g.created_at)} by job `, el("code", {}, g.job_id)),
      el("h3", {}, "Gate rules that fired"),
      findings.length ? el("ul", { class: "findings" }, findings) : empty("none recorded"),
      g.decisions.length ? el("ul", { class: "decisions" }, decisionsOf(g.decisions)) : "",
    ),
    section(
      "Beside the active generation",
      el(
        "div",
        { class: "columns" },
        column(`Active generation ${data.active_generation}`, "active-column", data.active),
        column(`Candidate generation ${g.generation}`, "candidate-column", data.candidate),
      ),
    ),
    section("What the pass changed, and on which messages", el("ol", { class: "changes" }, changes)),
  );
}

export function searchResults(data) {
  if (!data.results.length) return empty(`Nothing found for “${data.query}”.`);
  return el(
    "ol",
    { class: "results", test: "search-results" },
    data.results.map((hit) =>
      el(
        "li",
        { test: "search-hit" },
        memoryLine(hit.memory, [" · score ", hit.score.toFixed(3), hit.memory.consolidated === false ? [" ", badge("not consolidated yet", "pending")] : ""]),
        hit.evidence.length ? el("details", {}, el("summary", {}, `provenance: ${hit.evidence.length} message(s)`), el("ul", { class: "messages" }, hit.evidence.map(message))) : "",
      ),
    ),
  );
}
