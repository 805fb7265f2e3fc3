// The review page: sign in with the API token, pick a tenant and a scope, read its timeline, diffs,
// quarantined candidates and memory; operators decide (approve, reject, roll back) with a reason.
// Routes live in the URL's hash: #/t/<tenant>, #/s/<tenant>/<agent>/<subject>/<tab>[/<generation>].
import { ApiError, credentials, review } from "./api.js";
import { badge, el, empty, field, section } from "./dom.js";
import { diffView, generationsView, quarantineView, scopeList, searchResults, timelineView } from "./views.js";

const main = document.getElementById("main");
let session = null;

function show(...nodes) {
  main.replaceChildren(...nodes);
}

function notify(text, kind = "ok") {
  const box = document.getElementById("notice");
  box.textContent = text;
  box.className = `notice notice-${kind}`;
  box.hidden = false;
}

function crumbs(parts) {
  document.getElementById("crumbs").replaceChildren(...parts.flatMap((p, i) => [i ? " / " : "", p]));
}

const scopeHref = (scope, tab = "timeline", arg) => `#/s/${scope}/${tab}${arg ? `/${arg}` : ""}`;

// --- signing in
function loginForm(message) {
  const token = el("input", { type: "password", name: "token", autocomplete: "off", test: "token", required: true });
  const name = el("input", { type: "text", name: "name", value: credentials.name, test: "name", required: true });
  const form = el(
    "form",
    { class: "card login", test: "login" },
    el("h2", {}, "Sign in"),
    el("p", {}, "The API token (the operator token to decide; an agent's token reads only). It stays in this tab."),
    field("token", token),
    field("your name (recorded with every decision)", name),
    message ? el("p", { class: "error", test: "login-error" }, message) : "",
    el("button", { type: "submit", test: "sign-in" }, "Sign in"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    credentials.save(token.value.trim(), name.value.trim());
    start();
  });
  show(form);
}

async function start() {
  try {
    session = await review.session();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      loginForm(credentials.token ? "That token was refused." : "");
      return;
    }
    throw err;
  }
  if (!credentials.name) {
    loginForm("");
    return;
  }
  const out = el("button", { class: "link", test: "sign-out", onclick: () => { credentials.clear(); session = null; start(); } }, "sign out");
  document.getElementById("who").replaceChildren(
    el("span", {}, credentials.name), " ",
    badge(session.decisions ? "operator" : "read-only", session.decisions ? "operator" : "agent"), " ", out,
  );
  route();
}

// --- pages
async function tenantsPage() {
  crumbs([]);
  const { tenants } = await review.tenants();
  if (tenants.length === 1) {
    location.hash = `#/t/${tenants[0]}`;
    return;
  }
  show(section("Tenants", tenants.length
    ? el("ul", { class: "tenants", test: "tenants" }, tenants.map((t) => el("li", {}, el("a", { href: `#/t/${t}` }, t))))
    : empty("No tenant holds a generation yet.")));
}

async function tenantPage(tenant) {
  crumbs([el("a", { href: `#/t/${tenant}` }, tenant)]);
  const { scopes } = await review.scopes(tenant);
  show(scopeList(tenant, scopes, (scope) => scopeHref(scope)));
}

function tabs(scope, current, waiting) {
  const names = [["timeline", "Timeline"], ["diff", "Diff"], ["quarantine", `Quarantine${waiting ? ` (${waiting})` : ""}`], ["search", "Search"]];
  return el("nav", { class: "tabs" }, names.map(([id, label]) =>
    el("a", { href: scopeHref(scope, id), class: id === current ? "current" : "", test: `tab-${id}` }, label)));
}

async function scopePage(scope, tab, arg) {
  const [tenant] = scope.split("/");
  crumbs([el("a", { href: `#/t/${tenant}` }, tenant), el("a", { href: scopeHref(scope) }, scope.slice(tenant.length + 1))]);
  const timeline = await review.timeline(scope);
  const waiting = timeline.generations.filter((g) => g.status === "quarantined");
  const head = el("div", { class: "scope-head" },
    el("h1", { test: "scope-title" }, scope),
    el("p", {}, "active generation ", el("strong", { test: "active-generation" }, timeline.active_generation)),
    tabs(scope, tab, waiting.length));
  const body = await {
    timeline: () => timelineTab(scope, timeline),
    diff: () => diffTab(scope, timeline, arg),
    quarantine: () => quarantineTab(scope, timeline, arg),
    search: () => searchTab(scope, arg),
  }[tab]();
  show(head, ...[body].flat());
}

function timelineTab(scope, timeline) {
  const parts = [timelineView(timeline), generationsView(timeline)];
  const promotable = timeline.generations.filter((g) => !g.active && (g.status === "retired" || g.status === "active"));
  if (session.decisions && promotable.length) parts.push(rollbackForm(scope, promotable));
  return parts;
}

