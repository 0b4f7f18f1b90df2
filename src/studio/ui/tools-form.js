// A form generated from a tool's input JSON Schema. Each node renders its controls and reads its
// value back; `fields()` maps the validator's paths (`items[0].sku`, `address.city`) to the controls.
// Values are sent as the person typed them where the type cannot hold them (a number field with
// `12x`): the registry's validator decides, and its field errors come back onto the fields.

let ids = 0;
const nextId = (what) => `tf-${what}-${++ids}`;

/** The schema at a local `$ref`, `allOf` merged, and the non-null type of a nullable one. */
function resolve(schema, root) {
  let s = schema ?? {};
  for (let i = 0; i < 16 && typeof s.$ref === 'string'; i++) {
    const path = s.$ref.replace(/^#\//, '').split('/');
    let target = root;
    for (const key of path) target = target?.[key];
    s = { ...target, ...s, $ref: undefined };
  }
  if (Array.isArray(s.allOf)) s = Object.assign({}, ...s.allOf.map((part) => resolve(part, root)), { ...s, allOf: undefined });
  if (Array.isArray(s.type)) s = { ...s, type: s.type.find((t) => t !== 'null') };
  const branches = s.anyOf ?? s.oneOf;
  if (!s.type && Array.isArray(branches)) {
    const consts = branches.filter((b) => b && 'const' in b);
    if (consts.length === branches.length) return { ...s, enum: consts.map((b) => b.const), enumTitles: consts.map((b) => b.title) };
    const real = branches.filter((b) => b && b.type !== 'null');
    if (real.length === 1) return { ...resolve(real[0], root), description: s.description ?? real[0].description };
  }
  if (!s.type && s.properties) s = { ...s, type: 'object' };
  return s;
}

/**
 * Builds the form's root node for `schema` (an object schema). `node.element` is the DOM,
 * `node.read()` the arguments, `node.fields(path, map)` the controls by the validator's paths.
 */
export function buildForm(el, schema) {
  return objectNode(el, resolve(schema, schema), schema, { label: null, required: true });
}

function labelText(el, name, schema, required) {
  return el(
    'span',
    { class: 'label-text' },
    schema.title ?? name,
    required ? el('span', { class: 'req' }, ' (required)') : el('span', { class: 'optional' }, ' (optional)'),
  );
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

function hint(el, schema, id) {
  const notes = [];
  if (schema.description) notes.push(schema.description);
  const bounds = [];
  if (schema.minimum !== undefined) bounds.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) bounds.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined) bounds.push(`at least ${plural(schema.minLength, 'character')}`);
  if (schema.maxLength !== undefined) bounds.push(`at most ${plural(schema.maxLength, 'character')}`);
  if (schema.minItems !== undefined) bounds.push(`at least ${plural(schema.minItems, 'item')}`);
  if (schema.maxItems !== undefined) bounds.push(`at most ${plural(schema.maxItems, 'item')}`);
  if (schema.type === 'integer') bounds.push('a whole number');
  if (bounds.length) notes.push(`(${bounds.join(', ')})`);
  return notes.length ? el('span', { class: 'hint', id }, notes.join(' ')) : null;
}

function nodeFor(el, schema, root, name, required) {
  const s = resolve(schema, root);
  if (Array.isArray(s.enum)) return enumNode(el, s, name, required);
  switch (s.type) {
    case 'object':
      return s.properties ? objectNode(el, s, root, { label: name, required }) : jsonNode(el, s, name, required);
    case 'array':
      return arrayNode(el, s, root, name, required);
    case 'boolean':
      return booleanNode(el, s, name, required);
    case 'integer':
    case 'number':
      return numberNode(el, s, name, required);
    case 'string':
      return stringNode(el, s, name, required);
    default:
      return jsonNode(el, s, name, required);
  }
}

/** A control with its label, hint and a slot for its field error. */
function fieldShell(el, control, name, schema, required) {
  const hintId = nextId('hint');
  const note = hint(el, schema, hintId);
  control.id = nextId('field');
  if (note) control.setAttribute('aria-describedby', hintId);
  control.dataset.hint = note ? hintId : '';
  if (required) control.setAttribute('aria-required', 'true');
  const label = el('label', { for: control.id }, labelText(el, name, schema, required));
  const wrap = el('div', { class: control.type === 'checkbox' ? 'field field-check' : 'field' }, label, control, note);
  return wrap;
}

function leaf(el, control, name, schema, required, read) {
  const element = fieldShell(el, control, name, schema, required);
  return { element, read, fields: (path, map) => map.set(path, control), control };
}

function stringNode(el, s, name, required) {
  const type = s.format === 'date' ? 'date' : s.format === 'date-time' ? 'datetime-local' : 'text';
  const input = el('input', { type, name, autocomplete: 'off', spellcheck: 'false' });
  if (type === 'datetime-local') input.step = '1';
  if (typeof s.default === 'string' && type === 'text') input.value = s.default;
  return leaf(el, input, name, s, required, () => {
    const value = input.value;
    if (value === '') return undefined;
    if (type === 'datetime-local') {
      // The browser's local time, sent as an RFC 3339 instant (what a Date parameter takes).
      const at = new Date(value);
      return Number.isNaN(at.getTime()) ? value : at.toISOString();
    }
    return value;
  });
}

