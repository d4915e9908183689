import { fail, ok, type AnyTool, type NativeTool } from '../tools/types.js';
import { createSkill, type CreateSkillParams } from './create.js';
import { installFromHub } from './hub-install.js';
import type { ManageAction, SkillService } from './service.js';

/** The five skill tools, with the parameters the seed names: create, list, run, manage, install. */
export function createSkillTools(service: SkillService, options: { baseDir: string }): AnyTool[] {
  const turnTimeoutMs = service.deps.config.agent.turn_timeout_s * 1000;
  return [createTool(service, turnTimeoutMs), listTool(service), runTool(service, turnTimeoutMs), manageTool(service, turnTimeoutMs), installTool(service, options.baseDir)];
}

function createTool(service: SkillService, turnTimeoutMs: number): NativeTool<CreateSkillParams> {
  return {
    name: 'create_skill',
    group: 'skills',
    description:
      'Create a reusable skill from a description: it is drafted as SKILL.md (instructions, trigger, allowed tools), validated, its test run in the sandbox if it has one, ' +
      'and saved as a draft. Only the person turns a skill on (manage_skill activate asks them and shows its tools; familiar skills activate).',
    parameters: {
      type: 'object',
      properties: {
        description: { type: 'string', minLength: 5, maxLength: 4000, description: 'what the skill does, when, and where results go, in the person\'s words' },
        trigger: {
          type: 'object',
          properties: {
            type: { type: 'string', enum: ['manual', 'cron'] },
            cron: { type: 'string', description: '5-field cron, e.g. "0 7 * * *" (every day at 07:00)' },
            timezone: { type: 'string' },
          },
          required: ['type'],
          additionalProperties: false,
        },
        tools: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 50, description: 'tool names the skill may use (default: chosen by the draft)' },
      },
      required: ['description'],
      additionalProperties: false,
    },
    // Drafting is an LLM call, and a test may run in the sandbox.
    timeoutMs: turnTimeoutMs,
    // A new skill is instructions that run later (even as a draft, run_skill runs it): the person sees that.
    effects: [{ kind: 'persist', target: 'skill', what: 'a new skill (saved as a draft)' }],
    async execute(params, ctx) {
      const created = await createSkill(service, params, ctx);
      return created.success ? ok(created.value) : fail(created.error);
    },
  };
}

function listTool(service: SkillService): NativeTool<Record<string, never>> {
  return {
    name: 'list_skills',
    readOnly: true,
    group: 'skills',
    description: 'List the skills: id, name, status (active, paused, draft), trigger with the next run time for cron skills, last run and its outcome; invalid skills with the reason.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    effects: [],
    async execute() {
      return ok(service.formatList(service.list()));
    },
  };
}

function runTool(service: SkillService, turnTimeoutMs: number): NativeTool<{ id: string; input?: string }> {
  return {
    name: 'run_skill',
    group: 'skills',
    description:
      'Run a skill now by id: an agent run with the skill\'s instructions, limited to the skill\'s tools. A paused or draft skill runs only because you named it (the reply says so). ' +
      'Returns the run\'s result.',
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 64, description: 'the skill id (from list_skills)' },
        input: { type: 'string', maxLength: 20_000, description: 'extra input for this run (a file path, a question, text to process)' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    timeoutMs: turnTimeoutMs + 30_000,
    // The run itself holds the outside sources of the turn that asked for it, and its calls are gated there.
    effects: [],
    async execute(params, ctx) {
      const outcome = await service.run(params.id, { input: params.input, origin: ctx.origin, unattended: ctx.unattended, signal: ctx.signal, taint: ctx.taint });
      if (!outcome.success) return fail(outcome.error);
      const result = outcome.value;
      const head = `${outcome.value.note ? `${outcome.value.note}\n` : ''}Skill "${params.id}" run #${result.runId}: ${result.status}.`;
      const text = `${head}\n${result.text}`;
      const extra = result.artifacts.length > 0 ? { artifacts: result.artifacts } : {};
      return result.status === 'ok' ? ok(text, extra) : { success: false, output: text, ...extra };
    },
  };
}

