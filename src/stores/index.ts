/**
 * `toolwright/stores`: the stores and what an integrator of a store needs: the snapshot and change
 * types a store reads and writes, its channels, the idempotency claims, the driver and client types.
 */
export type { ListOptions, ListPage, LoadSessionOptions, MemorySummary, SessionStore, SessionSummary, StoreChannels } from './store';
export { InvalidListOptionError } from './list-page';
export { applyMemoryChanges, applySessionChanges } from './apply-changes';
export { InMemoryStore } from './in-memory.store';
export { SqliteStore, SQLITE_SCHEMA_VERSION, type SqliteStoreOptions } from './sqlite.store';
export type { SqliteDriverName } from './sqlite/driver';
export { defaultSqliteDriver } from './sqlite/open-driver';
export { RedisStore, type RedisStoreOptions, type RedisClientLike } from './redis.store';
export { PostgresStore, POSTGRES_SCHEMA_VERSION, type PostgresStoreOptions, type PgPoolLike } from './postgres.store';
export type {
  SessionKey,
  MemoryKey,
  SessionSnapshot,
  SessionChanges,
  MemorySnapshot,
  MemoryChanges,
  MemoryEntry,
  MemoryEntryType,
} from '../session/snapshots';
export type { MemoryIndex } from '../session/memory-search';
export { MemoryIdempotencyClaims } from '../side-effects/claims';
export type { IdempotencyClaim, IdempotencyClaims } from '../side-effects/claims';
export type { IdempotencyEntry, IdempotencyStorage } from '../side-effects/idempotency-storage';
export { MemoryRateCounters, type RateCounters, type RateHit } from '../side-effects/rate-counters';
export { SqliteRateCounters } from './rate/sqlite-rate';
export { RedisRateCounters } from './rate/redis-rate';
export { PostgresRateCounters } from './rate/postgres-rate';