function numberNode(el, s, name, required) {
  const input = el('input', { type: 'number', name, step: 'any', inputmode: s.type === 'integer' ? 'numeric' : 'decimal' });
  if (typeof s.default === 'number') input.value = String(s.default);
  return leaf(el, input, name, s, required, () => {
    // A value the browser could not read as a number is sent as text: the validator names the field.
    if (input.validity.badInput) return input.value || 'not a number';
    if (input.value === '') return undefined;
    const n = Number(input.value);
    return Number.isFinite(n) ? n : input.value;
  });
}

function booleanNode(el, s, name, required) {
  // A checkbox cannot say "absent": an optional boolean is a choice of not set, true or false.
  if (!required) return enumNode(el, { ...s, enum: [true, false] }, name, required);
  const box = el('input', { type: 'checkbox', name });
  if (s.default === true) box.checked = true;
  return leaf(el, box, name, s, required, () => box.checked);
}

function enumNode(el, s, name, required) {
  const values = s.enum;
  const select = el(
    'select',
    { name },
    el('option', { value: '' }, required ? 'Choose…' : '(not set)'),
    values.map((v, i) => el('option', { value: String(i) }, s.enumTitles?.[i] ? `${s.enumTitles[i]} (${v})` : String(v))),
  );
  const d = values.indexOf(s.default);
  if (d >= 0) select.value = String(d);
  return leaf(el, select, name, s, required, () => (select.value === '' ? undefined : values[Number(select.value)]));
}

/** Anything the form has no control for (a free-form object, a union): JSON typed by hand. */
function jsonNode(el, s, name, required) {
  const area = el('textarea', { name, rows: '3', spellcheck: 'false', class: 'json' });
  const node = leaf(el, area, name, { ...s, description: `${s.description ? `${s.description} ` : ''}(JSON)` }, required, () => {
    const text = area.value.trim();
    if (text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return text; // the validator says what it should have been
    }
  });
  return node;
}

function groupShell(el, label, s, required, kind) {
  const hintId = nextId('hint');
  const note = hint(el, s, hintId);
  const fieldset = el('fieldset', { class: `group ${kind}`, 'aria-describedby': note ? hintId : undefined });
  fieldset.dataset.hint = note ? hintId : '';
  if (label !== null) fieldset.append(el('legend', {}, labelText(el, label, s, required)));
  if (note) fieldset.append(note);
  return fieldset;
}

function objectNode(el, s, root, { label, required }) {
  const need = new Set(s.required ?? []);
  const children = Object.entries(s.properties ?? {}).map(([key, child]) => [key, nodeFor(el, child, root, key, need.has(key))]);
  const element = label === null ? el('div', { class: 'group root', 'data-hint': '' }) : groupShell(el, label, s, required, 'object');
  for (const [, child] of children) element.append(child.element);
  return {
    element,
    read() {
      const out = {};
      for (const [key, child] of children) {
        const value = child.read();
        if (value !== undefined) out[key] = value;
      }
      // An optional object left empty is left out; a required one is sent, so its missing fields are named.
      return Object.keys(out).length === 0 && !required ? undefined : out;
    },
    fields(path, map) {
      map.set(path, element);
      for (const [key, child] of children) child.fields(path === '' ? key : `${path}.${key}`, map);
    },
  };
}

function arrayNode(el, s, root, name, required) {
  const element = groupShell(el, name, s, required, 'array');
  const list = el('ol', { class: 'items' });
  const items = [];
  const add = el('button', { type: 'button', class: 'secondary' }, `Add an item to ${name}`);
  element.append(list, add);

  function relabel() {
    items.forEach((item, i) => {
      item.legend.textContent = `${name} item ${i + 1}`;
      item.remove.textContent = `Remove ${name} item ${i + 1}`;
    });
  }

  function addItem() {
    const itemSchema = resolve(s.items ?? {}, root);
    // An item that is an object shows its fields in the item's own fieldset, not in a second one.
    const child =
      itemSchema.type === 'object' && itemSchema.properties && !Array.isArray(itemSchema.enum)
        ? objectNode(el, itemSchema, root, { label: null, required: true })
        : nodeFor(el, itemSchema, root, 'value', true);
    const legend = el('legend', {});
    const remove = el('button', { type: 'button', class: 'secondary remove' });
    const box = el('fieldset', { class: 'item' }, legend, child.element, remove);
    const li = el('li', {}, box);
    const item = { child, legend, remove, li };
    remove.addEventListener('click', () => {
      const at = items.indexOf(item);
      items.splice(at, 1);
      li.remove();
      relabel();
      // Focus stays in the list: the next item's remove button, else the add button.
      (items[at]?.remove ?? items[at - 1]?.remove ?? add).focus();
    });
    items.push(item);
    list.append(li);
    relabel();
    return item;
  }

  add.addEventListener('click', () => {
    const item = addItem();
    item.child.element.querySelector('input, select, textarea')?.focus();
  });
  for (let i = 0; i < (s.minItems ?? 0) && i < 3; i++) addItem();

  return {
    element,
    read() {
      const values = items.map((item) => item.child.read());
      if (values.length === 0 && !required) return undefined;
      // An item left empty is sent as null, so the validator names its index rather than the list shifting.
      return values.map((v) => (v === undefined ? null : v));
    },
    fields(path, map) {
      map.set(path, element);
      items.forEach((item, i) => item.child.fields(`${path}[${i}]`, map));
    },
  };
}
