import type { App } from './app.js';
import { installApprovals } from './approval/install.js';
import { installChannels } from './channels/install.js';
import { installHttp } from './http/install.js';
import { installMcp } from './mcp/install.js';
import { installMemoryHistory } from './memory/history-install.js';
import { installReach } from './tools/reach-install.js';
import { installScheduler } from './scheduler/install.js';
import { installSkills } from './skills/install.js';
import { installNotes } from './notes/install.js';
import { installSandbox } from './sandbox/install.js';
import { installEmail } from './tools/email/install.js';
import { installUsage } from './usage/budget.js';

/**
 * Optional subsystems, installed in this order by the composition root. An installer registers tools
 * and AppModules on the app (no side effects: polling and timers start in `AppModule.start`), and
 * logs one line and returns when its config section is absent or lacks credentials.
 */
export type Installer = (app: App) => Promise<void>;

export const INSTALLERS: readonly Installer[] = [
  // First, so /healthz answers while slower parts (a Discord login) start.
  installHttp,
  // Early, so channels can register their approval prompters on app.context.approvals when they install.
  installApprovals,
  installUsage,
  installMemoryHistory,
  installMcp,
  installReach,
  installEmail,
  installSandbox,
  // Last: chat channels start after the parts whose tools and chat commands they offer.
  installChannels,
  // After the channels: its start may run missed jobs at once, and their results go to the chats.
  installScheduler,
  // After the scheduler: active cron skills are put on it, and its runs of skill jobs are handed to skills.
  installSkills,
  // After the scheduler (task reminders are its jobs) and email (/email reads its mailbox).
  installNotes,
];