async function diffTab(scope, timeline, arg) {
  const kept = timeline.generations.filter((g) => g.status !== "rejected").map((g) => g.generation);
  const [from, to] = (arg || "").split("..");
  const data = await review.diff(scope, from, to);
  const pick = (name, value) => el("select", { name, test: `diff-${name}` },
    [0, ...kept].map((n) => el("option", { value: n, selected: Number(value) === n }, n === 0 ? "0 (empty)" : `generation ${n}`)));
  const older = pick("from", data.from);
  const newer = pick("to", data.to);
  const form = el("form", { class: "inline", test: "diff-form" }, field("from", older), field("to", newer), el("button", { type: "submit" }, "Compare"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = scopeHref(scope, "diff", `${older.value}..${newer.value}`);
  });
  return [form, diffView(data)];
}

async function quarantineTab(scope, timeline, arg) {
  // Waiting ones, and approved ones (still readable); a rejected candidate's records are deleted.
  const held = timeline.generations.filter((g) => g.status === "quarantined" || g.decisions.some((d) => d.action === "approved"));
  const waiting = held.filter((g) => g.status === "quarantined");
  const chosen = Number(arg) || (waiting[0] || held[0] || {}).generation;
  const list = el("nav", { class: "tabs sub" }, held.map((g) =>
    el("a", { href: scopeHref(scope, "quarantine", g.generation), class: g.generation === chosen ? "current" : "", test: "quarantined-generation" },
      `generation ${g.generation} `, badge(g.status))));
  if (!chosen) return section("Quarantine", empty("Nothing was held back by the gate in the kept generations."));
  const data = await review.quarantine(scope, chosen);
  const parts = [list, quarantineView(data)];
  if (session.decisions && data.generation.status === "quarantined") {
    parts.splice(1, 0, decisionForm(scope, data.generation.generation, data.active_generation));
  }
  return parts;
}

async function searchTab(scope, arg) {
  const query = arg || "";
  const input = el("input", { type: "search", name: "q", value: query, test: "search-input", placeholder: "what do you want to know about this scope?" });
  const form = el("form", { class: "inline", test: "search-form" }, field("search memory", input), el("button", { type: "submit" }, "Search"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value.trim()) location.hash = scopeHref(scope, "search", encodeURIComponent(input.value.trim()));
  });
  if (!query) return section("Search", form);
  return section("Search", form, searchResults(await review.search(scope, query, 10)));
}

// --- decisions: the operator routes, with who (the name given at sign-in) and why
function reasonInput(test) {
  return el("textarea", { name: "reason", rows: 2, required: true, test, placeholder: "why (recorded in the diary and on the audit topic)" });
}

async function decide(action, run, done) {
  try {
    const state = await run();
    await route(); // the page shows the new state before the notice says it is done
    notify(done(state));
  } catch (err) {
    notify(`${action} refused: ${err.message}`, "error");
  }
}

function decisionForm(scope, generation, active) {
  const reason = reasonInput("decision-reason");
  const stale = active > generation;
  const force = el("input", { type: "checkbox", name: "force", test: "force" });
  const body = () => ({ by: credentials.name, reason: reason.value.trim(), ...(force.checked ? { force: true } : {}) });
  const valid = () => reason.reportValidity();
  const approve = el("button", { type: "button", class: "approve", test: "approve", onclick: () => valid() && decide(
    "approve", () => review.approve(scope, generation, body()), (s) => `Generation ${generation} approved: generation ${s.active_generation} is active.`) }, "Approve");
  const reject = el("button", { type: "button", class: "reject", test: "reject", onclick: () => valid() && decide(
    "reject", () => review.reject(scope, generation, body()), () => `Generation ${generation} rejected: its records are deleted.`) }, "Reject");
  return section(`Decide about generation ${generation}`,
    el("form", { class: "decide", test: "decision-form" }, field("reason", reason),
      stale ? field(`approve although generation ${active} was promoted since (undoes its changes)`, force) : "",
      el("div", { class: "buttons" }, approve, reject)));
}

function rollbackForm(scope, promotable) {
  const target = el("select", { name: "generation", test: "rollback-generation" },
    promotable.map((g) => el("option", { value: g.generation }, `generation ${g.generation} (${g.status})`)));
  const reason = reasonInput("rollback-reason");
  const button = el("button", { type: "button", class: "reject", test: "rollback", onclick: () => reason.reportValidity() && decide(
    "roll back", () => review.rollback(scope, { by: credentials.name, reason: reason.value.trim(), generation: Number(target.value) }),
    (s) => `Rolled back: generation ${s.active_generation} is active.`) }, "Roll back");
  return section("Roll back", el("form", { class: "decide", test: "rollback-form" }, field("to", target), field("reason", reason), el("div", { class: "buttons" }, button)));
}

// --- routing
async function route() {
  if (!session) return;
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  try {
    if (parts[0] === "t" && parts[1]) await tenantPage(parts[1]);
    else if (parts[0] === "s" && parts.length >= 5) await scopePage(parts.slice(1, 4).join("/"), parts[4] || "timeline", parts.slice(5).join("/"));
    else if (parts[0] === "s" && parts.length === 4) await scopePage(parts.slice(1, 4).join("/"), "timeline");
    else await tenantsPage();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) { session = null; loginForm("The token was refused."); return; }
    show(section("Something went wrong", el("p", { class: "error", test: "error" }, err.message)));
  }
}

window.addEventListener("hashchange", () => {
  document.getElementById("notice").hidden = true;
  route();
});
start();
