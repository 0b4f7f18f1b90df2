export type { LoadSessionOptions, SessionStore, StoreChannels } from './store';
export { applyMemoryChanges, applySessionChanges } from './apply-changes';
export { InMemoryStore } from './in-memory.store';
export { SqliteStore, SQLITE_SCHEMA_VERSION, type SqliteStoreOptions } from './sqlite.store';
export type { SqliteDriverName } from './sqlite/driver';
export { defaultSqliteDriver } from './sqlite/open-driver';
export { RedisStore, type RedisStoreOptions } from './redis.store';
export { PostgresStore, POSTGRES_SCHEMA_VERSION, type PostgresStoreOptions } from './postgres.store';
