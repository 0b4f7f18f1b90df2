/**
 * A child process for the multi-process agent tests: opens its own store and Agent, prints `ready`,
 * waits for a line on stdin (so that all workers start at the same moment), then on every session
 * at once either runs a new turn as `userId` (`open`) or approves the paused call `p1` (`approve`).
 * It prints one JSON line per session ({ session, outcome }) and `ran <session>` each time the
 * side-effect tool runs, then `done`.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Agent } from '../../src/agent/agent';
import { ScriptedModel } from '../../src/agent/models/scripted.model';
import { ToolwrightError } from '../../src/errors/errors';
import { ToolRegistry } from '../../src/registry/tool-registry';
import { Param } from '../../src/decorators/param.decorator';
import { Tool } from '../../src/decorators/tool.decorator';
import { PostgresStore } from '../../src/stores/postgres.store';
import { RedisStore } from '../../src/stores/redis.store';
import { SqliteStore } from '../../src/stores/sqlite.store';
import type { SessionStore } from '../../src/stores/store';
import type { AgentContext } from '../../src/session/agent-context';

export interface AgentWorkerArgs {
  kind: 'redis' | 'postgres' | 'sqlite';
  target: string;
  sessions: string[];
  /** `approve-tree`: the paused call `p1/c1` is inside the child run of the agent tool `delegate` (see `treeAgent`). */
  mode: 'open' | 'approve' | 'approve-tree';
  userId: string;
  worker: string;
}

class MarkArgs {
  @Param({ description: 'What to mark' }) @IsString() what!: string;
}

/** The side effect whose executions the parent counts; slow, so that a second resume would overlap it. */
@Tool({ name: 'mark', description: 'A side effect', input: MarkArgs, approval: (args: MarkArgs) => args.what === 'approved' })
export class MarkTool {
  async execute({ what }: MarkArgs, context: AgentContext) {
    await new Promise((r) => setTimeout(r, 100));
    process.stdout.write(`ran ${context.sessionId} ${what}\n`);
    return { status: 'marked', what };
  }
}

/** Generous timeouts: the machine running the tests may be busy, and timeouts are not what is tested. */
export function openStore(kind: AgentWorkerArgs['kind'], target: string): SessionStore {
  return kind === 'redis'
    ? new RedisStore({ url: target, commandTimeoutMs: 15_000 })
    : kind === 'postgres'
      ? new PostgresStore({ connectionString: target, statementTimeoutMs: 20_000 })
      : new SqliteStore({ path: target, busyTimeoutMs: 20_000 });
}

/** The model of one run: call `mark` (unless resuming), then answer. */
export function script(mode: AgentWorkerArgs['mode'], what: string): ScriptedModel {
  return new ScriptedModel(
    mode === 'open' ? [{ toolCalls: [{ name: 'mark', arguments: { what } }] }, { text: 'done' }] : [{ text: 'done' }],
  );
}

/** A desk agent `mp` whose agent tool `delegate` runs the agent `mp-child` (with `mark`); both answer `done` from `script`. */
export async function treeAgent(store: SessionStore, parent: ScriptedModel, child: ScriptedModel): Promise<Agent> {
  const inner = new Agent({ name: 'mp-child', model: child, tools: [MarkTool], store });
  const registry = await ToolRegistry.buildAsync({ tools: [], mcp: [inner.asTool({ name: 'delegate', description: 'Delegates' })] });
  return new Agent({ name: 'mp', model: parent, tools: registry, store });
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as AgentWorkerArgs;
  const store = openStore(args.kind, args.target);
  process.stdout.write('ready\n');
  await new Promise((go) => process.stdin.once('data', go));
  process.stdin.pause();
  try {
    await Promise.all(
      args.sessions.map(async (sessionId) => {
        const agent =
          args.mode === 'approve-tree'
            ? await treeAgent(store, script(args.mode, args.worker), script(args.mode, args.worker))
            : new Agent({ name: 'mp', model: script(args.mode, args.worker), tools: [MarkTool], store });
        const who = { sessionId, userId: args.userId };
        let outcome: string;
        try {
          const result =
            args.mode === 'open'
              ? await agent.run(`hello from ${args.worker}`, who)
              : await agent.approve({ ...who, approver: args.worker }, args.mode === 'approve-tree' ? 'p1/c1' : 'p1');
          outcome = result.status;
        } catch (error) {
          outcome = error instanceof ToolwrightError ? error.code : `raw: ${String(error)}`;
          if (outcome === 'STORE_UNAVAILABLE' || outcome.startsWith('raw')) process.stderr.write(`${sessionId}: ${String(error)}\n`);
        }
        process.stdout.write(`${JSON.stringify({ session: sessionId, outcome })}\n`);
      }),
    );
  } finally {
    await store.close();
  }
  process.stdout.write('done\n');
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
