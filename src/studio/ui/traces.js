// The Traces page: the recent runs (#/traces), and one run's spans as a timeline (#/traces/<traceId>).
// Bar geometry is set through the CSSOM (style.setProperty): the CSP refuses inline style attributes.

const OPERATION_LABEL = { chat: 'Model turn', execute_tool: 'Tool call', invoke_agent: 'Agent run' };

export async function mount(root, studio, rest) {
  if (!document.querySelector('link[href="/traces.css"]')) {
    document.head.append(studio.el('link', { rel: 'stylesheet', href: '/traces.css' }));
  }
  const [traceId] = rest;
  return traceId ? showTrace(root, studio, traceId) : showList(root, studio);
}

// --- the list of recent runs -------------------------------------------------------------------

async function showList(root, studio) {
  const { el } = studio;
  const note = el('div', { class: 'traces-note' });
  const body = el('div', { class: 'traces-list' });
  const refresh = el('button', { type: 'button', class: 'secondary', onclick: () => void load(true) }, 'Refresh');
  root.append(el('h1', {}, 'Traces'), el('div', { class: 'traces-toolbar' }, refresh), note, body);

  async function load(announce) {
    const { ok, json } = await studio.api('/api/traces');
    if (!ok) {
      body.replaceChildren(el('p', { class: 'error', role: 'alert' }, `Could not load the traces: ${json.error?.message ?? 'error'}`));
      return;
    }
    note.replaceChildren(...collectorNote(el, json.collector));
    body.replaceChildren(json.traces.length ? traceTable(el, json.traces) : el('p', { class: 'muted' }, emptyText(json.collector)));
    if (announce) studio.announce(`${json.traces.length} ${json.traces.length === 1 ? 'trace' : 'traces'}.`);
  }
  await load(false);
}

function collectorNote(el, collector) {
  if (collector.mode === 'in-process') {
    return [
      el(
        'p',
        { class: 'muted' },
        `Spans of this process, kept in memory: the last ${collector.kept.traces} traces. ` +
          'To send them to a collector instead, register your tracer provider before the studio starts.',
      ),
    ];
  }
  if (collector.mode === 'app-collector') {
    return [
      el(
        'p',
        { class: 'muted' },
        collector.shown
          ? "The app registered its own tracer provider: traces go to the app's collector, and are shown here too."
          : "The app registered its own tracer provider: traces go to the app's collector. Open them there.",
      ),
    ];
  }
  return [
    el(
      'div',
      { class: 'panel traces-missing', role: 'note' },
      el('p', {}, 'The studio keeps traces with the OpenTelemetry SDK, and these packages are missing:'),
      el('ul', {}, ...collector.missing.map((name) => el('li', {}, el('code', {}, name)))),
      el('p', {}, 'Install them in the app, then restart the studio:'),
      el('pre', {}, el('code', {}, collector.install)),
    ),
  ];
}

function emptyText(collector) {
  if (collector.mode === 'unavailable') return 'No traces.';
  if (collector.mode === 'app-collector' && !collector.shown) return 'No traces here.';
  return 'No runs yet. Run the agent or call a tool (the Chat and Tools pages), then refresh.';
}

function traceTable(el, traces) {
  const head = el(
    'tr',
    {},
    ...['Run', 'Agent or tool', 'Started', 'Duration', 'Status', 'Tokens (in / out)', 'Spans'].map((h) => el('th', { scope: 'col' }, h)),
  );
  const rows = traces.map((t) =>
    el(
      'tr',
      { class: t.status === 'error' ? 'trace-error' : '' },
      el('th', { scope: 'row' }, el('a', { href: `#/traces/${t.traceId}`, class: 'trace-link' }, t.name)),
      el('td', {}, t.agent ?? t.tool ?? '—'),
      el('td', {}, el('time', { datetime: t.startTime }, new Date(t.startTime).toLocaleTimeString())),
      el('td', { class: 'num' }, formatMs(t.durationMs)),
      el('td', {}, statusBadge(el, t)),
      el('td', { class: 'num' }, t.tokens ? `${t.tokens.input} / ${t.tokens.output}` : '—'),
      el('td', { class: 'num' }, String(t.spanCount) + (t.droppedSpans ? ` (+${t.droppedSpans} not kept)` : '')),
    ),
  );
  return el(
    'table',
    { class: 'traces-table' },
    el('caption', { class: 'visually-hidden' }, 'Recent runs, newest first'),
    el('thead', {}, head),
    el('tbody', {}, ...rows),
  );
}

