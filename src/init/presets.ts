/** The LLM servers `familiar init` knows by name; "custom" is any OpenAI-compatible base URL. */
export interface LlmPreset {
  id: 'openai' | 'openrouter' | 'ollama' | 'llamacpp' | 'custom';
  label: string;
  baseUrl: string;
  /** The .env variable the key goes in; undefined = a local server that needs none. */
  keyVariable: string | undefined;
  /** Whether a key is required (OpenAI, OpenRouter) or may stay empty (custom). */
  keyRequired: boolean;
  defaultModel: string;
  hint: string;
}

export const LLM_PRESETS: readonly LlmPreset[] = [
  { id: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', keyVariable: 'OPENAI_API_KEY', keyRequired: true, defaultModel: 'gpt-4o-mini', hint: 'an API key from platform.openai.com' },
  { id: 'openrouter', label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', keyVariable: 'OPENROUTER_API_KEY', keyRequired: true, defaultModel: 'openai/gpt-4o-mini', hint: 'many models behind one key, from openrouter.ai/keys' },
  { id: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', keyVariable: undefined, keyRequired: false, defaultModel: 'llama3.1', hint: 'local models, no key; e.g. ollama pull llama3.1' },
  { id: 'llamacpp', label: 'llama.cpp server', baseUrl: 'http://127.0.0.1:8080/v1', keyVariable: undefined, keyRequired: false, defaultModel: 'local', hint: 'llama-server, no key' },
  { id: 'custom', label: 'Another OpenAI-compatible server', baseUrl: 'http://127.0.0.1:8000/v1', keyVariable: 'LLM_API_KEY', keyRequired: false, defaultModel: 'gpt-4o-mini', hint: 'any base URL: vLLM, LM Studio, LiteLLM, a hosted API' },
];

export function presetById(id: string): LlmPreset | undefined {
  return LLM_PRESETS.find((preset) => preset.id === id);
}

/** The preset an existing base URL belongs to (custom when none matches). */
export function presetForUrl(baseUrl: string): LlmPreset {
  const normal = baseUrl.replace(/\/+$/, '');
  return LLM_PRESETS.find((preset) => preset.id !== 'custom' && preset.baseUrl === normal) ?? (LLM_PRESETS.at(-1) as LlmPreset);
}
