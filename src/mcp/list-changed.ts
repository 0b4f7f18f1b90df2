import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../registry/tool-registry';
import type { AgentContext } from '../session/agent-context';

export type ListKind = 'tools' | 'resources' | 'prompts';

const METHOD = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed',
} as const;

/**
 * `list_changed` for one session: what a caller may see can depend on its state (`isEnabled`,
 * `authorize`), and a request can change that state (a `login` tool). After each request the
 * lists the client was shown are asked again with the new state; each that differs is announced.
 * Only lists whose visibility depends on the caller are watched, and only once the client listed them.
 */
export class ListWatch {
  private readonly shown = new Map<ListKind, string>();

  constructor(private readonly registry: ToolRegistry) {}

  /** The kinds whose lists can change for a session: the ones behind a caller-dependent gate. */
  static watched(registry: ToolRegistry): Record<ListKind, boolean> {
    const features = registry.featuresGated;
    return {
      tools: registry.gated,
      resources: features && registry.resources().length > 0,
      prompts: features && registry.prompts().length > 0,
    };
  }

  /** What the client was just shown. */
  saw(kind: ListKind, names: readonly string[]): void {
    this.shown.set(kind, names.join('\n'));
  }

  /** After a request, with the state it left: tells the client of each list it was shown that now differs. */
  async recheck(context: AgentContext, send: (notification: ServerNotification) => Promise<void>): Promise<void> {
    for (const [kind, before] of this.shown) {
      const now = (await this.names(kind, context)).join('\n');
      if (now === before) continue;
      this.shown.set(kind, now);
      // On the request's own stream; a client gone meanwhile is not the request's failure.
      await send({ method: METHOD[kind] }).catch(() => undefined);
    }
  }

  private async names(kind: ListKind, context: AgentContext): Promise<string[]> {
    if (kind === 'tools') return (await this.registry.visible(context)).map((t) => t.name);
    const list = kind === 'resources' ? await this.registry.visibleResources(context) : await this.registry.visiblePrompts(context);
    return list.map((entry) => entry.name);
  }
}
