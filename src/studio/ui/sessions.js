// The Sessions page: the store's sessions and memories by tenant and user, read-only. A session
// shows its history (tool calls and their results), its state, its paused run with the approvals it
// waits on (decided in the Chat page), and its user's memories with a search box.

/** The filters, kept while the studio is open (the header's identity until changed here). */
let filters;

const q = (params) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) s.set(k, v);
  const text = s.toString();
  return text ? `?${text}` : '';
};
const json = (value) => JSON.stringify(value, null, 2);
const pretty = (text) => {
  try {
    return json(JSON.parse(text));
  } catch {
    return text;
  }
};

function ensureCss() {
  if (document.querySelector('link[href="/sessions.css"]')) return;
  document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: '/sessions.css' }));
}

export async function mount(root, studio, rest) {
  ensureCss();
  filters ??= { tenant: studio.identity().tenantId ?? '', user: studio.identity().userId ?? '' };
  const [id, tenant] = rest.map((part) => decodeURIComponent(part));
  // One container: this page's CSS applies under it only (the stylesheet stays loaded on other pages).
  const page = studio.el('div', { class: 'sessions-page' });
  root.append(page);
  if (id) await showSession(page, studio, id, tenant ?? '');
  else await showList(page, studio);
}

/** An error answer in the page: its code and message, announced. */
function failure(studio, answer, what) {
  const { code = 'INTERNAL', message = `HTTP ${answer.status}` } = answer.json?.error ?? {};
  studio.announce(`${what} failed: ${message}`);
  return studio.el('p', { class: 'error', role: 'alert' }, studio.el('strong', {}, code), ` ${message}`);
}

