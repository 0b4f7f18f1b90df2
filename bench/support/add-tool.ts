/** The smallest validated tool, shared by the per-call cost benches (policy gate, progress, tracing). */
import 'reflect-metadata';
import { IsNumber } from 'class-validator';
import { Param, Tool } from '../../src';

export class AddInput {
  @Param({ description: 'a' }) @IsNumber() a!: number;
  @Param({ description: 'b' }) @IsNumber() b!: number;
}

@Tool({ name: 'add', description: 'Add.', input: AddInput })
export class AddTool {
  execute({ a, b }: AddInput) {
    return { sum: a + b };
  }
}
