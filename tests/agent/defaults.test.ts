import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Agent, ScriptedModel, SqliteStore } from 'toolwright';

describe('Agent defaults', () => {
  it('keeps sessions in SQLite unless told otherwise, opening the file only on first use', () => {
    const cwd = process.cwd();
    const dir = path.join(tmpdir(), `toolwright-defaults-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    process.chdir(dir);
    try {
      const agent = new Agent({ name: 'a', model: new ScriptedModel([{ text: 'hi' }]), tools: [] });
      expect(agent.store).toBeInstanceOf(SqliteStore);
      expect(existsSync(path.join(dir, '.toolwright', 'state.db'))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });
});
