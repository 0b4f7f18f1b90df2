// The Chat page.
export function mount(root, { el }) {
  root.append(el('h1', {}, 'Chat'));
}
