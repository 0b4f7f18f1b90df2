import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { Param } from 'toolwright';

/*
 * The PHP kit's "Parameter Schema Examples" as input classes. Each generates the JSON Schema an
 * author would write by hand (complex-params.test.ts pins it), enforced by the same decorators.
 */

/** "Basic Parameter Types": a string, a bounded integer, a boolean, a non-negative number. */
export class BasicParams {
  @Param({ description: 'User name' })
  @IsString()
  name!: string;

  @Param({ description: 'User age' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(150)
  age?: number;

  @Param({ description: 'Whether user is active' })
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @Param({ description: 'Product price' })
  @IsOptional()
  @IsNumber()
  @Min(0)
  price?: number;
}

export const ORDER_STATUSES = ['pending', 'processing', 'completed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export class Address {
  @IsString() street!: string;
  @IsString() city!: string;
  @IsString() zip!: string;
}

/** "Complex Parameter Types": an enum, an array of strings and a nested object, all optional. */
export class ComplexParams {
  @Param({ description: 'Order status' })
  @IsOptional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;

  @Param({ description: 'List of tags', type: () => [String] })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  tags?: string[];

  @Param({ description: 'User address' })
  @IsOptional()
  @ValidateNested()
  @Type(() => Address)
  address?: Address;
}