async function showList(root, studio) {
  const { el, api } = studio;
  const tenantInput = el('input', {
    id: 'sessions-tenant',
    name: 'tenant',
    autocomplete: 'off',
    spellcheck: 'false',
    value: filters.tenant,
  });
  const userInput = el('input', { id: 'sessions-user', name: 'user', autocomplete: 'off', spellcheck: 'false', value: filters.user });
  const results = el('div', { class: 'sessions-results' });
  const live = el('p', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const form = el(
    'form',
    { class: 'sessions-filters', 'aria-label': 'Filter sessions', onsubmit: (e) => (e.preventDefault(), void load()) },
    el('label', { for: 'sessions-tenant' }, 'Filter by tenant'),
    tenantInput,
    el('label', { for: 'sessions-user' }, 'Filter by user'),
    userInput,
    el('button', { type: 'submit' }, 'Show'),
  );
  root.append(el('h1', {}, 'Sessions'), form, live, results);

  async function load() {
    filters = { tenant: tenantInput.value.trim(), user: userInput.value.trim() };
    results.replaceChildren();
    live.textContent = 'Loading…';
    const sessionsTable = table(el, 'Sessions', ['Session', 'User', 'Messages', 'Version', 'Paused run']);
    const memoriesTable = table(el, 'Memories', ['Agent', 'User', 'Entries']);
    results.append(el('h2', { id: 'sessions-list' }, 'Sessions'), sessionsTable.node);
    const more = async (after) => {
      const answer = await api(`/api/sessions${q({ tenant: filters.tenant, user: filters.user, after })}`);
      if (!answer.ok) return void results.append(failure(studio, answer, 'Listing sessions'));
      for (const s of answer.json.items) {
        const href = `#/sessions/${encodeURIComponent(s.sessionId)}${filters.tenant ? `/${encodeURIComponent(filters.tenant)}` : ''}`;
        sessionsTable.add([
          el('a', { href }, s.sessionId),
          s.userId ?? el('span', { class: 'muted' }, 'anonymous'),
          String(s.messages ?? ''),
          String(s.version),
          s.paused ? el('strong', {}, 'waiting') : 'no',
        ]);
      }
      sessionsTable.next(answer.json.next, 'More sessions', more);
      return answer.json.items.length;
    };
    const count = await more(undefined);
    if (count === undefined) return void (live.textContent = '');
    if (sessionsTable.empty()) sessionsTable.node.replaceWith(el('p', {}, 'No sessions are stored for these filters.'));
    results.append(el('h2', {}, 'Memories'), memoriesTable.node);
    const memories = await api(`/api/memories${q({ tenant: filters.tenant, user: filters.user })}`);
    if (!memories.ok) return void results.append(failure(studio, memories, 'Listing memories'));
    for (const m of memories.json.items) memoriesTable.add([m.agentName, m.userId, String(m.entries ?? '')]);
    if (memoriesTable.empty()) memoriesTable.node.replaceWith(el('p', {}, 'No memories are stored for these filters.'));
    // This live region says it (the shell's would say it twice).
    live.textContent = `${sessionsTable.count()} sessions and ${memories.json.items.length} memories loaded.`;
  }
  await load();
}

/** A table with a caption, a row of column headers and `body`. */
function headedTable(el, caption, headers, body) {
  const head = el(
    'thead',
    {},
    el(
      'tr',
      {},
      headers.map((h) => el('th', { scope: 'col' }, h)),
    ),
  );
  return el('table', {}, el('caption', {}, caption), head, body);
}

/** A table with a caption and column headers; rows added as they load, and a "more" button for the next page. */
function table(el, caption, headers) {
  const body = el('tbody');
  const foot = el('div');
  const node = el('div', { class: 'sessions-table' }, headedTable(el, caption, headers, body), foot);
  return {
    node,
    add: (cells) =>
      body.append(
        el(
          'tr',
          {},
          cells.map((c, i) => (i === 0 ? el('th', { scope: 'row' }, c) : el('td', {}, c))),
        ),
      ),
    count: () => body.children.length,
    empty: () => body.children.length === 0,
    next(cursor, label, load) {
      foot.replaceChildren();
      if (cursor) foot.append(el('button', { type: 'button', class: 'secondary', onclick: () => void load(cursor) }, label));
    },
  };
}

async function showSession(root, studio, id, tenant) {
  const { el, api, announce } = studio;
  root.append(el('h1', {}, `Session ${id}`), el('p', {}, el('a', { href: '#/sessions' }, 'All sessions')));
  const answer = await api(`/api/sessions/${encodeURIComponent(id)}${q({ tenant })}`);
  if (!answer.ok) return void root.append(failure(studio, answer, 'Loading the session'));
  const s = answer.json;
  root.append(
    el(
      'dl',
      { class: 'sessions-facts' },
      el('dt', {}, 'Tenant'),
      el('dd', {}, s.tenantId ?? 'none'),
      el('dt', {}, 'User'),
      el('dd', {}, s.userId ?? 'anonymous'),
      el('dt', {}, 'Version'),
      el('dd', {}, String(s.version)),
    ),
    el('h2', {}, 'History'),
    history(el, s.history),
    el('h2', {}, 'State'),
    state(el, s.state),
    el('h2', {}, 'Paused run'),
    pausedRun(el, s),
    el('h2', {}, 'Memories'),
  );
  announce(`Session ${id} loaded: ${s.history.length} messages.`);
  if (s.userId) await memories(root, studio, tenant, s.userId);
  else root.append(el('p', {}, 'An anonymous session has no memories.'));
}

function history(el, messages) {
  if (messages.length === 0) return el('p', {}, 'No messages yet.');
  return el(
    'ol',
    { class: 'sessions-history', 'aria-label': 'History' },
    messages.map((m) => {
      if (m.role === 'tool')
        return el(
          'li',
          { class: `msg msg-tool${m.isError ? ' msg-error' : ''}` },
          el('span', { class: 'msg-role' }, `Result of ${m.name}${m.isError ? ' (error)' : ''}`),
          el('pre', {}, pretty(m.content)),
        );
      return el(
        'li',
        { class: `msg msg-${m.role}` },
        el('span', { class: 'msg-role' }, m.role === 'assistant' ? 'Assistant' : m.role === 'user' ? 'User' : 'System'),
        m.content ? el('p', {}, m.content) : null,
        (m.toolCalls ?? []).map((c) =>
          el('div', { class: 'msg-call' }, el('span', {}, `Calls ${c.name}`), el('pre', {}, pretty(c.arguments))),
        ),
      );
    }),
  );
}

function state(el, values) {
  const keys = Object.keys(values);
  if (keys.length === 0) return el('p', {}, 'No state.');
  return el(
    'table',
    {},
    el('caption', {}, 'State'),
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Key'), el('th', { scope: 'col' }, 'Value'))),
    el(
      'tbody',
      {},
      keys.map((k) => el('tr', {}, el('th', { scope: 'row' }, el('code', {}, k)), el('td', {}, el('pre', {}, json(values[k]))))),
    ),
  );
}

function pausedRun(el, s) {
  const run = s.pausedRun;
  if (!run) return el('p', {}, 'No run is paused.');
  const decider = run.decider ?? 'an anonymous caller';
  const chat = `#/chat/${encodeURIComponent(s.sessionId)}`;
  return el(
    'div',
    { class: 'panel' },
    el(
      'p',
      {},
      `The run${run.agentName ? ` of ${run.agentName}` : ''} waits for ${run.approvals.length + run.inputs.length} decision(s) by ${decider}.`,
    ),
    run.approvals.length
      ? el(
          'table',
          {},
          el('caption', {}, 'Pending approvals'),
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              ['Tool', 'Arguments', 'Decided by'].map((h) => el('th', { scope: 'col' }, h)),
            ),
          ),
          el(
            'tbody',
            {},
            run.approvals.map((a) =>
              el('tr', {}, el('th', { scope: 'row' }, a.name), el('td', {}, el('pre', {}, pretty(a.arguments))), el('td', {}, decider)),
            ),
          ),
        )
      : null,
    run.inputs.map((i) => el('p', {}, `${i.name} asks: ${i.request?.message ?? ''}`)),
    el('p', {}, el('a', { href: chat }, 'Decide in the Chat page'), ` (as ${decider}).`),
  );
}

