import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Min,
  MinLength,
  validate,
  ValidateNested,
  type ValidationError,
} from 'class-validator';
import { runContender } from './harness';
import { executeRefund, invalidArguments, STATUSES, type FieldError } from './workload';

class Address {
  @IsString() street!: string;
  @IsString() city!: string;
  @IsString() zip!: string;
}

class RefundInput {
  @IsString() @MinLength(1) order_id!: string;
  @IsOptional() @IsNumber() @Min(0) amount?: number;
  @IsString() @MinLength(1) reason!: string;
  @IsIn(STATUSES) status!: (typeof STATUSES)[number];
  @IsOptional() @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOptional() @ValidateNested() @Type(() => Address) address?: Address;
}

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.entries(e.constraints ?? {}).map(([constraint, message]) => ({ path, constraint, message }));
    return [...own, ...flatten(e.children ?? [], path)];
  });
}

void runContender('class-validator', async (args) => {
  const input = plainToInstance(RefundInput, JSON.parse(args) as object);
  // Closed like the others: unknown properties are errors.
  const errors = await validate(input, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length) return invalidArguments(flatten(errors));
  return JSON.stringify(executeRefund(input));
});
