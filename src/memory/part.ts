import type { Database } from '../db/database.js';
import type { Logger } from '../log.js';
import { seedFolder } from '../config/seed-folders.js';
import type { Part } from '../part.js';
import { currentTaint, withCallScope } from '../lib/call-scope.js';
import type { Delivery, ButtonHandler } from '../delivery/types.js';
import type { LlmClient } from '../llm/types.js';
import { Consolidator, type ConsolidationSettings } from './consolidation/consolidator.js';
import { HouseholdConsolidation } from './consolidation/household.js';
import type { People } from '../config/people.js';
import type { ProvenanceLabels } from '../gate/labels.js';
import { createMemoryCommands } from './commands.js';
import { MemoryHistory } from './history.js';
import { MemoryStore } from './store.js';
import { upgradeToHousehold } from './household-upgrade.js';
import { createMemoryTools } from './tools.js';
import { createMemoryShareTool } from './share-tool.js';
import { createEmbedder, type EmbeddingsSetting } from './search/embedder.js';
import { HybridSearch } from './search/hybrid-search.js';
import { VectorStore } from './search/vector-store.js';

export interface MemoryPart {
  store: MemoryStore;
  history: MemoryHistory;
  part: Part;
  /** Consolidation by the model, once the model and the delivery path exist; it runs only in the started daemon. */
  attachConsolidation(deps: ConsolidationWiring): Consolidator | HouseholdConsolidation;
  /** Apply and Discard under a consolidation proposal. */
  pressButton: ButtonHandler;
}

export interface ConsolidationWiring {
  llm: LlmClient;
  delivery: Delivery;
  settings: ConsolidationSettings;
  /** In a household: who is who, and the running channels' direct chats, where each person's proposal goes. */
  people?: Pick<People, 'get' | 'forSender'>;
  directChat?: ((name: string) => Promise<string | undefined>) | undefined;
}

/**
 * Long-term memory: the folder of Markdown files, the memory tools, the history of the assistant's writes with
 * the hand-edit guard, the labels of files outside content touched, and `/memory`, `/trust` and `/undo`.
 */
export function createMemoryPart(deps: {
  memoryDir: string; db: Database; log: Logger; labels: ProvenanceLabels; embeddings?: EmbeddingsSetting;
  /** `people:` in config: each person sees their folder and shared/; the first start moves a single person's files. */
  household?: { owner: string; people: readonly string[] } | undefined;
}): MemoryPart {
  // The starter memory (the package's memory/) is copied in on first use: the person's files are theirs.
  seedFolder('memory', deps.memoryDir, deps.log);
  const store = new MemoryStore(deps.memoryDir, deps.db);
  if (deps.household) {
    upgradeToHousehold({ root: deps.memoryDir, db: deps.db, ...deps.household, log: deps.log.child({ component: 'memory' }) });
    store.useHousehold(deps.db, deps.household.owner);
  }
  const hybrid = createHybridSearch(store, deps);
  if (hybrid) store.useHybridSearch(hybrid);
  const history = new MemoryHistory(store, deps.db, deps.log.child({ component: 'memory-history' }));
  history.attach();
  labelOutsideContent(store, deps.labels);
  // Reads the model made: an overwrite later in the conversation is checked against what it saw.
  const tools = createMemoryTools({
    onRead(conversationId, requested, content) {
      const resolved = store.resolve(requested);
      if (resolved.success) history.noteRead(conversationId, resolved.value.relative, content);
    },
  });
  if (deps.household) tools.push(createMemoryShareTool());
  let consolidator: Consolidator | HouseholdConsolidation | undefined;
  let started = false;
  store.onWrite((event) => {
    // Outside the writing call's scope: a consolidation is not made from what that call read. In a household each
    // person's pass is their own, in their own folder (consolidation/household.ts).
    if (!started || !consolidator) return;
    const running = consolidator;
    withCallScope({ taint: [] }, () => void (running instanceof HouseholdConsolidation ? running.afterWrite(event.path) : running.maybeRun()));
  });
  return {
    store,
    history,
    attachConsolidation({ people, directChat, ...more }) {
      const shared = { store, history, labels: deps.labels, db: deps.db, ...more, log: deps.log.child({ component: 'memory-consolidation' }) };
      consolidator = deps.household && people ? new HouseholdConsolidation({ ...shared, people, directChat }) : new Consolidator(shared);
      return consolidator;
    },
    pressButton: async (press) => consolidator?.press(press),
    part: {
      name: 'memory',
      tools,
      commands: createMemoryCommands({ store, history, labels: deps.labels }),
      // The running daemon watches the folder instead of reading it every turn; a one-shot command reads it once.
      async start() {
        started = true;
        if (!store.watch()) deps.log.warn({ path: deps.memoryDir }, 'cannot watch the memory folder; it is read again on every turn');
      },
      async close() {
        store.close();
      },
    },
  };
}

/** Search by meaning when the config names an embedder; nothing is loaded until the first search. */
export function createHybridSearch(store: MemoryStore, deps: { db: Database; log: Logger; embeddings?: EmbeddingsSetting }): HybridSearch | undefined {
  const log = deps.log.child({ component: 'memory-search' });
  const embedder = createEmbedder(deps.embeddings ?? 'off', log);
  if (!embedder) return undefined;
  return new HybridSearch({ index: store.searchIndex, vectors: new VectorStore(deps.db, log), embedder, log, sync: () => store.syncIndex() });
}

/**
 * A file written while outside content is in play carries its sources: kept out of the prompt, read as outside
 * content, until the person clears the label (/trust, familiar memory trust). A removed file loses its label.
 */
function labelOutsideContent(store: MemoryStore, labels: ProvenanceLabels): void {
  store.onWrite((event) => {
    if (event.content === null) {
      labels.clear('memory', event.path);
      return;
    }
    const taint = currentTaint();
    if (taint.length > 0) labels.label('memory', event.path, taint);
  });
  store.addOutsideLabeler((path) => {
    const sources = labels.get('memory', path);
    return sources ? `memory:${path} (written while reading ${sources.join(', ')})` : undefined;
  });
  // The prompt's memory section is rebuilt when the labelled files change (few: what outside content touched).
  store.addPromptFilter((path) => labels.get('memory', path) === undefined, () => [...labels.all('memory').keys()].join('\n'));
}
