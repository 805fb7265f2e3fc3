// The page's only way to the API: every request carries the token the operator typed (kept in this
// tab's sessionStorage, gone when the tab closes), as `Authorization: Bearer`; no cookies are sent.

const TOKEN = "dreamstream.review.token";
const NAME = "dreamstream.review.name";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export const credentials = {
  get token() { return sessionStorage.getItem(TOKEN) || ""; },
  get name() { return sessionStorage.getItem(NAME) || ""; },
  save(token, name) {
    if (token) sessionStorage.setItem(TOKEN, token); else sessionStorage.removeItem(TOKEN);
    sessionStorage.setItem(NAME, name);
  },
  clear() { sessionStorage.removeItem(TOKEN); },
};

export async function api(path, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  if (credentials.token) headers.Authorization = `Bearer ${credentials.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    throw new ApiError(response.status, data && data.error ? data.error : `${response.status} ${response.statusText}`);
  }
  return data;
}

export function scopePath(scope) {
  return scope.split("/").map(encodeURIComponent).join("/");
}

export const review = {
  session: () => api("/review/session"),
  tenants: () => api("/review/tenants"),
  scopes: (tenant) => api(`/review/tenants/${encodeURIComponent(tenant)}/scopes`),
  timeline: (scope) => api(`/review/scopes/${scopePath(scope)}/timeline`),
  diff: (scope, from, to) => {
    const query = new URLSearchParams();
    if (from !== undefined && from !== "") query.set("from", from);
    if (to !== undefined && to !== "") query.set("to", to);
    return api(`/review/scopes/${scopePath(scope)}/diff?${query}`);
  },
  quarantine: (scope, generation) => api(`/review/scopes/${scopePath(scope)}/quarantine/${generation}`),
  search: (scope, q, k = 10) => api(`/review/scopes/${scopePath(scope)}/search?${new URLSearchParams({ q, k })}`),
  // Decisions go through the operator routes every client uses (audit events, metrics, roles).
  approve: (scope, generation, body) =>
    api(`/scopes/${scopePath(scope)}/generations/${generation}/approve`, { method: "POST", body }),
  reject: (scope, generation, body) =>
    api(`/scopes/${scopePath(scope)}/generations/${generation}/reject`, { method: "POST", body }),
  rollback: (scope, body) => api(`/scopes/${scopePath(scope)}/rollback`, { method: "POST", body }),
};
