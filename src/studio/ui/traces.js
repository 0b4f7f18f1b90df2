// The Traces page.
export function mount(root, { el }) {
  root.append(el('h1', {}, 'Traces'));
}
