import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SetupFlags } from './flags.js';
import { SetupFailed } from './llm-step.js';
import type { SetupUi } from './ui.js';

/** The console's address when init turns it on: this machine only (Docker's FAMILIAR_HTTP_LISTEN still wins). */
export const CONSOLE_LISTEN = '127.0.0.1:8484';

/** How the daemon will run: under Docker Compose (beside docker-compose.yml), or on this machine, maybe as a service. */
export interface RunChoice {
  compose: boolean;
  /** A systemd user unit (`familiar service install`) once the files are written. */
  service: boolean;
}

/**
 * Compose or this machine. Asked only beside a docker-compose.yml (a checkout); the Compose variables, and handing
 * ./data to the container's uid, follow only from a yes — a person who runs `npm start` keeps their data folder.
 * On this machine, a systemd service is offered where systemd runs.
 */
export async function chooseRun(ui: SetupUi, flags: SetupFlags, where: { configFile: string; composeBefore: boolean }): Promise<RunChoice> {
  const composeFile = existsSync(path.join(path.dirname(where.configFile), 'docker-compose.yml'));
  if (flags.compose && !composeFile) throw new SetupFailed(`--compose: there is no docker-compose.yml beside ${where.configFile}`);
  let compose = flags.compose || (!ui.interactive && where.composeBefore);
  if (composeFile && ui.interactive && !flags.compose) {
    compose = await ui.select({
      message: 'How will you run it?',
      options: [
        { value: false, label: 'On this machine', hint: 'npm start, or a systemd service' },
        { value: true, label: 'With Docker Compose', hint: 'docker compose up -d --build' },
      ],
      initialValue: where.composeBefore,
    });
  }
  if (compose) return { compose, service: false };
  const systemd = existsSync('/run/systemd/system');
  let service = flags.service;
  if (!service && systemd && ui.interactive) {
    service = await ui.confirm({ message: 'Keep it running with systemd (a user service that starts at boot: familiar service install)?', initialValue: false });
  }
  return { compose, service };
}

/** The web console on this machine's loopback: on by default when asked, kept as it was with --yes. */
export async function chooseConsole(ui: SetupUi, flags: SetupFlags, current: boolean): Promise<boolean> {
  if (flags.console !== undefined) return flags.console;
  if (!ui.interactive) return current;
  return ui.confirm({
    message: `A web console in your browser (chat, approvals, memory, jobs) at http://${CONSOLE_LISTEN}/console? familiar console prints the login link`,
    initialValue: true,
  });
}

/**
 * Where the results of jobs made in the terminal go (`scheduler.default_chat`): the person's Telegram chat when init
 * just learnt it (a private chat's id is the user's). Without one such job results are only logged.
 */
export async function chooseDefaultChat(ui: SetupUi, flags: SetupFlags, telegramUsers: readonly string[], current: string | undefined): Promise<string | undefined> {
  if (flags.defaultChat !== undefined) return flags.defaultChat === 'none' ? undefined : flags.defaultChat;
  if (current !== undefined || telegramUsers.length !== 1) return current;
  const target = `telegram:${telegramUsers[0] ?? ''}`;
  if (!ui.interactive) {
    ui.info(`Jobs made in the terminal report to you on Telegram (scheduler.default_chat: ${target}).`);
    return target;
  }
  const yes = await ui.confirm({ message: `Send the results of jobs you add in the terminal to you on Telegram (scheduler.default_chat: ${target})?`, initialValue: true });
  return yes ? target : undefined;
}
