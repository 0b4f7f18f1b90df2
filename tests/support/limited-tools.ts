/** A tool with a rate limit, for the stateless multi-process test: its counts live in the workers' shared store. */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Param, Tool, ToolRegistry, type RateCounters, type ToolInterface } from '../../src';

class EchoInput {
  @Param({ description: 'Any text' })
  @IsString()
  text!: string;
}

/** Three calls an hour per user. */
@Tool({ name: 'limited_echo', description: 'Echo, three times an hour', input: EchoInput, rateLimit: { limit: 3, windowMs: 3_600_000 } })
export class LimitedEchoTool implements ToolInterface<EchoInput> {
  execute({ text }: EchoInput): object {
    return { text, pid: process.pid };
  }
}

export function limitedRegistry(rateCounters: RateCounters): ToolRegistry {
  return ToolRegistry.build({ tools: [LimitedEchoTool], rateCounters });
}
