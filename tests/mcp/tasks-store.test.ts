/**
 * The task records of MCP's tasks extension on the store interface (here the in-memory store; the
 * multi-process test runs them on SQLite, Redis and PostgreSQL), and `@Tool({ task })` as declared.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Param, Tool, ToolDefinitionError, ToolRegistry, type ToolInterface } from '../../src';
import { createMcpServer } from '../../src/mcp';
import { changed, newTask, type TaskRecord } from '../../src/mcp/tasks/task-record';
import { TaskStore } from '../../src/mcp/tasks/task-store';
import { InMemoryStore } from '../../src/stores/in-memory.store';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const ID = '6f1c2b9e-4d3a-4b8e-9c1d-2a3b4c5d6e7f';

describe('TaskStore', () => {
  it('keeps a task per owner: the same id under another owner or tenant is no task', async () => {
    const tasks = new TaskStore(new InMemoryStore());
    const key = tasks.key({ owner: '\u0000alice' }, ID)!;
    await tasks.create(key, newTask(ID, 60_000, 200));
    expect(await tasks.load(key)).toMatchObject({ taskId: ID, status: 'working' });
    expect(await tasks.load(tasks.key({ owner: '\u0000bob' }, ID)!)).toBeUndefined();
    expect(await tasks.load(tasks.key({ owner: '\u0000alice', tenantId: 'acme' }, ID)!)).toBeUndefined();
  });

  it('refuses a second create of one task, and names no key for an id it did not mint', async () => {
    const tasks = new TaskStore(new InMemoryStore());
    const key = tasks.key({ owner: '' }, ID)!;
    await tasks.create(key, newTask(ID, 60_000, 200));
    await expect(tasks.create(key, newTask(ID, 60_000, 200))).rejects.toThrow(/exists already/);
    for (const bad of ['', 'x', '../../etc', `${ID}x`, ID.toUpperCase()]) expect(tasks.key({ owner: '' }, bad)).toBeUndefined();
  });

  it('forgets a task once its ttl is over', async () => {
    const tasks = new TaskStore(new InMemoryStore());
    const key = tasks.key({ owner: '' }, ID)!;
    await tasks.create(key, newTask(ID, 50, 200));
    expect(await tasks.load(key)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await tasks.load(key)).toBeUndefined();
    expect(await tasks.change(key, (r) => changed(r, { status: 'cancelled' }))).toBeUndefined();
  });

  it('applies concurrent changes one after the other by compare-and-set: none is lost', async () => {
    const tasks = new TaskStore(new InMemoryStore());
    const key = tasks.key({ owner: '' }, ID)!;
    await tasks.create(key, newTask(ID, 60_000, 200));
    const ask = (n: number) => (r: TaskRecord) =>
      changed(r, { status: 'input_required', inputRequests: { ...r.inputRequests, [`input-${n}`]: { method: 'elicitation/create' } } });
    await Promise.all([0, 1, 2, 3, 4].map((n) => tasks.change(key, ask(n))));
    expect(Object.keys((await tasks.load(key))!.inputRequests!).sort()).toEqual(['input-0', 'input-1', 'input-2', 'input-3', 'input-4']);
  });
});

class In {
  @Param({ description: 'x' })
  @IsString()
  x!: string;
}

describe('@Tool({ task })', () => {
  it('lists execution.taskSupport for a task tool and nothing for another', async () => {
    @Tool({ name: 'long_one', description: 'long', input: In, task: { support: 'required', ttlMs: 1000 } })
    class LongOne implements ToolInterface<In> {
      execute(): object {
        return {};
      }
    }
    @Tool({ name: 'short_one', description: 'short', input: In })
    class ShortOne implements ToolInterface<In> {
      execute(): object {
        return {};
      }
    }
    const registry = ToolRegistry.build({ tools: [LongOne, ShortOne] });
    expect(registry.describe('long_one').task).toEqual({ support: 'required', inputFirst: false, ttlMs: 1000 });
    const server = createMcpServer(registry);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'long_one')!.execution).toEqual({ taskSupport: 'required' });
    expect(tools.find((t) => t.name === 'short_one')!.execution).toBeUndefined();
    await client.close();
  });

  it.each([
    [{ support: 'sometimes' }, /task.support/],
    [{ support: 'optional', ttlMs: 0 }, /task.ttlMs/],
    [{ support: 'optional', ttlMs: 1.5 }, /task.ttlMs/],
  ])('refuses %j as a definition error', (task, message) => {
    @Tool({ name: 'bad_task', description: 'bad', input: In, task: task as never })
    class Bad implements ToolInterface<In> {
      execute(): object {
        return {};
      }
    }
    expect(() => ToolRegistry.build({ tools: [Bad] })).toThrow(ToolDefinitionError);
    expect(() => ToolRegistry.build({ tools: [Bad] })).toThrow(message);
  });
});
