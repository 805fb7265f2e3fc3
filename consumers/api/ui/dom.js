// Building the page from data. Text always goes in as text nodes, never as HTML: memory texts and
// messages are what users wrote, and must never run as markup.

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "test") node.dataset.test = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function when(iso) {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

export function badge(text, kind = text) {
  return el("span", { class: `badge badge-${String(kind).replace(/[^a-z-]/g, "")}` }, text);
}

export function section(title, ...children) {
  return el("section", { class: "card" }, el("h2", {}, title), ...children);
}

export function empty(text) {
  return el("p", { class: "empty" }, text);
}

export function field(label, input) {
  return el("label", { class: "field" }, el("span", {}, label), input);
}
