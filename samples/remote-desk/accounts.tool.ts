import { Matches } from 'class-validator';
import { Param, Tool, type ToolInterface } from 'toolwright';

/** The app's own data: the accounts of a small B2B shop. */
export const ACCOUNTS: Readonly<Record<string, { name: string; plan: string; seats: number }>> = {
  'ACME-1': { name: 'Acme Corp', plan: 'business', seats: 40 },
  'GLOBEX-7': { name: 'Globex', plan: 'starter', seats: 5 },
};

export class AccountInput {
  @Param({ description: 'The account id, e.g. "ACME-1"' })
  @Matches(/^[A-Z]+-\d+$/, { message: 'account_id looks like ACME-1' })
  account_id!: string;
}

/** A local decorated tool beside the remote ones: the same registry, the same validation. */
@Tool({ name: 'lookup_account', description: 'Look an account up by its id: its name, plan and seats', input: AccountInput })
export class LookupAccountTool implements ToolInterface<AccountInput> {
  execute({ account_id }: AccountInput) {
    const account = ACCOUNTS[account_id];
    return account ? { status: 'found', account_id, ...account } : { status: 'not_found', account_id };
  }
}
