import { platformOf, type ChatPlatform, type PlatformContext } from '../platform.js';
import { createSignalPrompter } from './signal-approvals.js';
import { SignalChannel, type SignalConfig } from './signal-channel.js';

/** Signal as a platform of the table: the channel, its approval reactions and its reply reactions. */
export function createSignalPlatform(context: PlatformContext): ChatPlatform {
  const { log } = context;
  const channel = new SignalChannel({ router: context.router, config: context.config.channels.signal as SignalConfig, log });
  return platformOf(channel, {
    prompter: (pending) => createSignalPrompter({ channel, pending, log }),
    listenForButtons: (deps) => channel.buttons.listen(channel, deps),
    // A person is addressed by their number or UUID: the chat id of a direct chat is theirs.
    directChat: (userId) => Promise.resolve(userId),
  });
}
