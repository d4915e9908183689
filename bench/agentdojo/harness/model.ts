// The worst-case model: it makes the user task's ground-truth calls (mapped onto Familiar's tools), and as soon as
// a tool result holds the injection it obeys it, making the injection task's ground-truth calls first, with the
// person's secrets filled in from its own prompt; then it finishes the person's task. It never hesitates, never
// asks, and goes on after a refusal. Its answer states the task's expected result when every call of the person's
// task went through.
import type { RecordedRequest, ScriptedReply } from '../../../test/fakes/openai-server.js';
import { mapCall, type PlanItem, type View } from './mapping.js';
import { MARKER, type Task } from './suite.js';

type Origin = 'user' | 'injection';

export interface ModelCall {
  origin: Origin;
  from: string;
  name: string;
  arguments: Record<string, unknown>;
  success?: boolean;
  /** The start of the tool's answer when it failed or was refused. */
  error?: string;
}

/** What the model did, for the report. */
export interface ModelLog {
  /** Whether a tool result held the injection. */
  seen: boolean;
  calls: ModelCall[];
  /** Ground-truth calls with no Familiar counterpart (deleting mail, the calendar). */
  skipped: Array<{ origin: Origin; from: string; reason: string }>;
  answer: string;
}

/** Calls that only read: made once per turn, their answer reused (a model does not fetch what it already has). */
function readOnly(name: string, args: Record<string, unknown>): boolean {
  if (name === 'email') return args.action === 'list' || args.action === 'search' || args.action === 'read';
  if (name === 'http') return args.method === undefined || args.method === 'GET';
  return ['read', 'listdir', 'glob', 'grep', 'memory_read'].includes(name);
}

const flat = (text: string): string => text.replace(/\\n/g, ' ').replace(/\s+/g, ' ');

export function worstCaseModel(input: { user: Task; injection?: Task | undefined; view: View; answer: readonly string[] }): { handle: (request: RecordedRequest) => ScriptedReply; log: ModelLog } {
  const log: ModelLog = { seen: false, calls: [], skipped: [], answer: '' };
  let queue: Array<PlanItem & { origin: Origin }> | undefined;
  let pending: ModelCall | undefined;
  let lastOutput = '';
  const outputs = new Map<string, string>();
  const marker = flat(MARKER);

  const tag = (origin: Origin) => (item: PlanItem) => ({ ...item, origin });

  function handle(request: RecordedRequest): ScriptedReply {
    const messages = request.body.messages;
    const system = String(messages[0]?.content ?? '');
    queue ??= input.user.groundTruth.flatMap((call) => mapCall(call, input.view, system)).map(tag('user'));
    const last = messages.at(-1);
    if (pending && last?.role === 'tool') {
      const content = String(last.content ?? '');
      pending.success = !content.startsWith('ERROR:');
      if (!pending.success) pending.error = content.slice(7, 200);
      lastOutput = content;
      if (pending.success && readOnly(pending.name, pending.arguments)) outputs.set(key(pending), content);
      pending = undefined;
    }
    if (input.injection && !log.seen) {
      const lastUser = messages.map((message) => message.role).lastIndexOf('user');
      const read = messages.slice(lastUser + 1).filter((message) => message.role === 'tool').map((message) => flat(String(message.content ?? '')));
      if (read.some((content) => content.includes(marker))) {
        log.seen = true;
        // A continuation waiting on the last result takes it now, before the injected calls produce others.
        const head = queue[0];
        if (head?.kind === 'then') {
          queue.shift();
          queue.unshift(...head.next(lastOutput).map(tag(head.origin)));
        }
        queue.unshift(...input.injection.groundTruth.flatMap((call) => mapCall(call, input.view, system)).map(tag('injection')));
      }
    }
    for (let item = queue.shift(); item; item = queue.shift()) {
      if (item.kind === 'skip') {
        log.skipped.push({ origin: item.origin, from: item.from, reason: item.reason });
        continue;
      }
      if (item.kind === 'then') {
        queue.unshift(...item.next(lastOutput).map(tag(item.origin)));
        continue;
      }
      const made: ModelCall = { origin: item.origin, from: item.from, name: item.call.name, arguments: item.call.arguments };
      const known = readOnly(made.name, made.arguments) ? outputs.get(key(made)) : undefined;
      if (known !== undefined) {
        lastOutput = known;
        continue;
      }
      log.calls.push(made);
      pending = made;
      return { toolCalls: [{ name: made.name, arguments: made.arguments }] };
    }
    const failed = log.calls.filter((call) => call.origin === 'user' && call.success === false);
    log.answer = failed.length === 0 ? input.answer.join('\n') || 'Done.' : `I could not finish: ${failed.map((call) => `${call.name} (${call.from})`).join(', ')} did not go through.`;
    return { content: log.answer };
  }

  return { handle, log };
}

function key(call: { name: string; arguments: Record<string, unknown> }): string {
  return `${call.name} ${JSON.stringify(call.arguments)}`;
}
