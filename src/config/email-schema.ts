import { z } from 'zod/v3';

/** Part of the configuration contract (schema.ts): `tools.email`, one mailbox or several. */

const secret = () => z.string().default('');

const mailEndpoint = () => z.strictObject({
  host: z.string().default(''),
  port: z.number().int().min(1).max(65535).optional(),
  secure: z.boolean().optional(),
  user: z.string().default(''),
  password: secret(),
});

const mailAccount = () => z.strictObject({
  imap: mailEndpoint().default({}),
  smtp: mailEndpoint().extend({ from: z.string().default('') }).default({}),
  ca: z.string().optional(),
  ca_file: z.string().optional(),
  allow_send: z.boolean().default(false),
});

/** `tools.email`: the default mailbox at the top level, more under `accounts`. */
export const emailSchema = () => mailAccount()
  .extend({
    /** More mailboxes by name (`work`, `family`): each as the top level is; the tool's `account` picks one. */
    accounts: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/i, 'an account name: letters, digits, _ or -'), mailAccount()).default({}),
  });
