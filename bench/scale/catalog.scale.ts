/** Issue 13 row 5: catalog top-k selection cost vs catalog size, 40-word message. */
import { AgentContext } from '../../src/session/agent-context';
import { ToolCatalog } from '../../src/agent/catalog';
import { ToolRegistry } from '../../src/registry/tool-registry';
import type { ContainerLike } from '../../src/container/container';
import { median, ms, num, print, table } from './scale';

const VERBS = ['get', 'list', 'create', 'update', 'delete', 'archive', 'export', 'sync'];
const VOCAB = [
  'invoice',
  'order',
  'customer',
  'ticket',
  'shipment',
  'warehouse',
  'refund',
  'payment',
  'coupon',
  'product',
  'supplier',
  'contract',
  'employee',
  'report',
  'carrier',
  'label',
];

function registryOf(count: number): ToolRegistry {
  const params = { type: 'object' as const, properties: { id: { type: 'string' as const } }, additionalProperties: false };
  const classes = [];
  for (let i = 0; i < count; i++) {
    const verb = VERBS[i % VERBS.length];
    const noun = VOCAB[Math.floor(i / VERBS.length) % VOCAB.length];
    const other = VOCAB[(i * 7) % VOCAB.length];
    const def = {
      name: `${verb}_${noun}_${i}`,
      description: `${verb} a ${noun} record linked to a ${other} (variant ${i})`,
      parameters: params,
    };
    classes.push(
      class {
        definition() {
          return def;
        }
        execute() {
          return '{}';
        }
      },
    );
  }
  const container: ContainerLike = { get: (cls) => new cls() };
  return ToolRegistry.build({ tools: classes, container });
}

// 40 words, many of them stop words, as a user writes them.
const MESSAGE =
  'Hi there, I would like to ask about my order from last week because it has not arrived yet and the tracking page says ' +
  'the shipment is stuck at the warehouse, so can you please check it and maybe issue a refund for it';

async function main() {
  const rows: Array<Array<string | number>> = [];
  for (const size of [100, 1000, 5000]) {
    const catalog = new ToolCatalog(registryOf(size), { topK: 8 });
    const context = new AgentContext({ sessionId: 's' });
    // A new message each time: the run's first selection ranks; the same message again is the run's later turns.
    const first = await median((i) => catalog.select(context, `${MESSAGE} ${i}`), { batch: 20, rounds: 9 });
    const again = await median(() => catalog.select(context, MESSAGE), { batch: 200, rounds: 9 });
    rows.push([num(size), ms(first), ms(again)]);
  }
  print(
    table(
      'Catalog top-8 selection, 40-word message (target: under 2 ms at 5,000 tools)',
      ['tools', 'first turn of a run (ms)', 'later turns (ms)'],
      rows,
    ),
  );
}

void main();