function statusBadge(el, t) {
  if (t.status === 'error')
    return el('span', { class: 'badge badge-error' }, el('span', { 'aria-hidden': 'true' }, '✕ '), `Error ${t.errorType ?? ''}`.trim());
  const note = t.errorCount ? ` (${t.errorCount} failed ${t.errorCount === 1 ? 'span' : 'spans'})` : '';
  const running = t.complete ? '' : ', running';
  return el(
    'span',
    { class: t.errorCount ? 'badge badge-warn' : 'badge badge-ok' },
    el('span', { 'aria-hidden': 'true' }, t.errorCount ? '⚠ ' : '✓ '),
    `OK${running}${note}`,
  );
}

// --- one trace's timeline ----------------------------------------------------------------------

async function showTrace(root, studio, traceId) {
  const { el } = studio;
  const back = el('p', {}, el('a', { href: '#/traces' }, '← All traces'));
  const { ok, json } = await studio.api(`/api/traces/${encodeURIComponent(traceId)}`);
  if (!ok) {
    root.append(el('h1', {}, 'Trace not found'), back, el('p', { class: 'error', role: 'alert' }, json.error?.message ?? 'error'));
    return;
  }
  const details = el('section', { class: 'panel span-details', id: 'span-details', 'aria-labelledby': 'span-details-title' });
  const refresh = el('button', { type: 'button', class: 'secondary', onclick: () => void reload() }, 'Refresh');
  const timeline = el('ol', { class: 'timeline', 'aria-label': 'Spans, in the order they started' });
  root.append(
    el('h1', {}, `Trace: ${json.name}`),
    back,
    el('div', { class: 'traces-toolbar' }, refresh),
    summaryLine(el, json),
    timelineScale(el, json),
    timeline,
    details,
  );

  let selected = json.spans[0]?.spanId;
  function render(trace) {
    const total = Math.max(trace.durationMs, 0.001);
    timeline.replaceChildren(...trace.spans.map((span) => spanRow(el, span, total, span.spanId === selected, select)));
    const span = trace.spans.find((s) => s.spanId === selected) ?? trace.spans[0];
    details.replaceChildren(...spanDetails(el, span));
  }
  function select(span, button) {
    selected = span.spanId;
    for (const b of timeline.querySelectorAll('button[aria-current]')) b.removeAttribute('aria-current');
    button.setAttribute('aria-current', 'true');
    details.replaceChildren(...spanDetails(el, span));
    studio.announce(`Details of ${span.name}.`);
  }
  async function reload() {
    const again = await studio.api(`/api/traces/${encodeURIComponent(traceId)}`);
    if (again.ok) {
      render(again.json);
      studio.announce(`${again.json.spans.length} spans.`);
    }
  }
  timeline.addEventListener('keydown', (event) => moveFocus(timeline, event));
  render(json);
}

function summaryLine(el, t) {
  const parts = [`${t.spanCount} spans`, `took ${formatMs(t.durationMs)}`, `started ${new Date(t.startTime).toLocaleString()}`];
  if (t.tokens) parts.push(`${t.tokens.input} input and ${t.tokens.output} output tokens`);
  return el('p', { class: 'trace-summary' }, statusBadge(el, t), ' ', parts.join(' · '));
}

function timelineScale(el, t) {
  return el('div', { class: 'timeline-scale', 'aria-hidden': 'true' }, el('span', {}, '0 ms'), el('span', {}, formatMs(t.durationMs)));
}

