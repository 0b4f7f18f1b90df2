import { IsString, MaxLength, MinLength } from 'class-validator';
import { AgentContext, AgentMemory, Param, Tool, ToolInterface } from 'toolwright';

export class RememberInput {
  @Param({ description: 'What to remember about the customer, as one short sentence, e.g. "Prefers updates by email"' })
  @IsString()
  @MinLength(3)
  @MaxLength(200)
  preference!: string;
}

/**
 * Long-term memory for the support desk: a preference kept per (agent, customer), so it is
 * there in the next conversation, and never visible to another customer.
 */
@Tool({
  name: 'remember_preference',
  description: 'Remember a lasting preference of the signed-in customer for future conversations',
  input: RememberInput,
  tags: ['memory'],
  memory: true,
  annotations: { idempotentHint: true },
})
export class RememberPreferenceTool implements ToolInterface<RememberInput> {
  execute({ preference }: RememberInput, _context: AgentContext, memory: AgentMemory) {
    const known = memory.getPreferences().some((p) => p.content.toLowerCase() === preference.toLowerCase());
    if (known) return { status: 'already_known', preference };
    memory.addPreference(preference, 'contact');
    return { status: 'remembered', preference };
  }
}
