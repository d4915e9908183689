import type { Readable, Writable } from 'node:stream';
import * as clack from '@clack/prompts';

/** The person pressed Ctrl-C or Escape at a question: the set-up stops and writes nothing. */
export class SetupCancelled extends Error {
  constructor() {
    super('set-up cancelled');
    this.name = 'SetupCancelled';
  }
}

export interface Choice<T> {
  value: T;
  label: string;
  hint?: string;
}

/**
 * The terminal side of `familiar init`: questions (only when interactive) and progress lines (always), through
 * @clack/prompts on the command's own streams. A question asked when not interactive is a bug in the flow,
 * which must take the flag or the default instead.
 */
export interface SetupUi {
  readonly interactive: boolean;
  text(question: { message: string; initialValue?: string; placeholder?: string; validate?: (value: string) => string | undefined }): Promise<string>;
  password(question: { message: string; validate?: (value: string) => string | undefined }): Promise<string>;
  select<T>(question: { message: string; options: Array<Choice<T>>; initialValue?: T }): Promise<T>;
  confirm(question: { message: string; initialValue?: boolean }): Promise<boolean>;
  intro(title: string): void;
  outro(message: string): void;
  info(message: string): void;
  success(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  note(message: string, title?: string): void;
  /** Runs `work` with a progress line; the line ends with what `work` returns as its summary. */
  progress<T>(message: string, work: () => Promise<T>): Promise<T>;
}

export function createSetupUi(options: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; interactive: boolean }): SetupUi {
  const streams = { input: options.input as Readable, output: options.output as Writable };
  const answer = <T>(value: T): Exclude<T, symbol> => {
    if (clack.isCancel(value)) throw new SetupCancelled();
    return value as Exclude<T, symbol>;
  };
  const ask = (): void => {
    if (!options.interactive) throw new Error('familiar init asked a question while running with --yes');
  };
  return {
    interactive: options.interactive,
    async text(question) {
      ask();
      return answer(await clack.text({
        ...streams, message: question.message,
        ...(question.initialValue !== undefined ? { initialValue: question.initialValue } : {}),
        ...(question.placeholder !== undefined ? { placeholder: question.placeholder } : {}),
        ...(question.validate ? { validate: (value: string | undefined) => question.validate?.(value ?? '') } : {}),
      }));
    },
    async password(question) {
      ask();
      return answer(await clack.password({
        ...streams, message: question.message,
        ...(question.validate ? { validate: (value: string | undefined) => question.validate?.(value ?? '') } : {}),
      }));
    },
    async select<T>(question: { message: string; options: Array<Choice<T>>; initialValue?: T }): Promise<T> {
      ask();
      const choices = question.options.map((choice) => ({ value: choice.value, label: choice.label, ...(choice.hint !== undefined ? { hint: choice.hint } : {}) }));
      return answer(await clack.select<T>({
        ...streams, message: question.message,
        options: choices as Parameters<typeof clack.select<T>>[0]['options'],
        ...(question.initialValue !== undefined ? { initialValue: question.initialValue } : {}),
      }));
    },
    async confirm(question) {
      ask();
      return answer(await clack.confirm({ ...streams, message: question.message, ...(question.initialValue !== undefined ? { initialValue: question.initialValue } : {}) }));
    },
    intro: (title) => clack.intro(title, streams),
    outro: (message) => clack.outro(message, streams),
    info: (message) => clack.log.info(message, streams),
    success: (message) => clack.log.success(message, streams),
    warn: (message) => clack.log.warn(message, streams),
    error: (message) => clack.log.error(message, streams),
    note: (message, title) => clack.note(message, title, streams),
    async progress(message, work) {
      if (!options.interactive) {
        clack.log.step(message, streams);
        return work();
      }
      const spin = clack.spinner(streams);
      spin.start(message);
      try {
        const result = await work();
        spin.stop(message);
        return result;
      } catch (error) {
        spin.error(message);
        throw error;
      }
    },
  };
}
