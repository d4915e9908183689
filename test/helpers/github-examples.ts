// GitHub's published webhook payloads (`@octokit/webhooks-examples`, a devDependency): real bodies to sign and send.
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';

const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as Array<{ name: string; examples: unknown[] }>;

/** The `index`th published example of a GitHub event, as the JSON body GitHub sends. */
export function githubExample(event: string, index = 0): string {
  const payload = examples.find((entry) => entry.name === event)?.examples[index];
  if (payload === undefined) throw new Error(`@octokit/webhooks-examples has no example ${index} of ${event}`);
  return JSON.stringify(payload);
}

/** The headers GitHub sends with a delivery, signed with `secret` (X-Hub-Signature-256). */
export function githubHeaders(body: string, event: string, delivery: string, secret: string): Record<string, string> {
  return {
    'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': delivery,
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  };
}
