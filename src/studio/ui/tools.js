// The Tools page: the tools the chosen identity may see; for one tool (`#/tools/<name>`) its
// description, the schema each provider is told side by side, the strict modes' fallbacks, and a
// form generated from its input schema that calls it through the registry, as that identity.
import { buildForm } from './tools-form.js';

const PROVIDERS = [
  ['openai', 'OpenAI'],
  ['openaiStrict', 'OpenAI (strict)'],
  ['anthropic', 'Anthropic'],
  ['anthropicStrict', 'Anthropic (strict)'],
  ['gemini', 'Gemini'],
  ['mcp', 'MCP'],
];
const PROVIDER_NAMES = { openai: 'OpenAI', anthropic: 'Anthropic' };
const HINTS = { readOnlyHint: 'read-only', destructiveHint: 'destructive', idempotentHint: 'idempotent', openWorldHint: 'open world' };

function ensureCss() {
  if (document.querySelector('link[href="/tools.css"]')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = '/tools.css';
  document.head.append(link);
}

export async function mount(root, studio, rest) {
  ensureCss();
  const { el } = studio;
  const selected = rest.length > 0 ? rest.join('/') : undefined;
  const listBox = el('nav', { class: 'tool-list', 'aria-label': 'Tool list' });
  const detail = el('div', { class: 'tool-detail' });
  root.append(el('h1', {}, 'Tools'), el('div', { class: 'tools-layout' }, listBox, detail));

  async function render(focus) {
    const { ok, json } = await studio.api('/api/tools');
    if (!ok) {
      listBox.replaceChildren(el('p', { class: 'error' }, `The tools could not be listed: ${json.error?.message ?? 'no answer'}`));
      detail.replaceChildren();
      return;
    }
    const tools = json.tools;
    listBox.replaceChildren(toolList(el, tools, selected));
    const tool = selected === undefined ? undefined : tools.find((t) => t.name === selected);
    if (selected === undefined) {
      detail.replaceChildren(
        el(
          'p',
          { class: 'muted' },
          tools.length === 0 ? 'This user may use no tools.' : `${tools.length} tools. Choose one to see its schemas and call it.`,
        ),
      );
    } else if (!tool) {
      // A tool this identity may not see is shown as what it is to them: unknown.
      detail.replaceChildren(
        el('h2', { tabindex: '-1', class: 'tool-title' }, 'No such tool'),
        el('p', {}, `No tool named “${selected}” for this user and tenant.`),
      );
    } else detail.replaceChildren(toolDetail(studio, tool));
    if (focus) detail.querySelector('h2')?.focus();
  }

  const onIdentity = () => void render(false);
  const identityInputs = ['identity-user', 'identity-tenant'].map((id) => document.getElementById(id)).filter(Boolean);
  for (const input of identityInputs) input.addEventListener('change', onIdentity);
  await render(selected !== undefined);
  return () => {
    for (const input of identityInputs) input.removeEventListener('change', onIdentity);
  };
}

/** The list: links to each tool; arrow keys, Home and End move between them. */
function toolList(el, tools, selected) {
  const list = el(
    'ul',
    {},
    tools.map((t) =>
      el(
        'li',
        {},
        el(
          'a',
          { href: `#/tools/${encodeURIComponent(t.name)}`, 'aria-current': t.name === selected ? 'page' : undefined },
          el('span', { class: 'tool-name' }, t.name),
          el('span', { class: 'tool-summary' }, t.description),
        ),
      ),
    ),
  );
  list.addEventListener('keydown', (event) => {
    const links = [...list.querySelectorAll('a')];
    const at = links.indexOf(document.activeElement);
    if (at < 0) return;
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: links.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    links[Math.max(0, Math.min(links.length - 1, to))].focus();
  });
  return list;
}

function toolDetail(studio, tool) {
  const { el } = studio;
  const badges = [];
  if (tool.approval === true) badges.push('needs approval');
  if (tool.approval === 'policy') badges.push('approval by policy');
  for (const [key, label] of Object.entries(HINTS)) if (tool.annotations[key] === true) badges.push(label);
  for (const tag of tool.tags) badges.push(`#${tag}`);
  return el(
    'article',
    { class: 'tool', 'aria-labelledby': 'tool-title' },
    el('h2', { id: 'tool-title', class: 'tool-title', tabindex: '-1' }, tool.name),
    el('p', { class: 'tool-description' }, tool.description),
    badges.length > 0
      ? el(
          'ul',
          { class: 'badges', 'aria-label': 'About this tool' },
          badges.map((b) => el('li', {}, b)),
        )
      : null,
    callSection(studio, tool),
    schemasSection(el, tool),
    fallbacksSection(el, tool),
  );
}

function schemasSection(el, tool) {
  return el(
    'section',
    { class: 'schemas', 'aria-labelledby': 'schemas-title' },
    el('h3', { id: 'schemas-title' }, 'What the model is told'),
    el(
      'div',
      { class: 'schema-grid' },
      PROVIDERS.map(([key, label]) => {
        const form = tool.providers[key];
        const id = `schema-${key}`;
        return el(
          'figure',
          { class: 'schema' },
          el('figcaption', { id }, label),
          'error' in form
            ? el('p', { class: 'error' }, form.error)
            : el('pre', { tabindex: '0', role: 'group', 'aria-labelledby': id }, JSON.stringify(form.schema, null, 2)),
        );
      }),
    ),
  );
}

function fallbacksSection(el, tool) {
  return el(
    'section',
    { class: 'fallbacks', 'aria-labelledby': 'fallbacks-title' },
    el('h3', { id: 'fallbacks-title' }, 'Strict mode fallbacks'),
    tool.strictFallbacks.length === 0
      ? el('p', { class: 'muted' }, 'None: both strict modes take this schema.')
      : el(
          'ul',
          {},
          tool.strictFallbacks.map((f) =>
            el('li', {}, el('strong', {}, `${PROVIDER_NAMES[f.provider] ?? f.provider}: `), `sent non-strict, because ${f.reason}.`),
          ),
        ),
  );
}

function callSection(studio, tool) {
  const { el } = studio;
  const form = buildForm(el, tool.inputSchema);
  const summary = el('div', { class: 'error-summary', tabindex: '-1', hidden: true });
  const result = el('section', { class: 'result', 'aria-labelledby': 'result-title', hidden: true });
  const who = studio.identity();
  const submit = el('button', { type: 'submit' }, `Call ${tool.name}`);
  const formEl = el(
    'form',
    { class: 'call-form', novalidate: true, 'aria-labelledby': 'call-title' },
    summary,
    form.element,
    el('div', { class: 'actions' }, submit),
  );
  formEl.addEventListener('submit', (event) => {
    event.preventDefault();
    void send();
  });

  async function send() {
    clearErrors(formEl, summary);
    submit.disabled = true;
    try {
      const args = form.read() ?? {};
      const { ok, json } = await studio.api(`/api/tools/${encodeURIComponent(tool.name)}/call`, { method: 'POST', body: { args } });
      if (ok) return showResult(el, result, 'Result', JSON.stringify(json.result, null, 2), 'ok', studio, tool);
      const error = json.error ?? { code: 'INTERNAL', message: 'No answer.' };
      if (Array.isArray(error.errors) && error.errors.length > 0) {
        result.hidden = true;
        return showFieldErrors(studio, form, summary, error);
      }
      const advice =
        error.code === 'APPROVAL_REQUIRED'
          ? ' The studio runs no call without its approval: run it through an agent (the Chat page), where a person approves it.'
          : '';
      showResult(el, result, 'Error', `${error.code}: ${error.message}${advice}`, 'error', studio, tool, error.modelSees);
    } finally {
      submit.disabled = false;
    }
  }

  return el(
    'section',
    { class: 'call', 'aria-labelledby': 'call-title' },
    el('h3', { id: 'call-title' }, 'Call it'),
    el(
      'p',
      { class: 'muted' },
      `As user “${who.userId ?? '(default)'}”${who.tenantId ? ` of tenant “${who.tenantId}”` : ''} (change it in the header), through the registry: the same checks and approvals as every surface.`,
    ),
    formEl,
    result,
  );
}

function showResult(el, result, title, text, kind, studio, tool, modelSees) {
  result.hidden = false;
  result.className = `result ${kind}`;
  result.replaceChildren(
    ...[
      el('h3', { id: 'result-title' }, title),
      kind === 'ok'
        ? el('pre', { tabindex: '0', role: 'group', 'aria-labelledby': 'result-title' }, text)
        : el('p', { class: 'error' }, text),
      modelSees === undefined
        ? null
        : el(
            'details',
            {},
            el('summary', {}, 'What the model would be told'),
            el('pre', { tabindex: '0' }, JSON.stringify(modelSees, null, 2)),
          ),
    ].filter(Boolean),
  );
  studio.announce(kind === 'ok' ? `${tool.name} answered.` : `${tool.name} failed: ${text}`);
}

function clearErrors(formEl, summary) {
  summary.hidden = true;
  summary.replaceChildren();
  for (const p of formEl.querySelectorAll('.field-error')) p.remove();
  for (const node of formEl.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
  for (const node of formEl.querySelectorAll('[data-hint]')) {
    if (node.dataset.hint) node.setAttribute('aria-describedby', node.dataset.hint);
    else node.removeAttribute('aria-describedby');
  }
}

/** The control (or group) a validator path names, or its nearest named ancestor; undefined for the whole. */
function target(fields, path) {
  let p = path;
  while (p !== '') {
    const found = fields.get(p);
    if (found) return { node: found, path: p };
    p = p.replace(/(\[\d+\]|\.?[^.[\]]+)$/, '');
  }
  return undefined;
}

let errorIds = 0;

/** The validator's message, with the path it names when the message does not say it already. */
const said = (path, message) => (path && message.includes(path) ? message : `${path || 'arguments'}: ${message}`);

function showFieldErrors(studio, form, summary, error) {
  const { el } = studio;
  const fields = new Map();
  form.fields('', fields);
  // Messages grouped by the control they land on (one control may break several rules).
  const byNode = new Map();
  const loose = [];
  for (const e of error.errors) {
    const hit = target(fields, e.path);
    if (!hit || hit.node === fields.get('')) {
      loose.push(e);
      continue;
    }
    const entry = byNode.get(hit.node) ?? { path: e.path, messages: [] };
    if (!entry.messages.includes(e.message)) entry.messages.push(e.message);
    byNode.set(hit.node, entry);
  }
  const marked = [...byNode.entries()].sort(([a], [b]) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  const items = [];
  for (const [node, { path, messages }] of marked) {
    const id = `tf-error-${++errorIds}`;
    const message = el('p', { class: 'field-error', id }, messages.join(' '));
    const isGroup = node.tagName === 'FIELDSET' || node.tagName === 'DIV';
    if (isGroup) {
      const legend = node.querySelector(':scope > legend');
      if (legend) legend.after(message);
      else node.prepend(message);
    } else {
      node.after(message);
      node.setAttribute('aria-invalid', 'true');
    }
    node.setAttribute('aria-describedby', [node.dataset.hint, id].filter(Boolean).join(' '));
    const focusable = isGroup ? (node.querySelector('input, select, textarea, button') ?? node) : node;
    items.push(
      el('li', {}, el('button', { type: 'button', class: 'link', onclick: () => focusable.focus() }, said(path, messages.join(' ')))),
    );
  }
  for (const e of loose) items.push(el('li', {}, said(e.path, e.message)));
  const count = error.errors.length + (error.omitted ?? 0);
  summary.hidden = false;
  summary.replaceChildren(
    el('h4', {}, `The tool refused ${count === 1 ? 'one argument' : `${count} arguments`}`),
    el('p', {}, error.message),
    el('ul', {}, items),
  );
  studio.announce(`${count === 1 ? 'One field needs' : `${count} fields need`} fixing.`);
  const first = marked[0];
  if (first) {
    const [node] = first;
    const isGroup = node.tagName === 'FIELDSET' || node.tagName === 'DIV';
    (isGroup ? (node.querySelector('input, select, textarea, button') ?? summary) : node).focus();
  } else summary.focus();
}
