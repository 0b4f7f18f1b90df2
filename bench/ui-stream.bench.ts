/**
 * npx ts-node --transpile-only bench/ui-stream.bench.ts [rounds=9] [runs=2000]
 *
 * What serving a run as the AI SDK's UI message stream adds per event: a run of 5 turns (20 text
 * deltas and 2 tool calls with their results each) read as bare events (the floor), converted to
 * chunks (toUIMessageStream), and written as SSE text (toServerSentEvents). Interleaved rounds,
 * medians; results in bench/UI-STREAM.md.
 */
import type { AgentEvent } from '../src/agent/events';
import type { RunResult, ToolCallRecord } from '../src/agent/agent';
import { toServerSentEvents, toUIMessageStream } from '../src/ai-sdk-ui/ui-message-stream';

const rounds = Number(process.argv[2] ?? 9);
const runs = Number(process.argv[3] ?? 2000);

function makeRun(): AgentEvent[] {
  const events: AgentEvent[] = [{ type: 'run-start', runId: 'r', sessionId: 's', resumed: false }];
  const records: ToolCallRecord[] = [];
  for (let turn = 1; turn <= 5; turn++) {
    for (let i = 0; i < 20; i++) events.push({ type: 'text-delta', runId: 'r', turn, delta: `word${i} ` });
    for (let c = 0; c < 2; c++)
      events.push({
        type: 'tool-call',
        runId: 'r',
        turn,
        toolCallId: `c${turn}-${c}`,
        name: 'lookup_order',
        arguments: '{"order_id":"A-100"}',
      });
    for (let c = 0; c < 2; c++) {
      const record: ToolCallRecord = {
        id: `c${turn}-${c}`,
        name: 'lookup_order',
        arguments: '{"order_id":"A-100"}',
        result: '{"status":"found","order":{"id":"A-100","total":4000,"items":["a","b"]}}',
        status: 'ok',
        durationMs: 1,
      };
      records.push(record);
      events.push({ type: 'tool-result', runId: 'r', turn, record });
    }
    events.push({ type: 'turn-end', runId: 'r', turn, usage: { inputTokens: 10, outputTokens: 10 } });
  }
  const result: RunResult = {
    status: 'completed',
    output: 'done',
    text: 'done',
    sessionId: 's',
    runId: 'r',
    toolCalls: records,
    usage: { inputTokens: 50, outputTokens: 50 },
    turns: 5,
    durationMs: 1,
    approvals: [],
  };
  events.push({ type: 'run-end', runId: 'r', result });
  return events;
}

const EVENTS = makeRun();

async function* replay(): AsyncGenerator<AgentEvent> {
  yield* EVENTS;
}

const contenders: Record<string, () => Promise<number>> = {
  async events() {
    let n = 0;
    for await (const event of replay()) n += event.type.length;
    return n;
  },
  async chunks() {
    let n = 0;
    for await (const chunk of toUIMessageStream(replay())) n += chunk.type.length;
    return n;
  },
  async sse() {
    let n = 0;
    for await (const text of toServerSentEvents(toUIMessageStream(replay()))) n += text.length;
    return n;
  },
};

async function main(): Promise<void> {
  const names = Object.keys(contenders);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const name of names) for (let i = 0; i < runs / 4; i++) await contenders[name](); // warm-up
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < runs; i++) await contenders[name]();
      samples[name].push(Number(process.hrtime.bigint() - start) / 1e3 / runs);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const floor = median(samples.events);
  process.stdout.write(`${EVENTS.length} events per run, ${runs} runs × ${rounds} rounds (medians)\n\n`);
  process.stdout.write('| pipeline | µs per run | µs per event | × events |\n|---|---:|---:|---:|\n');
  for (const name of names) {
    const m = median(samples[name]);
    process.stdout.write(`| ${name} | ${m.toFixed(1)} | ${(m / EVENTS.length).toFixed(2)} | ${(m / floor).toFixed(2)} |\n`);
  }
}

void main();