function manageTool(service: SkillService, turnTimeoutMs: number): NativeTool<{ id: string; action: ManageAction }> {
  return {
    name: 'manage_skill',
    group: 'skills',
    description:
      'Change a skill: "pause" (its schedule stops at once), "resume" (a paused skill runs on schedule again), "activate" (a draft or a newly installed skill goes live; ' +
      'its test must pass), "delete" (removes its folder).',
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 64 },
        action: { type: 'string', enum: ['pause', 'resume', 'delete', 'activate'] },
      },
      required: ['id', 'action'],
      additionalProperties: false,
    },
    // Deleting loses the skill; activating lets installed third-party instructions and scripts run. A change of someone
    // else's skill (a household member's call on the owner's) is refused when it runs: nobody is asked about it first.
    risk: (params) => ((params.action === 'delete' || params.action === 'activate') && service.makers.mayChange(params.id).success ? 'high' : 'low'),
    effects: (params) => [{ kind: 'persist', target: 'skill', what: `${params.action} of the skill ${params.id}` }],
    // Activation grants power: the person sees exactly what the skill will be allowed to do.
    explain: (params) => (params.action === 'activate' ? describeGrant(service, params.id) : []),
    timeoutMs: turnTimeoutMs,
    async execute(params, ctx) {
      const outcome = await service.manage(params.id, params.action, { signal: ctx.signal });
      return outcome.success ? ok(outcome.value) : fail(outcome.error);
    },
  };
}

function installTool(service: SkillService, baseDir: string): NativeTool<{ source: string; id?: string }> {
  return {
    name: 'install_skill',
    group: 'skills',
    description:
      'Install a skill from a hub: a git repository URL, a local folder or a .tar.gz holding index.json' +
      `${service.deps.config.tools.skills.hub ? ` (default hub: ${service.deps.config.tools.skills.hub}; pass a skill id as source to use it)` : ''}. ` +
      'The skill lands as a quarantined draft, pinned by content hash, with a report of its scripts, tools and network needs; nothing from it runs until the person activates it.',
    parameters: {
      type: 'object',
      properties: {
        source: { type: 'string', minLength: 1, maxLength: 2000, description: 'hub location, or a skill id from the default hub' },
        id: { type: 'string', minLength: 1, maxLength: 64, description: 'which skill of the hub (needed when it has several)' },
      },
      required: ['source'],
      additionalProperties: false,
    },
    // It fetches from outside (a git URL may point anywhere) and adds code to the skills folder.
    risk: 'high',
    effects: (params) => [{ kind: 'install', what: `a skill from ${params.source}` }],
    timeoutMs: 180_000,
    async execute(params, ctx) {
      const outcome = await installFromHub(service, params.source, params.id, { baseDir, origin: ctx.origin });
      return outcome.success ? ok(outcome.value) : fail(outcome.error);
    },
  };
}

/** What activating a skill grants, for the approval question: its tools, its approve list, its trigger and scripts. */
function describeGrant(service: SkillService, id: string): string[] {
  const entry = service.store.get(id);
  if (!entry?.success) return [`Skill ${id} is not valid or does not exist.`];
  const skill = entry.value;
  const label = service.deps.labels.get('skill', id);
  const maker = service.makers.nameOf(id);
  return [
    `Activating "${skill.name}" lets it run ${skill.trigger.type === 'cron' ? `on its schedule (cron ${skill.trigger.cron ?? '?'}), unattended` : 'when asked'}.`,
    `Tools it may use: ${skill.tools.length > 0 ? skill.tools.join(', ') : 'none'}.`,
    `High-risk tools it may call unattended (approve list): ${skill.approve.length > 0 ? skill.approve.join(', ') : 'none'}.`,
    ...(maker !== undefined ? [`It is ${maker}'s: its own runs act as ${maker} (their memory, tools and budget).`] : []),
    ...(label ? [`Its instructions came from outside content (${label.join(', ')}): read them (familiar skills show ${id}) before you approve.`] : []),
  ];
}
