import { InMemoryStore } from '../../src/stores/in-memory.store';
import { describeStoreConformance } from './store-conformance';

describeStoreConformance('in-memory', () => new InMemoryStore(), {
  residue: async (store) => {
    const maps = store as unknown as { sessions: Map<string, unknown>; memories: Map<string, unknown> };
    return maps.sessions.size + maps.memories.size;
  },
});