async function memories(root, studio, tenant, userId) {
  const { el, api } = studio;
  const list = await api(`/api/memories${q({ tenant, user: userId })}`);
  if (!list.ok) return void root.append(failure(studio, list, 'Listing memories'));
  if (list.json.items.length === 0) return void root.append(el('p', {}, `Nothing is remembered for ${userId}.`));
  for (const m of list.json.items) {
    const path = `/api/memories/${encodeURIComponent(m.agentName)}/${encodeURIComponent(m.userId)}`;
    const section = el('section', { class: 'sessions-memory', 'aria-label': `Memory of ${m.agentName}` });
    root.append(section);
    section.append(el('h3', {}, `${m.agentName} remembers about ${m.userId}`));
    const loaded = await api(`${path}${q({ tenant })}`);
    if (!loaded.ok) {
      section.append(failure(studio, loaded, 'Loading the memory'));
      continue;
    }
    section.append(entries(el, `Entries (${loaded.json.entries.length})`, loaded.json.entries, false));
    const fieldId = `memory-search-${m.agentName.replace(/[^A-Za-z0-9_-]/g, '_')}`;
    const input = el('input', { id: fieldId, type: 'search', name: 'q', autocomplete: 'off', required: true });
    const out = el('div', { role: 'status', 'aria-live': 'polite', class: 'sessions-found' });
    const search = async () => {
      const text = input.value.trim();
      if (!text) return;
      const found = await api(`${path}/search${q({ tenant, q: text })}`);
      out.replaceChildren();
      if (!found.ok) return void out.append(failure(studio, found, 'Searching the memory'));
      const n = found.json.results.length;
      out.append(
        el('p', {}, n ? `${n} result${n === 1 ? '' : 's'} for “${text}”, best first.` : `Nothing matches “${text}”.`),
        n ? entries(el, `Results for “${text}”`, found.json.results, true) : null,
      );
    };
    section.append(
      el(
        'form',
        { role: 'search', class: 'sessions-search', onsubmit: (e) => (e.preventDefault(), void search()) },
        el('label', { for: fieldId }, `Search ${m.agentName} memory`),
        input,
        el('button', { type: 'submit' }, 'Search'),
      ),
      out,
    );
  }
}

function entries(el, caption, list, ranked) {
  const headers = [...(ranked ? ['Rank'] : []), 'Type', 'Content', ...(ranked ? ['Score'] : ['Saved'])];
  return headedTable(
    el,
    caption,
    headers,
    el(
      'tbody',
      {},
      list.map((e, i) =>
        el(
          'tr',
          {},
          ranked ? el('th', { scope: 'row' }, String(i + 1)) : null,
          el(ranked ? 'td' : 'th', ranked ? {} : { scope: 'row' }, e.type),
          el('td', {}, e.content),
          el('td', {}, ranked ? Number(e.score).toPrecision(3) : e.createdAt),
        ),
      ),
    ),
  );
}
