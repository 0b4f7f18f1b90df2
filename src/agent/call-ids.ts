import type { ToolCall } from '../session/message';

/** Gives each call an id unused in this run (`c1`, then `c1_2`…), so that one decision is one call. */
export function uniqueCallIds(calls: readonly ToolCall[], used: Set<string>): ToolCall[] {
  return calls.map((call) => {
    const base = typeof call.id === 'string' && call.id !== '' ? call.id : 'call';
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
