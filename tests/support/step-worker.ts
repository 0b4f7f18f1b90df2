/**
 * A child process for the durable-step tests: runs (or approves) one refund run on its own store
 * and Agent, and kills itself with SIGKILL at the step boundary it is given — no cleanup, no save,
 * as a crash would. Every model turn it answers and every refund it pays is appended to the shared
 * log first (`model <turn>`, `effect <order>`), so the parent counts them across the crash.
 */
import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import { IsString } from 'class-validator';
import { Agent } from '../../src/agent/agent';
import type { Model, ModelRequest, ModelResponse } from '../../src/agent/model';
import { ToolwrightError } from '../../src/errors/errors';
import { Param } from '../../src/decorators/param.decorator';
import { Tool } from '../../src/decorators/tool.decorator';
import { openStore, type AgentWorkerArgs } from './agent-worker';

/**
 * Where the worker dies: in the model's first turn (its step claimed, no answer yet), in the tool
 * (its step claimed, nothing paid), in the second model turn (the tool's result recorded), or nowhere.
 */
export type KillPoint = 'model-1' | 'tool' | 'model-2' | 'none';

export interface StepWorkerArgs {
  kind: AgentWorkerArgs['kind'];
  target: string;
  sessionId: string;
  mode: 'run' | 'approve';
  killAt: KillPoint;
  approval: boolean;
  log: string;
}

const args = JSON.parse(process.argv[2]) as StepWorkerArgs;
const log = (line: string) => appendFileSync(args.log, `${line}\n`);
const die = (point: KillPoint) => {
  if (args.killAt === point) process.kill(process.pid, 'SIGKILL');
};

class RefundArgs {
  @Param({ description: 'Order' }) @IsString() order!: string;
}

@Tool({ name: 'refund', description: 'Refunds an order', input: RefundArgs, approval: () => args.approval })
class RefundTool {
  async execute({ order }: RefundArgs) {
    die('tool');
    log(`effect ${order}`);
    return { refunded: order };
  }
}

/** Turn 1 asks for the refund, turn 2 answers; each turn logged before it answers. */
class CountedModel implements Model {
  readonly name = 'counted';
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const turn = request.messages.some((m) => m.role === 'tool') ? 2 : 1;
    die(`model-${turn}` as KillPoint);
    log(`model ${turn}`);
    return turn === 1
      ? { content: null, toolCalls: [{ id: 'call_1', name: 'refund', arguments: '{"order":"A-1"}' }] }
      : { content: 'Refunded A-1.', toolCalls: [] };
  }
}

async function main(): Promise<void> {
  const store = openStore(args.kind, args.target);
  const agent = new Agent({ name: 'steps', model: new CountedModel(), tools: [RefundTool], store, stepLeaseMs: 400, resumeLeaseMs: 400 });
  const who = { sessionId: args.sessionId, userId: 'u-1' };
  try {
    const result = args.mode === 'run' ? await agent.run('refund A-1', who) : await agent.approve(who, 'call_1');
    process.stdout.write(`${JSON.stringify({ status: result.status, output: result.output })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: error instanceof ToolwrightError ? error.code : String(error) })}\n`);
  } finally {
    await store.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
