#!/usr/bin/env node
/**
 * A hand-written MCP server over stdio (raw JSON-RPC lines, no SDK, so it can break every rule):
 * garbage results, a call that never answers, death mid-call, a huge result, an unusable schema,
 * lying annotations, a wrong structured result, a list that changes. Counts the calls it runs.
 */
'use strict';
const readline = require('node:readline');

let calls = 0;
const cancelled = [];
let extra = false;
const metas = [];
const obj = (properties, required = []) => ({ type: 'object', properties, required, additionalProperties: false });

const tools = () => [
  { name: 'record', description: 'Records a note', inputSchema: obj({ note: { type: 'string', maxLength: 10 } }, ['note']) },
  { name: 'count', description: 'How many calls ran', inputSchema: obj({}), outputSchema: obj({ calls: { type: 'integer' } }, ['calls']) },
  {
    name: 'wrong_output',
    description: 'Breaks its output schema',
    inputSchema: obj({}),
    outputSchema: obj({ calls: { type: 'integer' } }, ['calls']),
  },
  { name: 'garbage', description: 'Answers garbage', inputSchema: obj({}) },
  { name: 'hang', description: 'Never answers', inputSchema: obj({}) },
  { name: 'die', description: 'Exits mid-call', inputSchema: obj({}) },
  { name: 'huge', description: 'A huge result', inputSchema: obj({ mb: { type: 'integer' } }, ['mb']) },
  { name: 'fail', description: 'Reports an error', inputSchema: obj({}) },
  { name: 'cancelled', description: 'The request ids it was told were cancelled', inputSchema: obj({}) },
  { name: 'bad_schema', description: 'Unusable schema', inputSchema: { type: 'string' } },
  { name: 'bad.name', description: 'A name providers refuse', inputSchema: obj({}) },
  { name: 'n'.repeat(70), description: 'A name too long for any provider', inputSchema: obj({}) },
  { name: 'wipe', description: 'Destructive', inputSchema: obj({}), annotations: { destructiveHint: true } },
  {
    name: 'peek',
    description: 'Claims to be harmless',
    inputSchema: obj({}),
    annotations: { readOnlyHint: true, destructiveHint: false, title: 7 },
  },
  { name: 'change', description: 'Adds a tool and says so', inputSchema: obj({}) },
  { name: 'metas', description: 'The _meta of every record call', inputSchema: obj({}) },
  ...(extra ? [{ name: 'added', description: 'Added later', inputSchema: obj({}) }] : []),
];

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const text = (t) => ({ content: [{ type: 'text', text: t }] });

function call(id, name, args) {
  calls++;
  switch (name) {
    case 'metas':
      return send({ jsonrpc: '2.0', id, result: text(JSON.stringify(metas)) });
    case 'record':
      return send({ jsonrpc: '2.0', id, result: text(`noted ${args.note}`) });
    case 'count':
      return send({ jsonrpc: '2.0', id, result: { ...text(`${calls}`), structuredContent: { calls } } });
    case 'wrong_output':
      return send({ jsonrpc: '2.0', id, result: { ...text('many'), structuredContent: { calls: 'many' } } });
    case 'garbage':
      return send({ jsonrpc: '2.0', id, result: { content: 'not a list', isError: 'perhaps' } });
    case 'hang':
      return undefined;
    case 'die':
      return process.exit(3);
    case 'huge':
      return send({ jsonrpc: '2.0', id, result: text('x'.repeat(args.mb * 1024 * 1024)) });
    case 'fail':
      return send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'the disk is full' }], isError: true } });
    case 'cancelled':
      return send({ jsonrpc: '2.0', id, result: { ...text(JSON.stringify(cancelled)), structuredContent: { ids: cancelled } } });
    case 'change':
      extra = true;
      send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      return send({ jsonrpc: '2.0', id, result: text('changed') });
    default:
      return send({ jsonrpc: '2.0', id, result: text(`ran ${name}`) });
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  const { id, method, params } = message;
  if (method === 'initialize') {
    return send({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: 'hostile', version: '1.0.0' },
      },
    });
  }
  if (method === 'notifications/cancelled') return cancelled.push(params.requestId);
  if (method === 'tools/list') return send({ jsonrpc: '2.0', id, result: { tools: tools() } });
  if (method === 'tools/call') {
    if (params.name === 'record') metas.push(params._meta ?? null);
    return call(id, params.name, params.arguments ?? {});
  }
  if (id !== undefined) send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
});
