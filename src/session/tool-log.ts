/** MCP's log levels (RFC 5424's severities), least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

export type LogLevel = (typeof LOG_LEVELS)[number];

/** One message a running tool logged (`context.log`): where it goes depends on the surface. */
export interface ToolLog {
  level: LogLevel;
  message: string;
  /** Anything JSON-serializable that goes with the message. */
  data?: unknown;
}

const SEVERITY = new Map<unknown, number>(LOG_LEVELS.map((level, i) => [level, i]));

export function isLogLevel(value: unknown): value is LogLevel {
  return SEVERITY.has(value);
}

/** True when `level` is `min` or more severe. */
export function logLevelAtLeast(level: LogLevel, min: LogLevel): boolean {
  return SEVERITY.get(level)! >= SEVERITY.get(min)!;
}