function spanRow(el, span, total, isSelected, select) {
  const label = OPERATION_LABEL[span.operation] ?? 'Span';
  const kindClass =
    span.operation === 'chat'
      ? 'span-model'
      : span.operation === 'execute_tool'
        ? 'span-tool'
        : span.operation === 'invoke_agent'
          ? 'span-agent'
          : 'span-other';
  const error = span.status === 'error';
  const facts = [formatMs(span.durationMs)];
  if (span.tokens) facts.push(`${span.tokens.input} in / ${span.tokens.output} out tokens`);
  const button = el(
    'button',
    { type: 'button', class: 'span-label', 'aria-controls': 'span-details', 'aria-current': isSelected ? 'true' : undefined },
    error
      ? el('span', { class: 'span-error-mark' }, el('span', { 'aria-hidden': 'true' }, '✕ '), `Error ${span.errorType ?? ''}`.trim())
      : null,
    el('span', { class: 'span-kind' }, label),
    el('span', { class: 'span-name' }, span.name),
    el('span', { class: 'span-facts' }, facts.join(' · ')),
  );
  button.addEventListener('click', () => select(span, button));
  button.style.setProperty('--depth', String(span.depth));
  const bar = el('div', { class: 'span-bar' });
  bar.style.setProperty('left', `${((span.startOffsetMs / total) * 100).toFixed(3)}%`);
  bar.style.setProperty('width', `${Math.max((span.durationMs / total) * 100, 0.4).toFixed(3)}%`);
  return el(
    'li',
    { class: `span-row ${kindClass}${error ? ' span-failed' : ''}`, 'data-span-id': span.spanId },
    button,
    el('div', { class: 'span-track', 'aria-hidden': 'true' }, bar),
  );
}

/** Up and Down arrows move between the span rows (Tab works as well). */
function moveFocus(timeline, event) {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const buttons = [...timeline.querySelectorAll('button.span-label')];
  const at = buttons.indexOf(document.activeElement);
  if (at < 0) return;
  const next = buttons[at + (event.key === 'ArrowDown' ? 1 : -1)];
  if (next) {
    event.preventDefault();
    next.focus();
  }
}

function spanDetails(el, span) {
  if (!span) return [el('h2', { id: 'span-details-title' }, 'Span details'), el('p', {}, 'No spans.')];
  const facts = [
    ['Kind', `${OPERATION_LABEL[span.operation] ?? 'Span'} (${span.kind})`],
    ['Starts at', formatMs(span.startOffsetMs)],
    ['Duration', formatMs(span.durationMs)],
    ['Status', span.status === 'error' ? `Error: ${span.errorType ?? ''}` : span.status === 'ok' ? 'OK' : 'OK (unset)'],
  ];
  if (span.statusMessage && span.statusMessage !== span.errorType) facts.push(['Status message', span.statusMessage]);
  if (span.tokens) facts.push(['Tokens', `${span.tokens.input} input, ${span.tokens.output} output`]);
  facts.push(['Span id', span.spanId], ['Parent span id', span.parentSpanId ?? 'none (root)']);
  const attributes = Object.entries(span.attributes);
  return [
    el('h2', { id: 'span-details-title' }, `Span details: ${span.name}`),
    el('dl', { class: 'span-facts-list' }, ...facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])),
    el('h3', {}, 'Attributes'),
    attributes.length
      ? el(
          'table',
          { class: 'attributes' },
          el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Attribute'), el('th', { scope: 'col' }, 'Value'))),
          el(
            'tbody',
            {},
            ...attributes.map(([k, v]) => el('tr', {}, el('th', { scope: 'row' }, el('code', {}, k)), el('td', {}, formatValue(v)))),
          ),
        )
      : el('p', { class: 'muted' }, 'None.'),
    el('h3', {}, 'Events'),
    span.events.length
      ? el(
          'ul',
          {},
          ...span.events.map((e) => el('li', {}, `${formatMs(e.offsetMs)}: ${e.name} `, el('code', {}, JSON.stringify(e.attributes)))),
        )
      : el('p', { class: 'muted' }, 'None.'),
  ];
}

function formatValue(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function formatMs(ms) {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${Math.round(ms)} ms`;
  return `${ms.toFixed(2)} ms`;
}
