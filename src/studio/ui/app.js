// The studio's shell: the page router, the identity chosen in the header, and `api()`, through
// which every page calls the server (the token from this page's URL, the identity as headers).
const token = new URLSearchParams(location.search).get('token') ?? '';
const PAGES = {
  tools: () => import('./tools.js'),
  chat: () => import('./chat.js'),
  sessions: () => import('./sessions.js'),
  traces: () => import('./traces.js'),
};

const userInput = /** @type {HTMLInputElement} */ (document.getElementById('identity-user'));
const tenantInput = /** @type {HTMLInputElement} */ (document.getElementById('identity-tenant'));
const main = /** @type {HTMLElement} */ (document.getElementById('page'));
const status = /** @type {HTMLElement} */ (document.getElementById('status'));

/** The user and tenant every call acts as. */
export function identity() {
  return { userId: userInput.value.trim() || undefined, tenantId: tenantInput.value.trim() || undefined };
}

/** Headers that carry the token and the identity; for pages that call `fetch` themselves (streams). */
export function headers(extra = {}) {
  const { userId, tenantId } = identity();
  const h = { authorization: `Bearer ${token}`, ...extra };
  if (userId) h['x-studio-user'] = encodeURIComponent(userId);
  if (tenantId) h['x-studio-tenant'] = encodeURIComponent(tenantId);
  return h;
}

/**
 * Calls `/api/...` and resolves with `{ ok, status, json }`; an error answer is
 * `{ error: { code, message, ... } }`, never thrown.
 */
export async function api(path, { method = 'GET', body } = {}) {
  const init = { method, headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  const json = await res.json().catch(() => ({ error: { code: 'INVALID_JSON', message: `HTTP ${res.status}` } }));
  return { ok: res.ok, status: res.status, json };
}

/** Says `text` to screen readers (a polite live region). */
export function announce(text) {
  status.textContent = '';
  setTimeout(() => (status.textContent = text), 50);
}

/** `el('button', { class: 'x', onclick }, 'Text', child)`: a small builder; strings become text, never HTML. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const child of children.flat()) if (child !== undefined && child !== null && child !== false) node.append(child);
  return node;
}

export const studio = { api, headers, identity, announce, el };

let unmount;
let route = '';

async function show() {
  const [, name = 'tools', ...rest] = location.hash.replace(/^#/, '').split('/');
  const page = PAGES[name] ? name : 'tools';
  const key = `${page}/${rest.join('/')}`;
  if (key === route) return;
  route = key;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (typeof unmount === 'function') unmount();
  unmount = undefined;
  main.replaceChildren();
  const module = await PAGES[page]();
  unmount = await module.mount(main, studio, rest);
  const heading = main.querySelector('h1');
  document.title = `${heading?.textContent ?? page} · toolwright studio`;
  if (document.activeElement === document.body || document.activeElement?.closest('nav')) main.focus();
}

function remember() {
  localStorage.setItem('toolwright.studio.identity', JSON.stringify(identity()));
}

async function start() {
  const saved = JSON.parse(localStorage.getItem('toolwright.studio.identity') ?? 'null');
  const { json } = await api('/api/info');
  userInput.value = saved?.userId ?? json.identity?.userId ?? '';
  tenantInput.value = saved?.tenantId ?? json.identity?.tenantId ?? '';
  for (const input of [userInput, tenantInput]) input.addEventListener('change', remember);
  document.getElementById('identity').addEventListener('submit', (e) => e.preventDefault());
  addEventListener('hashchange', () => void show());
  await show();
}

void start();
