import { validateConfig } from '../config/load.js';
import { probeLlm } from '../llm/probe.js';
import { LLM_PRESETS, presetById, presetForUrl, type LlmPreset } from './presets.js';
import type { SetupFlags } from './flags.js';
import { SetupCancelled, type SetupUi } from './ui.js';

export interface LlmChoice {
  baseUrl: string;
  model: string;
  keyVariable: string | undefined;
  key: string;
}

export interface Existing {
  baseUrl?: string;
  model?: string;
  /** The value of the key variable found in the current .env. */
  key?: string;
}

/** A failure the set-up cannot get past without the person (or, with --yes, a flag). */
export class SetupFailed extends Error {}

/**
 * The LLM: a provider preset (or any base URL), the key, a model the server offers, then one real completion
 * to test them on the spot. Interactive: a failed test offers to change what failed; with --yes it fails
 * (unless --skip-llm-test).
 */
export async function chooseLlm(ui: SetupUi, flags: SetupFlags, existing: Existing): Promise<LlmChoice> {
  let preset = await choosePreset(ui, flags, existing);
  let baseUrl = await chooseBaseUrl(ui, flags, preset, existing);
  let key = await chooseKey(ui, flags, preset, existing);
  let model: string | undefined = flags.model;
  for (;;) {
    const listed = await ui.progress(`Asking ${baseUrl} for its models`, () => listModels(baseUrl, key, model ?? preset.defaultModel));
    model ??= await chooseModel(ui, flags, preset, existing, listed);
    if (flags.skipLlmTest) {
      ui.warn('Not testing the LLM (--skip-llm-test).');
      return { baseUrl, model, keyVariable: preset.keyVariable, key };
    }
    const probe = await ui.progress(`Testing ${model} at ${baseUrl}`, () => probeLlm(llmConfig(baseUrl, key, model ?? ''), { complete: true, timeoutMs: 30_000 }));
    if (probe.status === 'ok') {
      ui.success(`The LLM answers: ${model} at ${baseUrl}.`);
      return { baseUrl, model, keyVariable: preset.keyVariable, key };
    }
    const reason = [probe.detail, probe.fix].filter(Boolean).join('; ');
    if (!ui.interactive) throw new SetupFailed(`the LLM test failed: ${reason} (fix the flags, or pass --skip-llm-test to write the files anyway)`);
    ui.error(`The LLM test failed: ${reason}`);
    const next = await ui.select({
      message: 'What now?',
      options: [
        { value: 'key', label: 'Enter the key again' },
        { value: 'url', label: 'Change the server (base URL)' },
        { value: 'model', label: 'Choose another model' },
        { value: 'keep', label: 'Keep these settings anyway', hint: 'fix them later in config.yaml / .env' },
        { value: 'cancel', label: 'Stop the set-up (nothing is written)' },
      ],
    });
    if (next === 'keep') return { baseUrl, model, keyVariable: preset.keyVariable, key };
    if (next === 'cancel') throw new SetupCancelled();
    if (next === 'key') key = await askKey(ui, preset);
    if (next === 'url') {
      preset = await choosePreset(ui, { ...flags, provider: undefined, baseUrl: undefined }, existing);
      baseUrl = await chooseBaseUrl(ui, { ...flags, baseUrl: undefined }, preset, { ...existing, baseUrl });
      if (preset.keyVariable !== undefined && key === '') key = await askKey(ui, preset);
    }
    if (next === 'model' || next === 'url') model = undefined;
  }
}

async function choosePreset(ui: SetupUi, flags: SetupFlags, existing: Existing): Promise<LlmPreset> {
  if (flags.provider !== undefined) {
    const preset = presetById(flags.provider);
    if (!preset) throw new SetupFailed(`--provider ${flags.provider}: use one of ${LLM_PRESETS.map((entry) => entry.id).join(', ')}`);
    return preset;
  }
  if (flags.baseUrl !== undefined) return presetForUrl(flags.baseUrl);
  const current = existing.baseUrl !== undefined ? presetForUrl(existing.baseUrl) : presetById('openai');
  if (!ui.interactive) return current ?? (LLM_PRESETS[0] as LlmPreset);
  return ui.select({
    message: 'Which LLM should answer?',
    options: LLM_PRESETS.map((preset) => ({ value: preset, label: preset.label, hint: preset.hint })),
    ...(current ? { initialValue: current } : {}),
  });
}

