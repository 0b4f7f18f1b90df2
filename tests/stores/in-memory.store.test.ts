import { InMemoryStore } from '../../src/stores/in-memory.store';
import { describeStoreConformance } from './store-conformance';

describeStoreConformance('in-memory', () => new InMemoryStore());
