import { errorMessage } from '../errors.js';
import { currentPerson, withPerson } from '../lib/person-scope.js';
import { fail, ok, type AnyTool } from '../tools/types.js';

/**
 * `memory_share` (a household, docs/household.md): copies one of the person's own memory files into shared/, where
 * everyone reads it. High risk, so the gate asks, and in a household anyone but the owner is answered by the owner
 * (gate/answer.ts): only an explicit share the owner allowed writes shared/ for a member.
 */
export function createMemoryShareTool(): AnyTool {
  return {
    name: 'memory_share',
    group: 'memory',
    risk: 'high',
    effects: (params: { as?: string; path?: string }) => [{ kind: 'persist', target: 'memory', path: `shared/${params.as ?? params.path ?? ''}` }],
    explain: (params: { path?: string; as?: string }) => [`Copies ${params.path ?? '?'} into shared/${params.as ?? params.path ?? ''}, which everyone in the household reads.`],
    description: 'Share one of your own memory files with the household: copies it into shared/ (read by everyone). The owner is asked first.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'your file, e.g. "recipes.md"' },
        as: { type: 'string', description: 'its name under shared/ (default: the same path)' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    async execute(params: { path: string; as?: string }, ctx) {
      const person = currentPerson();
      if (!person) return fail('There is no household (people: in the config): every memory file is already yours alone.');
      if (params.path.startsWith('shared/')) return fail(`${params.path} is already in shared/; name one of your own files.`);
      const target = `shared/${(params.as ?? params.path).replace(/^shared\//, '')}`;
      try {
        const content = ctx.memory.read(params.path);
        // The owner said yes (the gate asked): this one write to shared/ is allowed.
        const written = await withPerson({ ...person, sharing: true }, () => ctx.memory.write(target, content, { conversationId: ctx.conversationId }));
        return ok(`Shared: ${written.path} (${written.bytes} bytes) is now read by everyone in the household.`);
      } catch (error) {
        return fail(`Not shared: ${errorMessage(error)}`);
      }
    },
  };
}
