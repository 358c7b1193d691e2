// The command-line usage text and the one way a command fails on bad input: the message, the
// usage, exit code 2. Owns wording only; it never parses.

import { DEFAULT_OFFENDER_CPU_QUOTA_PERCENT } from '../sandbox/cpu-quota.ts';

export const USAGE = `usage:
  npm run host -- [--dir D]... [--bind ADDRESS] [--port P] [--data FILE | --store postgres://…]
                  [--platform FILE] [--admin-token T] [--allow-egress HOST[:PORT]|CIDR]... [--first-party NAME]...
                  [--workers N] [--no-auto-install] [--isolate-memory MB] [--log-format text|json]
                  [--metrics-listen HOST:PORT] [--console-port P | --no-console]
                  [--offender-cpu-quota PERCENT]   (offenders' CPU, % of one core; 0 = none; default ${DEFAULT_OFFENDER_CPU_QUOTA_PERCENT})
  npm run dev -- [the flags of host]            (default --dir integrations; reloads on change)
  npm run check -- [DIR...] [--no-types]       (default DIR integrations)
  npm run new -- NAME [--template blank|block|oauth|webhook-consumer] [--dir D] [--organization O]
  npm run logs -- INTEGRATION [--installation ID] [--url URL] [--admin-token T]
  npm run secrets -- set|list|unset|rotate|new-key …   (stored secrets per integration; --help)`;

export function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(code);
}
