/**
 * Tools for the Tools page's tests: a form with nested classes, arrays of classes and of strings,
 * enums, booleans, numbers and dates; a tool only one user may see; a tool that needs approval.
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDate,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { AgentContext, Param, Tool, ToolRegistry, type ToolInterface } from 'toolwright';

export const COUNTRIES = ['US', 'DE', 'FR'] as const;
export const SPEEDS = ['standard', 'express', 'overnight'] as const;

export class ShipAddress {
  @Param({ description: 'Street and number' })
  @IsString()
  @MinLength(1)
  street!: string;

  @Param({ description: 'City' })
  @IsString()
  @MinLength(2)
  city!: string;

  @Param({ description: 'Country', enum: COUNTRIES })
  @IsIn(COUNTRIES)
  country!: (typeof COUNTRIES)[number];
}

export class ShipItem {
  @Param({ description: 'Stock keeping unit' })
  @IsString()
  @MinLength(3)
  sku!: string;

  @Param({ description: 'How many' })
  @IsInt()
  @Min(1)
  quantity!: number;
}

export class ShipmentInput {
  @Param({ description: 'Where it goes' })
  @ValidateNested()
  @Type(() => ShipAddress)
  address!: ShipAddress;

  @Param({ description: 'What is in the parcel', type: () => [ShipItem] })
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => ShipItem)
  items!: ShipItem[];

  @Param({ description: 'Delivery speed', enum: SPEEDS })
  @IsIn(SPEEDS)
  speed!: (typeof SPEEDS)[number];

  @Param({ description: 'Wrap it as a gift' })
  @IsOptional()
  @IsBoolean()
  gift?: boolean;

  @Param({ description: 'Weight in kilograms' })
  @IsOptional()
  @IsNumber()
  @Min(0)
  weight_kg?: number;

  @Param({ description: 'Ship on this day', format: 'date' })
  @IsOptional()
  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  ship_on?: string;

  @Param({ description: 'Deliver before this moment' })
  @IsOptional()
  @IsDate()
  @Type(() => Date)
  deliver_by?: Date;

  @Param({ description: 'Labels for the parcel', type: () => [String] })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  labels?: string[];
}

/** Echoes what it was given, so a test sees the form's arguments arrive typed. */
@Tool({ name: 'plan_shipment', description: 'Plan a shipment of some items to an address', input: ShipmentInput })
export class PlanShipmentTool implements ToolInterface<ShipmentInput> {
  execute(args: ShipmentInput) {
    return {
      planned: true,
      city: args.address.city,
      country: args.address.country,
      skus: args.items.map((i) => `${i.quantity}x${i.sku}`),
      speed: args.speed,
      gift: args.gift ?? null,
      weight_kg: args.weight_kg ?? null,
      ship_on: args.ship_on ?? null,
      deliver_by: args.deliver_by instanceof Date ? args.deliver_by.toISOString() : null,
      labels: args.labels ?? [],
    };
  }
}

export class AuditInput {
  @Param({ description: 'Whose audit' })
  @IsString()
  account!: string;
}

/** Only the user `admin` may see (and so call) it. */
@Tool({ name: 'admin_audit', description: 'Audit an account (admins only)', input: AuditInput })
export class AdminAuditTool implements ToolInterface<AuditInput> {
  isEnabled(context: AgentContext): boolean {
    return context.userId === 'admin';
  }
  execute(args: AuditInput) {
    return { audited: args.account };
  }
}

export class WipeInput {
  @Param({ description: 'Whose account' })
  @IsString()
  account!: string;

  @Param({ description: 'Anything to keep in the log', type: 'object' })
  @IsOptional()
  @IsObject()
  note?: Record<string, unknown>;
}

export const wipes = { count: 0 };

/** Needs a human's approval on every call. */
@Tool({ name: 'wipe_account', description: 'Delete an account', input: WipeInput, approval: true, annotations: { destructiveHint: true } })
export class WipeAccountTool implements ToolInterface<WipeInput> {
  execute(args: WipeInput) {
    wipes.count++;
    return { wiped: args.account };
  }
}

export function fixtureRegistry(): ToolRegistry {
  return ToolRegistry.build({ tools: [PlanShipmentTool, AdminAuditTool, WipeAccountTool] });
}
