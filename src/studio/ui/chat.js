// The Chat page: a client of the agent's useChat endpoint (`/api/chat`), speaking the AI SDK's UI
// message stream protocol as `useChat` does: it posts UIMessages, reads the run back as SSE `data:`
// chunks, and answers approvals with `approval-responded` tool parts. The chat id is in the URL
// (`#/chat/<id>`); a reload restores the chat, and a pending approval, from `GET /api/chat?id=`.

let cssAdded = false;

/** A message part's label for each tool state (the AI SDK's ToolUIPart states). */
const STATE_LABELS = {
  'input-available': 'running',
  'approval-requested': 'waiting for approval',
  'approval-responded': 'decided',
  'output-available': 'done',
  'output-error': 'error',
  'output-denied': 'rejected',
};

export function mount(root, studio, rest) {
  const { el, announce } = studio;
  if (!cssAdded) {
    document.head.append(el('link', { rel: 'stylesheet', href: '/chat.css' }));
    cssAdded = true;
  }
  const chatId = rest[0] ? decodeURIComponent(rest[0]) : undefined;
  if (!chatId) {
    // A new chat gets its id at once, so that a reload finds it.
    location.replace(`#/chat/${encodeURIComponent(newId())}`);
    root.append(el('h1', {}, 'Chat'));
    return undefined;
  }

  /** The chat's UIMessages, as useChat keeps them. */
  let messages = [];
  let busy = false;
  let controller;
  let agentName = 'Agent';
  const views = new Map(); // message id -> its <li>

  const log = el('ol', { class: 'chat-messages' });
  const logBox = el('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' }, log);
  const errorBox = el('div', { class: 'chat-error', role: 'alert', hidden: true });
  const input = el('textarea', { id: 'chat-input', name: 'message', rows: 2, autocomplete: 'off' });
  const send = el('button', { type: 'submit', class: 'primary' }, 'Send');
  const stop = el('button', { type: 'button', class: 'secondary', hidden: true, onclick: () => controller?.abort() }, 'Stop');
  const form = el(
    'form',
    { class: 'chat-form', 'aria-label': 'Send a message', onsubmit: (e) => (e.preventDefault(), void submit()) },
    el('label', { for: 'chat-input' }, 'Message'),
    input,
    el('div', { class: 'chat-form-actions' }, send, stop),
  );
  input.addEventListener('keydown', (e) => {
    // Enter sends, Shift+Enter is a new line (as chat apps do).
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void submit();
    }
  });
  const idLine = el('p', { class: 'chat-id' }, 'Chat ', el('code', {}, chatId));
  const newChat = el(
    'button',
    { type: 'button', class: 'secondary', onclick: () => (location.hash = `#/chat/${encodeURIComponent(newId())}`) },
    'New chat',
  );
  root.append(el('div', { class: 'chat-head' }, el('h1', {}, 'Chat'), newChat), idLine, logBox, errorBox, form);

  void start();
  return () => controller?.abort();

  async function start() {
    const info = await studio.api('/api/info');
    if (!info.json.agent) {
      for (const node of [form, newChat, idLine, logBox]) node.remove();
      root.append(
        el(
          'p',
          { class: 'chat-none' },
          'This studio was started with a registry only: there is no agent to chat with. Start it with an Agent: ',
          el('code', {}, 'createStudio(agent)'),
          ', or a ',
          el('code', {}, '--module'),
          ' that exports ',
          el('code', {}, 'agent'),
          '.',
        ),
      );
      return;
    }
    agentName = info.json.agent.name;
    setBusy(true);
    const restored = await studio.api(`/api/chat?id=${encodeURIComponent(chatId)}`);
    setBusy(false);
    if (!restored.ok) return showError(restored.json);
    messages = restored.json.messages;
    for (const message of messages) render(message);
    const waiting = pendingApprovals();
    if (waiting.length) announce(`Restored: ${waiting.length} tool call(s) wait for your approval.`);
    else if (messages.length) announce(`Restored ${messages.length} messages.`);
  }

  async function submit() {
    const text = input.value.trim();
    if (!text || busy) return;
    input.value = '';
    const message = { id: newId(), role: 'user', parts: [{ type: 'text', text }] };
    messages.push(message);
    render(message);
    await post(message);
  }

  /** Posts the last message (the user's, or the assistant's with its approval responses) and reads the run back. */
  async function post(last) {
    hideError();
    setBusy(true);
    controller = new AbortController();
    try {
      const res = await fetch('/api/chat', {
        method: 'POST',
        headers: studio.headers({ 'content-type': 'application/json' }),
        // useChat's body. The handler reads only the last message (the history is in the agent's store).
        body: JSON.stringify({ id: chatId, messages: [last], trigger: 'submit-message' }),
        signal: controller.signal,
      });
      if (!res.ok) {
        const json = await res.json().catch(() => ({ error: { code: 'INVALID_JSON', message: `HTTP ${res.status}` } }));
        // A refused decision leaves the approval open: show its buttons again.
        if (last.role === 'assistant') reopenApprovals(last);
        return showError(json);
      }
      await readStream(res.body, last.role === 'assistant' ? last : undefined);
    } catch (error) {
      if (error.name === 'AbortError') showError({ error: { code: 'ABORTED', message: 'Stopped.' } });
      else showError({ error: { code: 'NETWORK', message: String(error.message ?? error) } });
    } finally {
      controller = undefined;
      setBusy(false);
    }
  }

  /** Reads SSE `data:` lines: each a UI message chunk, applied to the assistant message it builds. */
  async function readStream(body, continued) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    const state = { message: continued, continued };
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of event.split('\n')) {
          if (!line.startsWith('data: ')) continue;
          const data = line.slice(6);
          if (data === '[DONE]') continue;
          apply(state, JSON.parse(data));
        }
      }
    }
    if (state.message) render(state.message);
  }

  function apply(state, chunk) {
    if (chunk.type === 'start') {
      if (!state.message || (chunk.messageId && chunk.messageId !== state.message.id)) {
        state.message = { id: chunk.messageId ?? newId(), role: 'assistant', parts: [] };
        messages.push(state.message);
      }
      render(state.message);
      return;
    }
    if (chunk.type === 'error') {
      showError({ error: { code: 'RUN_FAILED', message: chunk.errorText } });
      return;
    }
    const message = state.message;
    if (!message) return;
    const parts = message.parts;
    const tool = (id) => parts.find((p) => isTool(p) && p.toolCallId === id);
    switch (chunk.type) {
      case 'start-step':
        parts.push({ type: 'step-start' });
        break;
      case 'text-start':
        parts.push({ type: 'text', id: chunk.id, text: '', state: 'streaming' });
        break;
      case 'text-delta': {
        const part = parts.find((p) => p.type === 'text' && p.id === chunk.id);
        if (part) part.text += chunk.delta;
        break;
      }
      case 'text-end': {
        const part = parts.find((p) => p.type === 'text' && p.id === chunk.id);
        if (part) part.state = 'done';
        break;
      }
      case 'tool-input-available':
      case 'tool-input-error': {
        let part = tool(chunk.toolCallId);
        if (!part) parts.push((part = { type: `tool-${chunk.toolName}`, toolCallId: chunk.toolCallId }));
        if (chunk.type === 'tool-input-available') Object.assign(part, { state: 'input-available', input: chunk.input });
        else Object.assign(part, { state: 'output-error', rawInput: chunk.input, errorText: chunk.errorText });
        break;
      }
      case 'tool-approval-request': {
        const part = tool(chunk.toolCallId);
        if (part) Object.assign(part, { state: 'approval-requested', approval: { id: chunk.approvalId } });
        announce(`${toolName(part)} waits for your approval.`);
        break;
      }
      case 'tool-output-available': {
        const part = tool(chunk.toolCallId);
        if (part) Object.assign(part, { state: 'output-available', output: chunk.output });
        break;
      }
      case 'tool-output-error': {
        const part = tool(chunk.toolCallId);
        if (part) Object.assign(part, { state: 'output-error', errorText: chunk.errorText });
        break;
      }
      case 'tool-output-denied': {
        const part = tool(chunk.toolCallId);
        if (part) part.state = 'output-denied';
        break;
      }
      case 'data-tool-progress':
      case 'data-tool-input': {
        const index = parts.findIndex((p) => p.type === chunk.type && p.id === chunk.id);
        const part = { type: chunk.type, id: chunk.id, data: chunk.data };
        if (index >= 0) parts[index] = part;
        else parts.push(part);
        break;
      }
      case 'finish':
        message.metadata = chunk.messageMetadata;
        if (chunk.messageMetadata?.status === 'completed') announce(`${agentName}: ${textOf(message)}`);
        break;
      default:
        break;
    }
    render(message);
  }

  /** The message's <li>, rebuilt from its parts. */
  function render(message) {
    let view = views.get(message.id);
    if (!view) {
      view = el('li', { class: `chat-message chat-${message.role}` });
      views.set(message.id, view);
      log.append(view);
    }
    const who = message.role === 'user' ? 'You' : agentName;
    const body = [el('h2', { class: 'chat-who' }, who)];
    for (const part of message.parts) {
      if (part.type === 'text' && part.text) body.push(el('p', { class: 'chat-text' }, part.text));
      else if (isTool(part)) body.push(toolView(part, message));
      else if (part.type === 'data-tool-progress')
        body.push(el('p', { class: 'chat-progress' }, `Progress ${part.data.progress}${part.data.total ? ` of ${part.data.total}` : ''}`));
      else if (part.type === 'data-tool-input')
        body.push(el('p', { class: 'chat-note' }, `${part.data.name} asks for input: ${part.data.request?.message ?? ''}`));
    }
    if (message.metadata?.status === 'paused' && !pendingOf(message).length && !busy)
      body.push(el('p', { class: 'chat-note' }, 'The run is paused.'));
    view.replaceChildren(...body);
  }

  function toolView(part, message) {
    const name = toolName(part);
    const state = part.state ?? 'input-available';
    const box = el(
      'section',
      { class: `chat-tool chat-tool-${state}`, 'aria-label': `Tool call ${name}` },
      el('h3', {}, 'Tool call ', el('code', {}, name), ' ', el('span', { class: 'chat-state' }, STATE_LABELS[state] ?? state)),
    );
    const args = part.input ?? part.rawInput;
    if (args !== undefined) box.append(el('h4', {}, 'Arguments'), el('pre', {}, pretty(args)));
    if (part.approval?.arguments !== undefined)
      box.append(el('h4', {}, 'Approved with arguments'), el('pre', {}, pretty(part.approval.arguments)));
    if (state === 'output-available') box.append(el('h4', {}, 'Result'), el('pre', {}, pretty(part.output)));
    if (state === 'output-error')
      box.append(el('h4', {}, 'Error'), el('pre', { class: 'chat-tool-error' }, pretty(jsonOrText(part.errorText))));
    if (state === 'output-denied' || part.approval?.approved === false)
      box.append(el('p', {}, `Rejected${part.approval?.reason ? `: ${part.approval.reason}` : '.'}`));
    if (state === 'approval-requested' && !busy) box.append(approvalControls(part, message));
    return box;
  }

  /** Approve, Edit (the arguments as JSON, then approve with them) and Reject (with an optional reason). */
  function approvalControls(part, message) {
    const key = part.toolCallId.replace(/[^A-Za-z0-9_-]/g, '_');
    const controls = el('div', { class: 'chat-approval', role: 'group', 'aria-label': `Decide ${toolName(part)}` });
    const buttons = el(
      'div',
      { class: 'chat-actions' },
      el('button', { type: 'button', class: 'primary', onclick: () => decide(part, message, { approved: true }) }, 'Approve'),
      el('button', { type: 'button', class: 'secondary', onclick: () => showEdit() }, 'Edit'),
      el('button', { type: 'button', class: 'danger', onclick: () => showReject() }, 'Reject'),
    );
    controls.append(buttons);
    // Escape leaves an edit or a rejection unsent, back to the three buttons.
    controls.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !controls.contains(buttons)) {
        e.preventDefault();
        cancel();
      }
    });
    return controls;

    function showEdit() {
      const id = `chat-edit-${key}`;
      const errorId = `${id}-error`;
      const area = el('textarea', { id, rows: 8, spellcheck: 'false', 'aria-describedby': errorId });
      area.value = pretty(part.input);
      const error = el('p', { id: errorId, class: 'chat-field-error' });
      const approveEdited = () => {
        let edited;
        try {
          edited = JSON.parse(area.value);
          if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) throw new Error('the arguments are a JSON object');
        } catch (e) {
          area.setAttribute('aria-invalid', 'true');
          error.textContent = `Not valid: ${e.message}`;
          area.focus();
          return;
        }
        void decide(part, message, { approved: true, arguments: edited });
      };
      controls.replaceChildren(
        el('label', { for: id }, 'Arguments (JSON)'),
        area,
        error,
        el(
          'div',
          { class: 'chat-actions' },
          el('button', { type: 'button', class: 'primary', onclick: approveEdited }, 'Approve with these arguments'),
          el('button', { type: 'button', class: 'secondary', onclick: cancel }, 'Cancel'),
        ),
      );
      area.focus();
    }

    function showReject() {
      const id = `chat-reason-${key}`;
      const reason = el('input', { id, type: 'text', autocomplete: 'off' });
      reason.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          confirm();
        }
      });
      const confirm = () => decide(part, message, { approved: false, reason: reason.value.trim() || undefined });
      controls.replaceChildren(
        el('label', { for: id }, 'Reason (optional)'),
        reason,
        el(
          'div',
          { class: 'chat-actions' },
          el('button', { type: 'button', class: 'danger', onclick: confirm }, 'Send rejection'),
          el('button', { type: 'button', class: 'secondary', onclick: cancel }, 'Cancel'),
        ),
      );
      reason.focus();
    }

    function cancel() {
      controls.replaceChildren(buttons);
      buttons.querySelector('button')?.focus();
    }
  }

  /**
   * As useChat's `addToolApprovalResponse`: the part becomes `approval-responded`; once no call of
   * the message waits, the message is sent (`lastAssistantMessageIsCompleteWithApprovalResponses`).
   */
  async function decide(part, message, decision) {
    part.state = 'approval-responded';
    part.approval = { id: part.approval.id, ...decision };
    render(message);
    if (pendingOf(message).length) {
      announce('Decided. Other calls still wait for a decision.');
      return;
    }
    announce(decision.approved ? 'Approved. The run continues.' : 'Rejected. The run continues.');
    input.focus();
    await post(message);
  }

  function reopenApprovals(message) {
    for (const part of message.parts)
      if (isTool(part) && part.state === 'approval-responded')
        Object.assign(part, { state: 'approval-requested', approval: { id: part.approval.id } });
    render(message);
  }

  function pendingApprovals() {
    const last = messages[messages.length - 1];
    return last?.role === 'assistant' ? pendingOf(last) : [];
  }

  function setBusy(value) {
    busy = value;
    send.disabled = value;
    stop.hidden = !value;
    logBox.setAttribute('aria-busy', String(value));
    // Approval buttons are hidden while a request runs, shown again after it.
    const last = messages[messages.length - 1];
    if (last?.role === 'assistant') render(last);
  }

  function showError(json) {
    const { code = 'ERROR', message = 'The request failed.' } = json?.error ?? {};
    errorBox.replaceChildren(el('strong', {}, code), ' ', message);
    errorBox.hidden = false;
  }

  function hideError() {
    errorBox.hidden = true;
    errorBox.replaceChildren();
  }
}

function pendingOf(message) {
  return message.parts.filter((p) => isTool(p) && p.state === 'approval-requested');
}

function isTool(part) {
  return (part.type.startsWith('tool-') || part.type === 'dynamic-tool') && typeof part.toolCallId === 'string';
}

function toolName(part) {
  return part ? (part.toolName ?? part.type.replace(/^tool-/, '')) : 'A tool call';
}

function textOf(message) {
  return message.parts
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join(' ');
}

/** A tool's error as the model saw it is compact JSON: shown indented, like arguments and results. */
function jsonOrText(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function pretty(value) {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function newId() {
  return crypto.randomUUID();
}
