import { HeartbeatControl } from '../heartbeat/control.js';
import { describeOutcome } from '../heartbeat/part.js';
import { formatStatus } from '../heartbeat/status.js';
import { HeartbeatStore } from '../heartbeat/store.js';
import type { Command, CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';

const USAGE = `usage: familiar heartbeat <action>
  status [--json]   on/off, paused or stopped and why, last beat and change, today's tokens and calls
  pause | resume    stop beating until resumed; resume also clears a budget or account stop
  run               one beat now, here (hours and the idle pause do not hold it back); the outcome is printed
`;

/** `familiar heartbeat status|pause|resume|run`: the daemon's heartbeat state (one SQLite file). */
export const heartbeatCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('heartbeat'));
  } catch (error) {
    context.io.stderr.write(`familiar heartbeat: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const action = parsed.positionals[0] ?? 'status';
  if (!['status', 'pause', 'resume', 'run'].includes(action)) {
    context.io.stderr.write(USAGE);
    return 2;
  }
  if (action === 'run') return runBeat(context);
  const { config } = context.loadConfig();
  const db = context.openDatabase();
  try {
    const control = new HeartbeatControl({ config, store: new HeartbeatStore(db), now: Date.now });
    if (action === 'pause') control.pause();
    if (action === 'resume') control.resume();
    const status = control.status();
    if (context.options.json) context.io.stdout.write(`${JSON.stringify({ configured: config.heartbeat !== undefined, ...status }, null, 2)}\n`);
    else context.io.stdout.write(`${action === 'status' ? '' : `Heartbeat ${action === 'pause' ? 'paused' : 'resumed'}.\n`}${formatStatus(status, config)}\n`);
    return 0;
  } finally {
    db.close();
  }
};

/** `heartbeat run`: one beat in this process; a report goes to its chat only if that chat's channel runs here. */
async function runBeat(context: CommandContext): Promise<number> {
  const app = await context.daemon('command');
  try {
    const outcome = await app.heartbeat.beat({ force: true });
    context.io.stdout.write(`${describeOutcome(outcome)}\n${outcome.kind === 'reported' ? `${outcome.text}\n` : ''}`);
    return outcome.kind === 'failed' || (outcome.kind === 'stopped') ? 1 : 0;
  } finally {
    await app.close();
  }
}