async function chooseBaseUrl(ui: SetupUi, flags: SetupFlags, preset: LlmPreset, existing: Existing): Promise<string> {
  if (flags.baseUrl !== undefined) return checkedUrl(flags.baseUrl);
  const current = existing.baseUrl !== undefined && presetForUrl(existing.baseUrl).id === preset.id ? existing.baseUrl : preset.baseUrl;
  // Hosted presets have one address; local servers and "custom" may live elsewhere.
  if (!ui.interactive || preset.id === 'openai' || preset.id === 'openrouter') return current;
  const answer = await ui.text({ message: `The server's base URL (OpenAI-compatible, usually ending in /v1)`, initialValue: current, validate: (value) => urlProblem(value) });
  return answer.trim().replace(/\/+$/, '');
}

async function chooseKey(ui: SetupUi, flags: SetupFlags, preset: LlmPreset, existing: Existing): Promise<string> {
  if (flags.apiKey !== undefined) return flags.apiKey.trim();
  if (preset.keyVariable === undefined) return '';
  if (existing.key !== undefined && existing.key !== '') {
    if (!ui.interactive) return existing.key;
    const keep = await ui.confirm({ message: `Keep the ${preset.keyVariable} already in .env (…${existing.key.slice(-4)})?`, initialValue: true });
    if (keep) return existing.key;
  }
  if (!ui.interactive) {
    if (preset.keyRequired) throw new SetupFailed(`${preset.label} needs an API key: pass --api-key (it goes to .env as ${preset.keyVariable})`);
    return '';
  }
  return askKey(ui, preset);
}

async function askKey(ui: SetupUi, preset: LlmPreset): Promise<string> {
  const answer = await ui.password({
    message: `${preset.label} API key${preset.keyRequired ? '' : ' (leave empty if the server needs none)'} — it goes to .env as ${preset.keyVariable ?? 'LLM_API_KEY'}, never into config.yaml`,
    validate: (value) => (preset.keyRequired && value.trim() === '' ? 'a key is needed for this provider' : undefined),
  });
  return answer.trim();
}

async function chooseModel(ui: SetupUi, flags: SetupFlags, preset: LlmPreset, existing: Existing, listed: string[]): Promise<string> {
  const fallback = existing.model ?? (listed.length > 0 && !listed.includes(preset.defaultModel) ? (listed[0] ?? preset.defaultModel) : preset.defaultModel);
  if (!ui.interactive || flags.yes) return fallback;
  if (listed.length > 0 && listed.length <= 40) {
    const other = '\u0000other';
    const picked = await ui.select({
      message: 'Which model?',
      options: [...listed.map((id) => ({ value: id, label: id })), { value: other, label: 'Another model (type its name)' }],
      initialValue: listed.includes(fallback) ? fallback : (listed[0] ?? fallback),
    });
    if (picked !== other) return picked;
  }
  const typed = await ui.text({ message: 'The model name', initialValue: fallback, validate: (value) => (value.trim() === '' ? 'a model name is needed' : undefined) });
  return typed.trim();
}

/** The models the server lists; none when it has no list (the test completion still tells). */
async function listModels(baseUrl: string, key: string, model: string): Promise<string[]> {
  const probe = await probeLlm(llmConfig(baseUrl, key, model), { timeoutMs: 15_000, listOnly: true });
  return probe.models ?? [];
}

function llmConfig(baseUrl: string, key: string, model: string) {
  return validateConfig({ llm: { base_url: baseUrl, api_key: key, model } }).llm;
}

function urlProblem(value: string): string | undefined {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'use an http:// or https:// URL';
  } catch {
    return 'not a URL (e.g. http://127.0.0.1:11434/v1)';
  }
}

function checkedUrl(value: string): string {
  const problem = urlProblem(value);
  if (problem) throw new SetupFailed(`--base-url ${value}: ${problem}`);
  return value.trim().replace(/\/+$/, '');
}
