// @ts-check
// redact_iban: a hook, not a tool — masks bank account numbers (IBANs) in every tool result before the model, the
// chat or the audit sees them. An example of tool:after middleware; tool:before works the same way and may veto a
// call ({ block: 'why' }) or change its arguments ({ params }).
// Install: copy this file into your tools folder (tools_dir, default data/tools).
import { defineHook } from 'familiar';

const IBAN = /\b[A-Z]{2}\d{2}(?: ?[0-9A-Z]{4}){3,7}(?: ?[0-9A-Z]{1,3})?\b/g;

export default defineHook('tool:after', ({ result }) => {
  const output = result.output.replace(IBAN, (iban) => `${iban.slice(0, 4)}…[IBAN hidden]`);
  // Nothing to hide: keep the result as it is.
  if (output === result.output) return;
  return { result: { ...result, output } };
});
