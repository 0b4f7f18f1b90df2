/**
 * The remote-desk sample end to end: a local decorated tool and server-memory (installed from
 * npm, over stdio) in one Agent, on the embedded script; the delete waits for the person.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryStore } from 'toolwright';
import { runConversation } from './conversation';
import { createRemoteDesk, type RemoteDesk } from './desk';
import { accountDeskModel, CONVERSATION } from './script';

let dir: string;
let desk: RemoteDesk;
let store: InMemoryStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tw-remote-desk-'));
  store = new InMemoryStore();
  desk = await createRemoteDesk({ model: accountDeskModel(), store, memoryFile: join(dir, 'memory.jsonl') });
}, 30_000);

afterEach(async () => {
  await desk.close();
  rmSync(dir, { recursive: true, force: true });
});

const graph = () => readFileSync(join(dir, 'memory.jsonl'), 'utf8');

describe('remote-desk sample (local tool + server-memory over stdio)', () => {
  it('offers the local tool and the included remote ones, the delete needing an approval', () => {
    expect([...desk.registry.names()].sort()).toEqual([
      'lookup_account',
      'notes_add_observations',
      'notes_create_entities',
      'notes_delete_entities',
      'notes_open_nodes',
      'notes_search_nodes',
    ]);
    expect(desk.registry.describe('notes_delete_entities').approval).toBe(true);
    expect(desk.registry.describe('notes_create_entities').approval).toBeUndefined();
  });

  it('looks up, notes, answers from the notes, and deletes them once approved', async () => {
    const asked: Array<[string, unknown]> = [];
    const lines: string[] = [];
    const results = await runConversation(
      desk,
      'remote-desk-approve',
      CONVERSATION,
      (name, args) => {
        asked.push([name, args]);
        return true;
      },
      (line) => lines.push(line),
    );
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(lines).toEqual([
      `maria › ${CONVERSATION[0]}`,
      'desk  › Noted: ACME-1: prefer phone calls.',
      `maria › ${CONVERSATION[1]}`,
      'desk  › We know: ACME-1: prefer phone calls.',
      `maria › ${CONVERSATION[2]}`,
      '        [approved: notes_delete_entities]',
      'desk  › Done: the notes on that account are deleted.',
      `maria › ${CONVERSATION[3]}`,
      'desk  › We have no notes on that.',
    ]);
    expect(asked).toEqual([['notes_delete_entities', { entityNames: ['Acme Corp'] }]]);
    expect(graph()).not.toContain('Acme Corp');
  });

  it('denied: the notes stay in the remote graph', async () => {
    const results = await runConversation(desk, 'remote-desk-deny', CONVERSATION.slice(0, 3), () => false);
    expect(results[2].output).toMatch(/^The notes were kept/);
    expect(graph()).toContain('prefer phone calls');
  });

  it('a bad account id is refused by the local tool before it runs; the remote graph is untouched', async () => {
    await expect(desk.registry.call('lookup_account', { account_id: 'acme' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    await expect(desk.registry.call('notes_create_entities', { entities: 'Acme' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(() => graph()).toThrow();
  });
});
